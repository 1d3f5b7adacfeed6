// Gaussian blur against cv::GaussianBlur: u8 and u16 bit-exact (OpenCV's fixed-point path),
// f32 within tolerance; kernels against cv::getGaussianKernel; sizes from sigmas; every border
// (wrap too for u8 / u16), both methods, pitch and poisoned outputs.
#include <opencv2/imgproc.hpp>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

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

// Source padding 1 leaves rows off vector boundaries; 16 keeps them on. The destination's padding
// likewise (2 by default: rows off word boundaries for one channel).
void check_case(const HostImage& src, const GaussianBlurOptions& o, int pad = 1, int dst_pad = 2) {
  SCOPED_TRACE(std::string(to_string(src.depth())) + "C" + std::to_string(src.channels()) + " " +
               std::to_string(src.width()) + "x" + std::to_string(src.height()) + " k" +
               std::to_string(o.ksize.width) + "x" + std::to_string(o.ksize.height) + " sigma " +
               std::to_string(o.sigma_x) + "," + std::to_string(o.sigma_y) + " " + std::string(to_string(o.border)) +
               " " + std::string(to_string(o.method)) + " pad " + std::to_string(pad) + " dst pad " + std::to_string(dst_pad));
  const DeviceImage d_src = upload_padded(src, pad, 2);
  DeviceImage d_dst = poisoned_view(src.width(), src.height(), src.format(), dst_pad, 1, 0x5A);
  gaussian_blur(queue(), d_src, d_dst, o);
  const HostImage got = queue().download(d_dst);
  cv::Mat want;
  cv::GaussianBlur(as_mat(src), want, cv::Size(o.ksize.width, o.ksize.height), o.sigma_x, o.sigma_y, cv_border(o.border));
  if (src.depth() == Depth::f32) {
    EXPECT_TRUE(images_near(from_mat(want), got, 1e-5, 2e-3));  // |values| <= 1000, kernels sum to 1
  } else {
    EXPECT_TRUE(images_equal(from_mat(want), got));
  }
}

TEST(GaussianBlur, KernelsMatchGetGaussianKernel) {
  int differing = 0;
  for (int n = 1; n <= 63; n += 2) {
    std::vector<double> sigmas = {0.0, -1.0, 0.3, 0.8, 1.0, 1.5, 2.7, 5.0, 11.0};
    for (int i = 0; i < 8; ++i) sigmas.push_back(0.1 + 0.37 * i * i + 0.013 * n);
    for (double sigma : sigmas) {
      const std::vector<double> got = gaussian_kernel(n, sigma);
      const cv::Mat want = cv::getGaussianKernel(n, sigma, CV_64F);
      for (int i = 0; i < n; ++i) {
        if (std::memcmp(&got[static_cast<std::size_t>(i)], &want.at<double>(i), sizeof(double)) != 0) ++differing;
      }
    }
  }
  EXPECT_EQ(differing, 0);
}

TEST(GaussianBlur, U8AndU16BitExact) {
  const BorderMode borders[] = {BorderMode::constant, BorderMode::replicate, BorderMode::reflect,
                                BorderMode::reflect_101, BorderMode::wrap};
  const struct {
    Size k;
    double sx, sy;
  } cases[] = {{{3, 3}, 0, 0}, {{5, 5}, 1.1, 0}, {{9, 1}, 0, 0}, {{1, 7}, 2.0, 0}, {{0, 0}, 1.7, 0},
               {{0, 0}, 5.0, 0},  // 31 taps for u8, 41 for u16
               {{7, 13}, 1.2, 3.3}, {{11, 11}, 0, 0}};
  int seed = 0;
  for (Depth depth : {Depth::u8, Depth::u16}) {
    for (const auto& c : cases) {
      GaussianBlurOptions o;
      o.ksize = c.k;
      o.sigma_x = c.sx;
      o.sigma_y = c.sy;
      o.border = borders[seed % 5];
      const int cn = 1 + seed % 4;
      check_case(random_image(61 - seed, 29 + seed, Format{depth, cn}, 1000 + seed), o);
      ++seed;
    }
  }
}

TEST(GaussianBlur, SmallImages) {
  GaussianBlurOptions o;
  o.ksize = {5, 5};
  for (BorderMode b : {BorderMode::constant, BorderMode::reflect_101, BorderMode::wrap}) {
    o.border = b;
    for (const Size s : {Size{1, 1}, Size{1, 9}, Size{9, 1}, Size{3, 2}}) {
      check_case(random_image(s.width, s.height, Format{Depth::u8, 1}, 1100), o);
      if (b != BorderMode::wrap) check_case(random_image(s.width, s.height, Format{Depth::f32, 1}, 1101), o);
    }
  }
}

TEST(GaussianBlur, F32AndMethods) {
  int seed = 0;
  for (SepFilterMethod m : {SepFilterMethod::fused, SepFilterMethod::two_pass}) {
    for (const Size k : {Size{3, 3}, Size{7, 5}, Size{0, 0}}) {
      GaussianBlurOptions o;
      o.ksize = k;
      o.sigma_x = k.width == 0 ? 3.0 : 0.0;
      o.method = m;
      o.border = seed % 2 ? BorderMode::replicate : BorderMode::reflect_101;
      check_case(random_image(83, 47, Format{Depth::f32, seed % 2 ? 1 : 3}, 1200 + seed), o);
      check_case(random_image(83, 47, Format{Depth::u8, seed % 2 ? 4 : 1}, 1300 + seed), o);
      ++seed;
    }
  }
  GaussianBlurOptions o;
  o.ksize = {31, 31};
  check_case(random_image(640, 360, Format{Depth::u8, 1}, 1400), o);
  o.method = SepFilterMethod::fused_direct;
  check_case(random_image(640, 360, Format{Depth::u8, 1}, 1400), o);
  o.ksize = {7, 5};
  check_case(random_image(83, 47, Format{Depth::f32, 3}, 1401), o);
}

// fused_direct's fixed-point modes: u8 and u16, the wrap border, rows on vector boundaries.
TEST(GaussianBlur, FusedDirectFixedPoint) {
  const BorderMode borders[] = {BorderMode::wrap, BorderMode::reflect_101, BorderMode::constant};
  int seed = 0;
  for (Depth depth : {Depth::u8, Depth::u16}) {
    for (const int cn : {1, 4}) {
      GaussianBlurOptions o;
      o.ksize = depth == Depth::u8 ? Size{5, 5} : Size{9, 7};
      o.border = borders[seed % 3];
      o.method = SepFilterMethod::fused_direct;
      const HostImage src = random_image(150 + seed, 70, Format{depth, cn}, 1450 + seed);
      check_case(src, o);
      check_case(src, o, 16);
      ++seed;
    }
  }
}

// The 8-bit fixed-point methods, tiled and wide_rows (u8, up to 9 taps each way): window sizes
// 3..9, square and not, asymmetric sigmas, every border, 1-4 channels, one-row, one-column and
// narrow images, tiles cut by the image's edges, rows on and off word boundaries.
void fixed_point_cases(SepFilterMethod method) {
  const BorderMode borders[] = {BorderMode::replicate, BorderMode::reflect, BorderMode::reflect_101,
                                BorderMode::constant, BorderMode::wrap};
  const struct {
    Size k;
    double sx, sy;
  } kernels[] = {{{3, 3}, 0, 0},   {{5, 5}, 0, 0},     {{7, 7}, 0, 0},     {{9, 9}, 0, 0},
                 {{5, 5}, 1.1, 2.3}, {{3, 9}, 0.7, 1.9}, {{9, 3}, 2.2, 0.6}, {{7, 5}, 1.4, 0},
                 {{1, 7}, 0, 1.3},   {{9, 1}, 1.6, 0},   {{0, 0}, 1.2, 0.8}};  // the last: 9x5
  const Size sizes[] = {{131, 70}, {300, 1}, {1, 50}, {3, 40}, {6, 5}, {257, 67}, {130, 129}};
  int seed = 0;
  for (const auto& k : kernels) {
    GaussianBlurOptions o;
    o.ksize = k.k;
    o.sigma_x = k.sx;
    o.sigma_y = k.sy;
    o.method = method;
    for (int i = 0; i < 3; ++i) {
      o.border = borders[seed % 5];
      const int cn = 1 + seed % 4;
      const Size s = sizes[seed % 7];
      check_case(random_image(s.width, s.height, Format{Depth::u8, cn}, 1600 + seed), o, seed % 2 ? 16 : 1);
      ++seed;
    }
  }
  // Every border on one image whose tiles are cut on both sides, with and without word rows.
  for (BorderMode b : borders) {
    GaussianBlurOptions o;
    o.ksize = {7, 9};
    o.border = b;
    o.method = method;
    const HostImage src = random_image(163, 75, Format{Depth::u8, 1}, 1700);
    check_case(src, o, 1);
    check_case(src, o, 16);
  }
  // Outside its reach: u16, and more than 9 taps.
  const DeviceImage u16 = queue().upload(random_image(16, 16, Format{Depth::u16, 1}, 1701));
  const DeviceImage u8 = queue().upload(random_image(16, 16, Format{Depth::u8, 1}, 1702));
  GaussianBlurOptions o;
  o.ksize = {5, 5};
  o.method = method;
  DeviceImage dst;
  EXPECT_TRUE(throws_code([&] { gaussian_blur(queue(), u16, dst, o); }, ErrorCode::invalid_argument));
  o.ksize = {11, 3};
  DeviceImage dst2;
  EXPECT_TRUE(throws_code([&] { gaussian_blur(queue(), u8, dst2, o); }, ErrorCode::invalid_argument));
}

TEST(GaussianBlur, TiledFixedPoint) { fixed_point_cases(SepFilterMethod::tiled); }

TEST(GaussianBlur, WideRowsFixedPoint) { fixed_point_cases(SepFilterMethod::wide_rows); }

// wide_rows' own shapes: a warp stores 480 elements of a row (30 spans of 16), so widths around
// one and two warps' worth, spans cut by both edges of the image, sources and destinations on and
// off 16- and 4-byte boundaries, all-255 windows (the largest lane sums), and an image over 4 M
// elements, where one channel takes 4 rows per work-item (2 below).
TEST(GaussianBlur, WideRowsShapes) {
  GaussianBlurOptions o;
  o.method = SepFilterMethod::wide_rows;
  int seed = 0;
  for (const Size k : {Size{3, 3}, Size{5, 5}, Size{7, 7}, Size{9, 9}, Size{9, 3}}) {
    o.ksize = k;
    o.border = seed % 2 ? BorderMode::reflect_101 : BorderMode::constant;
    for (const int width : {479, 480, 481, 961, 17}) {
      const int cn = width == 17 ? 4 : 1;
      const HostImage src = random_image(width, 13 + seed % 5, Format{Depth::u8, cn}, 1750 + seed);
      check_case(src, o, 16, 16);  // every span and store on 16-byte boundaries
      check_case(src, o, 4, 8);    // words, not spans
      check_case(src, o, 3, 1);    // neither
      ++seed;
    }
  }
  HostImage white(500, 9, Format{Depth::u8, 1});
  for (int y = 0; y < white.height(); ++y) std::memset(white.data() + y * white.pitch(), 255, white.row_bytes());
  for (const Size k : {Size{9, 9}, Size{3, 3}}) {
    o.ksize = k;
    check_case(white, o, 16, 16);
  }
  o.ksize = {7, 5};
  o.border = BorderMode::replicate;
  check_case(random_image(2100, 2000, Format{Depth::u8, 1}, 1790), o, 16, 16);  // 4.2 M elements
  // Four channels of 9 taps: 16 elements each side of the anchor, wide_rows' limit.
  o.ksize = {9, 9};
  check_case(random_image(130, 20, Format{Depth::u8, 4}, 1791), o, 16, 16);
}

// tiled above 16 M elements, where it takes 8 rows per work-item (4 below: every case above).
TEST(GaussianBlur, TiledEightRowsPerWorkItem) {
  const HostImage src = random_image(2100, 2000, Format{Depth::u8, 4}, 83);  // 16.8 M elements
  for (const Size k : {Size{3, 3}, Size{9, 9}}) {
    GaussianBlurOptions o;
    o.ksize = k;
    o.method = SepFilterMethod::tiled;
    check_case(src, o);
  }
}

TEST(GaussianBlur, Errors) {
  const DeviceImage src = queue().upload(random_image(16, 16, Format{Depth::u8, 1}, 1500));
  const DeviceImage f32 = queue().upload(random_image(16, 16, Format{Depth::f32, 1}, 1501));
  auto run = [&](const DeviceImage& s, GaussianBlurOptions o) {
    DeviceImage dst;
    gaussian_blur(queue(), s, dst, o);
  };
  GaussianBlurOptions o;
  EXPECT_TRUE(throws_code([&] { run(src, o); }, ErrorCode::invalid_argument));  // no size, no sigma
  o.ksize = {4, 3};
  EXPECT_TRUE(throws_code([&] { run(src, o); }, ErrorCode::invalid_argument));
  o.ksize = {65, 3};
  EXPECT_TRUE(throws_code([&] { run(src, o); }, ErrorCode::out_of_range));
  o.ksize = {0, 0};
  o.sigma_x = 50;
  EXPECT_TRUE(throws_code([&] { run(src, o); }, ErrorCode::out_of_range));
  // A kernel size derived from a huge sigma blames the sigma (issue 15), also along columns only.
  for (const auto& [sx, sy] : {std::pair{1e9, 0.0}, std::pair{1.0, 1e9}}) {
    o.sigma_x = sx;
    o.sigma_y = sy;
    try {
      run(src, o);
      ADD_FAILURE() << "sigma " << sx << ", " << sy << " did not throw";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::out_of_range);
      EXPECT_EQ(e.argument(), "sigma") << e.what();
      EXPECT_NE(std::string(e.what()).find("1e+09"), std::string::npos) << e.what();
    }
  }
  o.sigma_y = 0;
  o = {};
  o.ksize = {3, 3};
  o.border = BorderMode::wrap;
  EXPECT_TRUE(throws_code([&] { run(f32, o); }, ErrorCode::invalid_argument));
  o.border = BorderMode::reflect_101;
  o.sigma_x = std::nan("");
  EXPECT_TRUE(throws_code([&] { run(src, o); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { (void)gaussian_kernel(4, 1.0); }, ErrorCode::invalid_argument));
  const DeviceImage s16 = queue().upload(random_image(8, 8, Format{Depth::s16, 1}, 1502));
  o = {};
  o.ksize = {3, 3};
  EXPECT_TRUE(throws_code([&] { run(s16, o); }, ErrorCode::unsupported_type));
}

}  // namespace
}  // namespace plinth::test
