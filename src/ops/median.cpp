// median_blur (cv::medianBlur): argument checks, the choice of variant and the launches of
// kernels/median.cl. docs/filters.md explains the variants.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/launch.hpp"
#include "ops/elementwise_common.hpp"
#include "plinth/filters.hpp"

namespace plinth {
namespace {

constexpr const char* kOp = "median_blur";

// Work shapes of the median kernels, chosen from the device.
struct MedianPolicy {
  std::size_t group_x = 64;  // 2-D kernels (plain, network, sorted_columns)
  std::size_t group_y = 4;
  int columns_outputs = 4;   // outputs per work-item of sorted_columns (TW), set per channel count
  std::size_t histogram_group = 128;
  int histogram_rows = 64;   // rows each histogram work-item walks
  int tile_x = 8;            // outputs per work-item of tiled (one of kTileNetworks)
  int tile_y = 2;
  std::size_t tiled_group_x = 32;  // a warp along x: 32 tiles side by side
  std::size_t tiled_group_y = 4;
  int packed_rows = 8;             // output rows per work-item of sorted_rows_packed (even)
  std::size_t packed_group_x = 32; // a warp along x: 32 work-items of 8 bytes (8 / channels pixels), 256 bytes a row
  std::size_t packed_group_y = 4;
};

// The (ksize, tile_x, tile_y) networks that kernels/median_networks.h holds
// (scripts/gen_median_networks.py, CONFIGS).
struct TileNetwork {
  int ksize, x, y;
};
constexpr TileNetwork kTileNetworks[] = {{3, 8, 2}, {5, 8, 2}, {5, 4, 2}, {7, 8, 2}, {9, 4, 2}};

bool has_tile_network(int ksize) {
  return std::any_of(std::begin(kTileNetworks), std::end(kTileNetworks), [&](const TileNetwork& t) { return t.ksize == ksize; });
}

MedianPolicy median_policy(const DeviceInfo& device, const DeviceImage& src, int ksize) {
  MedianPolicy p;
  // One-channel images: 8 outputs share 10 sorted columns (1.25 sorts per output); vector
  // pixels hold more registers, so 4.
  p.columns_outputs = src.channels() == 1 ? 8 : 4;
  const int bits = ksize <= 15 ? 8 : 16;
  const std::size_t words = bits == 8 ? 64 : 128;
  // Local memory of 4-byte words per work-item bounds the group; keep a power of two >= 16.
  std::size_t group = bits == 8 ? 128 : 64;
  const std::uint64_t local = device.local_memory == 0 ? 32768 : device.local_memory;
  while (group > 16 && group * words * 4 > local) group /= 2;
  p.histogram_group = std::min(group, std::max<std::size_t>(16, device.max_work_group_size));
  // Enough column walkers to fill the device (about 2048 per compute unit), each walking at
  // least a few windows' worth of rows so that filling its first window stays a small cost.
  const double columns = static_cast<double>(src.width()) * src.channels();
  const double target = std::max(1u, device.compute_units) * 2048.0;
  const int rows = static_cast<int>(std::ceil(columns * src.height() / target));
  p.histogram_rows = std::clamp(rows, std::max(8, 2 * ksize), 256);
  // Tiles 8 wide for 1- and 2-byte elements; 4 wide for 4-byte ones, so that one load instruction
  // of a warp (32 lanes, tile_x elements apart) spans at most 512 bytes. The widest tile a size
  // has otherwise: more outputs share each sorted piece.
  const bool wide = depth_size(src.depth()) >= 4;
  p.tile_x = 0;
  for (const TileNetwork& t : kTileNetworks) {
    if (t.ksize != ksize) continue;
    const bool better = p.tile_x == 0 || (wide ? t.x < p.tile_x : t.x > p.tile_x);
    if (better) {
      p.tile_x = t.x;
      p.tile_y = t.y;
    }
  }
  // sorted_rows_packed: each source row's sorted triples serve 3 output rows, so a work-item sorts
  // rows + 2 source rows per rows output rows: 8 rows (1.25 sorts per output row) where the
  // image gives at least half a wave of such work-items (at 64 registers an SM holds 1024), else
  // 4 for more of them. A work-item does 8 bytes of a row: 8 / channels pixels.
  const double blocks = static_cast<double>(src.width()) * src.channels() * src.height() / 64.0;
  p.packed_rows = blocks >= 512.0 * std::max(1u, device.compute_units) ? 8 : 4;
  return p;
}

struct Plan {
  int ksize;
  MedianMethod method;
  float border_value;
};

float saturated_border(Depth depth, double value) {
  if (std::isnan(value)) return 0.0f;
  switch (depth) {
    case Depth::u8: return static_cast<float>(std::clamp(std::nearbyint(value), 0.0, 255.0));
    case Depth::u16: return static_cast<float>(std::clamp(std::nearbyint(value), 0.0, 65535.0));
    case Depth::s16: return static_cast<float>(std::clamp(std::nearbyint(value), -32768.0, 32767.0));
    default: return static_cast<float>(value);
  }
}

// The automatic choice; docs/filters.md gives the measurements and estimates behind it.
MedianMethod automatic_method(const DeviceInfo& device, const DeviceImage& src, int k) {
  if (k > 9) return MedianMethod::histogram;  // u8 only (checked before)
  // 5x5 to 9x9, u8 and u16, NVIDIA sm_90 and newer: tiled_packed, the same networks on two tiles
  // at once (H200, CUDA, 7680x4320: u8 5x5 84.9 us against tiled's 141.7, 7x7 207.4 against
  // 284.1, 9x9 311.5 against 537.7; docs/filters.md).
  const bool packed_min_max = device.type == DeviceType::gpu && device.nvidia_arch >= 90;
  if (k > 3) {
    return packed_min_max && (src.depth() == Depth::u8 || src.depth() == Depth::u16) ? MedianMethod::tiled_packed
                                                                                      : MedianMethod::tiled;
  }
  // 3x3. GPUs: tiled for every depth and channel count (H100, 3840x2160: u8 22.7 us against
  // sorted_columns 34.7 and network 64.2; u8x4 56.6 against 119; u16 30.6 against 52.7; f32 53.1
  // against network 63.2; docs/PERFORMANCE.md). PoCL: tiled for one channel (fewest operations,
  // and work-items vectorise well), sorted_columns for interleaved channels, where tiled's
  // per-channel loads gather.
  if (device.type == DeviceType::cpu && src.channels() > 1) return MedianMethod::sorted_columns;
  // u8 with 1, 2 or 4 channels, NVIDIA sm_90 and newer: sorted_rows_packed, whose packed min/max
  // are native there (per output channel 12.6 issue slots and 4.75 min/max instructions of
  // NVRTC's SASS for one channel, 12.5 and 4.75 for four, against tiled's 23.9 and 24.9 with
  // 15.25 min/max; docs/filters.md). Older GPUs would run its portable fallback.
  if (packed_min_max && src.depth() == Depth::u8 && src.channels() != 3) {
    return MedianMethod::sorted_rows_packed;
  }
  return MedianMethod::tiled;
}

Plan make_plan(Queue& queue, const DeviceImage& src, DeviceImage& dst, const MedianOptions& o) {
  detail::check_device(queue, src, kOp, "src");
  detail::check_depth(src.depth(), {Depth::u8, Depth::u16, Depth::s16, Depth::f32}, kOp, "src");
  const int k = o.ksize;
  if (k < 1 || k % 2 == 0) {
    throw Error(ErrorCode::invalid_argument, kOp, "ksize", std::to_string(k) + " is not a positive odd number");
  }
  if (src.depth() == Depth::u8 && k > 255) {
    throw Error(ErrorCode::out_of_range, kOp, "ksize", std::to_string(k) + " exceeds the largest window, 255");
  }
  if (src.depth() != Depth::u8 && k > 5) {
    throw Error(ErrorCode::unsupported_type, kOp, "ksize",
                std::to_string(k) + "x" + std::to_string(k) + " takes u8 images only (as cv::medianBlur); " +
                    std::string(to_string(src.depth())) + " allows 3 and 5");
  }
  detail::prepare_output(queue, dst, src.size(), src.format(), kOp, "dst");
  detail::check_no_overlap(src, dst, kOp, "dst");

  Plan plan{k, o.method, saturated_border(src.depth(), o.border_value)};
  if (k == 1) return plan;  // a copy, whatever the method
  if (plan.method == MedianMethod::automatic) plan.method = automatic_method(queue.context().device(), src, k);
  const auto refuse = [&](const std::string& why) {
    throw Error(ErrorCode::invalid_argument, kOp, "method", std::string(to_string(plan.method)) + " " + why);
  };
  switch (plan.method) {
    case MedianMethod::network:
      if (k != 3 && k != 5 && k != 7) refuse("handles 3x3, 5x5 and 7x7 windows");
      break;
    case MedianMethod::sorted_columns:
      if (k != 3) refuse("handles 3x3 windows");
      break;
    case MedianMethod::histogram:
      if (src.depth() != Depth::u8) refuse("handles u8 images");
      break;
    case MedianMethod::tiled:
      if (!has_tile_network(k)) refuse("handles 3x3, 5x5, 7x7 and 9x9 windows");
      break;
    case MedianMethod::tiled_packed:
      if (!has_tile_network(k) || (src.depth() != Depth::u8 && src.depth() != Depth::u16)) {
        refuse("handles 3x3, 5x5, 7x7 and 9x9 windows of u8 and u16 images");
      }
      break;
    case MedianMethod::sorted_rows_packed:
      // A work-item's 8 bytes must hold whole pixels: 3 channels would need 24 bytes, or 12 and
      // half as many registers again for the sorted triples (about 72 against the cap of 64).
      if (k != 3 || src.depth() != Depth::u8 || src.channels() == 3) {
        refuse("handles 3x3 windows of u8 images with 1, 2 or 4 channels");
      }
      break;
    default: break;
  }
  return plan;
}

detail::BuildOptions build_options(const DeviceImage& src, const Plan& plan, BorderMode border) {
  detail::BuildOptions options;
  options.define_depth("SRC", src.depth()).define("CN", src.channels()).define("KSIZE", plan.ksize);
  options.define("BORDER", static_cast<long long>(border));
  return options;
}

}  // namespace

std::string_view to_string(MedianMethod method) noexcept {
  switch (method) {
    case MedianMethod::automatic: return "auto";
    case MedianMethod::plain: return "plain";
    case MedianMethod::network: return "network";
    case MedianMethod::sorted_columns: return "sorted_columns";
    case MedianMethod::histogram: return "histogram";
    case MedianMethod::tiled: return "tiled";
    case MedianMethod::sorted_rows_packed: return "sorted_rows_packed";
    case MedianMethod::tiled_packed: return "tiled_packed";
  }
  return "?";
}

MedianMethod parse_median_method(std::string_view text) {
  for (MedianMethod m : {MedianMethod::automatic, MedianMethod::plain, MedianMethod::network, MedianMethod::sorted_columns,
                         MedianMethod::histogram, MedianMethod::tiled, MedianMethod::sorted_rows_packed,
                         MedianMethod::tiled_packed}) {
    if (text == to_string(m)) return m;
  }
  throw Error(ErrorCode::invalid_argument, kOp, "method",
              "unknown method '" + std::string(text) +
                  "' (expected auto, plain, network, sorted_columns, histogram, tiled, sorted_rows_packed or "
                  "tiled_packed)");
}

Event median_blur(Queue& queue, const DeviceImage& src, DeviceImage& dst, const MedianOptions& options) {
  const Plan plan = make_plan(queue, src, dst, options);
  if (plan.ksize == 1) return queue.copy(src, dst);  // cv::medianBlur copies for ksize 1

  const MedianPolicy policy = median_policy(queue.context().device(), src, plan.ksize);
  detail::BuildOptions build = build_options(src, plan, options.border);
  const auto width = static_cast<std::size_t>(src.width());
  const auto height = static_cast<std::size_t>(src.height());
  const detail::NDRange group2 = detail::range(policy.group_x, policy.group_y);

  switch (plan.method) {
    case MedianMethod::plain: {
      detail::Launch launch(queue, detail::get_program(queue, "median.cl", build), "median_plain");
      launch.arg(src.width()).arg(src.height()).arg(plan.border_value).image(src).image(dst);
      return Event(launch.run(detail::range(detail::round_up(width, policy.group_x), detail::round_up(height, policy.group_y),
                                            static_cast<std::size_t>(src.channels())),
                              detail::range(policy.group_x, policy.group_y, 1)));
    }
    case MedianMethod::network: {
      detail::Launch launch(queue, detail::get_program(queue, "median.cl", build), "median_network");
      launch.arg(src.width()).arg(src.height()).arg(plan.border_value).image(src).image(dst);
      return Event(launch.run(detail::range(detail::round_up(width, policy.group_x), detail::round_up(height, policy.group_y)),
                              group2));
    }
    case MedianMethod::sorted_columns: {
      build.define("TW", policy.columns_outputs);
      detail::Launch launch(queue, detail::get_program(queue, "median.cl", build), "median_columns3");
      launch.arg(src.width()).arg(src.height()).arg(plan.border_value).image(src).image(dst);
      const std::size_t items = (width + static_cast<std::size_t>(policy.columns_outputs) - 1) /
                                static_cast<std::size_t>(policy.columns_outputs);
      return Event(launch.run(detail::range(detail::round_up(items, policy.group_x), detail::round_up(height, policy.group_y)),
                              group2));
    }
    case MedianMethod::histogram: {
      const int bits = plan.ksize <= 15 ? 8 : 16;
      build.define("HIST_BITS", bits);
      detail::Launch launch(queue, detail::get_program(queue, "median.cl", build), "median_histogram");
      const std::size_t words = bits == 8 ? 64 : 128;
      launch.arg(src.width()).arg(src.height()).arg(policy.histogram_rows).arg(plan.border_value).image(src).image(dst);
      launch.local(words * 4 * policy.histogram_group);
      const std::size_t columns = width * static_cast<std::size_t>(src.channels());
      const std::size_t bands = (height + static_cast<std::size_t>(policy.histogram_rows) - 1) /
                                static_cast<std::size_t>(policy.histogram_rows);
      return Event(launch.run(detail::range(detail::round_up(columns, policy.histogram_group), bands),
                              detail::range(policy.histogram_group, 1)));
    }
    case MedianMethod::tiled: {
      build.define("TILE_X", policy.tile_x).define("TILE_Y", policy.tile_y);
      detail::Launch launch(queue, detail::get_program(queue, "median.cl", build), "median_tiled");
      launch.arg(src.width()).arg(src.height()).arg(plan.border_value).image(src).image(dst);
      const auto tx = static_cast<std::size_t>(policy.tile_x);
      const auto ty = static_cast<std::size_t>(policy.tile_y);
      const std::size_t items = (width + tx - 1) / tx * static_cast<std::size_t>(src.channels());
      const std::size_t rows = (height + ty - 1) / ty;
      return Event(launch.run(detail::range(detail::round_up(items, policy.tiled_group_x), detail::round_up(rows, policy.tiled_group_y)),
                              detail::range(policy.tiled_group_x, policy.tiled_group_y)));
    }
    case MedianMethod::tiled_packed: {
      build.define("TILE_X", policy.tile_x).define("TILE_Y", policy.tile_y).define("TILE_PAIRS", 1);
      // 128 registers: 4 groups of 128 per SM (NVRTC 13 gives 5x5 133 registers uncapped, 7x7 192).
      build.raw(detail::register_limit_option(queue, 128));
      detail::Launch launch(queue, detail::get_program(queue, "median.cl", build), "median_tiled_packed");
      launch.arg(src.width()).arg(src.height()).arg(plan.border_value).image(src).image(dst);
      const auto tx = static_cast<std::size_t>(policy.tile_x);
      const auto ty = static_cast<std::size_t>(2 * policy.tile_y);  // two tiles, one above the other
      const std::size_t items = (width + tx - 1) / tx * static_cast<std::size_t>(src.channels());
      const std::size_t rows = (height + ty - 1) / ty;
      return Event(launch.run(detail::range(detail::round_up(items, policy.tiled_group_x), detail::round_up(rows, policy.tiled_group_y)),
                              detail::range(policy.tiled_group_x, policy.tiled_group_y)));
    }
    case MedianMethod::sorted_rows_packed: {
      build.define("PACKED_ROWS", policy.packed_rows);
      // 64 registers: the fast path needs 64 (NVRTC 13, sm_90), the border path more, which may
      // spill; 8 groups of 128 per SM instead of 5.
      build.raw(detail::register_limit_option(queue, 64));
      detail::Launch launch(queue, detail::get_program(queue, "median.cl", build), "median_sorted_rows_packed");
      launch.arg(src.width()).arg(src.height()).arg(plan.border_value).image(src).image(dst);
      const auto pixels = static_cast<std::size_t>(8 / src.channels());  // per work-item row
      const std::size_t items = (width + pixels - 1) / pixels;
      const auto rows_per_item = static_cast<std::size_t>(policy.packed_rows);
      const std::size_t rows = (height + rows_per_item - 1) / rows_per_item;
      return Event(launch.run(detail::range(detail::round_up(items, policy.packed_group_x), detail::round_up(rows, policy.packed_group_y)),
                              detail::range(policy.packed_group_x, policy.packed_group_y)));
    }
    case MedianMethod::automatic: break;
  }
  throw Error(ErrorCode::internal, kOp, "method", "unresolved");
}

HostImage median_blur(Queue& queue, const HostImage& src, const MedianOptions& options) {
  detail::check_host(src, kOp, "src");
  const DeviceImage d_src = queue.upload(src);
  DeviceImage dst;
  median_blur(queue, d_src, dst, options);
  return queue.download(dst);
}

}  // namespace plinth
