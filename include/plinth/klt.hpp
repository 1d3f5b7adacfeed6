#pragma once
// Feature tracking: pyramidal Lucas-Kanade (KLT).
//   build_optical_flow_pyramid: cv::buildOpticalFlowPyramid (u8, one channel), bit exact: the
//     levels with their BORDER_REFLECT_101 padding of win_size on each side, and the s16 Scharr
//     derivatives padded with zeros (BORDER_CONSTANT).
//   calc_optical_flow_pyr_lk, method opencv: cv::calcOpticalFlowPyrLK of OpenCV 4.6's CPU path,
//     next points, status and err bit identical (its integer patch arithmetic and its float
//     summation order; not OpenCV's own OpenCL path).
//     Methods opencv, opencv_int_sums, opencv_fused and opencv_item are mappings of it onto the device
//     (the same bits); automatic picks the fastest that applies.
//   method seed: the case study's translation tracker (a different algorithm, not OpenCV's).
// docs/tracking.md has the formulas.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "plinth/array.hpp"
#include "plinth/core.hpp"
#include "plinth/image.hpp"
#include "plinth/types.hpp"

namespace plinth {

// cv::TermCriteria: stop after max_count iterations (type & count) or when the update is shorter
// than epsilon pixels (type & eps). As in OpenCV, max_count is clamped to [0, 100] (30 when count
// is not set) and epsilon to [0, 10] (0.01 when eps is not set).
struct TermCriteria {
  enum Type { count = 1, eps = 2 };
  int type = count | eps;
  int max_count = 30;
  double epsilon = 0.01;
};

// cv::OPTFLOW_USE_INITIAL_FLOW and cv::OPTFLOW_LK_GET_MIN_EIGENVALS.
inline constexpr int OPTFLOW_USE_INITIAL_FLOW = 4, OPTFLOW_LK_GET_MIN_EIGENVALS = 8;

enum class PyrLkMethod {
  automatic,        // OpenCV's algorithm, bit exact, by the fastest of the opencv methods that applies
  opencv,           // OpenCV 4.6's CPU algorithm, bit exact: a work-group per point, every b sum in OpenCV's order
  opencv_int_sums,  // the same results: A and b sums as exact integer sums where proven exact (windows up to ~41x41)
  opencv_fused,     // opencv_int_sums with every level in one launch (pyramids of up to 4 levels)
  opencv_item,      // the same results: one work-item per point (the plain mapping)
  seed,             // the case study's translation KLT: 1/subsampling steps, N work-items per feature
};
std::string_view to_string(PyrLkMethod method) noexcept;
// Parses a method's name ("auto" for automatic, "opencv", "opencv_int_sums", "opencv_fused", "opencv_item",
// "seed").
PyrLkMethod parse_pyr_lk_method(std::string_view text);

struct PyrLkParams {
  Size win_size{21, 21};  // each side >= 3 (OpenCV's rule); even sides are allowed, as in OpenCV
  int max_level = 3;      // >= 0; fewer levels are used where the pyramids stop earlier
  TermCriteria criteria{};
  int flags = 0;          // OPTFLOW_USE_INITIAL_FLOW | OPTFLOW_LK_GET_MIN_EIGENVALS
  double min_eig_threshold = 1e-4;
  PyrLkMethod method = PyrLkMethod::automatic;
  // Method seed only: the step between pyramid levels in each dimension (the case study: 4,
  // "1/4 the size in each dimension"; 2 gives 1/4-area steps).
  int seed_subsampling = 4;
};

// The pyramid cv::buildOpticalFlowPyramid makes. levels[i] is the level's image, a view inside
// an allocation padded by win_size on every side; the padding holds the image continued by
// BORDER_REFLECT_101. derivatives[i] (with_derivatives) is the s16 two-channel (Ix, Iy) Scharr
// derivative of levels[i], a view inside an allocation padded by win_size with zeros.
struct OpticalFlowPyramid {
  Size win_size{};
  std::vector<DeviceImage> levels;
  std::vector<DeviceImage> derivatives;
  Event ready;  // spans the launches that built it (for timing; the queue orders them anyway)
  // Method seed's scratch: its subsampled pyramid of levels[0], rebuilt by every call (kept here
  // so that repeated calls reuse the allocations).
  mutable std::vector<DeviceImage> seed_levels;

  int max_level() const noexcept { return static_cast<int>(levels.size()) - 1; }
  bool has_derivatives() const noexcept { return !derivatives.empty() && derivatives.size() == levels.size(); }
};

// How build_optical_flow_pyramid launches its work (the same bits either way).
enum class OpticalFlowPyramidMethod {
  automatic,  // fused
  fused,      // level 0 (padding, derivatives) with level 1 in one launch, then one launch per level
  per_level,  // padding, pyr_down and derivatives one launch each (11 launches for 4 levels)
};
std::string_view to_string(OpticalFlowPyramidMethod method) noexcept;

// Builds levels 0..L and returns L: like OpenCV, L stops below max_level once a level's half size
// would be <= win_size in either dimension. image: u8, one channel. Allocations of `pyramid`
// of the right shapes are reused.
int build_optical_flow_pyramid(Queue& queue, const DeviceImage& image, OpticalFlowPyramid& pyramid, Size win_size,
                               int max_level, bool with_derivatives = true,
                               OpticalFlowPyramidMethod method = OpticalFlowPyramidMethod::automatic);

// Tracks prev_pts (f32 x2, Point2f) from `prev` to `next`. prev needs derivatives and both
// pyramids the same level sizes and win_size >= params.win_size. next_pts (f32 x2) is written
// (and read first with OPTFLOW_USE_INITIAL_FLOW), status (u8) is 1 for a tracked point, err (f32;
// may be empty) the mean absolute difference of the windows /32, or with
// OPTFLOW_LK_GET_MIN_EIGENVALS the minimum eigenvalue. Where OpenCV leaves err unwritten (a
// point lost after its first window check) err is 0. The four arrays must not share memory. OpenCV's methods use the pyramids' levels up
// to min(params.max_level, their max_level); method seed builds its own pyramids from levels[0].
Event calc_optical_flow_pyr_lk(Queue& queue, const OpticalFlowPyramid& prev, const OpticalFlowPyramid& next,
                               const DeviceArray& prev_pts, const DeviceArray& next_pts, const DeviceArray& status,
                               const DeviceArray& err, const PyrLkParams& params = {});

// Host convenience: images u8 one channel of the same size; builds both pyramids (as
// cv::calcOpticalFlowPyrLK does from images) and returns next_pts, status and err.
void calc_optical_flow_pyr_lk(Queue& queue, const DeviceImage& prev, const DeviceImage& next,
                              std::span<const Point2f> prev_pts, std::vector<Point2f>& next_pts,
                              std::vector<std::uint8_t>& status, std::vector<float>& err,
                              const PyrLkParams& params = {});

}  // namespace plinth
