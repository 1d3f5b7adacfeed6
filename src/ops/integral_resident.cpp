// resident: one launch over blocks of 128 columns (kernels/integral_resident.cl) whose work-groups
// keep their block of the source in local memory, publish its aggregates, wait for those of the
// blocks above and to the left, and write the block: the source is read once. Order-free requests
// for one quantity, the sum or the count.
#include <algorithm>

#include "core/launch.hpp"
#include "ops/integral_plan.hpp"
#include "plinth/error.hpp"

namespace plinth::detail {
namespace {

// Geometry of kernels/integral_resident.cl: blocks of 128 columns by warps * rows_per_warp rows, a
// work-group of `warps` warps per block, the block's source in local memory.
constexpr int kTileW = 128;

// Work-groups of 8 warps (at most 64 registers each) that an NVIDIA SM holds at once: 65536
// registers / (256 * 64).
constexpr long long kEightWarpGroupsPerUnit = 4;

std::size_t local_bytes(const ResidentShape& shape, std::size_t element_size, std::size_t accumulator) {
  const std::size_t rows = static_cast<std::size_t>(shape.warps) * shape.rows_per_warp, group = 32u * shape.warps;
  const std::size_t stash = rows * kTileW * element_size;
  // cols, row_left, col_above, row_parts, col_parts, slots, warp totals
  const std::size_t sums = shape.warps * kTileW + rows + kTileW + 4 * group + 4 * group + group + shape.warps;
  return stash + sums * accumulator + 4;
}

bool narrow(Depth d) { return d == Depth::s32 || d == Depth::u32; }

bool quad_aligned(const DeviceImage& image) { return image.offset_elements() % 4 == 0 && image.pitch_elements() % 4 == 0; }

ResidentShape plan_shape(const Queue& queue, const IntegralPlan& plan) {
  return resident_shape(depth_size(plan.src->depth()), static_cast<long long>(plan.channels) * plan.batch, plan.width,
                        plan.height, queue.context().device().compute_units);
}

}  // namespace

// Measured on the H100 with u8 sources (docs/integral.md): blocks of 64 rows are the fastest
// while all of them fit at once (1920x1080, 2560x1440), then blocks of 128 rows in 8 warps while
// those do (2880x1620 to 3840x2160), then 128 rows in 4 warps, 8 work-groups per SM (4096x3072
// and up; slower wherever the 8-warp blocks fit at once: 3840x2160 25.8 against 23.6 us).
ResidentShape resident_shape(std::size_t element_size, long long planes, int width, int height, unsigned compute_units) {
  if (element_size > 1) return {4, element_size == 2 ? 16 : 8, false};
  const long long at_once = kEightWarpGroupsPerUnit * std::max<long long>(compute_units, 1);
  const auto blocks = [&](int rows) { return planes * ((width + kTileW - 1) / kTileW) * ((height + rows - 1) / rows); };
  if (blocks(64) <= at_once) return {8, 8, false};
  if (blocks(128) <= at_once) return {8, 16, false};
  return {4, 32, true};
}

bool integral_resident_fits(const Queue& queue, const IntegralPlan& plan) {
  if (!plan.sum || plan.sqsum || !plan.order_free) return false;
  const std::size_t element = depth_size(plan.src->depth());
  const ResidentShape shape = plan_shape(queue, plan);
  const DeviceInfo& device = queue.context().device();
  const std::size_t group = 32u * static_cast<std::size_t>(shape.warps);
  if (device.max_work_group_size != 0 && group > device.max_work_group_size) return false;
  return device.local_memory == 0 || local_bytes(shape, element, narrow(plan.sum_depth) ? 4 : 8) <= device.local_memory;
}

// cluster where it was measured faster than resident: Hopper (sm_90) up to 640x512 (docs/integral.md).
IntegralMethod fastest_order_free_method(const Queue& queue, const IntegralPlan& plan) {
  if (queue.context().device().nvidia_arch == 90 && plan.width <= 640 && plan.height <= 512 &&
      integral_cluster_fits(queue, plan)) {
    return IntegralMethod::cluster;
  }
  return integral_resident_fits(queue, plan) ? IntegralMethod::resident : IntegralMethod::tiled;
}

void check_integral_resident(const Queue& queue, const IntegralPlan& plan) {
  if (!plan.sum || plan.sqsum) {
    throw Error(ErrorCode::invalid_argument, "integral", "method",
                "resident computes one quantity, the sum or the count; tiled (which automatic picks) computes the sum "
                "with its squared sum");
  }
  if (!integral_resident_fits(queue, plan)) {
    throw Error(ErrorCode::out_of_range, "integral", "method",
                "resident's block does not fit the device (local memory or work-group size); tiled does");
  }
}

Event launch_integral_resident(Queue& queue, const IntegralPlan& plan) {
  check_integral_resident(queue, plan);
  const DeviceImage& src = *plan.src;
  const bool one_channel = plan.channels == 1;
  const bool wide = !narrow(plan.sum_depth);
  const ResidentShape shape = plan_shape(queue, plan);

  BuildOptions options = integral_build_options(plan);
  options.define("SACC", wide ? "ulong" : "uint").define("SACC_S", wide ? "u64" : "u32");
  options.define("NW", shape.warps).define("WR", shape.rows_per_warp);
  options.define("SRC_VEC_OK", one_channel && quad_aligned(src) ? 1 : 0)
      .define("OUT_VEC_OK", one_channel && quad_aligned(*plan.sum) ? 1 : 0);
  if (shape.limit_registers) options.raw(register_limit_option(queue, 64));
  const auto program = get_program(queue, "integral_resident.cl", options);

  const int block_h = shape.warps * shape.rows_per_warp;
  const long long blocks_x = (plan.width + kTileW - 1) / kTileW;
  const long long blocks_y = (plan.height + block_h - 1) / block_h;
  const long long planes = static_cast<long long>(plan.channels) * plan.batch;
  const long long blocks = planes * blocks_x * blocks_y;
  if (blocks > (1ll << 30)) throw Error(ErrorCode::out_of_range, "integral", "src", "too many blocks");
  const std::size_t acc = wide ? 8 : 4;
  // Per block: a record of its rows' and columns' totals, and its total in status words (one per
  // 32 bits, each with the launch's epoch) after the ticket counter's 256 bytes.
  const ScratchLease records =
      scratch(queue, "integral_resident.records", static_cast<std::size_t>(blocks) * (block_h + kTileW) * acc);
  const ScratchLease sync = scratch(queue, "integral_resident.sync", 256 + static_cast<std::size_t>(blocks) * acc / 4 * 8,
                                    static_cast<std::uint32_t>(blocks));
  std::shared_ptr<EventImpl> first;
  if (sync.fresh) first = fill_buffer(queue, *sync.buffer, 0, sync.buffer->size(), 0, 4);

  Launch launch(queue, program, "integral_resident");
  launch.arg(plan.width).arg(plan.height).arg(plan.channels).arg(static_cast<int>(planes));
  launch.arg(static_cast<int>(blocks_x)).arg(static_cast<int>(blocks_y));
  launch.arg(sync.ticket_base).arg(sync.epoch).buffer(*sync.buffer).buffer(*records.buffer);
  launch.image(src).image(*plan.sum);
  const std::size_t group = 32u * static_cast<std::size_t>(shape.warps);
  auto last = launch.run(range(group * static_cast<std::size_t>(blocks)), range(group));
  if (!first) first = last;
  return Event(first, last);
}

}  // namespace plinth::detail
