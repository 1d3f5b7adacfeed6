// build_optical_flow_pyramid against OpenCV 4.6's cv::buildOpticalFlowPyramid, bit for bit: every
// level and its Scharr derivatives with their padding, over sizes, windows and depths; bad
// arguments. (calc_optical_flow_pyr_lk, which reads these pyramids: tests/pyr_lk_test.cpp.)
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include "support/test_support.hpp"

namespace plinth::test {
namespace {

// Smoothed noise: gradients at every level of a small pyramid.
cv::Mat smooth_noise(int width, int height, std::uint32_t seed) {
  cv::Mat out;
  cv::GaussianBlur(as_mat(random_image(width, height, Format{Depth::u8, 1}, seed)), out, cv::Size(0, 0), 1.5);
  return out;
}

std::string describe(cv::Size win, int level) {
  return "win " + std::to_string(win.width) + "x" + std::to_string(win.height) + " maxLevel " + std::to_string(level);
}

TEST(OpticalFlowPyramid, MatchesOpenCV) {
  const cv::Size sizes[] = {{1, 1}, {7, 5}, {64, 48}, {161, 97}};
  const cv::Size wins[] = {{3, 3}, {9, 9}, {21, 15}};
  std::uint32_t seed = 10;
  for (cv::Size size : sizes) {
    const cv::Mat img = smooth_noise(size.width, size.height, seed++);
    for (cv::Size win : wins) {
      for (int max_level : {0, 1, 4}) {
        SCOPED_TRACE(std::to_string(size.width) + "x" + std::to_string(size.height) + " " + describe(win, max_level));
        std::vector<cv::Mat> want;
        const int want_levels = cv::buildOpticalFlowPyramid(img, want, win, max_level, true);
        OpticalFlowPyramid got;
        const int got_levels = build_optical_flow_pyramid(queue(), queue().upload(from_mat(img)), got, {win.width, win.height},
                                                          max_level, true);
        ASSERT_EQ(want_levels, got_levels);
        ASSERT_EQ(static_cast<int>(got.levels.size()), got_levels + 1);
        for (int l = 0; l <= got_levels; ++l) {
          for (int k = 0; k < 2; ++k) {
            // Compare the padded allocations whole: padding included.
            cv::Mat whole = want[static_cast<std::size_t>(2 * l + k)];
            whole.adjustROI(win.height, win.height, win.width, win.width);
            const DeviceImage& view = k == 0 ? got.levels[static_cast<std::size_t>(l)] : got.derivatives[static_cast<std::size_t>(l)];
            const std::size_t back = static_cast<std::size_t>(win.height) * view.pitch() +
                                     static_cast<std::size_t>(win.width) * view.format().pixel_size();
            const DeviceImage padded = DeviceImage::wrap(context(), view.native(), whole.cols, whole.rows, view.format(),
                                                         view.pitch(), view.offset() - back);
            EXPECT_TRUE(images_equal(from_mat(whole.clone()), queue().download(padded))) << "level " << l << (k ? " derivatives" : "");
          }
        }
      }
    }
  }
}

TEST(OpticalFlowPyramid, BadArgumentsThrow) {
  const DeviceImage img = queue().upload(from_mat(smooth_noise(40, 30, 13)));
  OpticalFlowPyramid pyr;
  EXPECT_TRUE(throws_code([&] { build_optical_flow_pyramid(queue(), img, pyr, {2, 5}, 1); }, ErrorCode::out_of_range));
  EXPECT_TRUE(throws_code([&] { build_optical_flow_pyramid(queue(), img, pyr, {5, 5}, -1); }, ErrorCode::out_of_range));
  const DeviceImage f32 = queue().upload(random_image(40, 30, Format{Depth::f32, 1}, 3));
  EXPECT_TRUE(throws_code([&] { build_optical_flow_pyramid(queue(), f32, pyr, {5, 5}, 1); }, ErrorCode::unsupported_type));
}

}  // namespace
}  // namespace plinth::test
