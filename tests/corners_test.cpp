// corner_min_eigen_val, corner_harris and good_features_to_track against OpenCV 4.6's CPU functions:
// responses bit for bit, corner lists equal in order. Random images of awkward sizes, images with
// hard edges next to near-flat areas (where running double sums could round), and real photos
// (data/astronaut.png, opencv-doc's blox.jpg, left01.jpg and box.png where installed).
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "ops/corners_internal.hpp"
#include "support/test_support.hpp"

namespace plinth {
namespace {

using test::as_mat;
using test::queue;

int cv_border(BorderMode mode) {
  switch (mode) {
    case BorderMode::constant: return cv::BORDER_CONSTANT;
    case BorderMode::replicate: return cv::BORDER_REPLICATE;
    case BorderMode::reflect: return cv::BORDER_REFLECT;
    case BorderMode::reflect_101: return cv::BORDER_REFLECT_101;
    case BorderMode::wrap: return cv::BORDER_WRAP;
  }
  return cv::BORDER_DEFAULT;
}

// Random pixels, or bright blocks beside near-black noise: derivatives from 0 to the largest, the
// case where OpenCV's running double sums could lose low bits.
HostImage test_image(int width, int height, std::uint32_t seed, int kind) {
  HostImage image = test::random_image(width, height, Format{Depth::u8, 1}, seed);
  if (kind == 0) return image;
  std::mt19937 rng(seed);
  for (int y = 0; y < height; ++y) {
    auto* row = image.row_as<std::uint8_t>(y);
    for (int x = 0; x < width; ++x) {
      const bool bright = ((x / 5 + y / 3) % 3) == 0;
      row[x] = bright ? 255 : static_cast<std::uint8_t>(rng() % 2);
    }
  }
  return image;
}

HostImage photo(const std::string& path) {
  HostImage grey = read_image(path, ReadMode::gray);
  return grey;
}

std::vector<std::pair<std::string, HostImage>> photos() {
  std::vector<std::pair<std::string, HostImage>> out;
  out.emplace_back("astronaut.png", photo(std::string(PLINTH_SOURCE_DIR) + "/data/astronaut.png"));
  const std::string doc = "/usr/share/doc/opencv-doc/examples/data/";
  for (const char* name : {"blox.jpg", "left01.jpg", "box.png"}) {
    if (std::filesystem::is_regular_file(doc + name)) out.emplace_back(name, photo(doc + name));
  }
  return out;
}

::testing::AssertionResult response_matches(const HostImage& image, int block, int ksize, BorderMode border, bool harris,
                                            double k = 0.04) {
  cv::Mat expected;
  if (harris) {
    cv::cornerHarris(as_mat(image), expected, block, ksize, k, cv_border(border));
  } else {
    cv::cornerMinEigenVal(as_mat(image), expected, block, ksize, cv_border(border));
  }
  // Upload into a padded view and write into a poisoned view: pitch, offset and coverage.
  const DeviceImage src = test::upload_padded(image, 3, 2);
  DeviceImage dst = test::poisoned_view(image.width(), image.height(), Format{Depth::f32, 1}, 5, 1, 0xff);
  if (harris) {
    corner_harris(queue(), src, dst, block, ksize, k, border);
  } else {
    corner_min_eigen_val(queue(), src, dst, block, ksize, border);
  }
  return test::images_equal(test::from_mat(expected), queue().download(dst));
}

// Lowers the number of minDistance rounds launched before the finish for one scope, so that small
// images reach the finish; the results must not change.
struct Rounds {
  detail::CornersTuning saved = detail::corners_tuning();
  explicit Rounds(int rounds) { detail::corners_tuning().distance_rounds = rounds; }
  ~Rounds() { detail::corners_tuning() = saved; }
  Rounds(const Rounds&) = delete;
  Rounds& operator=(const Rounds&) = delete;
};

const BorderMode kBorders[] = {BorderMode::reflect_101, BorderMode::constant, BorderMode::replicate, BorderMode::reflect};

TEST(CornersResponse, RandomImagesEveryApertureBlockAndBorder) {
  std::uint32_t seed = 11;
  for (int ksize : {3, 1, 5, 7, -1}) {
    for (int block = 2; block <= 7; ++block) {
      for (BorderMode border : kBorders) {
        ++seed;
        const int kind = static_cast<int>(seed % 2);
        const HostImage image = test_image(29 + static_cast<int>(seed % 23), 17 + static_cast<int>(seed % 13), seed, kind);
        SCOPED_TRACE("ksize " + std::to_string(ksize) + " block " + std::to_string(block) + " border " +
                     std::string(to_string(border)) + " kind " + std::to_string(kind));
        EXPECT_TRUE(response_matches(image, block, ksize, border, false));
        EXPECT_TRUE(response_matches(image, block, ksize, border, true, seed % 3 == 0 ? 0.06 : 0.04));
      }
    }
  }
}

// A width x height part of `image` from (x0, y0) (clipped to the image).
HostImage crop(const HostImage& image, int x0, int y0, int width, int height) {
  width = std::min(width, image.width() - x0);
  height = std::min(height, image.height() - y0);
  HostImage out(width, height, Format{Depth::u8, 1});
  for (int y = 0; y < height; ++y) std::copy_n(image.row_as<std::uint8_t>(y0 + y) + x0, width, out.row_as<std::uint8_t>(y));
  return out;
}

// Parts of the photographs (their textures leave rounding residues in OpenCV's double chains,
// which must carry across the tiles of the running sums: 64 rows down a column, 128 sums along a
// row) and synthetic images, every window 2 to 9 (running row sums but for 3 and 5), each border.
TEST(CornersResponse, RunningSumsAcrossTiles) {
  const auto all = photos();
  std::uint32_t seed = 300;
  for (int ksize : {3, 5, -1}) {
    for (int block = 2; block <= 9; ++block) {
      ++seed;
      const BorderMode border = kBorders[seed % 4];
      const auto& [name, photo] = all[seed % all.size()];
      const HostImage part = crop(photo, static_cast<int>(seed * 7 % 200), static_cast<int>(seed * 13 % 150), 300, 150);
      const HostImage image = test_image(130 + static_cast<int>(seed % 17), 70 + static_cast<int>(seed % 11), seed, 1);
      SCOPED_TRACE("ksize " + std::to_string(ksize) + " block " + std::to_string(block) + " border " + std::string(to_string(border)) +
                   " " + name);
      EXPECT_TRUE(response_matches(part, block, ksize, border, false));
      EXPECT_TRUE(response_matches(part, block, ksize, border, true));
      EXPECT_TRUE(response_matches(image, block, ksize, border, seed % 2 == 0));
    }
  }
  // The largest window.
  EXPECT_TRUE(response_matches(crop(all.front().second, 0, 0, 200, 140), corners_max_block_size, 3, BorderMode::reflect_101, false));
}

TEST(CornersResponse, TinyAndOddSizes) {
  for (Size s : {Size{1, 1}, Size{2, 3}, Size{7, 1}, Size{1, 9}, Size{13, 5}, Size{8, 8}}) {
    const HostImage image = test_image(s.width, s.height, 5u + static_cast<std::uint32_t>(s.width * 7 + s.height), 0);
    SCOPED_TRACE(std::to_string(s.width) + "x" + std::to_string(s.height));
    EXPECT_TRUE(response_matches(image, 3, 3, BorderMode::reflect_101, false));
    EXPECT_TRUE(response_matches(image, 2, 3, BorderMode::replicate, true));
  }
}

TEST(CornersResponse, Photos) {
  for (const auto& [name, image] : photos()) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(response_matches(image, 3, 3, BorderMode::reflect_101, false));
    EXPECT_TRUE(response_matches(image, 2, 3, BorderMode::reflect_101, true));
    EXPECT_TRUE(response_matches(image, 7, 5, BorderMode::reflect_101, false));
  }
}

TEST(CornersResponse, BadArguments) {
  const DeviceImage src = queue().upload(test_image(16, 16, 3, 0));
  DeviceImage dst;
  EXPECT_TRUE(test::throws_code([&] { corner_min_eigen_val(queue(), src, dst, 0); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(test::throws_code([&] { corner_min_eigen_val(queue(), src, dst, 3, 4); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(test::throws_code([&] { corner_min_eigen_val(queue(), src, dst, 3, 3, BorderMode::wrap); }, ErrorCode::invalid_argument));
  const DeviceImage f32 = queue().upload(test::random_image(8, 8, Format{Depth::f32, 1}, 2));
  EXPECT_TRUE(test::throws_code([&] { corner_harris(queue(), f32, dst, 3, 3, 0.04); }, ErrorCode::unsupported_type));
  DeviceImage wrong(test::context(), 8, 8, Format{Depth::f32, 1});
  EXPECT_TRUE(test::throws_code([&] { corner_harris(queue(), src, wrong, 3, 3, 0.04); }, ErrorCode::invalid_argument));
}

std::vector<Point2f> opencv_corners(const HostImage& image, const GoodFeaturesParams& p, const HostImage* mask) {
  std::vector<cv::Point2f> corners;
  cv::goodFeaturesToTrack(as_mat(image), corners, std::max(0, p.max_corners), p.quality_level, p.min_distance,
                          mask != nullptr ? as_mat(*mask) : cv::Mat(), p.block_size, p.gradient_size, p.use_harris_detector, p.k);
  std::vector<Point2f> out;
  for (const cv::Point2f& c : corners) out.push_back({c.x, c.y});
  return out;
}

::testing::AssertionResult same_corners(const std::vector<Point2f>& expected, const std::vector<Point2f>& actual) {
  if (expected.size() != actual.size()) {
    return ::testing::AssertionFailure() << "OpenCV found " << expected.size() << " corners, plinth " << actual.size();
  }
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (!(expected[i] == actual[i])) {
      return ::testing::AssertionFailure() << "corner " << i << ": OpenCV (" << expected[i].x << ", " << expected[i].y
                                           << "), plinth (" << actual[i].x << ", " << actual[i].y << ")";
    }
  }
  return ::testing::AssertionSuccess() << expected.size() << " corners";
}

::testing::AssertionResult gftt_matches(const HostImage& image, const GoodFeaturesParams& p, const HostImage* mask = nullptr) {
  const std::vector<Point2f> expected = opencv_corners(image, p, mask);
  const DeviceImage src = queue().upload(image);
  DeviceImage d_mask;
  if (mask != nullptr) d_mask = queue().upload(*mask);
  const std::vector<Point2f> actual = good_features_to_track(queue(), src, p, mask != nullptr ? &d_mask : nullptr);
  ::testing::AssertionResult host = same_corners(expected, actual);
  if (!host) return host;
  // The device-side form holds the same list.
  DeviceArray corners;
  DeviceArray count;
  good_features_to_track(queue(), src, corners, count, p, mask != nullptr ? &d_mask : nullptr);
  const auto n = download_array<std::uint32_t>(queue(), count);
  std::vector<Point2f> on_device(n[0]);
  if (n[0] > 0) download_array(queue(), corners.slice(0, n[0]), on_device.data(), n[0] * sizeof(Point2f)).wait();
  return same_corners(expected, on_device);
}

TEST(CornersGoodFeatures, PhotosAcrossParameters) {
  for (const auto& [name, image] : photos()) {
    const struct {
      double min_distance;
      int max_corners;
      double quality;
    } runs[] = {{0.0, 0, 0.01}, {1.0, 1000, 0.01}, {10.0, 1000, 0.01}, {2.5, 25, 0.001}, {57.0, 0, 0.05}, {0.5, 300, 0.02}, {5000.0, 0, 0.01}};
    for (const auto& run : runs) {
      {
        GoodFeaturesParams p;
        p.max_corners = run.max_corners;
        p.min_distance = run.min_distance;
        p.quality_level = run.quality;
        const double min_distance = run.min_distance;
        const int max_corners = run.max_corners;
        SCOPED_TRACE(name + " min_distance " + std::to_string(min_distance) + " max " + std::to_string(max_corners));
        EXPECT_TRUE(gftt_matches(image, p));
      }
    }
    GoodFeaturesParams harris;
    harris.use_harris_detector = true;
    harris.block_size = 5;
    harris.min_distance = 4;
    SCOPED_TRACE(name + " harris");
    EXPECT_TRUE(gftt_matches(image, harris));
  }
}

TEST(CornersGoodFeatures, RandomImagesMasksAndTies) {
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    // Random pixels give many equal responses: the tie rule decides the order.
    HostImage image = test_image(61 + static_cast<int>(seed) * 7, 47 + static_cast<int>(seed) * 3, seed, static_cast<int>(seed % 2));
    HostImage mask = test::random_image(image.width(), image.height(), Format{Depth::u8, 1}, seed + 100, 0, 3);
    GoodFeaturesParams p;
    p.max_corners = seed % 3 == 0 ? -1 : static_cast<int>(seed) * 40;
    p.quality_level = seed % 2 ? 0.05 : 0.3;
    p.min_distance = seed % 3 == 1 ? 0 : static_cast<double>(seed);
    p.block_size = 2 + static_cast<int>(seed % 4);
    p.gradient_size = seed % 2 ? 3 : 5;
    p.use_harris_detector = seed % 3 == 2;
    SCOPED_TRACE("seed " + std::to_string(seed));
    EXPECT_TRUE(gftt_matches(image, p));
    EXPECT_TRUE(gftt_matches(image, p, &mask));
  }
  // A mask of zeros: OpenCV's maximum is then 0, and no corner is found.
  HostImage image = test_image(40, 30, 9, 0);
  HostImage zeros(40, 30, Format{Depth::u8, 1});
  for (int y = 0; y < 30; ++y) std::fill_n(zeros.row_as<std::uint8_t>(y), 40, std::uint8_t{0});
  EXPECT_TRUE(gftt_matches(image, GoodFeaturesParams{}, &zeros));
}

// minDistance 0, 1, 5, 10, 30 with no limit and with a small one that cuts the list, on every
// photo; masks on some.
TEST(CornersGoodFeatures, MinDistanceSweep) {
  std::uint32_t seed = 40;
  for (const auto& [name, image] : photos()) {
    for (double min_distance : {0.0, 1.0, 5.0, 10.0, 30.0}) {
      for (int max_corners : {0, 7}) {
        GoodFeaturesParams p;
        p.min_distance = min_distance;
        p.max_corners = max_corners;
        p.quality_level = max_corners == 0 ? 0.02 : 0.005;
        SCOPED_TRACE(name + " min_distance " + std::to_string(min_distance) + " max " + std::to_string(max_corners));
        EXPECT_TRUE(gftt_matches(image, p));
      }
    }
    const HostImage mask = test::random_image(image.width(), image.height(), Format{Depth::u8, 1}, ++seed, 0, 3);
    for (double min_distance : {5.0, 10.0}) {
      GoodFeaturesParams p;
      p.min_distance = min_distance;
      p.max_corners = 60;
      SCOPED_TRACE(name + " masked, min_distance " + std::to_string(min_distance));
      EXPECT_TRUE(gftt_matches(image, p, &mask));
    }
  }
}

// One or two rounds before the finish: the one-work-item walk decides what the rounds left.
TEST(CornersGoodFeatures, FewRoundsThenFinish) {
  const auto all = photos();
  for (int rounds : {1, 2}) {
    const Rounds lowered(rounds);
    GoodFeaturesParams p;
    p.max_corners = 0;
    p.min_distance = 10;
    SCOPED_TRACE("rounds " + std::to_string(rounds));
    EXPECT_TRUE(gftt_matches(all.front().second, p));
    for (std::uint32_t seed = 1; seed <= 2; ++seed) {
      const HostImage image = test_image(90, 70, seed + 500, 0);
      p.min_distance = 3.0 + seed;
      p.quality_level = 0.05;
      EXPECT_TRUE(gftt_matches(image, p));
    }
  }
}

TEST(CornersGoodFeatures, TinyImages) {
  for (Size size : {Size{1, 1}, Size{2, 3}, Size{3, 3}, Size{5, 4}, Size{9, 2}}) {
    const HostImage image = test_image(size.width, size.height, 70u + static_cast<std::uint32_t>(size.width * 5 + size.height), 0);
    for (double min_distance : {0.0, 2.0}) {
      GoodFeaturesParams p;
      p.min_distance = min_distance;
      p.quality_level = 0.001;
      SCOPED_TRACE(std::to_string(size.width) + "x" + std::to_string(size.height) + " min_distance " + std::to_string(min_distance));
      EXPECT_TRUE(gftt_matches(image, p));
    }
  }
}

TEST(CornersGoodFeatures, BadArguments) {
  const DeviceImage src = queue().upload(test_image(32, 24, 4, 0));
  GoodFeaturesParams p;
  p.quality_level = 0;
  EXPECT_TRUE(test::throws_code([&] { good_features_to_track(queue(), src, p); }, ErrorCode::invalid_argument));
  p = {};
  p.min_distance = -1;
  EXPECT_TRUE(test::throws_code([&] { good_features_to_track(queue(), src, p); }, ErrorCode::invalid_argument));
  p = {};
  p.block_size = 0;
  EXPECT_TRUE(test::throws_code([&] { good_features_to_track(queue(), src, p); }, ErrorCode::invalid_argument));
  const DeviceImage small_mask = queue().upload(test_image(31, 24, 4, 0));
  EXPECT_TRUE(test::throws_code([&] { good_features_to_track(queue(), src, {}, &small_mask); }, ErrorCode::invalid_argument));
}

}  // namespace
}  // namespace plinth
