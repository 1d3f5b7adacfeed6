// The tilted (45 degree) integral. Order-free requests take `skewed` (kernels/integral_tilted_skewed.cl):
// the source skewed both ways into one batch, its integral (by `resident`, or `tiled` where that
// does not fit), and a combine step;
// order-sensitive ones (and those whose scratch would not fit) take OpenCV's own recurrence, one
// work-group per plane walking the rows (kernels/integral.cl, integral_tilted_ordered), exact for
// every depth.
#include <algorithm>
#include <cstdint>
#include <string>

#include "core/image_checks.hpp"
#include "core/launch.hpp"
#include "ops/integral_plan.hpp"

namespace plinth::detail {
namespace {

// Work-items per plane of the ordered recurrence (at most the device allows for the kernel).
constexpr int kTiltedGroup = 1024;
// Work-items per row of the skew and combine kernels (a work-group per row).
constexpr std::size_t kRowGroup = 256;

std::string_view accumulator(Depth depth) { return depth == Depth::s32 ? std::string_view("uint") : kernel_type_name(depth); }

Event launch_ordered(Queue& queue, const IntegralPlan& plan) {
  const Depth depth = plan.sum_depth;
  BuildOptions options;
  options.define_depth("SRC", plan.src->depth()).define_depth("TILTED", depth);
  options.define("TACC", accumulator(depth));
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

// Rows of scratch images are padded to 256 bytes, as DeviceImage's are (so that the integral
// takes its vector paths).
std::uint64_t scratch_pitch(long long width, Format format) {
  return round_up(static_cast<std::size_t>(width) * format.pixel_size(), 256);
}

DeviceImage scratch_image(Queue& queue, std::string_view key, int width, int height, Format format) {
  detail::check_geometry(width, height, format, "integral", "tilted");
  const std::size_t pitch = scratch_pitch(width, format);
  const ScratchLease lease = scratch(queue, key, pitch * static_cast<std::size_t>(height));
  return DeviceImage::wrap(queue.context(), lease.buffer->native(), width, height, format, pitch);
}

// Whether the skewed images and their integrals fit: each one buffer, together at most a quarter
// of the device's memory (else the ordered recurrence, slower but without scratch, does it).
bool skewed_fits(const Queue& queue, const IntegralPlan& plan) {
  const DeviceInfo& device = queue.context().device();
  const long long skew_width = static_cast<long long>(plan.width) + plan.height - 1;
  const long long rows = 2ll * plan.batch * (plan.height + 1);
  if (skew_width + 1 > max_image_dimension || rows > max_image_dimension ||
      (skew_width + 1) * rows * plan.channels > max_image_elements) {
    return false;
  }
  const std::uint64_t skew = scratch_pitch(skew_width, Format{plan.src->depth(), plan.channels}) * static_cast<std::uint64_t>(rows);
  const std::uint64_t sums = scratch_pitch(skew_width + 1, Format{plan.sum_depth, plan.channels}) * static_cast<std::uint64_t>(rows);
  return skew <= device.max_allocation && sums <= device.max_allocation && skew + sums <= device.global_memory / 4;
}

Event launch_skewed(Queue& queue, const IntegralPlan& plan) {
  const Depth depth = plan.sum_depth;
  const int w = plan.width, h = plan.height, c = plan.channels, batch = plan.batch;
  const int skew_width = w + h - 1;
  const DeviceImage skew = scratch_image(queue, "integral_tilted.skew", skew_width, 2 * batch * h, Format{plan.src->depth(), c});
  DeviceImage sums = scratch_image(queue, "integral_tilted.sums", skew_width + 1, 2 * batch * (h + 1), Format{depth, c});

  BuildOptions options;
  options.define_depth("SRC", plan.src->depth()).define_depth("TILTED", depth).define("TACC", accumulator(depth));
  if (depth == Depth::f64 || plan.src->depth() == Depth::f64) options.define("PLINTH_NEED_FP64");
  const auto program = get_program(queue, "integral_tilted_skewed.cl", options);

  Launch skew_launch(queue, program, "integral_tilted_skew");
  skew_launch.arg(w).arg(h).arg(c).arg(batch).image(*plan.src).image(skew);
  const std::size_t skew_group = std::min(kRowGroup, skew_launch.max_work_group_size());
  const auto first = skew_launch.run(range(skew_group, 2 * static_cast<std::size_t>(batch) * h), range(skew_group, 1));

  IntegralPlan both = plan;  // the two skewed images of every batch image, one batch
  both.src = &skew;
  both.sum = &sums;
  both.sqsum = nullptr;
  both.tilted = nullptr;
  both.count = false;
  both.width = skew_width;
  both.batch = 2 * batch;
  both.method = fastest_order_free_method(queue, both);
  switch (both.method) {  // cluster takes one image, so a batch of two or more gets the others today
    case IntegralMethod::resident: launch_integral_resident(queue, both); break;
    case IntegralMethod::cluster: launch_integral_cluster(queue, both); break;
    default: launch_integral_tiled(queue, both); break;
  }

  Launch combine(queue, program, "integral_tilted_combine");
  combine.arg(w).arg(h).arg(c).arg(batch).image(sums).image(*plan.tilted);
  const std::size_t combine_group = std::min(kRowGroup, combine.max_work_group_size());
  const auto last = combine.run(range(combine_group, static_cast<std::size_t>(batch) * (h + 1)), range(combine_group, 1));
  return Event(first, last);
}

}  // namespace

Event launch_integral_tilted(Queue& queue, const IntegralPlan& plan) {
  return plan.order_free && skewed_fits(queue, plan) ? launch_skewed(queue, plan) : launch_ordered(queue, plan);
}

}  // namespace plinth::detail
