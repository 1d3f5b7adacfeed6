// filter2d against cv::filter2D. OpenCV switches to a DFT for kernels of 50 (130 for u8 -> u8
// and f32 -> f32) coefficients or more on whole images; its direct path, which plinth follows, is
// reached by filtering a region of a copy that already carries the border (see opencv_direct).
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <random>
#include <string>
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

constexpr BorderMode kBorders[] = {BorderMode::constant, BorderMode::replicate, BorderMode::reflect,
                                   BorderMode::reflect_101};

// cv::filter2D's direct (non-DFT) result: the source padded with its border by copyMakeBorder,
// filtered as a region, so that OpenCV reads real pixels instead of interpolating.
cv::Mat opencv_direct(const HostImage& src, Depth ddepth, Size k, const std::vector<float>& coef,
                      const LinearFilterOptions& o) {
  const int ax = o.anchor.x < 0 ? k.width / 2 : o.anchor.x;
  const int ay = o.anchor.y < 0 ? k.height / 2 : o.anchor.y;
  cv::Mat padded;
  cv::copyMakeBorder(as_mat(src), padded, ay + 1, k.height - ay, ax + 1, k.width - ax, cv_border(o.border),
                     cv::Scalar::all(0));
  const cv::Mat roi = padded(cv::Rect(ax + 1, ay + 1, src.width(), src.height()));
  const cv::Mat kernel(k.height, k.width, CV_32F, const_cast<float*>(coef.data()));
  cv::Mat out;
  cv::filter2D(roi, out, cv_depth(ddepth), kernel, cv::Point(ax, ay), o.delta, cv_border(o.border));
  return out;
}

HostImage check_case(const HostImage& src, Size k, const std::vector<float>& coef, const Filter2DOptions& o) {
  const Depth ddepth = o.ddepth.value_or(src.depth());
  SCOPED_TRACE(std::string(to_string(src.depth())) + "C" + std::to_string(src.channels()) + " " +
               std::to_string(src.width()) + "x" + std::to_string(src.height()) + " -> " +
               std::string(to_string(ddepth)) + " k" + std::to_string(k.width) + "x" + std::to_string(k.height) +
               " anchor(" + std::to_string(o.anchor.x) + "," + std::to_string(o.anchor.y) + ") delta " +
               std::to_string(o.delta) + " " + std::string(to_string(o.border)) + " " + std::string(to_string(o.method)));
  const Filter2DKernel kernel(queue(), k, coef);
  const DeviceImage d_src = upload_padded(src, 4, 1);
  DeviceImage d_dst = poisoned_view(src.width(), src.height(), Format{ddepth, src.channels()}, 1, 3, 0xAB);
  filter2d(queue(), d_src, d_dst, kernel, o);
  const HostImage got = queue().download(d_dst);
  const HostImage want = from_mat(opencv_direct(src, ddepth, k, coef, o));
  if (ddepth == Depth::f32) {
    double abs_sum = 0;
    for (float v : coef) abs_sum += std::fabs(v);
    const double magnitude = (src.depth() == Depth::f32 ? 1000.0 : 255.0) * abs_sum;
    EXPECT_TRUE(images_near(want, got, 1e-5, 1e-6 * magnitude + 1e-6 * std::fabs(o.delta)));
  } else {
    EXPECT_TRUE(images_equal(want, got));
  }
  return got;
}

std::vector<float> random_coefficients(std::mt19937& rng, Size k, float lo, float hi, bool sparse) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> c(static_cast<std::size_t>(k.width * k.height));
  for (float& v : c) v = (sparse && rng() % 3 == 0) ? 0.0f : dist(rng);
  return c;
}

TEST(Filter2D, U8AgainstOpenCV) {
  std::mt19937 rng(1);
  const Size sizes[] = {{1, 1}, {23, 11}, {97, 53}};
  const Size ksizes[] = {{3, 3}, {5, 2}, {1, 9}, {31, 31}};
  int seed = 0;
  for (const Size size : sizes) {
    for (const Size k : ksizes) {
      const int cn = k.width == 5 ? 4 : 1;
      const float scale = 1.0f / static_cast<float>(k.width * k.height);
      Filter2DOptions o;
      o.border = kBorders[rng() % 4];
      o.delta = rng() % 3 == 0 ? -2.5 : 0.0;
      if (rng() % 3 == 0) o.anchor = {static_cast<int>(rng() % k.width), static_cast<int>(rng() % k.height)};
      check_case(random_image(size.width, size.height, Format{Depth::u8, cn}, 900 + seed++), k,
                 random_coefficients(rng, k, -0.5f * scale, 2.5f * scale, rng() % 2 == 0), o);
    }
  }
}

TEST(Filter2D, SmallKernelsMatchWholeImageOpenCV) {
  // Below the DFT threshold cv::filter2D on the whole image is the direct path itself.
  std::mt19937 rng(2);
  const HostImage src = random_image(41, 29, Format{Depth::u8, 3}, 950);
  const Size k{7, 5};
  const std::vector<float> coef = random_coefficients(rng, k, -0.05f, 0.08f, false);
  for (BorderMode b : kBorders) {
    Filter2DOptions o;
    o.border = b;
    cv::Mat want;
    cv::filter2D(as_mat(src), want, -1, cv::Mat(k.height, k.width, CV_32F, const_cast<float*>(coef.data())),
                 cv::Point(-1, -1), 0, cv_border(b));
    EXPECT_TRUE(images_equal(from_mat(want), filter2d(queue(), src, k, coef, o)));
  }
}

TEST(Filter2D, DepthsChannelsAndMethods) {
  std::mt19937 rng(3);
  int seed = 0;
  for (Filter2DMethod m : {Filter2DMethod::fused, Filter2DMethod::direct, Filter2DMethod::tiled_rows}) {
    for (int cn : {1, 4}) {
      const Size k{5, 5};
      Filter2DOptions o;
      o.method = m;
      o.border = kBorders[seed % 4];
      const auto coef = random_coefficients(rng, k, -0.1f, 0.2f, false);
      check_case(random_image(70, 37, Format{Depth::f32, cn}, 960 + seed++), k, coef, o);
      check_case(random_image(70, 37, Format{Depth::u8, cn}, 960 + seed++), k, coef, o);
      o.ddepth = Depth::s16;
      o.delta = 50;
      check_case(random_image(33, 20, Format{Depth::u8, cn}, 960 + seed++), k,
                 random_coefficients(rng, k, -3.0f, 3.0f, false), o);
      o.ddepth = Depth::f32;
      check_case(random_image(33, 20, Format{Depth::u8, cn}, 960 + seed++), k, coef, o);
    }
  }
}

// tiled_rows for every block shape it picks (1 to 4 channels), tiles cut by the image's edges,
// anchors off the centre and large kernels.
TEST(Filter2D, TiledRows) {
  std::mt19937 rng(5);
  int seed = 0;
  const struct {
    Size k;
    Format format;
  } kinds[] = {{{3, 3}, {Depth::u8, 1}}, {{7, 4}, {Depth::f32, 2}}, {{5, 5}, {Depth::u8, 3}},
               {{5, 5}, {Depth::u8, 4}}, {{31, 31}, {Depth::f32, 1}}};
  for (const auto& kind : kinds) {
    Filter2DOptions o;
    o.method = Filter2DMethod::tiled_rows;
    o.border = kBorders[seed % 4];
    if (seed % 2) o.anchor = {0, kind.k.height - 1};
    const auto coef = random_coefficients(rng, kind.k, -0.05f, 0.1f, true);
    const HostImage src = random_image(131, 70, kind.format, 1700 + seed++);
    const HostImage tiled = check_case(src, kind.k, coef, o);
    // The same products in the same order as fused: equal bit for bit, f32 too.
    o.method = Filter2DMethod::fused;
    EXPECT_TRUE(images_equal(check_case(src, kind.k, coef, o), tiled));
  }
  Filter2DOptions o;
  o.method = Filter2DMethod::tiled_rows;
  check_case(random_image(1, 1, Format{Depth::f32, 1}, 1799), Size{3, 3}, random_coefficients(rng, {3, 3}, 0.f, 1.f, false),
             o);
}

TEST(Filter2D, LargeKernelF32AndLargeImage) {
  std::mt19937 rng(4);
  const Size k{31, 31};
  const auto coef = random_coefficients(rng, k, -0.001f, 0.003f, false);
  check_case(random_image(29, 17, Format{Depth::f32, 4}, 990), k, coef, Filter2DOptions{});
  check_case(random_image(401, 203, Format{Depth::u8, 1}, 991), Size{9, 9},
             random_coefficients(rng, Size{9, 9}, -0.01f, 0.03f, false), Filter2DOptions{});
}

TEST(Filter2D, Errors) {
  const DeviceImage src = queue().upload(random_image(16, 16, Format{Depth::u8, 1}, 999));
  const std::vector<float> k9(9, 1.0f / 9);
  EXPECT_TRUE(throws_code([&] { Filter2DKernel(queue(), Size{3, 3}, std::vector<float>(8, 0.1f)); },
                          ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { Filter2DKernel(queue(), Size{32, 1}, std::vector<float>(32, 0.1f)); },
                          ErrorCode::out_of_range));
  EXPECT_TRUE(throws_code([&] { Filter2DKernel(queue(), Size{3, 3}, std::vector<float>(9, NAN)); },
                          ErrorCode::invalid_argument));
  const Filter2DKernel kernel(queue(), Size{3, 3}, k9);
  auto run = [&](Filter2DOptions o) {
    DeviceImage dst;
    filter2d(queue(), src, dst, kernel, o);
  };
  Filter2DOptions o;
  o.border = BorderMode::wrap;
  EXPECT_TRUE(throws_code([&] { run(o); }, ErrorCode::invalid_argument));
  o = {};
  o.anchor = {-2, 0};
  EXPECT_TRUE(throws_code([&] { run(o); }, ErrorCode::out_of_range));
  o = {};
  o.ddepth = Depth::f64;
  EXPECT_TRUE(throws_code([&] { run(o); }, ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code(
      [&] {
        DeviceImage dst;
        filter2d(queue(), src, dst, Filter2DKernel{}, {});
      },
      ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { (void)parse_filter2d_method("fft"); }, ErrorCode::invalid_argument));
  EXPECT_EQ(parse_filter2d_method("tiled_rows"), Filter2DMethod::tiled_rows);
}

}  // namespace
}  // namespace plinth::test
