// OpenCV 4.6's scale ladder and window grid (CascadeClassifierImpl::detectMultiScaleNoGrouping,
// FeatureEvaluator::updateScaleData, CascadeClassifierInvoker), and the atlas packing.
#include <algorithm>
#include <cmath>
#include <string>

#include "ops/cascade_plan.hpp"
#include "plinth/error.hpp"

namespace plinth::detail {
namespace {

constexpr const char* kOp = "detect_multi_scale";

// cvRound: nearest, ties to even (the FPU's default mode).
int round_even(double v) { return static_cast<int>(std::nearbyint(v)); }
int round_even(float v) { return static_cast<int>(std::nearbyint(v)); }

}  // namespace

std::vector<ScaleJob> plan_scales(const CascadeModel& model, Size image, int image_index, const DetectOptions& options) {
  const Size win = model.window;
  Size max_size = options.max_size;
  if (max_size.width == 0 || max_size.height == 0) max_size = image;

  // The ladder stops once the window outgrows the image, so its length is bounded by this.
  const double steps = std::log(static_cast<double>(std::max(image.width, image.height)) + 1.0) / std::log(options.scale_factor);
  if (!(steps < CascadePlanLimits::max_scales)) {
    throw Error(ErrorCode::out_of_range, kOp, "scale_factor",
                "is so close to 1 that the image would need more than " + std::to_string(CascadePlanLimits::max_scales) +
                    " scales");
  }
  std::vector<float> scales;
  for (double factor = 1;; factor *= options.scale_factor) {
    const Size window{round_even(win.width * factor), round_even(win.height * factor)};
    if (window.width > max_size.width || window.height > max_size.height || window.width > image.width ||
        window.height > image.height) {
      break;
    }
    if (window.width < options.min_size.width || window.height < options.min_size.height) continue;
    scales.push_back(static_cast<float>(factor));
  }

  std::vector<ScaleJob> jobs;
  if (scales.empty()) return jobs;
  // The invoker splits rows into stripes sized from the first scale; rows past the last full
  // stripe are never visited (only matters for a step of 2 and an odd number of rows).
  const auto working = [&](Size sz) {
    return Size{std::max(sz.width + 1 - win.width, 0), std::max(sz.height + 1 - win.height, 0)};
  };
  const auto scaled = [&](float sc) {
    return Size{round_even(static_cast<float>(image.width) / sc), round_even(static_cast<float>(image.height) / sc)};
  };
  const int nstripes = static_cast<int>(std::ceil(working(scaled(scales[0])).width / 32.0));
  for (float sc : scales) {
    ScaleJob job;
    job.image = image_index;
    job.scale = sc;
    job.size = scaled(sc);
    job.step = sc >= 2 ? 1 : 2;
    const Size szw = working(job.size);
    int rows_end = szw.height;
    if (nstripes > 0) {
      const int stripe = std::max((szw.height / job.step + nstripes - 1) / nstripes, 1) * job.step;
      rows_end = std::min(rows_end, nstripes * stripe);
    } else {
      rows_end = 0;
    }
    job.nx = (szw.width + job.step - 1) / job.step;
    job.ny = (rows_end + job.step - 1) / job.step;
    job.rect_size = Size{round_even(static_cast<float>(win.width) * sc), round_even(static_cast<float>(win.height) * sc)};
    if (job.nx > 0 && job.ny > 0 && job.size.width > 0 && job.size.height > 0) jobs.push_back(job);
  }
  return jobs;
}

CascadePlan pack_plan(std::vector<Size> images, std::vector<ScaleJob> jobs) {
  CascadePlan plan;
  plan.images = std::move(images);
  // Shelf packing in job order (sizes shrink within an image); a one-pixel gap keeps every
  // image's tilted sums free of its neighbours. The width with the smallest area wins.
  constexpr int gap = 1;
  int widest = 1;
  for (const ScaleJob& j : jobs) widest = std::max(widest, j.size.width + gap);
  std::int64_t best_area = -1;
  int best_width = widest;
  for (double f : {1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0}) {
    const int width = std::max(widest, static_cast<int>(widest * f));
    int x = 0, y = 0, shelf = 0;
    for (const ScaleJob& j : jobs) {
      if (x + j.size.width + gap > width) {
        x = 0;
        y += shelf;
        shelf = 0;
      }
      x += j.size.width + gap;
      shelf = std::max(shelf, j.size.height + gap);
    }
    const std::int64_t area = static_cast<std::int64_t>(width) * (y + shelf);
    if (best_area < 0 || area < best_area) {
      best_area = area;
      best_width = width;
    }
  }
  int x = 0, y = 0, shelf = 0;
  std::uint64_t windows = 0;
  for (ScaleJob& j : jobs) {
    if (x + j.size.width + gap > best_width) {
      x = 0;
      y += shelf;
      shelf = 0;
    }
    j.atlas_x = x;
    j.atlas_y = y;
    x += j.size.width + gap;
    shelf = std::max(shelf, j.size.height + gap);
    j.first_window = static_cast<std::uint32_t>(windows);
    windows += static_cast<std::uint64_t>(j.nx) * static_cast<std::uint64_t>(j.ny);
    if (windows > CascadePlanLimits::max_windows) {
      throw Error(ErrorCode::out_of_range, kOp, "images", "too many windows in one call; pass fewer or smaller images");
    }
  }
  plan.atlas = Size{best_width, std::max(y + shelf, 1)};
  if (static_cast<std::int64_t>(plan.atlas.width + 1) * (plan.atlas.height + 1) > CascadePlanLimits::max_atlas_elements ||
      plan.atlas.height + 1 > max_image_dimension || plan.atlas.width + 1 > max_image_dimension) {
    throw Error(ErrorCode::out_of_range, kOp, "images",
                "the scaled images need a " + std::to_string(plan.atlas.width) + "x" + std::to_string(plan.atlas.height) +
                    " atlas, more than one call can hold; pass fewer or smaller images");
  }
  plan.jobs = std::move(jobs);
  plan.windows = windows;
  return plan;
}

Rect window_rect(const ScaleJob& job, int xi, int yi) {
  const int x = xi * job.step, y = yi * job.step;
  return Rect{round_even(static_cast<float>(x) * job.scale), round_even(static_cast<float>(y) * job.scale),
              job.rect_size.width, job.rect_size.height};
}

}  // namespace plinth::detail
