// convert_to against cv::Mat::convertTo for every pair of depths, with and without scaling.
#include <opencv2/core.hpp>

#include "plinth/arithm.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

constexpr Depth kDepths[] = {Depth::u8, Depth::s8, Depth::u16, Depth::s16, Depth::s32, Depth::f32, Depth::f64};

bool usable(Depth d) { return d != Depth::f64 || context().device().has_fp64; }

HostImage expected(const HostImage& src, Depth depth, double alpha, double beta) {
  cv::Mat out;
  as_mat(src).convertTo(out, cv_depth(depth), alpha, beta);
  return from_mat(out);
}

// Values that exercise rounding ties and saturation: a random image of the full range with a
// row of small values and halves mixed in.
HostImage source(Depth depth, int width, int height, int channels, std::uint32_t seed) {
  HostImage img = random_image(width, height, Format{depth, channels}, seed);
  if (height > 1) {
    cv::Mat row = as_mat(img).row(0);
    cv::Mat small(1, width, CV_MAKETYPE(CV_64F, channels));
    cv::randu(small, -300.0, 300.0);
    if (is_float(depth)) {
      small.forEach<double>([](double& v, const int*) { v = std::floor(v * 2.0) / 2.0; });  // x.0 and x.5
    }
    small.convertTo(row, row.type());
  }
  return img;
}

struct Scaling {
  double alpha, beta;
};

TEST(Convert, EveryPairMatchesOpenCV) {
  const Scaling scalings[] = {{1.0, 0.0}, {0.37, -3.5}, {2.5, 0.5}};
  std::uint32_t seed = 100;
  for (Depth from : kDepths) {
    if (!usable(from)) continue;
    const HostImage src = source(from, 61, 4, 3, seed++);
    for (Depth to : kDepths) {
      if (!usable(to)) continue;
      for (const Scaling& s : scalings) {
        SCOPED_TRACE(std::string(to_string(from)) + " -> " + std::string(to_string(to)) + " alpha " +
                     std::to_string(s.alpha) + " beta " + std::to_string(s.beta));
        const HostImage want = expected(src, to, s.alpha, s.beta);
        DeviceImage dst = poisoned_view(src.width(), src.height(), Format{to, 3}, 2, 1, 0xEE);
        ConvertOptions options{s.alpha, s.beta, ElementwiseMethod::vector};
        convert_to(queue(), upload_padded(src, 1, 1), dst, to, options).wait();
        EXPECT_TRUE(images_equal(want, queue().download(dst)));
      }
    }
  }
}

// The plain kernel and the aligned vector path, on a subset of pairs.
TEST(Convert, PlainAndAlignedPaths) {
  const std::pair<Depth, Depth> pairs[] = {{Depth::u8, Depth::f32}, {Depth::f32, Depth::u8}, {Depth::s32, Depth::s16},
                                           {Depth::u16, Depth::s8}, {Depth::f32, Depth::s32}, {Depth::s16, Depth::u16}};
  std::uint32_t seed = 300;
  for (auto [from, to] : pairs) {
    for (int width : {1, 7, 64, 133}) {
      const HostImage src = source(from, width, 3, 1, seed++);
      for (ElementwiseMethod method : {ElementwiseMethod::plain, ElementwiseMethod::vector}) {
        SCOPED_TRACE(std::string(to_string(from)) + " -> " + std::string(to_string(to)) + " width " +
                     std::to_string(width) + " " + std::string(to_string(method)));
        DeviceImage dst = poisoned_view(width, 3, Format{to, 1}, 0, 0, 0x5A);
        convert_to(queue(), queue().upload(src), dst, to, ConvertOptions{0.75, 1.25, method}).wait();
        EXPECT_TRUE(images_equal(expected(src, to, 0.75, 1.25), queue().download(dst)));
      }
    }
  }
}

// OpenCV's x86 rounding: out-of-range floats become INT_MIN before saturating.
TEST(Convert, OutOfRangeFloatsAsOpenCV) {
  HostImage src(8, 1, Format{Depth::f32, 1});
  const float values[] = {3e9f, -3e9f, 2147483520.0f, -2147483648.0f, 255.5f, 254.5f, -0.5f, 1e30f};
  for (int i = 0; i < 8; ++i) src.at<float>(i, 0) = values[i];
  for (Depth to : {Depth::u8, Depth::s16, Depth::s32}) {
    SCOPED_TRACE(std::string(to_string(to)));
    EXPECT_TRUE(images_equal(expected(src, to, 1.0, 0.0), convert_to(queue(), src, to)));
    EXPECT_TRUE(images_equal(expected(src, to, 1.5, 0.0), convert_to(queue(), src, to, ConvertOptions{1.5, 0.0})));
  }
}

TEST(Convert, SameDepthCopiesAndInPlace) {
  const HostImage src = random_image(30, 5, Format{Depth::s16, 2}, 9);
  EXPECT_TRUE(images_equal(src, convert_to(queue(), src, Depth::s16)));
  DeviceImage d = queue().upload(src);
  convert_to(queue(), d, d, Depth::s16, ConvertOptions{2.0, 1.0}).wait();
  EXPECT_TRUE(images_equal(expected(src, Depth::s16, 2.0, 1.0), queue().download(d)));
}

TEST(Convert, Errors) {
  const DeviceImage src = queue().upload(random_image(8, 8, Format{Depth::u8, 1}, 1));
  DeviceImage dst;
  EXPECT_TRUE(throws_code([&] { convert_to(queue(), src, dst, Depth::u32); }, ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([&] { convert_to(queue(), src, dst, Depth::f32, ConvertOptions{NAN, 0.0}); },
                          ErrorCode::invalid_argument));
  DeviceImage wrong(context(), 8, 7, Format{Depth::f32, 1});
  EXPECT_TRUE(throws_code([&] { convert_to(queue(), src, wrong, Depth::f32); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { convert_to(queue(), DeviceImage(), dst, Depth::f32); }, ErrorCode::invalid_argument));
}

}  // namespace
}  // namespace plinth::test
