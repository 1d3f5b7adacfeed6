// kmeans against cv::kmeans: started from the same labels (KMEANS_USE_INITIAL_LABELS) the
// compactness agrees within 1e-5 relative and the labels match (clusters under and over the
// update's chunk of KMEANS_CHUNK samples); k-means++ and random starts are deterministic for a
// seed; k-means++ draws by weight (a sample of weight 0 is never drawn, so k = n distinct samples
// become n centres, and a lone far sample among identical ones is always a centre, wherever the
// draw has to find it); empty clusters; the device form; the argument errors.
#include <opencv2/core.hpp>
#include <algorithm>
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

void expect_identical(const KmeansResult& a, const KmeansResult& b) {
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.centers, b.centers);
  EXPECT_EQ(a.compactness, b.compactness);
}

TEST(Kmeans, CompactnessEqualsOpenCVFromTheSameLabels) {
  struct Case {
    int n, dim, k, blobs;
    float sigma;
    int max_count;
  };
  // Separated blobs, overlapping blobs (labels move for many iterations), a dimension not a multiple of 4.
  // Clusters of about 700 samples: summed from whole chunks of KMEANS_CHUNK (not purely in sample order).
  for (const Case c : {Case{600, 16, 6, 6, 0.5f, 20}, Case{500, 64, 10, 4, 2.5f, 10}, Case{300, 5, 7, 3, 1.0f, 30},
                       Case{2100, 12, 3, 3, 0.8f, 10}}) {
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

  // More empty clusters than one work-group's round of KMEANS_GROUP (299 of 300).
  const auto many = blob_data(700, 8, 20, 1.0f, 13);
  std::vector<int> many_start(700, 0), many_cv = many_start;
  const double many_expected = opencv_from_labels(many, 8, 300, many_cv, 3, 0.0, cv_centers);
  o.max_count = 3;
  const KmeansResult m = kmeans(queue(), many, 8, 300, o, many_start);
  EXPECT_NEAR(m.compactness, many_expected, 1e-5 * many_expected);
  EXPECT_EQ(m.labels, std::vector<std::int32_t>(many_cv.begin(), many_cv.end()));
}

TEST(Kmeans, PlusPlusIsDeterministicAndFindsBlobs) {
  const auto data = blob_data(400, 32, 5, 0.2f, 6);
  KmeansOptions o;
  o.seed = 42;
  o.attempts = 2;
  const KmeansResult a = kmeans(queue(), data, 32, 5, o), b = kmeans(queue(), data, 32, 5, o);
  expect_identical(a, b);
  // Each blob one cluster: samples i and i + 5 share their blob, so their label.
  for (int i = 0; i + 5 < 400; ++i) ASSERT_EQ(a.labels[static_cast<std::size_t>(i)], a.labels[static_cast<std::size_t>(i + 5)]) << i;
  // Within-blob spread only: about n * dim * sigma^2.
  EXPECT_LT(a.compactness, 1.3 * 400 * 32 * 0.04);
  o.init = KmeansInit::random;
  const KmeansResult r = kmeans(queue(), data, 32, 5, o);
  EXPECT_EQ(r.labels.size(), 400u);
}

TEST(Kmeans, RandomStartIsDeterministic) {
  const auto data = blob_data(300, 7, 4, 0.5f, 8);
  KmeansOptions o;
  o.init = KmeansInit::random;
  o.seed = 3;
  o.attempts = 2;
  expect_identical(kmeans(queue(), data, 7, 4, o), kmeans(queue(), data, 7, 4, o));
}

// k = n distinct samples: a chosen sample's weight is 0, so each draw must find a new one, and
// with n > KMEANS_GROUP the draws cross blocks. Every sample is then its own centre.
TEST(Kmeans, PlusPlusNeverDrawsASampleOfWeightZero) {
  const int n = 260, dim = 8;  // dim 8: the program the other tests build
  const auto data = blob_data(n, dim, 7, 1.0f, 10);
  KmeansOptions o;
  o.seed = 11;
  o.max_count = 2;
  const KmeansResult r = kmeans(queue(), data, dim, n, o);
  EXPECT_EQ(r.compactness, 0.0);
  std::vector<int> members(static_cast<std::size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    const std::int32_t l = r.labels[static_cast<std::size_t>(i)];
    ASSERT_TRUE(l >= 0 && l < n);
    ++members[static_cast<std::size_t>(l)];
    for (int j = 0; j < dim; ++j) {
      ASSERT_EQ(r.centers[static_cast<std::size_t>(l) * dim + j], data[static_cast<std::size_t>(i) * dim + j]) << i;
    }
  }
  EXPECT_EQ(std::count(members.begin(), members.end(), 1), n);
}

// Identical samples at the origin and one far sample: all the weight of the second draw is on the
// far sample (or, if it was the first centre, spread evenly over the origin), so for every seed
// the far sample ends as a cluster of its own. n spans more than KMEANS_GROUP blocks of
// KMEANS_GROUP samples, so the draw goes through every level of the search.
TEST(Kmeans, PlusPlusDrawsByWeight) {
  const int n = 70'000, dim = 8;
  for (const int far : {0, 12'345, n - 1}) {
    std::vector<float> data(static_cast<std::size_t>(n) * dim, 0.25f);
    for (int j = 0; j < dim; ++j) data[static_cast<std::size_t>(far) * dim + j] = 100.0f + static_cast<float>(j);
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      KmeansOptions o;
      o.seed = seed;
      o.max_count = 2;
      const KmeansResult r = kmeans(queue(), data, dim, 2, o);
      EXPECT_EQ(r.compactness, 0.0) << far << " " << seed;
      const std::int32_t lf = r.labels[static_cast<std::size_t>(far)];
      EXPECT_EQ(std::count(r.labels.begin(), r.labels.end(), lf), 1) << far << " " << seed;
      EXPECT_EQ(r.centers[static_cast<std::size_t>(lf) * dim + 1], 101.0f);
      EXPECT_EQ(r.centers[static_cast<std::size_t>(1 - lf) * dim], 0.25f);
    }
  }
}

TEST(Kmeans, DeviceFormMatchesTheHostForm) {
  const int n = 500, dim = 16, k = 6;
  const auto data = blob_data(n, dim, k, 0.5f, 12);
  KmeansOptions o;
  o.seed = 5;
  const KmeansResult host = kmeans(queue(), data, dim, k, o);
  const DeviceArray samples = upload_array<float>(queue(), data);
  const KmeansDeviceResult dev = kmeans(queue(), samples, dim, k, o);
  EXPECT_EQ(download_array<float>(queue(), dev.centers), host.centers);
  EXPECT_EQ(download_array<std::int32_t>(queue(), dev.labels), host.labels);
  EXPECT_EQ(dev.compactness, host.compactness);
  EXPECT_GE(dev.iterations, 2);
  EXPECT_TRUE(dev.seeding_span.valid());
  EXPECT_TRUE(dev.iteration_span.valid());
  EXPECT_TRUE(dev.span.valid());
  // Errors of the device form: dim not a multiple of 4, labels missing or of the wrong size.
  EXPECT_TRUE(throws_code([&] { kmeans(queue(), samples, 6, 2); }, ErrorCode::invalid_argument));
  KmeansOptions from_labels;
  from_labels.init = KmeansInit::initial_labels;
  EXPECT_TRUE(throws_code([&] { kmeans(queue(), samples, dim, 2, from_labels); }, ErrorCode::invalid_argument));
  const DeviceArray short_labels = upload_array<std::int32_t>(queue(), std::vector<std::int32_t>(10, 0));
  EXPECT_TRUE(throws_code([&] { kmeans(queue(), samples, dim, 2, from_labels, &short_labels); }, ErrorCode::invalid_argument));
  const DeviceArray big_labels = upload_array<std::int32_t>(queue(), std::vector<std::int32_t>(n, 7));
  EXPECT_TRUE(throws_code([&] { kmeans(queue(), samples, dim, 2, from_labels, &big_labels); }, ErrorCode::invalid_argument));
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
