// single_pass: one launch over tiles of 128 columns joined by decoupled look-back along tile
// rows and tile columns (kernels/integral.cl). Order-free requests only.
#include "core/launch.hpp"
#include "ops/integral_plan.hpp"
#include "plinth/error.hpp"

namespace plinth::detail {
namespace {

// Work-group of `warps` x 32 lanes; a lane holds 4 columns of `rows` rows in registers, so a tile
// is 128 columns by warps * rows rows (a multiple of 32, at most the work-group size); `window`
// predecessors are polled per look-back step. Chosen from an H100 sweep (docs/PERFORMANCE.md):
// 8 rows for 32-bit sums; for wide accumulators 16 rows on large images, 4 on small ones.
struct SinglePassPolicy {
  int warps = 8;
  int rows = 8;
  int window = 8;
};

SinglePassPolicy choose_policy(bool wide, long long pixels) {
  SinglePassPolicy policy;
  if (wide) policy.rows = pixels >= (1ll << 21) ? 16 : 4;
  return policy;
}

// uint wraps modulo 2^32, which is the result for 32-bit integer outputs; everything else
// (64-bit and float outputs, or two quantities together) accumulates in ulong.
bool needs_wide_accumulator(const IntegralPlan& plan) {
  auto narrow = [](Depth d) { return d == Depth::s32 || d == Depth::u32; };
  if (plan.sum && plan.sqsum) return true;
  if (plan.sum) return !narrow(plan.sum_depth);
  return !narrow(plan.sq_depth);
}

bool quad_aligned(const DeviceImage& image) { return image.offset_elements() % 4 == 0 && image.pitch_elements() % 4 == 0; }

}  // namespace

Event launch_integral_single_pass(Queue& queue, const IntegralPlan& plan) {
  const bool wide = needs_wide_accumulator(plan);
  const SinglePassPolicy policy = choose_policy(wide, static_cast<long long>(plan.width) * plan.height);
  const DeviceImage& src = *plan.src;
  const bool one_channel = plan.channels == 1;
  const bool vector_out = one_channel && (!plan.sum || quad_aligned(*plan.sum)) && (!plan.sqsum || quad_aligned(*plan.sqsum));

  BuildOptions options = integral_build_options(plan);
  options.define("ACC", wide ? "ulong" : "uint").define("ACC_S", wide ? "u64" : "u32");
  if (wide) options.define("ACC_IS_ULONG");
  options.define("NW", policy.warps).define("RY", policy.rows).define("WINDOW", policy.window);
  options.define("SRC_VEC_OK", one_channel && quad_aligned(src) ? 1 : 0).define("OUT_VEC_OK", vector_out ? 1 : 0);
  const auto program = get_program(queue, "integral.cl", options);

  const int tile_w = 128, tile_h = policy.warps * policy.rows;
  if (tile_h > 32 * policy.warps || tile_h % 32 != 0) {
    throw Error(ErrorCode::internal, "integral", "policy", "single_pass tiles need 32 * k rows, at most one per work-item");
  }
  const int tiles_x = (plan.width + tile_w - 1) / tile_w;
  const int tiles_y = (plan.height + tile_h - 1) / tile_h;
  const long long total = static_cast<long long>(tiles_x) * tiles_y * plan.channels * plan.batch;
  if (total > (1ll << 30)) throw Error(ErrorCode::out_of_range, "integral", "src", "too many tiles");
  const int total_tiles = static_cast<int>(total);
  const int quantities = (plan.sum ? 1 : 0) + (plan.sqsum ? 1 : 0);
  // Two buffers: the ticket counter with two flags per tile, and the 64-bit status words (two per value when wide) of
  // every tile's four edge vectors (R and RowLeft + R: tile_h values; C and ColAbove + C with S
  // and Corner + S: tile_w + 1 values). They share the counter buffer's epochs: a fresh counter
  // buffer restarts them, so the status words are cleared with it; a fresh status buffer alone is
  // cleared alone (the counter buffer holds the live ticket count).
  const std::size_t words =
      static_cast<std::size_t>(total_tiles) * 2 * quantities * (tile_w + 1 + tile_h) * (wide ? 2 : 1);
  const ScratchLease counter = scratch(queue, "integral_single_pass.counter", 256 + 8 * static_cast<std::size_t>(total_tiles),
                                      static_cast<std::uint32_t>(total_tiles));
  const ScratchLease status = scratch(queue, "integral_single_pass.status", words * sizeof(std::uint64_t), 0);
  std::shared_ptr<EventImpl> first;
  if (counter.fresh) first = fill_buffer(queue, *counter.buffer, 0, counter.buffer->size(), 0, 4);
  if (counter.fresh || status.fresh) {
    auto cleared = fill_buffer(queue, *status.buffer, 0, status.buffer->size(), 0, 4);
    if (!first) first = cleared;
  }

  Launch launch(queue, program, "integral_single_pass");
  launch.arg(plan.width).arg(plan.height).arg(plan.channels).arg(tiles_x).arg(tiles_y);
  launch.arg(counter.ticket_base).arg(counter.epoch).buffer(*counter.buffer).buffer(*status.buffer).image(src);
  if (plan.sum) launch.image(*plan.sum);
  if (plan.sqsum) launch.image(*plan.sqsum);
  const std::size_t group = static_cast<std::size_t>(32 * policy.warps);
  auto last = launch.run(range(group * static_cast<std::size_t>(total_tiles)), range(group));
  return Event(first ? first : last, last);
}

}  // namespace plinth::detail
