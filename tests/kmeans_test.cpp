// kmeans against cv::kmeans: started from the same labels (KMEANS_USE_INITIAL_LABELS) the
// compactness agrees within 1e-5 relative and the labels match; k-means++ is deterministic for a
// seed and finds well-separated blobs; empty clusters; the argument errors.
#include <opencv2/core.hpp>
#include <random>

#include "plinth/bow.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

// n samples around `blobs` random centres (spread `sigma`), row-major.
std::vector<float> blob_data(int n, int dim, int blobs, float sigma, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-5.0f, 5.0f);
  std::normal_distribution<float> g(0.0f, sigma);
  std::vector<float> centres(static_cast<std::size_t>(blobs) * dim), data(static_cast<std::size_t>(n) * dim);
  for (float& v : centres) v = u(rng);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < dim; ++j) data[static_cast<std::size_t>(i) * dim + j] = centres[static_cast<std::size_t>(i % blobs) * dim + j] + g(rng);
  }
  return data;
}

double opencv_from_labels(const std::vector<float>& data, int dim, int k, std::vector<int>& labels, int max_count, double eps,
                          cv::Mat& centers) {
  const cv::Mat samples(static_cast<int>(data.size()) / dim, dim, CV_32F, const_cast<float*>(data.data()));
  cv::Mat l(static_cast<int>(labels.size()), 1, CV_32S, labels.data());
  return cv::kmeans(samples, k, l, cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, max_count, eps), 1,
                    cv::KMEANS_USE_INITIAL_LABELS, centers);
}

TEST(Kmeans, CompactnessEqualsOpenCVFromTheSameLabels) {
  struct Case {
    int n, dim, k, blobs;
    float sigma;
    int max_count;
  };
  // Separated blobs, overlapping blobs (labels move for many iterations), a dimension not a multiple of 4.
  for (const Case c : {Case{600, 16, 6, 6, 0.5f, 20}, Case{500, 64, 10, 4, 2.5f, 10}, Case{300, 5, 7, 3, 1.0f, 30}}) {
    const auto data = blob_data(c.n, c.dim, c.blobs, c.sigma, static_cast<std::uint32_t>(c.n));
    std::vector<int> start(static_cast<std::size_t>(c.n));
    std::mt19937 rng(9);
    for (int& l : start) l = static_cast<int>(rng() % static_cast<unsigned>(c.k));
    std::vector<int> cv_labels = start;
    cv::Mat cv_centers;
    const double expected = opencv_from_labels(data, c.dim, c.k, cv_labels, c.max_count, 1e-4, cv_centers);
    KmeansOptions o;
    o.init = KmeansInit::initial_labels;
    o.max_count = c.max_count;
    o.epsilon = 1e-4;
    const KmeansResult r = kmeans(queue(), data, c.dim, c.k, o, start);
    EXPECT_NEAR(r.compactness, expected, 1e-5 * expected) << c.n << " samples of " << c.dim;
    int differ = 0;
    for (int i = 0; i < c.n; ++i) differ += r.labels[static_cast<std::size_t>(i)] != cv_labels[static_cast<std::size_t>(i)];
    EXPECT_EQ(differ, 0);
    for (int j = 0; j < c.k * c.dim; ++j) {
      ASSERT_NEAR(r.centers[static_cast<std::size_t>(j)], cv_centers.ptr<float>()[j], 1e-4) << j;
    }
  }
}

TEST(Kmeans, EmptyClusterTakesTheFarthestSampleOfTheLargest) {
  // Every sample starts in cluster 0, so clusters 1..3 are empty in the first update.
  const auto data = blob_data(200, 8, 4, 0.3f, 5);
  std::vector<int> start(200, 0), cv_labels = start;
  cv::Mat cv_centers;
  const double expected = opencv_from_labels(data, 8, 4, cv_labels, 15, 0.0, cv_centers);
  KmeansOptions o;
  o.init = KmeansInit::initial_labels;
  o.max_count = 15;
  o.epsilon = 0.0;
  const KmeansResult r = kmeans(queue(), data, 8, 4, o, start);
  EXPECT_NEAR(r.compactness, expected, 1e-5 * expected);
  EXPECT_EQ(r.labels, std::vector<std::int32_t>(cv_labels.begin(), cv_labels.end()));
}

TEST(Kmeans, PlusPlusIsDeterministicAndFindsBlobs) {
  const auto data = blob_data(400, 32, 5, 0.2f, 6);
  KmeansOptions o;
  o.seed = 42;
  o.attempts = 2;
  const KmeansResult a = kmeans(queue(), data, 32, 5, o), b = kmeans(queue(), data, 32, 5, o);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.centers, b.centers);
  EXPECT_EQ(a.compactness, b.compactness);
  // Each blob one cluster: samples i and i + 5 share their blob, so their label.
  for (int i = 0; i + 5 < 400; ++i) ASSERT_EQ(a.labels[static_cast<std::size_t>(i)], a.labels[static_cast<std::size_t>(i + 5)]) << i;
  // Within-blob spread only: about n * dim * sigma^2.
  EXPECT_LT(a.compactness, 1.3 * 400 * 32 * 0.04);
  o.init = KmeansInit::random;
  const KmeansResult r = kmeans(queue(), data, 32, 5, o);
  EXPECT_EQ(r.labels.size(), 400u);
}

TEST(Kmeans, Errors) {
  const auto data = blob_data(10, 4, 2, 1.0f, 7);
  EXPECT_TRUE(throws_code([&] { kmeans(queue(), data, 4, 11); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { kmeans(queue(), data, 4, 0); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { kmeans(queue(), data, 3, 2); }, ErrorCode::invalid_argument));
  auto nan = data;
  nan[7] = std::nanf("");
  EXPECT_TRUE(throws_code([&] { kmeans(queue(), nan, 4, 2); }, ErrorCode::invalid_argument));
  KmeansOptions o;
  o.init = KmeansInit::initial_labels;
  const std::vector<std::int32_t> short_labels(9, 0), bad_labels(10, 2);
  EXPECT_TRUE(throws_code([&] { kmeans(queue(), data, 4, 2, o, short_labels); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { kmeans(queue(), data, 4, 2, o, bad_labels); }, ErrorCode::invalid_argument));
}

}  // namespace
}  // namespace plinth::test
