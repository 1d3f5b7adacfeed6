#pragma once
// Local features: brute-force descriptor matching with cv::BFMatcher's semantics (NORM_L2 for f32
// descriptors, NORM_HAMMING for binary u8 ones), the ratio test and OpenCV's cross-check.
// docs/features.md gives the formulas and the tie rule.
//
// Ties: the k nearest are kept in order of distance, and of equal distances the lower train index
// comes first (a linear scan with a strict comparison, as OpenCV's batchDistance inserts). Hamming
// distances are exact, so their labels equal OpenCV's; L2 distances are summed in dimension order
// (OpenCV's vector code sums in another order), so labels equal OpenCV's except where two distances
// agree to within float rounding.

#include <cstdint>
#include <span>
#include <vector>

#include "plinth/array.hpp"
#include "plinth/core.hpp"

namespace plinth {

enum class MatchNorm {
  l2,       // f32 descriptors: sqrt of the sum of squared differences (cv::NORM_L2)
  hamming,  // u8 descriptors: bits that differ (cv::NORM_HAMMING)
};

// The most neighbours one query keeps.
inline constexpr int max_knn = 16;

// One match, as cv::DMatch with imgIdx 0.
struct Match {
  int query = -1;
  int train = -1;
  float distance = 0.0f;
  friend bool operator==(const Match&, const Match&) = default;
};

// Device form: the k nearest train descriptors of each query. query: n * dim values, train: m * dim
// (f32 for l2; u8 for hamming with dim bytes, a multiple of 4). Outputs, allocated when empty:
// indices (s32, n * k) and distances (f32, n * k), query i's j-th neighbour at i * k + j; past the
// m-th neighbour (k > m) the index is -1.
Event bf_knn_match(Queue& queue, const DeviceArray& query, const DeviceArray& train, int dim, MatchNorm norm, int k,
                   DeviceArray& indices, DeviceArray& distances);

// Host forms with cv::BFMatcher's results; the element type picks the norm (float: l2, u8 bytes:
// hamming, dim counting bytes: any count from 1 to 512, rows padded to whole words). knn_match: per query its min(k, m) nearest, as knnMatch(query,
// train, matches, k); no train descriptors give an empty list for every query.
std::vector<std::vector<Match>> knn_match(Queue& queue, std::span<const float> query, std::span<const float> train, int dim,
                                          int k);
std::vector<std::vector<Match>> knn_match(Queue& queue, std::span<const std::uint8_t> query,
                                          std::span<const std::uint8_t> train, int dim, int k);
// match: the nearest train descriptor of each query, as BFMatcher(norm, cross_check).match. With
// cross_check, as OpenCV 4.6 does: query q keeps its nearest train descriptor j only if q is j's
// nearest query (mutual nearest neighbours, each the first of equal distances).
std::vector<Match> match(Queue& queue, std::span<const float> query, std::span<const float> train, int dim,
                         bool cross_check = false);
std::vector<Match> match(Queue& queue, std::span<const std::uint8_t> query, std::span<const std::uint8_t> train, int dim,
                         bool cross_check = false);
// Lowe's ratio test on knn_match(..., k >= 2) results: the first neighbour of each query whose first
// distance is below ratio times its second (queries with fewer than two neighbours are dropped).
std::vector<Match> ratio_test(const std::vector<std::vector<Match>>& knn, float ratio);

}  // namespace plinth
