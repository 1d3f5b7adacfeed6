// pyr_down / pyr_up / build_pyramid against cv::pyrDown / cv::pyrUp / cv::buildPyramid, and the
// subsampled pyramid against OpenCV's separable filter sampled as docs/filters.md says.
#include <opencv2/imgproc.hpp>

#include "ops/pyramid_pair.hpp"
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

::testing::AssertionResult same(const HostImage& want, const HostImage& got) {
  if (is_float(want.depth())) return images_near(want, got, 1e-6, 1e-4);
  return images_equal(want, got);
}

std::string describe(Depth depth, int channels, Size size, BorderMode border) {
  return std::string(to_string(depth)) + "C" + std::to_string(channels) + " " + std::to_string(size.width) + "x" +
         std::to_string(size.height) + " " + std::string(to_string(border));
}

const Size kSizes[] = {{1, 1}, {2, 3}, {17, 13}, {67, 33}, {300, 41}};

TEST(Pyramid, DownMatchesOpenCV) {
  struct Case {
    Depth depth;
    int channels;
  };
  const Case cases[] = {{Depth::u8, 1}, {Depth::u8, 3}, {Depth::u8, 4}, {Depth::u16, 1}, {Depth::s16, 2},
                        {Depth::f32, 1}, {Depth::f32, 4}, {Depth::f64, 1}};
  std::uint32_t seed = 1;
  for (const Case& c : cases) {
    if (c.depth == Depth::f64 && !context().device().has_fp64) continue;
    for (Size size : kSizes) {
      SCOPED_TRACE(describe(c.depth, c.channels, size, BorderMode::reflect_101));
      const HostImage src = random_image(size.width, size.height, Format{c.depth, c.channels}, seed++);
      cv::Mat want;
      cv::pyrDown(as_mat(src), want);
      const Size out{(size.width + 1) / 2, (size.height + 1) / 2};
      DeviceImage dst = poisoned_view(out.width, out.height, src.format(), 1, 2, 0x99);
      pyr_down(queue(), upload_padded(src, 2, 1), dst).wait();
      EXPECT_TRUE(same(from_mat(want), queue().download(dst)));
    }
  }
}

TEST(Pyramid, DownBorderModes) {
  std::uint32_t seed = 100;
  for (BorderMode border : {BorderMode::replicate, BorderMode::reflect, BorderMode::wrap}) {
    for (Size size : kSizes) {
      SCOPED_TRACE(describe(Depth::u8, 1, size, border));
      const HostImage src = random_image(size.width, size.height, Format{Depth::u8, 1}, seed++);
      cv::Mat want;
      cv::pyrDown(as_mat(src), want, cv::Size(), cv_border(border));
      EXPECT_TRUE(images_equal(from_mat(want), pyr_down(queue(), src, border)));
    }
  }
}

TEST(Pyramid, UpMatchesOpenCV) {
  struct Case {
    Depth depth;
    int channels;
  };
  const Case cases[] = {{Depth::u8, 1}, {Depth::u8, 3}, {Depth::u16, 4}, {Depth::s16, 1}, {Depth::f32, 1}, {Depth::f32, 2}};
  std::uint32_t seed = 200;
  for (const Case& c : cases) {
    for (Size size : kSizes) {
      SCOPED_TRACE(describe(c.depth, c.channels, size, BorderMode::reflect_101));
      const HostImage src = random_image(size.width, size.height, Format{c.depth, c.channels}, seed++);
      cv::Mat want;
      cv::pyrUp(as_mat(src), want);
      DeviceImage dst = poisoned_view(2 * size.width, 2 * size.height, src.format(), 3, 1, 0x99);
      pyr_up(queue(), upload_padded(src, 1, 1), dst).wait();
      EXPECT_TRUE(same(from_mat(want), queue().download(dst)));
    }
  }
}

// Sizes for the strips method: every size from 1x1 to 5x5 (strips narrower than one word, rows
// shorter than the halo), widths either side of its 8-column strips and 16-byte words, heights
// either side of its 4-row strips, and sizes with interior strips that take the word path.
std::vector<Size> strip_sizes() {
  std::vector<Size> sizes;
  for (int w = 1; w <= 5; ++w) {
    for (int h = 1; h <= 5; ++h) sizes.push_back(Size{w, h});
  }
  for (Size s : {Size{16, 8}, Size{17, 9}, Size{33, 6}, Size{47, 10}, Size{64, 17}, Size{100, 37}, Size{129, 3},
                 Size{250, 19}, Size{301, 211}})
    sizes.push_back(s);
  return sizes;
}

// Source and destination placements: whole images (rows word aligned), views whose offsets keep
// the rows word aligned (the word path), and views that do not (bytes gathered and stored one by one).
struct Placement {
  const char* name;
  int src_pad, dst_pad;  // columns of padding left of the view; 0: a whole image
};
constexpr Placement kPlacements[] = {{"whole", 0, 0},
                                     {"aligned views", 16, 16},
                                     {"unaligned views", 3, 1},
                                     {"aligned source, unaligned destination", 16, 1},
                                     {"unaligned source, aligned destination", 3, 16}};

DeviceImage place(const HostImage& src, int pad) { return pad == 0 ? queue().upload(src) : upload_padded(src, pad, 2); }

TEST(Pyramid, StripsDownMatchesOpenCV) {
  std::uint32_t seed = 600;
  for (int channels : {1, 4}) {
    for (BorderMode border : {BorderMode::reflect_101, BorderMode::replicate, BorderMode::reflect, BorderMode::wrap}) {
      for (const Placement& p : kPlacements) {
        for (Size size : strip_sizes()) {
          SCOPED_TRACE(describe(Depth::u8, channels, size, border) + " " + p.name);
          const HostImage src = random_image(size.width, size.height, Format{Depth::u8, channels}, seed++);
          cv::Mat want;
          cv::pyrDown(as_mat(src), want, cv::Size(), cv_border(border));
          const Size out{(size.width + 1) / 2, (size.height + 1) / 2};
          DeviceImage dst = p.dst_pad == 0 ? DeviceImage(context(), out.width, out.height, src.format())
                                           : poisoned_view(out.width, out.height, src.format(), p.dst_pad, 1, 0x99);
          if (p.dst_pad == 0) queue().fill_bytes(dst, 0x99);
          // Pads count pixels: 16 keeps 4-byte pixels' rows word aligned too, 3 and 1 do not.
          pyr_down(queue(), place(src, p.src_pad), dst, border, PyrLevelMethod::strips).wait();
          EXPECT_TRUE(images_equal(from_mat(want), queue().download(dst)));
        }
      }
    }
  }
}

TEST(Pyramid, StripsUpMatchesOpenCV) {
  std::uint32_t seed = 700;
  for (int channels : {1, 4}) {
    for (const Placement& p : kPlacements) {
      for (Size size : strip_sizes()) {
        SCOPED_TRACE(describe(Depth::u8, channels, size, BorderMode::reflect_101) + " " + p.name);
        const HostImage src = random_image(size.width, size.height, Format{Depth::u8, channels}, seed++);
        cv::Mat want;
        cv::pyrUp(as_mat(src), want);
        const Size out{2 * size.width, 2 * size.height};
        DeviceImage dst = p.dst_pad == 0 ? DeviceImage(context(), out.width, out.height, src.format())
                                         : poisoned_view(out.width, out.height, src.format(), p.dst_pad, 1, 0x99);
        if (p.dst_pad == 0) queue().fill_bytes(dst, 0x99);
        pyr_up(queue(), place(src, p.src_pad == 16 ? 8 : p.src_pad), dst, BorderMode::reflect_101, PyrLevelMethod::strips).wait();
        EXPECT_TRUE(images_equal(from_mat(want), queue().download(dst)));
      }
    }
  }
}

// Extremes of the packed 16-bit lanes: all 255 (the largest sums) and alternating 0 / 255 columns
// and rows (the largest rounding carries), through both paths.
TEST(Pyramid, StripsSaturatedInputs) {
  const Size size{83, 29};
  for (int channels : {1, 4}) {
    HostImage full(size.width, size.height, Format{Depth::u8, channels});
    HostImage checker(size.width, size.height, Format{Depth::u8, channels});
    for (int y = 0; y < size.height; ++y) {
      for (int x = 0; x < size.width; ++x) {
        for (int c = 0; c < channels; ++c) {
          full.at<std::uint8_t>(x, y, c) = 255;
          checker.at<std::uint8_t>(x, y, c) = ((x + y + c) & 1) != 0 ? 255 : 0;
        }
      }
    }
    for (const HostImage* src : {&full, &checker}) {
      cv::Mat down, up;
      cv::pyrDown(as_mat(*src), down);
      cv::pyrUp(as_mat(*src), up);
      EXPECT_TRUE(images_equal(from_mat(down), pyr_down(queue(), *src, BorderMode::reflect_101, PyrLevelMethod::strips)));
      EXPECT_TRUE(images_equal(from_mat(up), pyr_up(queue(), *src, BorderMode::reflect_101, PyrLevelMethod::strips)));
    }
  }
}

// Every level method by name, and the methods agree where each applies.
TEST(Pyramid, LevelMethodsTable) {
  for (const PyrLevelMethodInfo& m : pyr_level_methods()) {
    EXPECT_EQ(parse_pyr_level_method(m.name), m.method);
    EXPECT_EQ(to_string(m.method), m.name);
    EXPECT_FALSE(m.doc.empty());
  }
  const HostImage src = random_image(45, 22, Format{Depth::u8, 1}, 77);
  const HostImage down = pyr_down(queue(), src, BorderMode::reflect, PyrLevelMethod::baseline);
  const HostImage up = pyr_up(queue(), src, BorderMode::reflect_101, PyrLevelMethod::baseline);
  for (const PyrLevelMethodInfo& m : pyr_level_methods()) {
    SCOPED_TRACE(std::string(m.name));
    EXPECT_TRUE(images_equal(down, pyr_down(queue(), src, BorderMode::reflect, m.method)));
    EXPECT_TRUE(images_equal(up, pyr_up(queue(), src, BorderMode::reflect_101, m.method)));
  }
}

TEST(Pyramid, BuildMatchesOpenCV) {
  std::uint32_t seed = 300;
  for (PyramidMethod method : {PyramidMethod::automatic, PyramidMethod::per_level, PyramidMethod::two_levels}) {
    for (BorderMode border : {BorderMode::reflect_101, BorderMode::replicate, BorderMode::reflect, BorderMode::wrap}) {
      for (int channels : {1, 3}) {
        if (channels == 3 && border != BorderMode::reflect_101) continue;
        for (int levels : {1, 2, 5, 6}) {
          SCOPED_TRACE(std::string(to_string(method)) + " " + describe(Depth::u8, channels, Size{301, 211}, border) +
                       " levels " + std::to_string(levels));
          const HostImage src = random_image(301, 211, Format{Depth::u8, channels}, seed++);
          std::vector<cv::Mat> want;
          cv::buildPyramid(as_mat(src), want, levels - 1, cv_border(border));
          const std::vector<HostImage> got = build_pyramid(queue(), src, PyramidOptions{levels, border, method});
          ASSERT_EQ(got.size(), want.size());
          for (std::size_t i = 0; i < got.size(); ++i) {
            SCOPED_TRACE("level " + std::to_string(i));
            EXPECT_TRUE(images_equal(from_mat(want[i]), got[i]));
          }
        }
      }
    }
  }
  // Floats through the fused kernel.
  const HostImage src = random_image(97, 61, Format{Depth::f32, 1}, 399);
  std::vector<cv::Mat> want;
  cv::buildPyramid(as_mat(src), want, 3);
  const std::vector<HostImage> got = build_pyramid(queue(), src, PyramidOptions{4});
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(same(from_mat(want[i]), got[i]));
}

// Down to 1x1 and beyond: levels of a tiny image stay 1x1.
TEST(Pyramid, TinyImagesKeepShrinkingToOnePixel) {
  const HostImage src = random_image(3, 2, Format{Depth::u8, 1}, 7);
  std::vector<cv::Mat> want;
  cv::buildPyramid(as_mat(src), want, 4);
  const std::vector<HostImage> got = build_pyramid(queue(), src, PyramidOptions{5});
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(images_equal(from_mat(want[i]), got[i]));
}

// The reference: the level padded by OpenCV's copyMakeBorder, OpenCV's separable filter with the
// same weights, sampled at (s x + s/2, s y + s/2).
std::vector<HostImage> subsampled_reference(const HostImage& src, const SubsampledPyramidOptions& o) {
  const std::vector<float> weights = subsampled_pyramid_kernel(o);
  const cv::Mat kernel(static_cast<int>(weights.size()), 1, CV_32F, const_cast<float*>(weights.data()));
  std::vector<HostImage> out;
  cv::Mat level;
  as_mat(src).convertTo(level, CV_32F);
  out.push_back(from_mat(level));
  const int s = o.subsampling;
  for (int i = 1; i < o.levels; ++i) {
    const int r = kernel.rows / 2;
    cv::Mat padded, filtered;
    cv::copyMakeBorder(level, padded, r, r, r, r, cv_border(o.border));
    cv::sepFilter2D(padded, filtered, CV_32F, kernel, kernel, cv::Point(-1, -1), 0, cv::BORDER_REPLICATE);
    const cv::Mat smooth = filtered(cv::Rect(r, r, level.cols, level.rows));
    cv::Mat next(level.rows / s, level.cols / s, CV_32F);
    for (int y = 0; y < next.rows; ++y) {
      for (int x = 0; x < next.cols; ++x) next.at<float>(y, x) = smooth.at<float>(s * y + s / 2, s * x + s / 2);
    }
    out.push_back(from_mat(next));
    level = next;
  }
  return out;
}

TEST(Pyramid, SubsampledMatchesReference) {
  struct Case {
    int subsampling;
    int levels;
    Depth depth;
    Size size;
    BorderMode border;
  };
  const Case cases[] = {{4, 3, Depth::u8, {643, 481}, BorderMode::reflect_101},
                        {2, 4, Depth::u8, {131, 97}, BorderMode::reflect_101},
                        {2, 3, Depth::f32, {80, 43}, BorderMode::replicate},
                        {3, 2, Depth::u8, {50, 7}, BorderMode::reflect},
                        {4, 2, Depth::f32, {4, 4}, BorderMode::wrap}};
  std::uint32_t seed = 500;
  for (const Case& c : cases) {
    SCOPED_TRACE("subsampling " + std::to_string(c.subsampling) + " " + describe(c.depth, 1, c.size, c.border));
    const HostImage src = c.depth == Depth::u8 ? random_image(c.size.width, c.size.height, Format{c.depth, 1}, seed++)
                                               : random_image(c.size.width, c.size.height, Format{c.depth, 1}, seed++, 0, 255);
    SubsampledPyramidOptions o;
    o.levels = c.levels;
    o.subsampling = c.subsampling;
    o.border = c.border;
    const std::vector<HostImage> want = subsampled_reference(src, o);
    const std::vector<HostImage> got = subsampled_pyramid(queue(), src, o);
    ASSERT_EQ(want.size(), got.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      SCOPED_TRACE("level " + std::to_string(i));
      EXPECT_TRUE(images_near(want[i], got[i], 1e-5, 1e-3));
    }
  }
  const std::vector<float> k = subsampled_pyramid_kernel(SubsampledPyramidOptions{});
  EXPECT_EQ(k.size(), 23u);  // sigma 3.6, radius ceil(10.8) = 11
}

TEST(Pyramid, SubsampledKeepsTheCallersF32Source) {
  // An f32 source becomes level 0 itself; a later u8 source of the same size must get a level 0
  // of its own, not be converted into the caller's f32 image.
  const HostImage f32 = random_image(64, 48, Format{Depth::f32, 1}, 501);
  const DeviceImage d_f32 = queue().upload(f32);
  const DeviceImage d_u8 = queue().upload(random_image(64, 48, Format{Depth::u8, 1}, 502));
  SubsampledPyramidOptions o;
  o.levels = 2;
  std::vector<DeviceImage> levels;
  subsampled_pyramid(queue(), d_f32, levels, o);
  subsampled_pyramid(queue(), d_u8, levels, o).wait();
  EXPECT_TRUE(images_equal(f32, queue().download(d_f32)));
  EXPECT_NE(levels[0].native(), d_f32.native());
}

// The seed tracker's form: two frames' levels made together, one launch a level (and one for two
// u8 frames' levels 0), the same bit for bit as one call each: u8 and f32 frames, levels reused
// on the second round.
TEST(Pyramid, SubsampledPairEqualsTwoCalls) {
  SubsampledPyramidOptions o;
  o.levels = 3;
  o.subsampling = 3;
  const DeviceImage a = queue().upload(random_image(161, 97, Format{Depth::u8, 1}, 503));
  for (const Depth b_depth : {Depth::u8, Depth::f32}) {
    SCOPED_TRACE(std::string("second frame ") + std::string(to_string(b_depth)));
    const DeviceImage b = queue().upload(b_depth == Depth::u8 ? random_image(161, 97, Format{Depth::u8, 1}, 504)
                                                              : random_image(161, 97, Format{Depth::f32, 1}, 504, 0, 255));
    std::vector<DeviceImage> a_alone, b_alone, a_pair, b_pair;
    subsampled_pyramid(queue(), a, a_alone, o);
    subsampled_pyramid(queue(), b, b_alone, o);
    for (int round = 0; round < 2; ++round) {
      SCOPED_TRACE("round " + std::to_string(round));
      detail::subsampled_pyramid_pair(queue(), a, a_pair, b, b_pair, o).wait();
      ASSERT_EQ(a_pair.size(), 3u);
      ASSERT_EQ(b_pair.size(), 3u);
      for (std::size_t i = 0; i < 3; ++i) {
        SCOPED_TRACE("level " + std::to_string(i));
        EXPECT_TRUE(images_equal(queue().download(a_alone[i]), queue().download(a_pair[i])));
        EXPECT_TRUE(images_equal(queue().download(b_alone[i]), queue().download(b_pair[i])));
      }
    }
  }
  std::vector<DeviceImage> a_levels, b_levels;
  const DeviceImage smaller = queue().upload(random_image(160, 97, Format{Depth::u8, 1}, 505));
  EXPECT_TRUE(throws_code([&] { detail::subsampled_pyramid_pair(queue(), a, a_levels, smaller, b_levels, o); },
                          ErrorCode::invalid_argument));
}

TEST(Pyramid, Errors) {
  const DeviceImage u8 = queue().upload(random_image(8, 8, Format{Depth::u8, 1}, 1));
  const DeviceImage s32 = queue().upload(random_image(8, 8, Format{Depth::s32, 1}, 2));
  const DeviceImage rgb = queue().upload(random_image(8, 8, Format{Depth::u8, 3}, 3));
  DeviceImage dst;
  EXPECT_TRUE(throws_code([&] { pyr_down(queue(), u8, dst, BorderMode::constant); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { pyr_up(queue(), u8, dst, BorderMode::replicate); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { pyr_down(queue(), s32, dst); }, ErrorCode::unsupported_type));
  DeviceImage wrong(context(), 5, 4, Format{Depth::u8, 1});
  EXPECT_TRUE(throws_code([&] { pyr_down(queue(), u8, wrong); }, ErrorCode::invalid_argument));
  std::vector<DeviceImage> levels;
  EXPECT_TRUE(throws_code([&] { build_pyramid(queue(), u8, levels, PyramidOptions{0}); }, ErrorCode::out_of_range));
  SubsampledPyramidOptions o;
  o.levels = 3;  // 8 -> 2 -> 0
  EXPECT_TRUE(throws_code([&] { subsampled_pyramid(queue(), u8, levels, o); }, ErrorCode::out_of_range));
  o.levels = 2;
  o.subsampling = 1;
  EXPECT_TRUE(throws_code([&] { subsampled_pyramid(queue(), u8, levels, o); }, ErrorCode::out_of_range));
  o.subsampling = 2;
  EXPECT_TRUE(throws_code([&] { subsampled_pyramid(queue(), rgb, levels, o); }, ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([] { parse_pyramid_method("fused"); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([] { parse_pyr_level_method("words"); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { DeviceImage out; pyr_down(queue(), rgb, out, BorderMode::reflect_101, PyrLevelMethod::strips); },
                          ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([&] { DeviceImage out; pyr_up(queue(), rgb, out, BorderMode::reflect_101, PyrLevelMethod::strips); },
                          ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([&] { DeviceImage out; pyr_down(queue(), u8, out, BorderMode::constant, PyrLevelMethod::strips); },
                          ErrorCode::invalid_argument));
}

}  // namespace
}  // namespace plinth::test
