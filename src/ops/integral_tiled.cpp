// tiled: one launch over tiles of 128 columns (kernels/integral_tiled.cl) whose work-groups, in
// ticket order, reduce a tile each to aggregates, scan the aggregates across and down the tiles,
// and write a tile each, every phase waiting on the flags of the one before. Order-free requests
// only.
#include "core/launch.hpp"
#include "ops/integral_plan.hpp"
#include "plinth/error.hpp"

namespace plinth::detail {
namespace {

// Geometry of kernels/integral_tiled.cl: tiles of 128 columns by kTileH rows; in the reduce and
// write phases a work-group of kWarps warps per tile, kTileH / kWarps of its rows per warp. Measured
// on the H100 (docs/integral.md): 32-row tiles and 4 warps beat 64 rows and 8 warps at every size.
constexpr int kTileW = 128;
constexpr int kTileH = 32;
constexpr int kWarps = 4;

// uint wraps modulo 2^32, the result for 32-bit integer outputs; 64-bit and float outputs
// accumulate in ulong (float outputs are order-free only while every partial sum is exact).
bool narrow(Depth d) { return d == Depth::s32 || d == Depth::u32; }

bool quad_aligned(const DeviceImage& image) { return image.offset_elements() % 4 == 0 && image.pitch_elements() % 4 == 0; }

std::size_t accumulator_size(Depth out) { return narrow(out) ? 4 : 8; }

}  // namespace

Event launch_integral_tiled(Queue& queue, const IntegralPlan& plan) {
  const DeviceImage& src = *plan.src;
  const bool one_channel = plan.channels == 1;
  const bool vector_out = one_channel && (!plan.sum || quad_aligned(*plan.sum)) && (!plan.sqsum || quad_aligned(*plan.sqsum));

  BuildOptions options = integral_build_options(plan);
  if (plan.sum) {
    const bool n = narrow(plan.sum_depth);
    options.define("SACC", n ? "uint" : "ulong").define("SACC_S", n ? "u32" : "u64");
  }
  if (plan.sqsum) {
    const bool n = narrow(plan.sq_depth);
    options.define("QACC", n ? "uint" : "ulong").define("QACC_S", n ? "u32" : "u64");
  }
  options.define("NW", kWarps).define("TH", kTileH);
  options.define("SRC_VEC_OK", one_channel && quad_aligned(src) ? 1 : 0).define("OUT_VEC_OK", vector_out ? 1 : 0);
  const auto program = get_program(queue, "integral_tiled.cl", options);

  const long long tiles_x = (plan.width + kTileW - 1) / kTileW;
  const long long tiles_y = (plan.height + kTileH - 1) / kTileH;
  const long long planes = static_cast<long long>(plan.channels) * plan.batch;
  if (planes > 65535 || tiles_x > 65535 || tiles_y > 65535) throw Error(ErrorCode::out_of_range, "integral", "src", "too many tiles");
  // Per quantity: R (a value per row of every tile column), C (per column of every tile row), T
  // (per tile, rows of tiles padded to whole 128-byte lines: T_PITCH in the kernel).
  const long long t_pitch = (tiles_x + 31) / 32 * 32;
  const long long values = planes * (tiles_x * tiles_y * kTileH + tiles_y * tiles_x * kTileW + tiles_y * t_pitch);
  const ScratchLease sum_agg =
      scratch(queue, "integral_tiled.sum", plan.sum ? static_cast<std::size_t>(values) * accumulator_size(plan.sum_depth) : 4);
  const ScratchLease sq_agg =
      scratch(queue, "integral_tiled.sq", plan.sqsum ? static_cast<std::size_t>(values) * accumulator_size(plan.sq_depth) : 4);

  // The launch's work-groups: the tiles' reductions, scan groups of 32 lines (the rows (R),
  // columns (C) and rows of tiles (T) of every plane), then the tiles' writes; a ticket each,
  // and a flag per reduction and per scan group.
  const long long tiles = planes * tiles_x * tiles_y;
  const long long scan_groups = (planes * (tiles_y * kTileH + tiles_x * kTileW + tiles_y) + 31) / 32;
  const long long groups = 2 * tiles + scan_groups;
  if (groups > (1ll << 30)) throw Error(ErrorCode::out_of_range, "integral", "src", "too many tiles");
  const ScratchLease sync = scratch(queue, "integral_tiled.sync", 256 + 4 * static_cast<std::size_t>(scan_groups + tiles),
                                    static_cast<std::uint32_t>(groups));
  std::shared_ptr<EventImpl> first;
  if (sync.fresh) first = fill_buffer(queue, *sync.buffer, 0, sync.buffer->size(), 0, 4);

  const int tx = static_cast<int>(tiles_x), ty = static_cast<int>(tiles_y), np = static_cast<int>(planes);
  const std::size_t group = 32 * kWarps;
  Launch launch(queue, program, "integral_tiled");
  launch.arg(plan.width).arg(plan.height).arg(plan.channels).arg(np).arg(tx).arg(ty);
  launch.arg(sync.ticket_base).arg(sync.epoch).buffer(*sync.buffer);
  if (plan.sum) launch.buffer(*sum_agg.buffer);
  if (plan.sqsum) launch.buffer(*sq_agg.buffer);
  launch.image(src);
  if (plan.sum) launch.image(*plan.sum);
  if (plan.sqsum) launch.image(*plan.sqsum);
  auto last = launch.run(range(group * static_cast<std::size_t>(groups)), range(group));
  if (!first) first = last;
  return Event(first, last);
}

}  // namespace plinth::detail
