// resize(INTER_LINEAR, u8) against cv::resize: bit for bit.
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>
#include <random>

#include "plinth/resize.hpp"
#include "support/test_support.hpp"

namespace plinth {
namespace {

using test::queue;

HostImage reference(const HostImage& src, Size size, Interpolation interpolation = Interpolation::linear) {
  cv::Mat out;
  cv::resize(test::as_mat(src), out, cv::Size(size.width, size.height), 0, 0,
             interpolation == Interpolation::linear ? cv::INTER_LINEAR : cv::INTER_LINEAR_EXACT);
  return test::from_mat(out);
}

void check_one(int sw, int sh, int dw, int dh, int cn, std::uint32_t seed, Interpolation interpolation) {
  SCOPED_TRACE(std::to_string(sw) + "x" + std::to_string(sh) + " -> " + std::to_string(dw) + "x" + std::to_string(dh) +
               " C" + std::to_string(cn) + (interpolation == Interpolation::linear ? " linear" : " linear_exact"));
  const HostImage src = test::random_image(sw, sh, Format{Depth::u8, cn}, seed);
  const DeviceImage d_src = test::upload_padded(src, 3, 2);
  DeviceImage d_dst = test::poisoned_view(dw, dh, Format{Depth::u8, cn}, 5, 1, 0xA5);
  resize(queue(), d_src, d_dst, interpolation);
  EXPECT_TRUE(test::images_equal(reference(src, {dw, dh}, interpolation), queue().download(d_dst)));
}

void check(int sw, int sh, int dw, int dh, int cn, std::uint32_t seed) {
  check_one(sw, sh, dw, dh, cn, seed, Interpolation::linear);
  check_one(sw, sh, dw, dh, cn, seed, Interpolation::linear_exact);
}

TEST(Resize, LinearMatchesOpenCVOnShrinking) {
  check(640, 480, 581, 436, 1, 1);  // the cascade's 1.1 step
  check(1920, 1080, 298, 168, 1, 2);
  check(97, 61, 13, 7, 1, 3);
  check(101, 89, 1, 1, 1, 4);
  check(257, 131, 127, 64, 3, 5);
  check(64, 48, 31, 23, 4, 6);
  check(64, 48, 31, 23, 2, 7);
}

TEST(Resize, LinearMatchesOpenCVOnGrowingAndOddShapes) {
  check(1, 1, 7, 5, 1, 8);
  check(3, 2, 17, 11, 1, 9);
  check(13, 7, 131, 29, 3, 10);
  check(31, 17, 31, 40, 2, 11);  // one axis unchanged
  check(29, 23, 5, 61, 4, 12);
}

TEST(Resize, SameSizeCopiesAndExactHalfAveragesLikeOpenCV) {
  check(37, 19, 37, 19, 1, 13);
  for (int cn = 1; cn <= 4; ++cn) check(128, 96, 64, 48, cn, 14 + cn);  // OpenCV's 2x2 box path
  check(130, 90, 65, 45, 1, 20);
}

TEST(Resize, RandomSizesMatchOpenCV) {
  std::mt19937 rng(99);
  for (int i = 0; i < 24; ++i) {
    const int sw = 1 + static_cast<int>(rng() % 200), sh = 1 + static_cast<int>(rng() % 150);
    const int dw = 1 + static_cast<int>(rng() % 220), dh = 1 + static_cast<int>(rng() % 160);
    check(sw, sh, dw, dh, 1 + static_cast<int>(rng() % 4), 100 + static_cast<std::uint32_t>(i));
  }
}

TEST(Resize, HostConvenienceAllocates) {
  const HostImage src = test::random_image(50, 40, Format{Depth::u8, 1}, 21);
  EXPECT_TRUE(test::images_equal(reference(src, {23, 17}), resize(queue(), src, Size{23, 17})));
}

TEST(Resize, RejectsBadArguments) {
  const DeviceImage u8 = queue().upload(test::random_image(8, 8, Format{Depth::u8, 1}, 1));
  const DeviceImage f32 = queue().upload(test::random_image(8, 8, Format{Depth::f32, 1}, 1));
  DeviceImage out(test::context(), 4, 4, Format{Depth::u8, 3});
  EXPECT_TRUE(test::throws_code([&] { resize(queue(), u8, out); }, ErrorCode::invalid_argument));
  DeviceImage f32_out;
  EXPECT_TRUE(test::throws_code([&] { resize(queue(), f32, f32_out, Size{4, 4}); }, ErrorCode::unsupported_type));
  DeviceImage small(test::context(), 4, 4, Format{Depth::u8, 1});
  EXPECT_TRUE(test::throws_code([&] { resize(queue(), u8, small, Size{5, 5}); }, ErrorCode::invalid_argument));
  DeviceImage none;
  EXPECT_TRUE(test::throws_code([&] { resize(queue(), u8, none, Size{0, 5}); }, ErrorCode::out_of_range));
  DeviceImage self = u8;
  EXPECT_TRUE(test::throws_code([&] { resize(queue(), u8, self); }, ErrorCode::invalid_argument));
}

}  // namespace
}  // namespace plinth
