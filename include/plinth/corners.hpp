#pragma once
// Corner responses and good features to track, bit-exact with OpenCV 4.6's CPU path
// (cv::cornerMinEigenVal, cv::cornerHarris, cv::goodFeaturesToTrack). Formulas, where the
// exactness comes from and the order of the corner list: docs/tracking.md, "Corners".

#include <cstdint>
#include <vector>

#include "plinth/array.hpp"
#include "plinth/core.hpp"
#include "plinth/filters.hpp"
#include "plinth/image.hpp"
#include "plinth/types.hpp"

namespace plinth {

// Window sizes the response accepts (OpenCV has no upper limit; plinth keeps the sums' cost bounded).
inline constexpr int corners_max_block_size = 31;

// The response of every pixel of a one-channel u8 image into an f32 image of its size (dst may be
// empty, then allocated). ksize: the Sobel aperture 1, 3, 5 or 7, or -1 for Scharr (OpenCV's
// FILTER_SCHARR). block_size: 1 to corners_max_block_size. Borders: constant (0), replicate,
// reflect, reflect_101.
Event corner_min_eigen_val(Queue& queue, const DeviceImage& src, DeviceImage& dst, int block_size, int ksize = 3,
                           BorderMode border = BorderMode::reflect_101);
Event corner_harris(Queue& queue, const DeviceImage& src, DeviceImage& dst, int block_size, int ksize, double k,
                    BorderMode border = BorderMode::reflect_101);

// cv::goodFeaturesToTrack's parameters, with its defaults.
struct GoodFeaturesParams {
  int max_corners = 1000;       // <= 0: no limit
  double quality_level = 0.01;  // > 0: corners weaker than quality_level * the strongest are dropped
  double min_distance = 10;     // >= 0: Euclidean distance between returned corners (< 1: no check)
  int block_size = 3;
  int gradient_size = 3;        // the Sobel aperture of the response
  bool use_harris_detector = false;
  double k = 0.04;              // Harris' k
};

// The corners in OpenCV's order (strongest first, ties by the later pixel first). image: one-channel
// u8; mask: empty or a u8 image of the image's size (corners only where it is non-zero).
std::vector<Point2f> good_features_to_track(Queue& queue, const DeviceImage& image, const GoodFeaturesParams& params = {},
                                            const DeviceImage* mask = nullptr);

// Device events of good_features_to_track's stages (the benchmark times them): the response; the
// candidates (maximum, 3x3 local maxima, compactions); their order (their responses gathered, the
// sort); the minDistance pass with the list (order and distance invalid without candidates).
struct GoodFeaturesStages {
  Event response;
  Event candidates;
  Event order;
  Event distance;
};

// The device-side form: the corners (OpenCV's order) go to `corners` (Point2f as f32 x2; allocated
// or reallocated to hold the largest possible count when too small) and their number to `count`
// (one u32; allocated when empty). Returns the event of the last command. Every stage runs on the
// device, the minDistance walk included (docs/tracking.md); the host waits once, for the number of
// candidates that sizes the sort. `stages`, if given, gets each stage's events.
Event good_features_to_track(Queue& queue, const DeviceImage& image, DeviceArray& corners, DeviceArray& count,
                             const GoodFeaturesParams& params = {}, const DeviceImage* mask = nullptr,
                             GoodFeaturesStages* stages = nullptr);

}  // namespace plinth
