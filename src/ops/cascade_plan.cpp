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
    // The window is compared as a double first: a large factor would overflow int (and a factor
    // grown to inf never ends the loop through a converted size).
    const double window_w = std::nearbyint(win.width * factor), window_h = std::nearbyint(win.height * factor);
    if (!(window_w <= max_size.width && window_h <= max_size.height && window_w <= image.width && window_h <= image.height)) {
      break;
    }
    const Size window{static_cast<int>(window_w), static_cast<int>(window_h)};
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

namespace {

// Bottom-left skyline packing: each image (tallest first) goes where its top edge ends lowest,
// left of equals; x on multiples of 4 (so that the resize writes whole words). Each image keeps
// a one-pixel gap right and below, so that tilted rectangles never reach a neighbour.
struct Skyline {
  struct Segment {
    int x, width, y;
  };
  std::vector<Segment> segments;
  int height = 0;

  explicit Skyline(int width) : segments{{0, width, 0}} {}

  // Where a w x h box goes (x, y), or false when it does not fit in the width.
  bool place(int w, int h, int width, int* px, int* py) {
    long long best_top = -1;
    for (std::size_t i = 0; i < segments.size(); ++i) {
      const int x = (segments[i].x + 3) / 4 * 4;
      if (x + w > width) break;
      int y = 0;
      for (std::size_t k = i; k < segments.size() && segments[k].x < x + w; ++k) {
        if (segments[k].x + segments[k].width > x) y = std::max(y, segments[k].y);
      }
      if (best_top < 0 || y + h < best_top || (y + h == best_top && x < *px)) {
        best_top = y + h;
        *px = x;
        *py = y;
      }
    }
    if (best_top < 0) return false;
    std::vector<Segment> next;
    for (const Segment& t : segments) {
      const int a = t.x, b = t.x + t.width;
      if (b <= *px || a >= *px + w) {
        next.push_back(t);
        continue;
      }
      if (a < *px) next.push_back({a, *px - a, t.y});
      if (b > *px + w) next.push_back({*px + w, b - *px - w, t.y});
    }
    next.push_back({*px, w, *py + h});
    std::sort(next.begin(), next.end(), [](const Segment& l, const Segment& r) { return l.x < r.x; });
    segments.clear();
    for (const Segment& t : next) {
      if (!segments.empty() && segments.back().y == t.y && segments.back().x + segments.back().width == t.x) {
        segments.back().width += t.width;
      } else {
        segments.push_back(t);
      }
    }
    height = std::max(height, *py + h);
    return true;
  }
};

}  // namespace

CascadePlan pack_plan(std::vector<Size> images, std::vector<ScaleJob> jobs) {
  CascadePlan plan;
  plan.images = std::move(images);
  constexpr int gap = 1;
  int widest = 4;
  for (const ScaleJob& j : jobs) widest = std::max(widest, (j.size.width + gap + 3) / 4 * 4);
  std::vector<std::size_t> order(jobs.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return jobs[a].size.height > jobs[b].size.height; });
  // Atlas widths from the widest image to three times it; the smallest area wins.
  std::int64_t best_area = -1;
  int best_width = widest;
  // Fewer candidate widths for big batches, whose packing takes longer.
  const int candidates = static_cast<int>(std::clamp<std::size_t>(8192 / std::max<std::size_t>(jobs.size(), 1), 4, 128));
  const int step = std::max(4, 2 * widest / candidates / 4 * 4);
  for (int width = widest; width <= 3 * widest && width + 1 <= max_image_dimension; width += step) {
    Skyline sky(width);
    int x = 0, y = 0;
    bool fits = true;
    for (std::size_t k : order) fits = fits && sky.place(jobs[k].size.width + gap, jobs[k].size.height + gap, width, &x, &y);
    const std::int64_t area = static_cast<std::int64_t>(width) * sky.height;
    if (fits && (best_area < 0 || area < best_area)) {
      best_area = area;
      best_width = width;
    }
  }
  Skyline sky(best_width);
  for (std::size_t k : order) {
    ScaleJob& j = jobs[k];
    if (!sky.place(j.size.width + gap, j.size.height + gap, best_width, &j.atlas_x, &j.atlas_y)) {
      throw Error(ErrorCode::internal, kOp, "atlas", "an image does not fit the atlas width");
    }
  }
  std::uint64_t windows = 0;
  for (ScaleJob& j : jobs) {
    j.first_window = static_cast<std::uint32_t>(windows);
    windows += static_cast<std::uint64_t>(j.nx) * static_cast<std::uint64_t>(j.ny);
    if (windows > CascadePlanLimits::max_windows) {
      throw Error(ErrorCode::out_of_range, kOp, "images", "too many windows in one call; pass fewer or smaller images");
    }
  }
  plan.atlas = Size{best_width, std::max(sky.height, 1)};
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
