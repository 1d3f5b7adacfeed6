// good_features_to_track (cv::goodFeaturesToTrack): on the device the response (corners.cpp), the
// strongest response under the mask, the candidates (thresholded local maxima of 3x3) and their
// order (plinth's compact and sort_pairs); then OpenCV's greedy minDistance walk on the host.
// docs/tracking.md ("Corners") gives the rules.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>

#include "core/launch.hpp"
#include "ops/corners_internal.hpp"
#include "ops/elementwise_common.hpp"
#include "plinth/sort.hpp"

namespace plinth {
namespace {

constexpr const char* kOp = "good_features_to_track";
constexpr int kMaxGroup = detail::corners_group;

void check_params(Queue& queue, const DeviceImage& image, const GoodFeaturesParams& p, const DeviceImage* mask) {
  detail::check_corner_args(queue, image, p.block_size, p.gradient_size, BorderMode::reflect_101, kOp);
  if (!(p.quality_level > 0) || !std::isfinite(p.quality_level)) {
    throw Error(ErrorCode::invalid_argument, kOp, "quality_level", "must be a positive number, not " + std::to_string(p.quality_level));
  }
  if (!(p.min_distance >= 0) || !std::isfinite(p.min_distance)) {
    throw Error(ErrorCode::invalid_argument, kOp, "min_distance", "must be 0 or more, not " + std::to_string(p.min_distance));
  }
  if (p.use_harris_detector && !std::isfinite(p.k)) throw Error(ErrorCode::invalid_argument, kOp, "k", "must be finite");
  if (mask != nullptr && !mask->empty()) {
    detail::check_device(queue, *mask, kOp, "mask");
    if (mask->format() != Format{Depth::u8, 1} || mask->size() != image.size()) {
      throw Error(ErrorCode::invalid_argument, kOp, "mask",
                  "must be a one-channel u8 image of the image's size " + std::to_string(image.width()) + "x" +
                      std::to_string(image.height()) + ", not " + std::to_string(mask->width()) + "x" +
                      std::to_string(mask->height()) + " " + std::string(to_string(mask->depth())) + "C" +
                      std::to_string(mask->channels()));
    }
  }
}

// OpenCV's minDistance pass: walk the ordered candidates, keep one when no kept corner lies
// closer than min_distance (squared distances compared in float against the double square, as
// OpenCV), stop at max_corners. A grid of cells of round(min_distance) bounds the search to the
// 3x3 cells around, as OpenCV's; for integer positions that finds every closer corner.
std::vector<Point2f> select_corners(const std::vector<std::uint32_t>& ordered, int width, int height, const GoodFeaturesParams& p) {
  std::vector<Point2f> corners;
  const auto limit = p.max_corners > 0 ? static_cast<std::size_t>(p.max_corners) : ordered.size();
  if (p.min_distance < 1) {
    for (std::size_t i = 0; i < ordered.size() && corners.size() < limit; ++i) {
      corners.push_back({static_cast<float>(ordered[i] % static_cast<std::uint32_t>(width)),
                         static_cast<float>(ordered[i] / static_cast<std::uint32_t>(width))});
    }
    return corners;
  }
  // Cells of round(min_distance), as OpenCV; past the image's size one cell holds everything either way.
  const int cell = static_cast<int>(std::min<double>(std::nearbyint(p.min_distance), std::max(width, height)));
  const int grid_w = (width + cell - 1) / cell;
  const int grid_h = (height + cell - 1) / cell;
  std::vector<std::vector<Point2f>> grid(static_cast<std::size_t>(grid_w) * static_cast<std::size_t>(grid_h));
  const double min_sq = p.min_distance * p.min_distance;
  for (const std::uint32_t index : ordered) {
    const int x = static_cast<int>(index % static_cast<std::uint32_t>(width));
    const int y = static_cast<int>(index / static_cast<std::uint32_t>(width));
    const int cx = x / cell;
    const int cy = y / cell;
    bool good = true;
    for (int yy = std::max(0, cy - 1); good && yy <= std::min(grid_h - 1, cy + 1); ++yy) {
      for (int xx = std::max(0, cx - 1); good && xx <= std::min(grid_w - 1, cx + 1); ++xx) {
        for (const Point2f& q : grid[static_cast<std::size_t>(yy) * static_cast<std::size_t>(grid_w) + static_cast<std::size_t>(xx)]) {
          const float dx = static_cast<float>(x) - q.x;
          const float dy = static_cast<float>(y) - q.y;
          if (static_cast<double>(dx * dx + dy * dy) < min_sq) {
            good = false;
            break;
          }
        }
      }
    }
    if (!good) continue;
    const Point2f point{static_cast<float>(x), static_cast<float>(y)};
    grid[static_cast<std::size_t>(cy) * static_cast<std::size_t>(grid_w) + static_cast<std::size_t>(cx)].push_back(point);
    corners.push_back(point);
    if (corners.size() == limit) break;
  }
  return corners;
}

// The device stages: the response, its maximum under the mask, the candidates (compacted in
// descending pixel order), their stable sort by response, descending. Returns the candidates'
// pixel indices in OpenCV's order; `device_event` (if given) spans the device stages.
std::vector<std::uint32_t> ordered_candidates(Queue& queue, const DeviceImage& image, const GoodFeaturesParams& p,
                                              const DeviceImage* mask, Event* device_event) {
  check_params(queue, image, p, mask);
  const bool has_mask = mask != nullptr && !mask->empty();
  DeviceImage response;
  const Event first = detail::corner_response(
      queue, image, response, {p.block_size, p.gradient_size, BorderMode::reflect_101, p.use_harris_detector, p.k});
  const auto program = detail::corners_program(queue);

  const int w = image.width();
  const int h = image.height();
  const std::int64_t n = static_cast<std::int64_t>(w) * h;
  const Context& context = queue.context();
  // words[0]: the maximum's ordered key (INT_MIN: no pixel yet); counts: the two compactions'.
  DeviceArray words(context, 1, Format{Depth::s32, 1});
  DeviceArray counts(context, 2, Format{Depth::u32, 1});
  const std::int32_t init = INT_MIN;
  upload_array(queue, &init, sizeof init, words);
  DeviceArray flags(context, n, Format{Depth::u8, 1});
  DeviceArray keys(context, n, Format{Depth::f32, 1});
  DeviceArray indices(context, n, Format{Depth::u32, 1});
  DeviceArray keys_packed(context, n, Format{Depth::f32, 1});
  DeviceArray indices_packed(context, n, Format{Depth::u32, 1});
  const DeviceImage& mask_image = has_mask ? *mask : image;  // any u8 image when there is no mask

  detail::Launch max(queue, program, "corners_max");
  max.arg(w).arg(h).arg(has_mask ? 1 : 0).image(response).image(mask_image).buffer(*words.buffer());
  const auto pixels = static_cast<std::size_t>(n);
  const std::size_t groups = std::clamp<std::size_t>(pixels / (kMaxGroup * 16), 1, 1024);
  max.run(detail::range(groups * kMaxGroup), detail::range(kMaxGroup));

  detail::Launch cand(queue, program, "corners_candidates");
  cand.arg(w).arg(h).arg(has_mask ? 1 : 0).arg(p.quality_level).image(response).image(mask_image);
  cand.buffer(*words.buffer()).array(flags).array(keys).array(indices);
  cand.run(detail::range(detail::round_up(static_cast<std::size_t>(w), 32), detail::round_up(static_cast<std::size_t>(h), 8)),
           detail::range(32, 8));
  compact(queue, keys, flags, keys_packed, counts.slice(0, 1));
  Event last = compact(queue, indices, flags, indices_packed, counts.slice(1, 1));

  std::uint32_t got[2] = {0, 0};
  download_array(queue, counts, got, sizeof got).wait();
  const auto count = static_cast<std::int64_t>(got[1]);
  std::vector<std::uint32_t> ordered(static_cast<std::size_t>(count));
  if (count > 0) {
    const DeviceArray k = keys_packed.slice(0, count);
    const DeviceArray v = indices_packed.slice(0, count);
    last = sort_pairs(queue, k, v, k, v, SortOrder::descending);
    // Without a distance check only the first max_corners are needed.
    if (p.min_distance < 1 && p.max_corners > 0 && p.max_corners < count) ordered.resize(static_cast<std::size_t>(p.max_corners));
    download_array(queue, v.slice(0, static_cast<std::int64_t>(ordered.size())), ordered.data(),
                   ordered.size() * sizeof(std::uint32_t)).wait();
  }
  if (device_event != nullptr) *device_event = Event(first.first(), last.last());
  return ordered;
}

}  // namespace

std::vector<Point2f> good_features_to_track(Queue& queue, const DeviceImage& image, const GoodFeaturesParams& params,
                                            const DeviceImage* mask) {
  const std::vector<std::uint32_t> ordered = ordered_candidates(queue, image, params, mask, nullptr);
  return select_corners(ordered, image.width(), image.height(), params);
}

Event good_features_to_track(Queue& queue, const DeviceImage& image, DeviceArray& corners, DeviceArray& count,
                             const GoodFeaturesParams& params, const DeviceImage* mask) {
  const std::vector<Point2f> found = good_features_to_track(queue, image, params, mask);
  const std::int64_t capacity = std::max<std::int64_t>(
      1, params.max_corners > 0 ? params.max_corners
                                : static_cast<std::int64_t>(std::max(0, image.width() - 2)) * std::max(0, image.height() - 2));
  if (corners.empty() || corners.format() != Format{Depth::f32, 2} || corners.size() < static_cast<std::int64_t>(found.size())) {
    corners = DeviceArray(queue.context(), capacity, Format{Depth::f32, 2});
  }
  if (count.empty()) count = DeviceArray(queue.context(), 1, Format{Depth::u32, 1});
  if (count.format() != Format{Depth::u32, 1}) {
    throw Error(ErrorCode::invalid_argument, kOp, "count", "must be one u32 element");
  }
  // The host memory of an asynchronous upload must outlive it: wait for these small copies.
  const auto n = static_cast<std::uint32_t>(found.size());
  upload_array(queue, &n, sizeof n, count.slice(0, 1)).wait();
  if (n == 0) return Event();
  Event done = upload_array(queue, found.data(), found.size() * sizeof(Point2f), corners.slice(0, n));
  done.wait();
  return done;
}

}  // namespace plinth
