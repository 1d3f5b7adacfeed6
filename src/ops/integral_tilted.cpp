// The tilted (45 degree) integral: OpenCV's own recurrence, one work-group per plane walking the
// rows (kernels/integral.cl, integral_tilted_ordered), exact for every depth.
#include "core/launch.hpp"
#include "ops/integral_plan.hpp"

namespace plinth::detail {
namespace {

// Work-items per plane (at most the device allows for the kernel).
constexpr int kTiltedGroup = 1024;

}  // namespace

Event launch_integral_tilted(Queue& queue, const IntegralPlan& plan) {
  const Depth depth = plan.sum_depth;
  BuildOptions options;
  options.define_depth("SRC", plan.src->depth()).define_depth("TILTED", depth);
  options.define("TACC", depth == Depth::s32 ? std::string_view("uint") : kernel_type_name(depth));
  if (depth == Depth::f64 || plan.src->depth() == Depth::f64) options.define("PLINTH_NEED_FP64");
  const auto program = get_program(queue, "integral.cl", options);
  Launch launch(queue, program, "integral_tilted_ordered");
  const std::size_t group = std::min<std::size_t>(static_cast<std::size_t>(kTiltedGroup), launch.max_work_group_size());
  const int planes = plan.channels * plan.batch;
  const std::size_t bytes = static_cast<std::size_t>(planes) * 2 * static_cast<std::size_t>(plan.width + 1) * depth_size(depth);
  const ScratchLease buffers = scratch(queue, "integral_tilted", bytes);
  launch.arg(plan.width).arg(plan.height).arg(plan.channels).buffer(*buffers.buffer).image(*plan.src).image(*plan.tilted);
  return Event(launch.run(range(group, static_cast<std::size_t>(planes)), range(group, 1)));
}

}  // namespace plinth::detail
