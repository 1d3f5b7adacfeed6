// Matching against cv::BFMatcher itself: knnMatch with NORM_HAMMING (labels and distances equal,
// ties included), NORM_L2 (labels equal, distances within 1e-5 relative), crossCheck for both, and
// the ratio test on ORB descriptors of a real image pair.
#include <opencv2/features2d.hpp>
#include <opencv2/imgcodecs.hpp>
#include <random>

#include "plinth/features.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

cv::Mat random_mat(int rows, int cols, int type, std::uint32_t seed) {
  cv::Mat m(rows, cols, type);
  cv::RNG rng(seed);
  if (type == CV_8U) rng.fill(m, cv::RNG::UNIFORM, 0, 256);
  else rng.fill(m, cv::RNG::UNIFORM, 0.0, 1.0);
  return m;
}

template <class T>
std::span<const T> span_of(const cv::Mat& m) {
  return {m.ptr<T>(), m.total()};
}

void expect_same(const std::vector<std::vector<cv::DMatch>>& expected, const std::vector<std::vector<Match>>& got, bool exact) {
  ASSERT_EQ(expected.size(), got.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(expected[i].size(), got[i].size()) << "query " << i;
    for (std::size_t s = 0; s < got[i].size(); ++s) {
      EXPECT_EQ(got[i][s].query, expected[i][s].queryIdx);
      EXPECT_EQ(got[i][s].train, expected[i][s].trainIdx) << "query " << i << " neighbour " << s;
      if (exact) EXPECT_EQ(got[i][s].distance, expected[i][s].distance);
      else EXPECT_NEAR(got[i][s].distance, expected[i][s].distance, 1e-5 * expected[i][s].distance);
    }
  }
}

TEST(FeaturesMatch, KnnEqualsBFMatcher) {
  const cv::Mat qb = random_mat(300, 32, CV_8U, 1), tb = random_mat(200, 32, CV_8U, 2);
  std::vector<std::vector<cv::DMatch>> expected;
  cv::BFMatcher(cv::NORM_HAMMING).knnMatch(qb, tb, expected, 4);
  expect_same(expected, knn_match(queue(), span_of<std::uint8_t>(qb), span_of<std::uint8_t>(tb), 32, 4), true);

  const cv::Mat qf = random_mat(300, 64, CV_32F, 3), tf = random_mat(250, 64, CV_32F, 4);
  std::vector<std::vector<cv::DMatch>> expected_l2;
  cv::BFMatcher(cv::NORM_L2).knnMatch(qf, tf, expected_l2, 2);
  expect_same(expected_l2, knn_match(queue(), span_of<float>(qf), span_of<float>(tf), 64, 2), false);
}

TEST(FeaturesMatch, CrossCheckEqualsBFMatcher) {
  const cv::Mat qb = random_mat(250, 32, CV_8U, 5), tb = random_mat(180, 32, CV_8U, 6);
  std::vector<cv::DMatch> expected;
  cv::BFMatcher(cv::NORM_HAMMING, true).match(qb, tb, expected);
  const auto got = match(queue(), span_of<std::uint8_t>(qb), span_of<std::uint8_t>(tb), 32, true);
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].query, expected[i].queryIdx);
    EXPECT_EQ(got[i].train, expected[i].trainIdx);
    EXPECT_EQ(got[i].distance, expected[i].distance);
  }
  const cv::Mat qf = random_mat(200, 128, CV_32F, 7), tf = random_mat(220, 128, CV_32F, 8);
  std::vector<cv::DMatch> expected_l2;
  cv::BFMatcher(cv::NORM_L2, true).match(qf, tf, expected_l2);
  const auto gotf = match(queue(), span_of<float>(qf), span_of<float>(tf), 128, true);
  ASSERT_EQ(gotf.size(), expected_l2.size());
  for (std::size_t i = 0; i < gotf.size(); ++i) {
    EXPECT_EQ(gotf[i].query, expected_l2[i].queryIdx);
    EXPECT_EQ(gotf[i].train, expected_l2[i].trainIdx);
  }
}

TEST(FeaturesMatch, RatioTestOnOrbDescriptorsOfGraf) {
  const std::string dir = "/usr/share/doc/opencv-doc/examples/data/";
  const cv::Mat a = cv::imread(dir + "graf1.png", cv::IMREAD_GRAYSCALE), b = cv::imread(dir + "graf3.png", cv::IMREAD_GRAYSCALE);
  if (a.empty() || b.empty()) GTEST_SKIP() << "opencv-doc's graf images are not installed";
  auto orb = cv::ORB::create(1000);
  std::vector<cv::KeyPoint> ka, kb;
  cv::Mat da, db;
  orb->detectAndCompute(a, cv::noArray(), ka, da);
  orb->detectAndCompute(b, cv::noArray(), kb, db);
  std::vector<std::vector<cv::DMatch>> knn;
  cv::BFMatcher(cv::NORM_HAMMING).knnMatch(da, db, knn, 2);
  std::vector<Match> expected;
  for (const auto& m : knn) {
    if (m.size() == 2 && m[0].distance < 0.8f * m[1].distance) expected.push_back({m[0].queryIdx, m[0].trainIdx, m[0].distance});
  }
  const auto got = ratio_test(knn_match(queue(), span_of<std::uint8_t>(da), span_of<std::uint8_t>(db), 32, 2), 0.8f);
  EXPECT_GT(expected.size(), 50u);
  EXPECT_EQ(got, expected);
}

}  // namespace
}  // namespace plinth::test
