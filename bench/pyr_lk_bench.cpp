// Benchmark cases of calc_optical_flow_pyr_lk (include/plinth/klt.hpp), both pyramids included in
// every run (build_optical_flow_pyramid of prev with derivatives and of next, then the tracker):
//   OpenCV's algorithm by each of its methods (opencv: ordered chains, opencv_int_sums: integer
//   sums where exact, opencv_fused: the same in one launch, auto: the one calc_optical_flow_pyr_lk
//   picks), 10k / 100k / 3300 points, and auto, opencv_int_sums and opencv_fused at 20k and 40k,
//   21x21, maxLevel 3 (the targets at 1920x1080); opencv_item at 10k points; auto at 10k
//   points with the pyramids built by method per_level (one launch per step) beside the fused ones;
//   seed, 3300 points, 16x16, 3 levels of 1/4 size steps (the case study's case at 640x480).
// The frames are a procedural texture that bench/peers/opencv_pyr_lk_peer.py computes bit for
// bit the same (integer value noise), the second frame moved by (17, -11) / 8 pixels; the points a
// jittered grid (exact in float), so OpenCV's peers track the very same inputs.
#include <cmath>
#include <memory>

#include "bench_support.hpp"

namespace plinth::bench {
namespace {

constexpr int kShiftX = 17, kShiftY = -11;  // eighths of a pixel
constexpr int kFramePairs = 4;              // distinct inputs; pyramids and outputs rotate over more sets

std::uint32_t lattice_hash(std::uint32_t i, std::uint32_t j, std::uint32_t seed) {
  std::uint32_t h = (i * 73856093u) ^ (j * 19349663u) ^ (seed * 83492791u);
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return h & 255u;
}

// Value noise at (X, Y) in eighths of a pixel over a lattice of `cell` pixels, bilinear in integers.
std::uint32_t noise(std::int64_t X, std::int64_t Y, std::int64_t cell, std::uint32_t seed) {
  const std::int64_t span = 8 * cell;
  const std::int64_t i = X >= 0 ? X / span : (X - span + 1) / span, j = Y >= 0 ? Y / span : (Y - span + 1) / span;
  const std::int64_t fx = X - i * span, fy = Y - j * span;
  const auto h = [&](std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(lattice_hash(static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b), seed));
  };
  const std::int64_t v = h(i, j) * (span - fx) * (span - fy) + h(i + 1, j) * fx * (span - fy) + h(i, j + 1) * (span - fx) * fy +
                         h(i + 1, j + 1) * fx * fy;
  return static_cast<std::uint32_t>(v / (span * span));
}

// The frame: two octaves of value noise (cells of 6 and 23 pixels), offset by (sx, sy) eighths.
HostImage texture(Size size, std::uint32_t seed, int sx, int sy) {
  HostImage img(size.width, size.height, Format{Depth::u8, 1});
  for (int y = 0; y < size.height; ++y) {
    for (int x = 0; x < size.width; ++x) {
      const std::int64_t X = 8 * std::int64_t{x} + sx, Y = 8 * std::int64_t{y} + sy;
      img.at<std::uint8_t>(x, y) = static_cast<std::uint8_t>((noise(X, Y, 6, seed) + noise(X, Y, 23, seed + 1)) / 2);
    }
  }
  return img;
}

// n points on a grid over the frame less a 16-pixel margin, each moved by (hash & 3) / 4 pixels.
std::vector<Point2f> grid_points(Size size, int n) {
  // floor(v + 0.5): the peer script rounds the same way.
  const double v = std::sqrt(static_cast<double>(n) * (size.width - 32) / (size.height - 32));
  const int cols = std::max(1, static_cast<int>(std::floor(v + 0.5)));
  const int rows = (n + cols - 1) / cols;
  std::vector<Point2f> pts;
  for (int k = 0; k < n; ++k) {
    const int c = k % cols, r = k / cols;
    const int x = 16 + c * (size.width - 32) / cols, y = 16 + r * (size.height - 32) / rows;
    const std::uint32_t h = lattice_hash(static_cast<std::uint32_t>(k), 7u, 99u);
    pts.push_back({static_cast<float>(x) + static_cast<float>(h & 3u) * 0.25f, static_cast<float>(y) + static_cast<float>((h >> 2) & 3u) * 0.25f});
  }
  return pts;
}

struct Config {
  PyrLkMethod method;
  int points;
  int win;
  int max_level;
  OpticalFlowPyramidMethod pyramid = OpticalFlowPyramidMethod::automatic;
};

std::string config_name(const Config& c) {
  std::string pts = c.points % 1000 == 0 ? std::to_string(c.points / 1000) + "k" : std::to_string(c.points);
  std::string name = pts + " pts " + std::to_string(c.win) + "x" + std::to_string(c.win) + " L" + std::to_string(c.max_level);
  if (c.method == PyrLkMethod::seed) name += " /4";
  if (c.pyramid != OpticalFlowPyramidMethod::automatic) name += ", " + std::string(to_string(c.pyramid)) + " pyramids";
  return name;
}

// One set: its frames (shared between sets), pyramids and point arrays.
struct Set {
  DeviceImage prev, next;
  OpticalFlowPyramid prev_pyr, next_pyr;
  DeviceArray prev_pts, next_pts, status, err;
};

std::vector<Case> make_cases(Env& env) {
  const Size size = env.settings.size;
  if (size.width < 64 || size.height < 64) return {};
  Queue* queue = &env.queue;
  std::vector<DeviceImage> prevs, nexts;
  for (int f = 0; f < kFramePairs; ++f) {
    prevs.push_back(queue->upload(texture(size, 1000u + static_cast<std::uint32_t>(f), 0, 0)));
    nexts.push_back(queue->upload(texture(size, 1000u + static_cast<std::uint32_t>(f), kShiftX, kShiftY)));
  }
  const int sets = std::min(env.settings.input_sets, 8);
  std::vector<Config> configs;
  for (PyrLkMethod m : {PyrLkMethod::automatic, PyrLkMethod::opencv, PyrLkMethod::opencv_int_sums, PyrLkMethod::opencv_fused}) {
    for (int points : {10000, 100000, 3300}) configs.push_back({m, points, 21, 3});
  }
  // Between the counts, where automatic switches from opencv_fused to opencv_int_sums.
  for (PyrLkMethod m : {PyrLkMethod::automatic, PyrLkMethod::opencv_int_sums, PyrLkMethod::opencv_fused}) {
    for (int points : {20000, 40000}) configs.push_back({m, points, 21, 3});
  }
  configs.push_back({PyrLkMethod::opencv_item, 10000, 21, 3});
  configs.push_back({PyrLkMethod::automatic, 10000, 21, 3, OpticalFlowPyramidMethod::per_level});
  configs.push_back({PyrLkMethod::seed, 3300, 16, 2});
  std::vector<Case> cases;
  for (const Config& c : configs) {
    const std::vector<Point2f> pts = grid_points(size, c.points);
    const auto n = static_cast<std::int64_t>(pts.size());
    auto state = std::make_shared<std::vector<Set>>(static_cast<std::size_t>(sets));
    for (int s = 0; s < sets; ++s) {
      Set& set = (*state)[static_cast<std::size_t>(s)];
      set.prev = prevs[static_cast<std::size_t>(s % kFramePairs)];
      set.next = nexts[static_cast<std::size_t>(s % kFramePairs)];
      set.prev_pts = DeviceArray(env.context, n, Format{Depth::f32, 2});
      set.next_pts = DeviceArray(env.context, n, Format{Depth::f32, 2});
      set.status = DeviceArray(env.context, n, Format{Depth::u8, 1});
      set.err = DeviceArray(env.context, n, Format{Depth::f32, 1});
      upload_array(*queue, pts.data(), pts.size() * sizeof(Point2f), set.prev_pts).wait();
    }
    PyrLkParams params;
    params.method = c.method;
    params.win_size = {c.win, c.win};
    params.max_level = c.max_level;
    const OpticalFlowPyramidMethod pyramid_method = c.pyramid;
    Case k;
    k.op = "pyr_lk";
    k.variant = std::string(to_string(c.method));
    k.config = config_name(c);
    k.size = size;
    k.bytes = 2.0 * size.width * size.height + static_cast<double>(n) * (8 + 8 + 1 + 4);
    if (c.method == PyrLkMethod::seed) k.note = "seed: the case study's translation KLT (not OpenCV's algorithm); its pyramids are built inside the call";
    k.run = [=](int s) {
      Set& set = (*state)[static_cast<std::size_t>(s % sets)];
      if (params.method == PyrLkMethod::seed) {
        // The seed method builds its subsampled pyramids from levels[0] of these one-level pyramids.
        set.prev_pyr.win_size = set.next_pyr.win_size = params.win_size;
        set.prev_pyr.levels = {set.prev};
        set.next_pyr.levels = {set.next};
        return calc_optical_flow_pyr_lk(*queue, set.prev_pyr, set.next_pyr, set.prev_pts, set.next_pts, set.status, set.err, params);
      }
      build_optical_flow_pyramid(*queue, set.prev, set.prev_pyr, params.win_size, params.max_level, true, pyramid_method);
      build_optical_flow_pyramid(*queue, set.next, set.next_pyr, params.win_size, params.max_level, false, pyramid_method);
      const Event track = calc_optical_flow_pyr_lk(*queue, set.prev_pyr, set.next_pyr, set.prev_pts, set.next_pts, set.status, set.err, params);
      return Event(set.prev_pyr.ready.first(), track.last());
    };
    cases.push_back(std::move(k));
  }
  return cases;
}

const Registration registration("pyr_lk", make_cases);

}  // namespace
}  // namespace plinth::bench
