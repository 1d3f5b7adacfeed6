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
#include "plinth/image.hpp"

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

// ---- SURF: the types always, the functions where plinth is built with PLINTH_WITH_SURF (default
// ON), which defines PLINTH_HAS_SURF for plinth and its users.
// The detector and descriptor of Bay et al. with the semantics of opencv_contrib's
// cv::xfeatures2d::SURF (its nonfree module; docs/features.md, "SURF", gives the rules, the patent
// note and where plinth differs). Only the integral image is shared with the rest of plinth.

// cv::xfeatures2d::SURF::create's parameters, with its defaults.
struct SurfParams {
  double hessian_threshold = 100;  // >= 0: keypoints need a Hessian determinant above it
  int n_octaves = 4;               // 1 to surf_max_octaves
  int n_octave_layers = 3;         // 1 to surf_max_octave_layers: layers searched per octave
  bool extended = false;           // 128-d descriptors instead of 64-d
  bool upright = false;            // no orientation (every angle 270, as OpenCV's)
};
inline constexpr int surf_max_octaves = 8;
inline constexpr int surf_max_octave_layers = 8;

// A keypoint as cv::KeyPoint: position, diameter (the filter size), angle in degrees (0 to 360),
// response (the Hessian determinant), octave and class_id (the sign of the Laplacian: -1, 0, 1).
struct KeyPoint {
  float x = 0.0f;
  float y = 0.0f;
  float size = 0.0f;
  float angle = -1.0f;
  float response = 0.0f;
  int octave = 0;
  int class_id = -1;
  friend bool operator==(const KeyPoint&, const KeyPoint&) = default;
};

// Keypoints in OpenCV's order (response, size, octave descending, then y descending, x ascending)
// and, when computed, their descriptors: keypoints.size() rows of descriptor_size floats.
struct SurfFeatures {
  std::vector<KeyPoint> keypoints;
  std::vector<float> descriptors;
  int descriptor_size = 64;
};

#ifdef PLINTH_HAS_SURF
// The smallest width and height SURF looks at: an image smaller than this cannot hold a keypoint of
// the first octave (the filters of its second layer plus a neighbour on each side), so it is refused.
int surf_min_image_size(const SurfParams& params);

// Throws Error(invalid_argument) for parameters outside the ranges above.
void check_surf_params(const SurfParams& params);

// The plain C++ CPU reference: a one-channel u8 image (nothing on a device). with_descriptors
// false leaves `descriptors` empty but still assigns the angles.
SurfFeatures surf_reference(const HostImage& image, const SurfParams& params = {}, bool with_descriptors = true);

// The device form's kernels; every method gives the same result bit for bit (docs/features.md,
// "SURF", Device). automatic: strips. strips: each work-item computes 4 rows of a layer's Hessian
// (Dxx and Dyy from 8 integral reads each), and a keypoint's group samples its descriptor window
// in strips through local memory. per_pixel: the first kernels (a work-item per response, 40
// reads; a work-item per patch pixel resampling its own span of the window). hessian_rows: the
// strips method's Hessian with the per-pixel descriptor (to time the two changes apart).
enum class SurfMethod { automatic, strips, per_pixel, hessian_rows };

// The device form: the integral image, Hessian responses, maxima and their interpolation,
// orientation and descriptors on `queue`, with no read-back in between; then the keypoints are
// read back and put in OpenCV's order on the host. image: one-channel u8. device_event (if given)
// spans the device's work from the integral image to the last descriptor.
SurfFeatures surf(Queue& queue, const DeviceImage& image, const SurfParams& params = {}, Event* device_event = nullptr,
                  SurfMethod method = SurfMethod::automatic);
// Uploads a host image first.
SurfFeatures surf(Queue& queue, const HostImage& image, const SurfParams& params = {});
#endif  // PLINTH_HAS_SURF

}  // namespace plinth
