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

// Builds the pyramid of img by `method` and compares every level and derivative plane, padding
// included, with cv::buildOpticalFlowPyramid's.
void expect_matches_opencv(const cv::Mat& img, cv::Size win, int max_level, OpticalFlowPyramidMethod method) {
  SCOPED_TRACE(std::to_string(img.cols) + "x" + std::to_string(img.rows) + " " + describe(win, max_level) + " " +
               std::string(to_string(method)));
  std::vector<cv::Mat> want;
  const int want_levels = cv::buildOpticalFlowPyramid(img, want, win, max_level, true);
  OpticalFlowPyramid got;
  const int got_levels =
      build_optical_flow_pyramid(queue(), queue().upload(from_mat(img)), got, {win.width, win.height}, max_level, true, method);
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

constexpr OpticalFlowPyramidMethod kMethods[] = {OpticalFlowPyramidMethod::fused, OpticalFlowPyramidMethod::per_level};

TEST(OpticalFlowPyramid, MatchesOpenCV) {
  const cv::Size sizes[] = {{1, 1}, {7, 5}, {64, 48}, {161, 97}};
  const cv::Size wins[] = {{3, 3}, {9, 9}, {21, 15}};
  std::uint32_t seed = 10;
  for (cv::Size size : sizes) {
    const cv::Mat img = smooth_noise(size.width, size.height, seed++);
    for (cv::Size win : wins) {
      for (int max_level : {0, 1, 4}) {
        for (OpticalFlowPyramidMethod method : kMethods) expect_matches_opencv(img, win, max_level, method);
      }
    }
  }
}

// The fused kernel's tiles (32 x 8 level pixels with a frame of one) against the image edges:
// levels one or two pixels past a tile boundary, levels smaller than a tile, levels whose left and
// right padding mirror the same pixels, windows 5 and 31, maxLevel 0 to 5.
TEST(OpticalFlowPyramid, TileEdgesMatchOpenCV) {
  struct Case {
    cv::Size size;
    cv::Size win;
  };
  const Case cases[] = {
      {{12, 10}, {3, 3}},    // level 1: 6 x 5, one tile, each padding side mirrors overlapping pixels
      {{65, 17}, {5, 5}},    // level 1: 33 x 9, one column and one row past the first tile
      {{66, 18}, {5, 5}},    // level 1: the same size from even sides
      {{131, 35}, {5, 5}},   // 66 x 18, 33 x 9, 17 x 5 (stops)
      {{263, 139}, {5, 5}},  // 132 x 70, 66 x 35, 33 x 18, 17 x 9
      {{70, 66}, {31, 31}},  // level 1: 35 x 33 (a padding of 31 on a level of 33 rows)
      {{200, 131}, {31, 31}},
      {{127, 255}, {5, 31}},
      {{517, 33}, {31, 5}},
  };
  std::uint32_t seed = 40;
  for (const Case& c : cases) {
    const cv::Mat img = smooth_noise(c.size.width, c.size.height, seed++);
    for (int max_level = 0; max_level <= 5; ++max_level) {
      for (OpticalFlowPyramidMethod method : kMethods) expect_matches_opencv(img, c.win, max_level, method);
    }
  }
}

// A pyramid rebuilt into its own allocations from another frame (the tracker's case): every
// level, padding and derivative is rewritten.
TEST(OpticalFlowPyramid, ReusedAllocationsAreRewritten) {
  const cv::Mat a = smooth_noise(150, 90, 70), b = smooth_noise(150, 90, 71);
  const cv::Size win{7, 7};
  OpticalFlowPyramid got;
  build_optical_flow_pyramid(queue(), queue().upload(from_mat(a)), got, {win.width, win.height}, 3, true);
  const DeviceImage level2 = got.levels[2];
  build_optical_flow_pyramid(queue(), queue().upload(from_mat(b)), got, {win.width, win.height}, 3, true);
  EXPECT_TRUE(got.levels[2].native() == level2.native());  // reused
  std::vector<cv::Mat> want;
  cv::buildOpticalFlowPyramid(b, want, win, 3, true);
  for (std::size_t l = 0; l < got.levels.size(); ++l) {
    EXPECT_TRUE(images_equal(from_mat(want[2 * l]), queue().download(got.levels[l]))) << "level " << l;
    EXPECT_TRUE(images_equal(from_mat(want[2 * l + 1]), queue().download(got.derivatives[l]))) << "level " << l;
  }
}

TEST(OpticalFlowPyramid, BadArgumentsThrow) {
  const DeviceImage img = queue().upload(from_mat(smooth_noise(40, 30, 13)));
  OpticalFlowPyramid pyr;
  EXPECT_TRUE(throws_code([&] { build_optical_flow_pyramid(queue(), img, pyr, {2, 5}, 1); }, ErrorCode::out_of_range));
  EXPECT_TRUE(throws_code([&] { build_optical_flow_pyramid(queue(), img, pyr, {5, 5}, -1); }, ErrorCode::out_of_range));
  const DeviceImage f32 = queue().upload(random_image(40, 30, Format{Depth::f32, 1}, 3));
  EXPECT_TRUE(throws_code([&] { build_optical_flow_pyramid(queue(), f32, pyr, {5, 5}, 1); }, ErrorCode::unsupported_type));
  // The source may not be memory the build writes (here the pyramid's own level 0, reused).
  build_optical_flow_pyramid(queue(), img, pyr, {5, 5}, 1);
  const DeviceImage level0 = pyr.levels[0];
  EXPECT_TRUE(throws_code([&] { build_optical_flow_pyramid(queue(), level0, pyr, {5, 5}, 1); }, ErrorCode::invalid_argument));
}

}  // namespace
}  // namespace plinth::test
