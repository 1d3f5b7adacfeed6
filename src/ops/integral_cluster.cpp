// cluster: one launch in thread-block clusters (kernels/integral_cluster.cl) for small u8 images
// (the sum, or the count of non-zero pixels) on the CUDA backend, sm_90 and newer. The groups of a
// strip of 128 columns form one cluster and pass their bands' column totals down through each
// other's local memory, so that nothing but the source and the output goes through global memory.
#include <algorithm>
#include <string>

#include "core/launch.hpp"
#include "ops/integral_plan.hpp"
#include "plinth/error.hpp"

namespace plinth::detail {
namespace {

// Geometry of kernels/integral_cluster.cl: strips of 128 columns, bands of 8 warps of RPW rows,
// at most 16 bands a strip (one cluster); each row's part left of its strip read in 512-byte
// pieces, at most kMaxPieces of them (the registers that hold them grow with RPW * pieces).
constexpr int kStrip = 128;
constexpr int kWarps = 8;
constexpr int kMaxBands = 16;
constexpr int kMaxRowsPerWarp = 6;
constexpr int kMaxPieces = 3;
constexpr int kMaxWidth = kStrip + 512 * kMaxPieces;
constexpr int kMaxHeight = kMaxBands * kWarps * kMaxRowsPerWarp;
static_assert(kIntegralClusterMaxSize == Size{kMaxWidth, kMaxHeight});

struct ClusterShape {
  int strips, rows_per_warp, bands, pieces;
};

ClusterShape cluster_shape(int width, int height) {
  ClusterShape s{};
  s.strips = (width + kStrip - 1) / kStrip;
  s.rows_per_warp = std::max(1, (height + kMaxBands * kWarps - 1) / (kMaxBands * kWarps));
  s.bands = (height + kWarps * s.rows_per_warp - 1) / (kWarps * s.rows_per_warp);
  s.pieces = (kStrip * (s.strips - 1) + 511) / 512;
  return s;
}

// What keeps the method from a plan: checked on every automatic call, so no message is built here.
enum class Refusal { none, device, quantity, source, depth, size };

Refusal refusal(const Queue& queue, const IntegralPlan& plan) {
  const DeviceInfo& device = queue.context().device();
  if (device.backend != "cuda" || device.nvidia_arch < 90) return Refusal::device;
  if (!plan.sum || plan.sqsum) return Refusal::quantity;
  if (plan.src->depth() != Depth::u8 || plan.channels != 1 || plan.batch != 1) return Refusal::source;
  if (plan.sum_depth != Depth::s32 && plan.sum_depth != Depth::u32) return Refusal::depth;
  if (plan.width > kMaxWidth || plan.height > kMaxHeight) return Refusal::size;
  return Refusal::none;
}

std::string message(Refusal why, const DeviceInfo& device) {
  switch (why) {
    case Refusal::none: break;
    case Refusal::device:
      return "cluster needs thread-block clusters: the CUDA backend on an NVIDIA GPU of compute capability 9.0 or "
             "newer (this device: " + device.backend + ", " + device.name + ")";
    case Refusal::quantity: return "cluster computes one quantity, the sum or the count (tiled computes both sums)";
    case Refusal::source: return "cluster takes one u8 image of one channel (resident takes the others)";
    case Refusal::depth: return "cluster writes s32 or u32 sums";
    case Refusal::size:
      return "cluster takes images of at most " + std::to_string(kMaxWidth) + "x" + std::to_string(kMaxHeight) +
             " (resident takes larger ones)";
  }
  return {};
}

}  // namespace

bool integral_cluster_fits(const Queue& queue, const IntegralPlan& plan) { return refusal(queue, plan) == Refusal::none; }

void check_integral_cluster(const Queue& queue, const IntegralPlan& plan) {
  const Refusal why = refusal(queue, plan);
  if (why != Refusal::none) {
    throw Error(ErrorCode::invalid_argument, "integral", "method", message(why, queue.context().device()));
  }
}

Event launch_integral_cluster(Queue& queue, const IntegralPlan& plan) {
  check_integral_cluster(queue, plan);
  const DeviceImage& src = *plan.src;
  const ClusterShape shape = cluster_shape(plan.width, plan.height);
  const long long offset = src.offset_elements(), pitch = src.pitch_elements();
  BuildOptions options;
  options.define("SUM_T", plan.sum_depth == Depth::u32 ? "uint" : "int");
  if (plan.count) options.define("COUNT", 1);
  options.define("RPW", shape.rows_per_warp).define("BANDS", shape.bands).define("MAXC", shape.pieces);
  options.define("SRC_WORDS", offset % 4 == 0 && pitch % 4 == 0 ? 1 : 0);
  options.define("SRC_SPANS", offset % 16 == 0 && pitch % 16 == 0 ? 1 : 0);
  const auto program = get_program(queue, "integral_cluster.cl", options);

  Launch launch(queue, program, "integral_cluster");
  launch.arg(plan.width).arg(plan.height).image(src).image(*plan.sum);
  const std::size_t group = 32u * kWarps;
  auto event = launch.run(range(group * static_cast<std::size_t>(shape.strips), static_cast<std::size_t>(shape.bands)),
                          range(group, 1));
  return Event(event, event);
}

}  // namespace plinth::detail
