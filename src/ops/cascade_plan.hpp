#pragma once
// The host-side plan of a detect_multi_scale call: OpenCV's scale ladder per image, the window
// grid of each scale, and where each scaled image sits in the atlas.

#include <cstdint>
#include <vector>

#include "ops/cascade_model.hpp"
#include "plinth/cascade.hpp"

namespace plinth::detail {

struct ScaleJob {
  int image = 0;       // index in the call's image list
  float scale = 1.f;   // OpenCV's (float)factor
  Size size;           // the resized image: (cvRound(W / scale), cvRound(H / scale))
  int step = 2;        // window step: 1 from scale 2 on
  int nx = 0, ny = 0;  // windows per row and rows of windows
  Size rect_size;      // the detection rectangle: cvRound(window * scale)
  int atlas_x = 0, atlas_y = 0;
  std::uint32_t first_window = 0;
};

struct CascadePlan {
  std::vector<Size> images;
  std::vector<ScaleJob> jobs;  // grouped by image, scales increasing
  Size atlas;                  // the u8 atlas; integrals are one larger
  std::uint64_t windows = 0;
};

// Limits on one plan, so that window indices and atlas offsets fit 32 bits.
struct CascadePlanLimits {
  static constexpr std::int64_t max_atlas_elements = std::int64_t{1} << 28;
  static constexpr std::uint64_t max_windows = std::uint64_t{1} << 31;
  static constexpr int max_scales = 4096;
};

// OpenCV's scale list for one image (detectMultiScaleNoGrouping) and the window grid of each
// scale (the invoker's stripes and row loop), without atlas positions.
std::vector<ScaleJob> plan_scales(const CascadeModel& model, Size image, int image_index, const DetectOptions& options);
// Shelf-packs the jobs of all images into one atlas and numbers their windows; throws
// out_of_range when they do not fit the limits.
CascadePlan pack_plan(std::vector<Size> images, std::vector<ScaleJob> jobs);

// The detection rectangle of window (xi, yi) of a job, as OpenCV computes it.
Rect window_rect(const ScaleJob& job, int xi, int yi);

}  // namespace plinth::detail
