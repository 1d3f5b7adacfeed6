// resize(INTER_LINEAR, u8) against cv::resize: bit for bit.
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>
#include <random>
#include <string>
#include <vector>

#include "ops/resize_jobs.hpp"
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

// The cascade's pyramid: several sizes of one source into one buffer in one launch, from
// host-computed coefficients, each equal to cv::resize(INTER_LINEAR_EXACT): copies, exact
// halving, edges, growing, one-pixel sizes, destinations at odd offsets (byte stores) and at
// multiples of 4 (word stores).
TEST(Resize, JobsMatchOpenCVExact) {
  for (const Size src_size : {Size{157, 113}, Size{1, 1}, Size{128, 96}}) {
    SCOPED_TRACE(std::to_string(src_size.width) + "x" + std::to_string(src_size.height));
    const HostImage src = test::random_image(src_size.width, src_size.height, Format{Depth::u8, 1}, 21);
    const DeviceImage d_src = test::upload_padded(src, 3, 2);
    const std::vector<Size> sizes{src_size,     {64, 48},  {143, 103}, {1, 1}, {7, 130},
                                  {src_size.width / 2 > 0 ? src_size.width / 2 : 1, src_size.height / 2 > 0 ? src_size.height / 2 : 1},
                                  {300, 5},     {33, 17}};
    int rows = 0;
    for (const Size& size : sizes) rows += size.height;
    DeviceImage dst(queue().context(), 305, rows, Format{Depth::u8, 1});
    queue().fill_bytes(dst, 0xA5);
    const int pitch = static_cast<int>(dst.pitch_elements());
    std::vector<detail::ResizeJob> jobs;
    int row = 0;
    for (const Size& size : sizes) {
      jobs.push_back({size, static_cast<std::int64_t>(row) * pitch + (jobs.size() % 2 ? 1 : 4)});
      row += size.height;
    }
    const detail::ResizeJobTable table = detail::pack_resize_jobs(src_size, jobs);
    HostImage words_host(static_cast<int>(table.words.size()), 1, Format{Depth::s32, 1});
    for (std::size_t k = 0; k < table.words.size(); ++k) words_host.at<std::int32_t>(static_cast<int>(k), 0) = table.words[k];
    const DeviceImage words = queue().upload(words_host);
    detail::launch_resize_jobs(queue(), d_src, *dst.buffer(), pitch, table, *words.buffer())->wait();
    const HostImage out = queue().download(dst);
    for (const detail::ResizeJob& j : jobs) {
      SCOPED_TRACE(std::to_string(j.size.width) + "x" + std::to_string(j.size.height));
      const HostImage expected = reference(src, j.size, Interpolation::linear_exact);
      HostImage got(j.size.width, j.size.height, Format{Depth::u8, 1});
      for (int y = 0; y < j.size.height; ++y) {
        for (int x = 0; x < j.size.width; ++x) {
          const std::int64_t at = j.dst_offset + static_cast<std::int64_t>(y) * pitch + x;
          got.at<std::uint8_t>(x, y) = out.at<std::uint8_t>(static_cast<int>(at % pitch), static_cast<int>(at / pitch));
        }
      }
      EXPECT_TRUE(test::images_equal(expected, got));
      // Nothing written beside the destination's rows.
      for (int y = 0; y < j.size.height; ++y) {
        const int x0 = static_cast<int>(j.dst_offset % pitch), y0 = static_cast<int>(j.dst_offset / pitch) + y;
        EXPECT_EQ(out.at<std::uint8_t>(x0 - 1, y0), 0xA5);
        EXPECT_EQ(out.at<std::uint8_t>(x0 + j.size.width, y0), 0xA5);
      }
    }
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
