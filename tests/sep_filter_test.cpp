// Separable filter against cv::sepFilter2D: the float path (fma chains in OpenCV's order), the
// 8-bit fixed-point path of smoothing kernels, integer kernels into s16, f32 within tolerance;
// both methods, borders, anchors, delta, channels, pitch and poisoned outputs.
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <numeric>
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

double abs_sum(const std::vector<float>& k) {
  double s = 0;
  for (float v : k) s += std::fabs(v);
  return s;
}

// Runs plinth on a padded view (2 pixels: rows off vector boundaries; 16: on them) into a
// poisoned view and compares with OpenCV; returns plinth's result.
HostImage check_case(const HostImage& src, const std::vector<float>& kx, const std::vector<float>& ky,
                     const SepFilterOptions& o, int pad = 2) {
  const Depth ddepth = o.ddepth.value_or(src.depth());
  SCOPED_TRACE(std::string(to_string(src.depth())) + "C" + std::to_string(src.channels()) + " " +
               std::to_string(src.width()) + "x" + std::to_string(src.height()) + " -> " +
               std::string(to_string(ddepth)) + " taps " + std::to_string(kx.size()) + "x" + std::to_string(ky.size()) +
               " anchor(" + std::to_string(o.anchor.x) + "," + std::to_string(o.anchor.y) + ") delta " +
               std::to_string(o.delta) + " " + std::string(to_string(o.border)) + " " + std::string(to_string(o.method)) +
               " pad " + std::to_string(pad));
  const DeviceImage d_src = upload_padded(src, pad, 3);
  DeviceImage d_dst = poisoned_view(src.width(), src.height(), Format{ddepth, src.channels()}, pad + 1, 2, 0xEE);
  sep_filter(queue(), d_src, d_dst, kx, ky, o);
  const HostImage got = queue().download(d_dst);
  cv::Mat want;
  cv::sepFilter2D(as_mat(src), want, test::cv_depth(ddepth), cv::Mat(kx), cv::Mat(ky), cv::Point(o.anchor.x, o.anchor.y),
                  o.delta, cv_border(o.border));
  if (ddepth == Depth::f32) {
    const double magnitude = (src.depth() == Depth::f32 ? 1000.0 : 255.0) * abs_sum(kx) * abs_sum(ky);
    EXPECT_TRUE(images_near(from_mat(want), got, 1e-5, 1e-6 * magnitude + 1e-6 * std::fabs(o.delta)));
  } else {
    EXPECT_TRUE(images_equal(from_mat(want), got));
  }
  return got;
}

std::vector<float> random_kernel(std::mt19937& rng, int n, int symmetry) {
  std::uniform_real_distribution<float> dist(-0.3f, 0.7f);
  std::vector<float> k(static_cast<std::size_t>(n));
  for (float& v : k) v = dist(rng);
  for (int i = 0; i < n / 2; ++i) {
    if (symmetry == 1) k[static_cast<std::size_t>(n - 1 - i)] = k[static_cast<std::size_t>(i)];
    if (symmetry == 2) k[static_cast<std::size_t>(n - 1 - i)] = -k[static_cast<std::size_t>(i)];
  }
  if (symmetry == 2 && n % 2 == 1) k[static_cast<std::size_t>(n / 2)] = 0.0f;
  return k;
}

// A symmetric smoothing kernel whose coefficients are multiples of 1/256 summing to 1.
std::vector<float> fixed_smooth_kernel(std::mt19937& rng, int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  int rest = 256;
  const int c = n / 2;
  for (int i = 0; i < c; ++i) {
    const int x = static_cast<int>(rng() % static_cast<unsigned>(rest / 2 / (c - i) + 1));
    v[static_cast<std::size_t>(i)] = v[static_cast<std::size_t>(n - 1 - i)] = x;
    rest -= 2 * x;
  }
  v[static_cast<std::size_t>(c)] = rest;
  std::vector<float> k;
  for (int x : v) k.push_back(static_cast<float>(x) / 256.0f);
  return k;
}

TEST(SepFilter, FloatPathU8) {
  std::mt19937 rng(7);
  const Size sizes[] = {{1, 1}, {19, 7}, {67, 41}, {130, 37}};
  int seed = 0;
  for (const Size size : sizes) {
    for (int taps : {3, 5, 8, 31}) {
      const int cn = 1 + static_cast<int>(rng() % 4);
      const int symmetry = static_cast<int>(rng() % 3);
      const auto kx = random_kernel(rng, taps, symmetry);
      const auto ky = random_kernel(rng, taps == 8 ? 7 : taps, static_cast<int>(rng() % 3));
      SepFilterOptions o;
      o.border = kBorders[rng() % 4];
      o.delta = rng() % 3 == 0 ? 7.25 : 0.0;
      if (rng() % 4 == 0) o.anchor = {static_cast<int>(rng() % kx.size()), -1};
      check_case(random_image(size.width, size.height, Format{Depth::u8, cn}, 200 + seed++), kx, ky, o);
    }
  }
}

TEST(SepFilter, FixedPointSmoothingKernelsU8) {
  std::mt19937 rng(8);
  int seed = 0;
  for (int n : {3, 5, 9, 15}) {
    for (BorderMode b : kBorders) {
      const auto kx = fixed_smooth_kernel(rng, n);
      const auto ky = fixed_smooth_kernel(rng, n == 15 ? 7 : n);
      SepFilterOptions o;
      o.border = b;
      if (n == 5) o.delta = 3.0;
      const int cn = b == BorderMode::reflect ? 3 : 1;
      check_case(random_image(53, 29, Format{Depth::u8, cn}, 300 + seed++), kx, ky, o);
    }
  }
  // A 1-tap kernel is "integer": OpenCV leaves the fixed-point path.
  check_case(random_image(33, 9, Format{Depth::u8, 1}, 399), {1.0f}, {0.25f, 0.5f, 0.25f}, SepFilterOptions{});
}

// tiled and wide_rows: sepFilter2D's fixed-point smoothing kernels (delta 0) up to 9 taps, with the
// anchor at the centre (OpenCV takes its fixed point only for kernels symmetric about it); its
// vector lanes round half to even, its scalar tail half up (widths not multiples of 4 / cn).
void fixed_point_cases(SepFilterMethod method) {
  std::mt19937 rng(9);
  int seed = 0;
  const Size sizes[] = {{131, 70}, {53, 1}, {1, 40}, {7, 29}, {150, 66}};
  for (int n : {3, 5, 7, 9}) {
    for (BorderMode b : kBorders) {
      const auto kx = fixed_smooth_kernel(rng, n);
      const auto ky = fixed_smooth_kernel(rng, 12 - n);
      SepFilterOptions o;
      o.border = b;
      o.method = method;
      const int cn = 1 + seed % 4;
      const Size s = sizes[seed % 5];
      check_case(random_image(s.width, s.height, Format{Depth::u8, cn}, 900 + seed), kx, ky, o, seed % 2 ? 16 : 2);
      ++seed;
    }
  }
  // Ties of the column sums, where half to even and half up differ: every product a multiple of
  // 2^15 (kernels of quarters and halves).
  const std::vector<float> k3 = {0.25f, 0.5f, 0.25f};
  SepFilterOptions o;
  o.method = method;
  check_case(random_image(67, 33, Format{Depth::u8, 1}, 950), k3, k3, o);
  check_case(random_image(66, 33, Format{Depth::u8, 3}, 951), k3, {0.125f, 0.75f, 0.125f}, o);
  // A non-zero delta, an integer kernel and a float kernel are outside its reach.
  const DeviceImage src = queue().upload(random_image(16, 16, Format{Depth::u8, 1}, 952));
  for (int i = 0; i < 3; ++i) {
    SepFilterOptions bad = o;
    std::vector<float> kx = k3;
    if (i == 0) bad.delta = 1.0;
    if (i == 1) kx = {1.0f};
    if (i == 2) kx = {0.3f, 0.4f, 0.3f};
    DeviceImage dst;
    EXPECT_TRUE(throws_code([&] { sep_filter(queue(), src, dst, kx, k3, bad); }, ErrorCode::invalid_argument));
  }
}

TEST(SepFilter, TiledFixedPoint) { fixed_point_cases(SepFilterMethod::tiled); }

TEST(SepFilter, WideRowsFixedPoint) { fixed_point_cases(SepFilterMethod::wide_rows); }

TEST(SepFilter, OutputDepths) {
  const HostImage u8 = random_image(45, 23, Format{Depth::u8, 1}, 401);
  SepFilterOptions o;
  o.ddepth = Depth::s16;
  check_case(u8, {-1, 0, 1}, {1, 2, 1}, o);            // Sobel: integer kernels, exact int sums
  check_case(u8, {1, -2, 1}, {1, 4, 6, 4, 1}, o);
  o.delta = -100;
  check_case(u8, {0.3f, -0.7f, 0.4f}, {0.2f, 0.6f, 0.2f}, o);  // float path into s16
  o = {};
  o.ddepth = Depth::f32;
  check_case(u8, {0.1f, 0.2f, 0.4f, 0.2f, 0.1f}, {0.5f, 0.5f}, o);
  const HostImage f32 = random_image(37, 21, Format{Depth::f32, 4}, 402);
  check_case(f32, {0.1f, 0.2f, 0.4f, 0.2f, 0.1f}, {-1.0f, 0.0f, 1.0f}, SepFilterOptions{});
}

TEST(SepFilter, F32AndMethods) {
  std::mt19937 rng(9);
  int seed = 0;
  for (SepFilterMethod m : {SepFilterMethod::fused, SepFilterMethod::two_pass}) {
    for (int taps : {1, 4, 31}) {
      for (int cn : {1, 4}) {
        SepFilterOptions o;
        o.method = m;
        o.border = kBorders[rng() % 4];
        const auto kx = random_kernel(rng, taps, 0);
        const auto ky = random_kernel(rng, taps, 1);
        check_case(random_image(71, 45, Format{Depth::f32, cn}, 500 + seed++), kx, ky, o);
        check_case(random_image(71, 45, Format{Depth::u8, cn}, 600 + seed++), kx, ky, o);
      }
    }
  }
}

// fused_direct against OpenCV and, bit for bit, against fused (the same arithmetic in the same
// order): every mode, vector loads on and off (row alignment), tiles cut by the image's edges,
// anchors off the centre.
TEST(SepFilter, FusedDirect) {
  std::mt19937 rng(11);
  int seed = 0;
  const auto both = [&](const HostImage& src, const std::vector<float>& kx, const std::vector<float>& ky,
                        SepFilterOptions o, int pad) {
    o.method = SepFilterMethod::fused_direct;
    const HostImage direct = check_case(src, kx, ky, o, pad);
    o.method = SepFilterMethod::fused;
    const HostImage fused = check_case(src, kx, ky, o, pad);
    EXPECT_TRUE(images_equal(fused, direct));
  };
  for (const int pad : {16, 2}) {
    SepFilterOptions o;
    o.border = kBorders[seed % 4];
    // Float path, f32 and u8 sources, one and four channels.
    both(random_image(173, 139, Format{Depth::f32, 1}, 1500 + seed++), random_kernel(rng, 31, 0),
         random_kernel(rng, 31, 1), o, pad);
    both(random_image(67, 300, Format{Depth::f32, 4}, 1500 + seed++), random_kernel(rng, 5, 1), random_kernel(rng, 9, 2),
         o, pad);
    o.delta = 2.5;
    both(random_image(141, 45, Format{Depth::u8, 1}, 1500 + seed++), random_kernel(rng, 13, 1), random_kernel(rng, 3, 0),
         o, pad);
    // Fixed-point smoothing kernels (u8 -> u8, OpenCV's vector lanes and scalar tail).
    o = {};
    o.border = kBorders[(seed + 1) % 4];
    both(random_image(203, 77, Format{Depth::u8, 3}, 1500 + seed++), fixed_smooth_kernel(rng, 7),
         fixed_smooth_kernel(rng, 5), o, pad);
    // Integer kernels into s16; an anchor off the centre (the halo differs on each side).
    o.ddepth = Depth::s16;
    o.anchor = {0, 2};
    both(random_image(129, 33, Format{Depth::u8, 2}, 1500 + seed++), {1, -2, 1}, {1, 4, 6, 4, 1}, o, pad);
  }
  // Tiny images: every tile is cut by the border.
  SepFilterOptions o;
  both(random_image(3, 2, Format{Depth::f32, 1}, 1599), random_kernel(rng, 9, 1), random_kernel(rng, 9, 1), o, 16);
  // Even and one-tap kernels; row tasks too wide for registers (four f32 channels, 31 taps:
  // element loads instead of vectors).
  both(random_image(71, 45, Format{Depth::f32, 1}, 1598), random_kernel(rng, 4, 0), random_kernel(rng, 1, 0), o, 16);
  o.border = BorderMode::replicate;
  both(random_image(71, 45, Format{Depth::f32, 4}, 1597), random_kernel(rng, 31, 0), random_kernel(rng, 31, 1), o, 16);
}

TEST(SepFilter, LargeKernelsAndImages) {
  std::mt19937 rng(10);
  // Kernels larger than the image fold the border repeatedly.
  check_case(random_image(5, 3, Format{Depth::u8, 1}, 701), random_kernel(rng, 31, 1), random_kernel(rng, 31, 0),
             SepFilterOptions{});
  check_case(random_image(300, 200, Format{Depth::u8, 1}, 702), random_kernel(rng, 63, 1), random_kernel(rng, 9, 1),
             SepFilterOptions{});
  check_case(random_image(517, 263, Format{Depth::f32, 1}, 703), random_kernel(rng, 31, 1), random_kernel(rng, 31, 1),
             SepFilterOptions{});
}

TEST(SepFilter, Errors) {
  const DeviceImage src = queue().upload(random_image(16, 16, Format{Depth::u8, 1}, 801));
  const std::vector<float> k3 = {0.25f, 0.5f, 0.25f};
  auto run = [&](std::vector<float> kx, std::vector<float> ky, SepFilterOptions o) {
    DeviceImage dst;
    sep_filter(queue(), src, dst, kx, ky, o);
  };
  EXPECT_TRUE(throws_code([&] { run({}, k3, {}); }, ErrorCode::out_of_range));
  EXPECT_TRUE(throws_code([&] { run(std::vector<float>(64, 0.1f), k3, {}); }, ErrorCode::out_of_range));
  SepFilterOptions o;
  o.border = BorderMode::wrap;
  EXPECT_TRUE(throws_code([&] { run(k3, k3, o); }, ErrorCode::invalid_argument));
  o = {};
  o.anchor = {3, 1};
  EXPECT_TRUE(throws_code([&] { run(k3, k3, o); }, ErrorCode::out_of_range));
  o = {};
  o.ddepth = Depth::u16;
  EXPECT_TRUE(throws_code([&] { run(k3, k3, o); }, ErrorCode::unsupported_type));
  o = {};
  o.delta = std::nan("");
  EXPECT_TRUE(throws_code([&] { run(k3, k3, o); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { run({1.0f, INFINITY}, k3, {}); }, ErrorCode::invalid_argument));
  const DeviceImage u16 = queue().upload(random_image(8, 8, Format{Depth::u16, 1}, 802));
  EXPECT_TRUE(throws_code(
      [&] {
        DeviceImage dst;
        sep_filter(queue(), u16, dst, k3, k3);
      },
      ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([&] { (void)parse_sep_filter_method("x"); }, ErrorCode::invalid_argument));
  EXPECT_EQ(parse_sep_filter_method("fused_direct"), SepFilterMethod::fused_direct);
  EXPECT_EQ(parse_sep_filter_method("tiled"), SepFilterMethod::tiled);
  EXPECT_EQ(parse_sep_filter_method("wide_rows"), SepFilterMethod::wide_rows);
}

}  // namespace
}  // namespace plinth::test
