// median_blur against cv::medianBlur: every variant, depth, channel count, window size and border.
#include <opencv2/imgproc.hpp>

#include "support/test_support.hpp"

namespace plinth::test {
namespace {

int cv_border(BorderMode mode) {
  switch (mode) {
    case BorderMode::constant: return cv::BORDER_CONSTANT;
    case BorderMode::replicate: return cv::BORDER_REPLICATE;
    case BorderMode::reflect: return cv::BORDER_REFLECT;
    case BorderMode::reflect_101: return cv::BORDER_REFLECT_101;
    case BorderMode::wrap: return cv::BORDER_WRAP;
  }
  return -1;
}

// cv::medianBlur replicates; for the other modes the source is padded by OpenCV first (with
// copyMakeBorder) and the middle of the result is kept.
HostImage expected(const HostImage& src, int ksize, BorderMode border, double value) {
  cv::Mat out;
  if (border == BorderMode::replicate) {
    cv::medianBlur(as_mat(src), out, ksize);
    return from_mat(out);
  }
  const int r = ksize / 2;
  cv::Mat padded;
  cv::copyMakeBorder(as_mat(src), padded, r, r, r, r, cv_border(border), cv::Scalar::all(value));
  cv::medianBlur(padded, out, ksize);
  return from_mat(out(cv::Rect(r, r, src.width(), src.height())).clone());
}

HostImage run(const HostImage& src, const MedianOptions& options, bool views) {
  const DeviceImage d_src = views ? upload_padded(src, 3, 2) : queue().upload(src);
  DeviceImage dst = poisoned_view(src.width(), src.height(), src.format(), views ? 2 : 0, views ? 1 : 0, 0xA5);
  median_blur(queue(), d_src, dst, options).wait();
  return queue().download(dst);
}

struct Case {
  Depth depth;
  int channels;
  int ksize;
  MedianMethod method;
};

std::string describe(const Case& c, Size size) {
  return std::string(to_string(c.depth)) + "C" + std::to_string(c.channels) + " " + std::to_string(c.ksize) + "x" +
         std::to_string(c.ksize) + " " + std::string(to_string(c.method)) + " " + std::to_string(size.width) + "x" +
         std::to_string(size.height);
}

void check_cases(std::initializer_list<Case> cases, std::initializer_list<Size> sizes, std::uint32_t seed) {
  for (const Case& c : cases) {
    for (Size size : sizes) {
      SCOPED_TRACE(describe(c, size));
      const HostImage src = random_image(size.width, size.height, Format{c.depth, c.channels}, seed++);
      const HostImage want = expected(src, c.ksize, BorderMode::replicate, 0.0);
      MedianOptions options;
      options.ksize = c.ksize;
      options.method = c.method;
      EXPECT_TRUE(images_equal(want, run(src, options, (seed & 1) != 0)));
    }
  }
}

TEST(Median, ThreeByThree) {
  check_cases({{Depth::u8, 1, 3, MedianMethod::sorted_columns},
               {Depth::u8, 2, 3, MedianMethod::sorted_columns},
               {Depth::u8, 3, 3, MedianMethod::sorted_columns},
               {Depth::u8, 4, 3, MedianMethod::sorted_columns},
               {Depth::u16, 1, 3, MedianMethod::sorted_columns},
               {Depth::u16, 3, 3, MedianMethod::sorted_columns},
               {Depth::s16, 4, 3, MedianMethod::sorted_columns},
               {Depth::f32, 1, 3, MedianMethod::sorted_columns},
               {Depth::f32, 4, 3, MedianMethod::sorted_columns},
               {Depth::u8, 1, 3, MedianMethod::network},
               {Depth::u8, 4, 3, MedianMethod::network},
               {Depth::f32, 1, 3, MedianMethod::network},
               {Depth::s16, 2, 3, MedianMethod::network},
               {Depth::u8, 1, 3, MedianMethod::histogram},
               {Depth::u8, 1, 3, MedianMethod::tiled},
               {Depth::f32, 2, 3, MedianMethod::tiled},
               {Depth::u8, 3, 3, MedianMethod::plain},
               {Depth::f32, 1, 3, MedianMethod::plain}},
              {{1, 1}, {2, 3}, {37, 23}, {67, 5}, {300, 9}}, 1);
}

TEST(Median, FiveByFive) {
  check_cases({{Depth::u8, 1, 5, MedianMethod::network},
               {Depth::u8, 4, 5, MedianMethod::network},
               {Depth::u16, 1, 5, MedianMethod::network},
               {Depth::u16, 4, 5, MedianMethod::network},
               {Depth::s16, 3, 5, MedianMethod::network},
               {Depth::f32, 1, 5, MedianMethod::network},
               {Depth::f32, 2, 5, MedianMethod::network},
               {Depth::u8, 1, 5, MedianMethod::histogram},
               {Depth::u8, 1, 5, MedianMethod::tiled},
               {Depth::u8, 4, 5, MedianMethod::tiled},
               {Depth::u16, 1, 5, MedianMethod::tiled},
               {Depth::s16, 3, 5, MedianMethod::tiled},
               {Depth::f32, 1, 5, MedianMethod::tiled},
               {Depth::u8, 3, 5, MedianMethod::histogram},
               {Depth::u8, 1, 5, MedianMethod::plain},
               {Depth::u16, 1, 5, MedianMethod::plain}},
              {{1, 1}, {4, 3}, {37, 23}, {67, 41}}, 100);
}

TEST(Median, LargeWindows) {
  check_cases({{Depth::u8, 1, 7, MedianMethod::network},
               {Depth::u8, 1, 7, MedianMethod::tiled},
               {Depth::u8, 3, 7, MedianMethod::tiled},
               {Depth::u8, 1, 9, MedianMethod::tiled},
               {Depth::u8, 1, 7, MedianMethod::histogram},
               {Depth::u8, 4, 7, MedianMethod::histogram},
               {Depth::u8, 1, 9, MedianMethod::histogram},
               {Depth::u8, 3, 15, MedianMethod::histogram},
               {Depth::u8, 1, 17, MedianMethod::histogram},
               {Depth::u8, 1, 31, MedianMethod::histogram},
               {Depth::u8, 1, 7, MedianMethod::plain},
               {Depth::u8, 1, 15, MedianMethod::plain}},
              {{1, 1}, {5, 9}, {67, 53}}, 200);
}

// The automatic choice, on an image taller than one histogram band.
TEST(Median, AutomaticOnLargerImages) {
  check_cases({{Depth::u8, 1, 3, MedianMethod::automatic},
               {Depth::u8, 1, 5, MedianMethod::automatic},
               {Depth::u8, 1, 7, MedianMethod::automatic},
               {Depth::u8, 1, 9, MedianMethod::automatic},
              {Depth::u8, 1, 11, MedianMethod::automatic},
              {Depth::u8, 4, 5, MedianMethod::automatic},
              {Depth::u8, 2, 3, MedianMethod::automatic},
              {Depth::u8, 4, 3, MedianMethod::automatic},
              {Depth::f32, 1, 3, MedianMethod::automatic},
              {Depth::f32, 1, 5, MedianMethod::automatic}},
              {{131, 257}}, 300);
}

// Few distinct values make many ties and exercise every exchange (the 0-1 principle's spirit).
TEST(Median, FewDistinctValues) {
  std::uint32_t seed = 400;
  for (int ksize : {3, 5, 7}) {
    for (MedianMethod method : {MedianMethod::network, MedianMethod::sorted_columns, MedianMethod::histogram, MedianMethod::tiled,
                                MedianMethod::sorted_rows_packed}) {
      if ((method == MedianMethod::sorted_columns || method == MedianMethod::sorted_rows_packed) && ksize != 3) continue;
      for (int channels : {1, 2, 4}) {
        if (channels != 1 && method != MedianMethod::sorted_rows_packed) continue;
        SCOPED_TRACE(std::to_string(ksize) + " " + std::string(to_string(method)) + " C" + std::to_string(channels));
        const HostImage src = random_image(61, 47, Format{Depth::u8, channels}, seed++, 0, 2);
        MedianOptions options;
        options.ksize = ksize;
        options.method = method;
        EXPECT_TRUE(images_equal(expected(src, ksize, BorderMode::replicate, 0), run(src, options, false)));
      }
    }
  }
}

TEST(Median, BorderModes) {
  std::uint32_t seed = 500;
  for (BorderMode border : {BorderMode::constant, BorderMode::reflect, BorderMode::reflect_101, BorderMode::wrap}) {
    for (auto [ksize, method] : {std::pair{3, MedianMethod::sorted_columns}, std::pair{3, MedianMethod::network},
                                 std::pair{5, MedianMethod::histogram}, std::pair{5, MedianMethod::plain},
                                 std::pair{7, MedianMethod::tiled}}) {
      SCOPED_TRACE(std::string(to_string(border)) + " " + std::to_string(ksize) + " " + std::string(to_string(method)));
      for (Size size : {Size{1, 1}, Size{3, 2}, Size{29, 17}}) {
        const HostImage src = random_image(size.width, size.height, Format{Depth::u8, 1}, seed++);
        MedianOptions options;
        options.ksize = ksize;
        options.border = border;
        options.border_value = 200;
        options.method = method;
        EXPECT_TRUE(images_equal(expected(src, ksize, border, 200), run(src, options, true)));
      }
    }
  }
  // A float constant border keeps its value.
  const HostImage src = random_image(23, 11, Format{Depth::f32, 1}, 600);
  MedianOptions options;
  options.ksize = 5;
  options.border = BorderMode::constant;
  options.border_value = -12.5;
  EXPECT_TRUE(images_equal(expected(src, 5, BorderMode::constant, -12.5), run(src, options, false)));
}

// tiled_packed: tiled's networks on two tiles at once, the second below the first (rows of two
// tiles per work-item: 4 for 3x3 to 9x9), for u8 (3x3 to 9x9) and u16 (3x3, 5x5) with 1 to 4
// channels. Heights that end in
// the first tile, in the second and after both; widths inside a tile; views; every border; the
// extremes 0 and 255 / 65535 and few distinct values.
TEST(Median, TiledPacked) {
  std::uint32_t seed = 700;
  const Size sizes[] = {{1, 1}, {3, 2}, {9, 3}, {11, 5}, {17, 6}, {37, 23}, {67, 41}};
  for (const int ksize : {3, 5, 7, 9}) {
    for (const Depth depth : {Depth::u8, Depth::u16}) {
      for (const int channels : {1, 3}) {
        if (depth == Depth::u16 && (channels != 1 || ksize > 5)) continue;  // OpenCV's u16: 3x3 and 5x5
        if (channels != 1 && ksize != 5) continue;                             // programs are slow to build on CPUs
        for (const Size size : sizes) {
          SCOPED_TRACE(std::to_string(ksize) + " " + std::string(to_string(depth)) + "C" + std::to_string(channels) + " " +
                       std::to_string(size.width) + "x" + std::to_string(size.height));
          const HostImage src = random_image(size.width, size.height, Format{depth, channels}, seed++);
          MedianOptions options;
          options.ksize = ksize;
          options.method = MedianMethod::tiled_packed;
          EXPECT_TRUE(images_equal(expected(src, ksize, BorderMode::replicate, 0), run(src, options, (seed & 1) != 0)));
        }
      }
    }
  }
  for (const BorderMode border : {BorderMode::constant, BorderMode::reflect, BorderMode::reflect_101, BorderMode::wrap}) {
    const Depth depth = border == BorderMode::constant || border == BorderMode::wrap ? Depth::u16 : Depth::u8;
    {
      SCOPED_TRACE(std::string(to_string(border)) + " " + std::string(to_string(depth)));
      const HostImage src = random_image(29, 17, Format{depth, 2}, seed++);
      MedianOptions options;
      options.ksize = 5;
      options.border = border;
      options.border_value = depth == Depth::u8 ? 255 : 65535;
      options.method = MedianMethod::tiled_packed;
      EXPECT_TRUE(images_equal(expected(src, 5, border, options.border_value), run(src, options, true)));
    }
  }
  for (const Depth depth : {Depth::u8, Depth::u16}) {
    const double top = depth == Depth::u8 ? 255 : 65535;
    for (const double lo : {0.0, top - 1}) {
      const HostImage src = random_image(70, 45, Format{depth, 4}, seed++, lo, lo + 1);
      MedianOptions options;
      options.ksize = 5;
      options.method = MedianMethod::tiled_packed;
      EXPECT_TRUE(images_equal(expected(src, 5, BorderMode::replicate, 0), run(src, options, false)))
          << to_string(depth) << " values " << lo << "-" << lo + 1;
    }
  }
  MedianOptions bad;
  bad.ksize = 5;
  bad.method = MedianMethod::tiled_packed;
  EXPECT_TRUE(throws_code([&] { (void)median_blur(queue(), random_image(8, 8, Format{Depth::f32, 1}, 1), bad); },
                          ErrorCode::invalid_argument));
  bad.ksize = 11;
  EXPECT_TRUE(throws_code([&] { (void)median_blur(queue(), random_image(8, 8, Format{Depth::u8, 1}, 1), bad); },
                          ErrorCode::invalid_argument));
}

// sorted_rows_packed (3x3, u8, 1, 2 or 4 channels). Its work-items do 8 bytes (8 / channels
// pixels) x 4 or 8 rows (8 rows from 512 work-items of 8 x 8 bytes per compute unit: PoCL's 2
// give 65,536 bytes and up), load and store words where the rows sit on 4-byte boundaries and the
// pixels lie inside the row, and fall back to bytes through the border elsewhere: sizes around
// those boundaries, widths not a multiple of 2, 4 or 8, and views whose offset or pitch is not a
// multiple of 4.
struct PackedLayout {
  std::size_t pitch_extra;  // bytes added to the row length
  std::size_t offset;       // bytes from the buffer's start
};

// src or dst as a view of a poisoned buffer with the given pitch and offset; `owner` keeps the
// buffer allocated.
DeviceImage laid_out(int width, int height, int channels, PackedLayout layout, DeviceImage& owner) {
  const std::size_t pitch = static_cast<std::size_t>(width) * static_cast<std::size_t>(channels) + layout.pitch_extra;
  const std::size_t bytes = layout.offset + pitch * static_cast<std::size_t>(height) + 16;
  owner = DeviceImage(context(), static_cast<int>(bytes), 1, Format{Depth::u8, 1});
  queue().fill_bytes(owner, 0xA5).wait();
  return DeviceImage::wrap(context(), owner.native(), width, height, Format{Depth::u8, channels}, pitch, layout.offset);
}

HostImage run_packed(const HostImage& src, const MedianOptions& options, PackedLayout in, PackedLayout out) {
  DeviceImage src_owner, dst_owner;
  const DeviceImage d_src = laid_out(src.width(), src.height(), src.channels(), in, src_owner);
  queue().upload(src, d_src).wait();
  DeviceImage dst = laid_out(src.width(), src.height(), src.channels(), out, dst_owner);
  median_blur(queue(), d_src, dst, options).wait();
  return queue().download(dst);
}

TEST(Median, SortedRowsPacked) {
  const Size sizes[] = {{1, 1},  {2, 3},   {1, 9},   {9, 1},   {4, 4},  {5, 7},   {7, 2},    {8, 8},     {9, 9},
                        {12, 5}, {13, 11}, {16, 16}, {17, 19}, {20, 3}, {23, 10}, {37, 23},  {67, 41},   {300, 9},
                        {301, 34}};
  // Aligned; offset not a multiple of 4; pitch not a multiple of 4; both.
  const PackedLayout layouts[][2] = {{{0, 0}, {0, 0}}, {{4, 8}, {12, 4}}, {{0, 3}, {0, 1}},
                                     {{1, 0}, {3, 0}}, {{5, 2}, {0, 0}},  {{0, 0}, {2, 6}}};
  std::uint32_t seed = 800;
  for (int channels : {1, 2, 4}) {
    for (BorderMode border : {BorderMode::replicate, BorderMode::constant, BorderMode::reflect, BorderMode::reflect_101,
                              BorderMode::wrap}) {
      for (Size size : sizes) {
        for (const auto& layout : layouts) {
          SCOPED_TRACE(std::to_string(channels) + " channels " + std::string(to_string(border)) + " " +
                       std::to_string(size.width) + "x" + std::to_string(size.height) + " pitch +" +
                       std::to_string(layout[0].pitch_extra) + "/+" + std::to_string(layout[1].pitch_extra) + " offset " +
                       std::to_string(layout[0].offset) + "/" + std::to_string(layout[1].offset));
          const HostImage src = random_image(size.width, size.height, Format{Depth::u8, channels}, seed++);
          MedianOptions options;
          options.ksize = 3;
          options.border = border;
          options.border_value = 200;
          options.method = MedianMethod::sorted_rows_packed;
          EXPECT_TRUE(images_equal(expected(src, 3, border, 200), run_packed(src, options, layout[0], layout[1])));
        }
      }
    }
  }
}

// Images of 8-row work-items (from 512 work-items of 8 x 8 bytes per compute unit, 8 / channels
// pixels each: PoCL from 640x480 on, GPUs of up to 156 SMs at 2563x2000 bytes' worth), every
// border, the extremes 0 and 255 (the lanes hold v * 257: 0 and 65535), few distinct values (ties)
// and a constant border of 255 next to the values 254 and 255.
TEST(Median, SortedRowsPackedLarge) {
  std::uint32_t seed = 900;
  for (int channels : {1, 2, 4}) {
    const Size sizes[] = {{640, 480}, {1023, 517}, {2563, 2000 / channels}};
    for (Size size : sizes) {
      const bool huge = size.width > 2000;
      for (BorderMode border : {BorderMode::replicate, BorderMode::constant, BorderMode::reflect, BorderMode::reflect_101,
                                BorderMode::wrap}) {
        if (huge && border != BorderMode::replicate && border != BorderMode::constant) continue;
        // Values 0-255, {0, 1}, {254, 255}.
        for (int kind : {0, 1, 2}) {
          if (huge && kind != 0) continue;
          SCOPED_TRACE(std::to_string(channels) + " channels " + std::string(to_string(border)) + " " +
                       std::to_string(size.width) + "x" + std::to_string(size.height) + " kind " + std::to_string(kind));
          const Format format{Depth::u8, channels};
          const HostImage src = kind == 1   ? random_image(size.width, size.height, format, seed++, 0, 1)
                                : kind == 2 ? random_image(size.width, size.height, format, seed++, 254, 255)
                                            : random_image(size.width, size.height, format, seed++);
          MedianOptions options;
          options.ksize = 3;
          options.border = border;
          options.border_value = border == BorderMode::constant ? (kind == 2 ? 0 : 255) : 0;
          options.method = MedianMethod::sorted_rows_packed;
          const HostImage want = expected(src, 3, border, options.border_value);
          EXPECT_TRUE(images_equal(want, run(src, options, false)));
          EXPECT_TRUE(images_equal(want, run(src, options, true)));
        }
      }
    }
    // Saturated extremes: channel c of a pixel is 255 or 0 by a pattern that differs between
    // channels (one channel: 255 with isolated 0), with isolated opposite values.
    HostImage img = random_image(333, 257, Format{Depth::u8, channels}, seed++, 255, 255);
    for (int y = 0; y < 257; ++y) {
      for (int x = 0; x < 333; ++x) {
        for (int c = 0; c < channels; ++c) {
          if ((x * 7 + y * 3 + c * 11) % 37 == 0 || (c & 1) != 0) img.at<std::uint8_t>(x, y, c) = 0;
          if ((c & 1) != 0 && (x + y * 5 + c) % 29 == 0) img.at<std::uint8_t>(x, y, c) = 255;
        }
      }
    }
    SCOPED_TRACE(std::to_string(channels) + " channels, extremes");
    MedianOptions options;
    options.ksize = 3;
    options.method = MedianMethod::sorted_rows_packed;
    EXPECT_TRUE(images_equal(expected(img, 3, BorderMode::replicate, 0), run(img, options, false)));
    EXPECT_TRUE(images_equal(expected(img, 3, BorderMode::replicate, 0), run(img, options, true)));
  }
  // One channel, 0 with isolated 255.
  HostImage zeros = random_image(333, 257, Format{Depth::u8, 1}, seed++, 0, 0);
  for (int i = 0; i < 333 * 257; i += 37) zeros.at<std::uint8_t>(i % 333, i / 333) = 255;
  MedianOptions options;
  options.ksize = 3;
  options.method = MedianMethod::sorted_rows_packed;
  EXPECT_TRUE(images_equal(expected(zeros, 3, BorderMode::replicate, 0), run(zeros, options, true)));
}

TEST(Median, OneCopiesAndSynchronousForm) {
  const HostImage src = random_image(17, 9, Format{Depth::u16, 2}, 700);
  MedianOptions options;
  options.ksize = 1;
  EXPECT_TRUE(images_equal(src, median_blur(queue(), src, options)));
  options.ksize = 3;
  EXPECT_TRUE(images_equal(expected(src, 3, BorderMode::replicate, 0), median_blur(queue(), src, options)));
}

TEST(Median, Errors) {
  const DeviceImage u8 = queue().upload(random_image(8, 8, Format{Depth::u8, 1}, 1));
  const DeviceImage f32 = queue().upload(random_image(8, 8, Format{Depth::f32, 1}, 2));
  const DeviceImage s32 = queue().upload(random_image(8, 8, Format{Depth::s32, 1}, 3));
  DeviceImage dst;
  const auto with = [](int ksize, MedianMethod method = MedianMethod::automatic) {
    MedianOptions o;
    o.ksize = ksize;
    o.method = method;
    return o;
  };
  EXPECT_TRUE(throws_code([&] { median_blur(queue(), u8, dst, with(4)); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { median_blur(queue(), u8, dst, with(-3)); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { median_blur(queue(), u8, dst, with(257)); }, ErrorCode::out_of_range));
  EXPECT_TRUE(throws_code([&] { median_blur(queue(), f32, dst, with(7)); }, ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([&] { median_blur(queue(), s32, dst, with(3)); }, ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([&] { median_blur(queue(), f32, dst, with(3, MedianMethod::histogram)); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { median_blur(queue(), u8, dst, with(5, MedianMethod::sorted_columns)); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { median_blur(queue(), u8, dst, with(9, MedianMethod::network)); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { median_blur(queue(), u8, dst, with(5, MedianMethod::sorted_rows_packed)); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { median_blur(queue(), f32, dst, with(3, MedianMethod::sorted_rows_packed)); }, ErrorCode::invalid_argument));
  const DeviceImage u8c3 = queue().upload(random_image(8, 8, Format{Depth::u8, 3}, 4));
  EXPECT_TRUE(throws_code([&] { median_blur(queue(), u8c3, dst, with(3, MedianMethod::sorted_rows_packed)); }, ErrorCode::invalid_argument));
  const DeviceImage u16c4 = queue().upload(random_image(8, 8, Format{Depth::u16, 4}, 5));
  EXPECT_TRUE(throws_code([&] { median_blur(queue(), u16c4, dst, with(3, MedianMethod::sorted_rows_packed)); }, ErrorCode::invalid_argument));
  EXPECT_EQ(parse_median_method("sorted_rows_packed"), MedianMethod::sorted_rows_packed);
  DeviceImage wrong(context(), 8, 8, Format{Depth::u8, 2});
  EXPECT_TRUE(throws_code([&] { median_blur(queue(), u8, wrong, with(3)); }, ErrorCode::invalid_argument));
  DeviceImage same = u8;
  EXPECT_TRUE(throws_code([&] { median_blur(queue(), u8, same, with(3)); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([] { parse_median_method("quick"); }, ErrorCode::invalid_argument));
}

}  // namespace
}  // namespace plinth::test
