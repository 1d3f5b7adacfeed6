// good_features_to_track (cv::goodFeaturesToTrack), all on the device: the response (corners.cpp),
// the strongest response under the mask, the candidates (thresholded local maxima of 3x3), their
// order (plinth's compact and sort_pairs), OpenCV's greedy minDistance walk as parallel rounds by
// priority, and the list. The host reads the candidates' count once (the sort's size) and, in the
// host form, the list at the end. docs/tracking.md ("Corners") gives the rules.
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

// No maximum found yet (kernels/corners.cl's corners_max); static: the upload reads it later.
const std::int32_t kNoMaximum = INT_MIN;

detail::NDRange line_range(std::int64_t count) {
  return detail::range(detail::round_up(static_cast<std::size_t>(std::max<std::int64_t>(count, 1)), 256));
}

// A DeviceArray over the queue's scratch memory under `key`, kept between calls: once warm, a call
// allocates (and frees, which waits for the device) no device memory. The queue runs in order,
// so consecutive calls never overlap on it.
DeviceArray scratch_array(Queue& queue, std::string_view key, std::int64_t size, Format format) {
  size = std::max<std::int64_t>(size, 1);
  const detail::ScratchLease lease = detail::scratch(queue, key, static_cast<std::size_t>(size) * format.pixel_size());
  return DeviceArray::wrap(queue.context(), lease.buffer->native(), size, format);
}

// One scratch array per element type, cut into slices that start 256 bytes apart at least.
class Pool {
 public:
  static std::int64_t aligned(std::int64_t count) { return (std::max<std::int64_t>(count, 1) + 63) / 64 * 64; }
  Pool(Queue& queue, std::string_view key, std::int64_t total, Format format) : array_(scratch_array(queue, key, total, format)) {}
  DeviceArray take(std::int64_t count) {
    DeviceArray slice = array_.slice(used_, std::max<std::int64_t>(count, 1));
    used_ += aligned(count);
    return slice;
  }

 private:
  DeviceArray array_;
  std::int64_t used_ = 0;
};

// The minDistance pass's arrays (pixel-indexed ranks, the cells' ranges, the candidates' states,
// the rounds' undecided counters, the kept candidates and their number).
struct DistanceArrays {
  DeviceArray ranks, begin, end, state, undecided, kept, kept_count;
};

// The minDistance pass over `ordered` (the candidates' pixel indices, OpenCV's order; `count` of
// them, device_count its copy on the device) and the list: up to `limit` points (x, y) into
// `points` and their number into `out_count`. `cell`: round(minDistance), capped at the image's
// larger side; `by_cell`: the candidates cell by cell (cell-major compaction).
Event distance_pass(Queue& queue, const std::shared_ptr<detail::Program>& program, const DeviceArray& ordered, const DeviceArray& device_count,
                    std::int64_t count, const DeviceArray& by_cell, int width, int height, int cell, double min_distance, std::int64_t limit,
                    const DistanceArrays& a, DeviceArray& points, DeviceArray& out_count) {
  const int limit_arg = static_cast<int>(limit);
  if (cell == 0) {
    detail::Launch list(queue, program, "corners_points");
    list.arg(width).arg(limit_arg).array(ordered).array(device_count).array(points).array(out_count);
    return Event(list.run(line_range(limit), detail::range(256)));
  }
  const int grid_w = (width + cell - 1) / cell;
  const int grid_h = (height + cell - 1) / cell;
  const double min_sq = min_distance * min_distance;
  const int n = static_cast<int>(count);
  // Rounds after the last undecided candidate return at once; the finish decides any left.
  const int rounds = static_cast<int>(a.undecided.size());
  const DeviceArray& ranks = a.ranks;
  const DeviceArray& begin = a.begin;
  const DeviceArray& end = a.end;
  const DeviceArray state = a.state.slice(0, count);
  const DeviceArray& undecided = a.undecided;
  const DeviceArray kept = a.kept.slice(0, count);
  const DeviceArray& kept_count = a.kept_count;
  const Event first = fill_array_bytes(queue, begin, 0);
  fill_array_bytes(queue, end, 0);
  fill_array_bytes(queue, state, 2);  // STATE_UNDECIDED
  fill_array_bytes(queue, undecided, 0);

  detail::Launch rank(queue, program, "corners_ranks");
  rank.arg(n).array(ordered).array(ranks);
  rank.run(line_range(count), detail::range(256));
  detail::Launch ranges(queue, program, "corners_cell_ranges");
  ranges.arg(n).arg(width).arg(cell).arg(grid_w).array(by_cell).array(begin).array(end);
  ranges.run(line_range(count), detail::range(256));
  for (int round = 0; round < rounds; ++round) {
    detail::Launch step(queue, program, "corners_distance_round");
    step.arg(n).arg(width).arg(cell).arg(grid_w).arg(grid_h).arg(min_sq).arg(round);
    step.array(ordered).array(ranks).array(by_cell).array(begin).array(end).array(state).array(undecided);
    step.run(line_range(count), detail::range(256));
  }
  detail::Launch finish(queue, program, "corners_distance_finish");
  finish.arg(n).arg(width).arg(cell).arg(grid_w).arg(grid_h).arg(min_sq).arg(rounds);
  finish.array(ordered).array(ranks).array(by_cell).array(begin).array(end).array(state).array(undecided);
  finish.run(detail::range(kMaxGroup), detail::range(kMaxGroup));
  compact(queue, ordered, state, kept, kept_count);
  detail::Launch list(queue, program, "corners_points");
  list.arg(width).arg(limit_arg).array(kept).array(kept_count).array(points).array(out_count);
  return Event(first.first(), list.run(line_range(limit), detail::range(256)));
}

// Every stage on the device. `points` (f32 x2) is (re)allocated when it holds fewer than the
// list can have; `out_count` (u32) when empty. Returns the number of points the list can have
// (min(max_corners, candidates)); `last` gets the event of the last command.
std::int64_t device_stages(Queue& queue, const DeviceImage& image, const GoodFeaturesParams& p, const DeviceImage* mask,
                           DeviceArray& points, DeviceArray& out_count, GoodFeaturesStages* stages, Event& last) {
  check_params(queue, image, p, mask);
  const bool has_mask = mask != nullptr && !mask->empty();
  const std::size_t pitch = detail::round_up(static_cast<std::size_t>(image.width()) * sizeof(float), 256);
  DeviceImage response = DeviceImage::wrap(
      queue.context(), detail::scratch(queue, "corners.gftt_response", pitch * static_cast<std::size_t>(image.height())).buffer->native(),
      image.width(), image.height(), Format{Depth::f32, 1}, pitch);
  const Event response_done = detail::corner_response(
      queue, image, response, {p.block_size, p.gradient_size, BorderMode::reflect_101, p.use_harris_detector, p.k});
  const auto program = detail::corners_program(queue);

  const int w = image.width();
  const int h = image.height();
  const std::int64_t n = static_cast<std::int64_t>(w) * h;
  // Cells of round(minDistance), as OpenCV; past the image's size one cell holds everything either
  // way. 0: no distance check (minDistance < 1).
  const int cell = p.min_distance < 1 ? 0 : static_cast<int>(std::min<double>(std::nearbyint(p.min_distance), std::max(w, h)));
  const Context& context = queue.context();
  const std::int64_t cell_n = cell > 0 ? n : 1;
  const std::int64_t cells =
      cell > 0 ? static_cast<std::int64_t>((w + cell - 1) / cell) * static_cast<std::int64_t>((h + cell - 1) / cell) : 1;
  const std::int64_t rounds = std::max(1, detail::corners_tuning().distance_rounds);
  const std::int64_t distance_n = cell > 0 ? n : 1;
  // u32: indices and their compaction, the cell-major ones and theirs, the pass's ranks and kept
  // list (candidates <= pixels), the cells' ranges, counters; u8: flags, cell-major flags,
  // states; f32: the candidates' keys.
  Pool words32(queue, "corners.gftt_u32",
               Pool::aligned(n) * 2 + Pool::aligned(cell_n) * 2 + Pool::aligned(distance_n) * 2 + Pool::aligned(cells) * 2 +
                   Pool::aligned(1) * 2 + Pool::aligned(2) + Pool::aligned(rounds),
               Format{Depth::u32, 1});
  Pool bytes8(queue, "corners.gftt_u8", Pool::aligned(n) + Pool::aligned(cell_n) + Pool::aligned(distance_n), Format{Depth::u8, 1});
  Pool floats(queue, "corners.gftt_f32", Pool::aligned(n), Format{Depth::f32, 1});
  // words[0]: the maximum's ordered key; counts: the two compactions' (candidates, cell-major).
  const DeviceArray words = words32.take(1);
  const DeviceArray counts = words32.take(2);
  const DeviceArray indices = words32.take(n);
  const DeviceArray indices_packed = words32.take(n);
  const DeviceArray cell_indices = words32.take(cell_n);
  const DeviceArray by_cell = words32.take(cell_n);
  DistanceArrays distance;
  distance.ranks = words32.take(distance_n);
  distance.kept = words32.take(distance_n);
  distance.begin = words32.take(cells);
  distance.end = words32.take(cells);
  distance.undecided = words32.take(rounds);
  distance.kept_count = words32.take(1);
  const DeviceArray flags = bytes8.take(n);
  const DeviceArray cell_flags = bytes8.take(cell_n);
  distance.state = bytes8.take(distance_n);
  const DeviceArray keys_packed = floats.take(n);
  const DeviceImage& mask_image = has_mask ? *mask : image;  // any u8 image when there is no mask

  const Event candidates_first = upload_array(queue, &kNoMaximum, sizeof kNoMaximum, words);
  detail::Launch max(queue, program, "corners_max");
  max.arg(w).arg(h).arg(has_mask ? 1 : 0).image(response).image(mask_image).array(words);
  const auto pixels = static_cast<std::size_t>(n);
  const std::size_t groups = std::clamp<std::size_t>(pixels / (kMaxGroup * 16), 1, 1024);
  max.run(detail::range(groups * kMaxGroup), detail::range(kMaxGroup));

  detail::Launch cand(queue, program, "corners_candidates");
  cand.arg(w).arg(h).arg(has_mask ? 1 : 0).arg(p.quality_level).arg(cell).image(response).image(mask_image);
  cand.array(words).array(flags).array(indices).array(cell_flags).array(cell_indices);
  cand.run(detail::range(detail::round_up(static_cast<std::size_t>(w), 32), detail::round_up(static_cast<std::size_t>(h), 8)),
           detail::range(32, 8));
  Event candidates_done = compact(queue, indices, flags, indices_packed, counts.slice(0, 1));
  if (cell > 0) candidates_done = compact(queue, cell_indices, cell_flags, by_cell, counts.slice(1, 1));

  // The one read before the end: the sort and the passes after it are sized by the count.
  std::uint32_t found = 0;
  download_array(queue, counts.slice(0, 1), &found, sizeof found).wait();
  const auto count = static_cast<std::int64_t>(found);
  const std::int64_t limit = p.max_corners > 0 ? std::min<std::int64_t>(p.max_corners, count) : count;
  // Empty arrays (the host form): scratch ones; too small ones (the device form): new ones.
  if (points.empty()) {
    points = scratch_array(queue, "corners.gftt_points", limit, Format{Depth::f32, 2});
  } else if (points.format() != Format{Depth::f32, 2} || points.size() < limit) {
    points = DeviceArray(context, std::max<std::int64_t>(limit, 1), Format{Depth::f32, 2});
  }
  if (out_count.empty()) out_count = scratch_array(queue, "corners.gftt_count", 1, Format{Depth::u32, 1});
  if (out_count.format() != Format{Depth::u32, 1}) throw Error(ErrorCode::invalid_argument, kOp, "count", "must be one u32 element");
  if (stages != nullptr) {
    stages->response = response_done;
    stages->candidates = Event(candidates_first.first(), candidates_done.last());
  }
  if (count == 0) {
    last = fill_array_bytes(queue, out_count.slice(0, 1), 0);
    if (stages != nullptr) stages->order = stages->distance = Event();
    return 0;
  }
  const DeviceArray k = keys_packed.slice(0, count);
  const DeviceArray v = indices_packed.slice(0, count);
  detail::Launch gather(queue, program, "corners_keys");
  gather.arg(static_cast<int>(count)).arg(w).image(response).array(v).array(k);
  const Event keyed(gather.run(line_range(count), detail::range(256)));
  const Event order(keyed.first(), sort_pairs(queue, k, v, k, v, SortOrder::descending).last());
  last = distance_pass(queue, program, v, counts.slice(0, 1), count, by_cell, w, h, cell, p.min_distance, limit, distance, points,
                       out_count);
  if (stages != nullptr) {
    stages->order = order;
    stages->distance = last;
  }
  return limit;
}

}  // namespace

std::vector<Point2f> good_features_to_track(Queue& queue, const DeviceImage& image, const GoodFeaturesParams& params,
                                            const DeviceImage* mask) {
  DeviceArray points;
  DeviceArray count;
  Event last;
  const std::int64_t limit = device_stages(queue, image, params, mask, points, count, nullptr, last);
  // The one read at the end: the number and the list (up to the most it can hold), waited for once.
  std::uint32_t n = 0;
  std::vector<Point2f> corners(static_cast<std::size_t>(limit));
  download_array(queue, count.slice(0, 1), &n, sizeof n);
  if (limit > 0) download_array(queue, points.slice(0, limit), corners.data(), corners.size() * sizeof(Point2f));
  queue.finish();
  corners.resize(std::min<std::size_t>(n, corners.size()));
  return corners;
}

Event good_features_to_track(Queue& queue, const DeviceImage& image, DeviceArray& corners, DeviceArray& count,
                             const GoodFeaturesParams& params, const DeviceImage* mask, GoodFeaturesStages* stages) {
  check_params(queue, image, params, mask);
  // The largest list possible, so that repeated calls keep one allocation.
  const std::int64_t capacity = std::max<std::int64_t>(
      1, params.max_corners > 0 ? params.max_corners
                                : static_cast<std::int64_t>(std::max(0, image.width() - 2)) * std::max(0, image.height() - 2));
  if (corners.empty() || corners.format() != Format{Depth::f32, 2} || corners.size() < capacity) {
    corners = DeviceArray(queue.context(), capacity, Format{Depth::f32, 2});
  }
  if (count.empty()) count = DeviceArray(queue.context(), 1, Format{Depth::u32, 1});
  Event last;
  device_stages(queue, image, params, mask, corners, count, stages, last);
  return last;
}

}  // namespace plinth
