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
              {Depth::f32, 1, 3, MedianMethod::automatic},
              {Depth::f32, 1, 5, MedianMethod::automatic}},
              {{131, 257}}, 300);
}

// Few distinct values make many ties and exercise every exchange (the 0-1 principle's spirit).
TEST(Median, FewDistinctValues) {
  std::uint32_t seed = 400;
  for (int ksize : {3, 5, 7}) {
    for (MedianMethod method : {MedianMethod::network, MedianMethod::sorted_columns, MedianMethod::histogram, MedianMethod::tiled}) {
      if (method == MedianMethod::sorted_columns && ksize != 3) continue;
      SCOPED_TRACE(std::to_string(ksize) + " " + std::string(to_string(method)));
      const HostImage src = random_image(61, 47, Format{Depth::u8, 1}, seed++, 0, 2);
      MedianOptions options;
      options.ksize = ksize;
      options.method = method;
      EXPECT_TRUE(images_equal(expected(src, ksize, BorderMode::replicate, 0), run(src, options, false)));
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
  DeviceImage wrong(context(), 8, 8, Format{Depth::u8, 2});
  EXPECT_TRUE(throws_code([&] { median_blur(queue(), u8, wrong, with(3)); }, ErrorCode::invalid_argument));
  DeviceImage same = u8;
  EXPECT_TRUE(throws_code([&] { median_blur(queue(), u8, same, with(3)); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([] { parse_median_method("quick"); }, ErrorCode::invalid_argument));
}

}  // namespace
}  // namespace plinth::test
