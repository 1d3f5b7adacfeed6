// good_features_to_track (cv::goodFeaturesToTrack): the response (corners.cpp), then on the device
// the strongest response under the mask and the candidates (thresholded local maxima of 3x3), then
// the ordering and OpenCV's greedy minDistance walk. docs/tracking.md ("Corners") gives the rules.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>

#include "core/launch.hpp"
#include "ops/corners_internal.hpp"
#include "ops/elementwise_common.hpp"

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

struct Candidate {
  float response;
  std::uint32_t index;  // y * width + x: OpenCV's address order
};

// The candidates in OpenCV's order: response descending, ties by the later pixel first (the
// comparator of OpenCV 4.6's sort of pointers into the response image).
// TEMPORARY: sorted on the host until plinth's device sort (include/plinth/sort.hpp) lands on
// main; then this becomes sort_pairs on the device.
void order_candidates(std::vector<Candidate>& candidates) {
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.response != b.response) return a.response > b.response;
    return a.index > b.index;
  });
}

// OpenCV's minDistance pass: walk the ordered candidates, keep one when no kept corner lies
// closer than min_distance (squared distances compared in float against the double square, as
// OpenCV), stop at max_corners. A grid of cells of round(min_distance) bounds the search to the
// 3x3 cells around, as OpenCV's; for integer positions that finds every closer corner.
std::vector<Point2f> select_corners(const std::vector<Candidate>& ordered, int width, int height, const GoodFeaturesParams& p) {
  std::vector<Point2f> corners;
  const auto limit = p.max_corners > 0 ? static_cast<std::size_t>(p.max_corners) : ordered.size();
  if (p.min_distance < 1) {
    for (std::size_t i = 0; i < ordered.size() && corners.size() < limit; ++i) {
      corners.push_back({static_cast<float>(ordered[i].index % static_cast<std::uint32_t>(width)),
                         static_cast<float>(ordered[i].index / static_cast<std::uint32_t>(width))});
    }
    return corners;
  }
  const int cell = static_cast<int>(std::lrint(p.min_distance));
  const int grid_w = (width + cell - 1) / cell;
  const int grid_h = (height + cell - 1) / cell;
  std::vector<std::vector<Point2f>> grid(static_cast<std::size_t>(grid_w) * static_cast<std::size_t>(grid_h));
  const double min_sq = p.min_distance * p.min_distance;
  for (const Candidate& c : ordered) {
    const int x = static_cast<int>(c.index % static_cast<std::uint32_t>(width));
    const int y = static_cast<int>(c.index / static_cast<std::uint32_t>(width));
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

// The device stages: response, its maximum under the mask, the candidates. Returns them unordered.
std::vector<Candidate> device_candidates(Queue& queue, const DeviceImage& image, const GoodFeaturesParams& p,
                                         const DeviceImage* mask, Event* device_event) {
  check_params(queue, image, p, mask);
  const bool has_mask = mask != nullptr && !mask->empty();
  DeviceImage response;
  const Event first = detail::corner_response(
      queue, image, response, {p.block_size, p.gradient_size, BorderMode::reflect_101, p.use_harris_detector, p.k});

  const auto program = detail::corners_program(queue);

  const int w = image.width();
  const int h = image.height();
  // Word 0: the maximum's ordered key; word 1: the candidate count.
  DeviceArray words(queue.context(), 2, Format{Depth::s32, 1});
  const std::int32_t init[2] = {INT_MIN, 0};
  upload_array(queue, init, sizeof init, words);
  const std::int64_t capacity = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::max(0, w - 2)) * std::max(0, h - 2));
  DeviceArray keys(queue.context(), capacity, Format{Depth::f32, 1});
  DeviceArray indices(queue.context(), capacity, Format{Depth::u32, 1});
  const DeviceImage& mask_image = has_mask ? *mask : image;  // any u8 image when there is no mask

  detail::Launch max(queue, program, "corners_max");
  max.arg(w).arg(h).arg(has_mask ? 1 : 0).image(response).image(mask_image).buffer(*words.buffer());
  const std::size_t pixels = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  const std::size_t groups = std::clamp<std::size_t>(pixels / (kMaxGroup * 16), 1, 1024);
  max.run(detail::range(groups * kMaxGroup), detail::range(kMaxGroup));

  Event last = first;
  if (w > 2 && h > 2) {
    detail::Launch cand(queue, program, "corners_candidates");
    cand.arg(w).arg(h).arg(has_mask ? 1 : 0).arg(p.quality_level).image(response).image(mask_image);
    cand.buffer(*words.buffer());
    cand.array(keys).array(indices);
    const auto uw = static_cast<std::size_t>(w - 2);
    const auto uh = static_cast<std::size_t>(h - 2);
    last = Event(first.first(), cand.run(detail::range(detail::round_up(uw, 32), detail::round_up(uh, 8)), detail::range(32, 8)));
  }
  if (device_event != nullptr) *device_event = last;

  std::int32_t got[2] = {0, 0};
  download_array(queue, words, got, sizeof got).wait();
  const auto n = static_cast<std::size_t>(got[1]);
  std::vector<Candidate> candidates(n);
  if (n > 0) {
    std::vector<float> k(n);
    std::vector<std::uint32_t> idx(n);
    download_array(queue, keys.slice(0, static_cast<std::int64_t>(n)), k.data(), n * sizeof(float));
    download_array(queue, indices.slice(0, static_cast<std::int64_t>(n)), idx.data(), n * sizeof(std::uint32_t)).wait();
    for (std::size_t i = 0; i < n; ++i) candidates[i] = {k[i], idx[i]};
  }
  return candidates;
}

}  // namespace

std::vector<Point2f> good_features_to_track(Queue& queue, const DeviceImage& image, const GoodFeaturesParams& params,
                                            const DeviceImage* mask) {
  std::vector<Candidate> candidates = device_candidates(queue, image, params, mask, nullptr);
  order_candidates(candidates);
  return select_corners(candidates, image.width(), image.height(), params);
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
