// bf_knn_match and the host matching forms against a CPU brute force written for clarity: Hamming
// exactly (ties included: lower train index first), L2 to within float rounding; k larger than the
// train set, cross-check, the ratio test and the argument errors. The comparison with
// cv::BFMatcher itself is in features_match_test.cpp (it needs features2d).
#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <vector>

#include "plinth/features.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

std::vector<std::uint8_t> random_bytes(std::size_t count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> v(count);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

std::vector<float> random_floats(std::size_t count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = u(rng);
  return v;
}

// The k nearest by a stable sort of all distances: equal distances keep increasing train order.
template <class Distance>
std::vector<std::pair<int, double>> nearest(int m, int k, Distance dist) {
  std::vector<std::pair<int, double>> all;
  for (int j = 0; j < m; ++j) all.emplace_back(j, dist(j));
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  all.resize(static_cast<std::size_t>(std::min(k, m)));
  return all;
}

TEST(BfMatch, HammingEqualsTheReferenceTiesIncluded) {
  // 16-byte descriptors: distances 0..128 around 64, so equal distances are common; 61 bytes as
  // AKAZE's (padded to whole words by the host form).
  for (const int dim : {16, 61}) {
  const int n = 150, m = 130, k = 3;
  const auto q = random_bytes(static_cast<std::size_t>(n) * dim, 1), t = random_bytes(static_cast<std::size_t>(m) * dim, 2);
  const auto got = knn_match(queue(), std::span<const std::uint8_t>(q), std::span<const std::uint8_t>(t), dim, k);
  ASSERT_EQ(got.size(), static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const auto ref = nearest(m, k, [&](int j) {
      int bits = 0;
      for (int b = 0; b < dim; ++b) bits += std::popcount(static_cast<unsigned>(q[static_cast<std::size_t>(i * dim + b)] ^ t[static_cast<std::size_t>(j * dim + b)]));
      return static_cast<double>(bits);
    });
    ASSERT_EQ(got[static_cast<std::size_t>(i)].size(), ref.size());
    for (std::size_t s = 0; s < ref.size(); ++s) {
      EXPECT_EQ(got[static_cast<std::size_t>(i)][s].train, ref[s].first) << "query " << i << " neighbour " << s;
      EXPECT_EQ(got[static_cast<std::size_t>(i)][s].distance, static_cast<float>(ref[s].second));
      EXPECT_EQ(got[static_cast<std::size_t>(i)][s].query, i);
    }
  }
  }
}

TEST(BfMatch, L2WithinRoundingAndMoreNeighboursThanTrain) {
  const int dim = 64, n = 100, m = 70;
  const auto q = random_floats(static_cast<std::size_t>(n) * dim, 3), t = random_floats(static_cast<std::size_t>(m) * dim, 4);
  auto dist = [&](int i, int j) {
    double s = 0;
    for (int d = 0; d < dim; ++d) {
      const double e = static_cast<double>(q[static_cast<std::size_t>(i * dim + d)]) - t[static_cast<std::size_t>(j * dim + d)];
      s += e * e;
    }
    return std::sqrt(s);
  };
  for (int k : {2, 5}) {
    const auto got = knn_match(queue(), std::span<const float>(q), std::span<const float>(t), dim, k);
    for (int i = 0; i < n; ++i) {
      const auto ref = nearest(m, k, [&](int j) { return dist(i, j); });
      ASSERT_EQ(got[static_cast<std::size_t>(i)].size(), ref.size());
      for (std::size_t s = 0; s < ref.size(); ++s) {
        const Match& g = got[static_cast<std::size_t>(i)][s];
        EXPECT_NEAR(g.distance, dist(i, g.train), 1e-5 * ref[s].second);
        // The s-th distance is the reference's s-th, to within rounding (the label where they tie).
        EXPECT_NEAR(g.distance, ref[s].second, 1e-5 * ref[s].second) << "query " << i;
      }
    }
  }
  // k past the train set: every train descriptor, in order.
  const auto all = knn_match(queue(), std::span<const float>(q).first(dim), std::span<const float>(t).first(3 * dim), dim, 16);
  ASSERT_EQ(all[0].size(), 3u);
}

TEST(BfMatch, CrossCheckKeepsMutualNearestNeighbours) {
  const int dim = 8, n = 60, m = 40;
  const auto q = random_bytes(static_cast<std::size_t>(n) * dim, 5), t = random_bytes(static_cast<std::size_t>(m) * dim, 6);
  auto dist = [&](int i, int j) {
    int bits = 0;
    for (int b = 0; b < dim; ++b) bits += std::popcount(static_cast<unsigned>(q[static_cast<std::size_t>(i * dim + b)] ^ t[static_cast<std::size_t>(j * dim + b)]));
    return bits;
  };
  // Query i keeps its nearest train j (the first of equals) when i is j's nearest query.
  std::vector<Match> expected;
  for (int i = 0; i < n; ++i) {
    int j = 0;
    for (int c = 1; c < m; ++c) {
      if (dist(i, c) < dist(i, j)) j = c;
    }
    int back = 0;
    for (int c = 1; c < n; ++c) {
      if (dist(c, j) < dist(back, j)) back = c;
    }
    if (back == i) expected.push_back({i, j, static_cast<float>(dist(i, j))});
  }
  const auto got = match(queue(), std::span<const std::uint8_t>(q), std::span<const std::uint8_t>(t), dim, true);
  EXPECT_GT(expected.size(), 5u);
  EXPECT_EQ(got, expected);
  EXPECT_EQ(match(queue(), std::span<const std::uint8_t>(q), std::span<const std::uint8_t>(t), dim, false).size(), static_cast<std::size_t>(n));
}

TEST(BfMatch, RatioTest) {
  const std::vector<std::vector<Match>> knn{{{0, 4, 1.0f}, {0, 2, 3.0f}}, {{1, 1, 2.0f}, {1, 3, 2.5f}}, {{2, 0, 1.0f}}};
  const auto kept = ratio_test(knn, 0.75f);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0], (Match{0, 4, 1.0f}));
}

TEST(BfMatch, Errors) {
  const auto f = random_floats(64, 7);
  const auto b = random_bytes(64, 8);
  EXPECT_TRUE(throws_code([&] { knn_match(queue(), std::span<const float>(f), std::span<const float>(f), 0, 2); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { knn_match(queue(), std::span<const float>(f), std::span<const float>(f), 7, 2); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { knn_match(queue(), std::span<const float>(f), std::span<const float>(f), 16, 17); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { knn_match(queue(), std::span<const std::uint8_t>(b), std::span<const std::uint8_t>(b), 7, 2); }, ErrorCode::invalid_argument));
  auto nan = f;
  nan[3] = std::nanf("");
  EXPECT_TRUE(throws_code([&] { knn_match(queue(), std::span<const float>(nan), std::span<const float>(f), 16, 2); }, ErrorCode::invalid_argument));
  const DeviceArray fa = upload_array<float>(queue(), f), ba = upload_array<std::uint8_t>(queue(), b);
  DeviceArray idx, dist;
  EXPECT_TRUE(throws_code([&] { bf_knn_match(queue(), ba, ba, 16, MatchNorm::l2, 2, idx, dist); }, ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([&] { bf_knn_match(queue(), fa, fa, 16, MatchNorm::hamming, 2, idx, dist); }, ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([&] { bf_knn_match(queue(), ba.slice(1, 32), ba, 16, MatchNorm::hamming, 2, idx, dist); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { bf_knn_match(queue(), ba, ba, 2, MatchNorm::hamming, 2, idx, dist); }, ErrorCode::invalid_argument));
}

}  // namespace
}  // namespace plinth::test
