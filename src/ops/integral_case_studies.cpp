// The case studies' methods, kept as selectable, exact variants for order-free requests:
// block_4x4 (five kernels over 4x4 blocks), blelloch (up/down-sweep scans of rows, then of
// columns) and blocked_scan (register runs plus the totals of earlier work-items). Each output
// (sum or count, squared sum) gets its own set of launches; kernels in kernels/integral.cl.
#include <vector>

#include "core/launch.hpp"
#include "ops/integral_plan.hpp"

namespace plinth::detail {
namespace {

// Work-items per line for blelloch / blocked_scan, and the run length of blocked_scan.
struct LinePolicy {
  int group = 256;
  int segment = 8;
};

struct Output {
  DeviceImage* image;
  int kind;  // 0 the value (or count), 1 its square
};

std::vector<Output> outputs_of(const IntegralPlan& plan) {
  std::vector<Output> outputs;
  if (plan.sum) outputs.push_back({plan.sum, 0});
  if (plan.sqsum) outputs.push_back({plan.sqsum, 1});
  return outputs;
}

BuildOptions variant_options(const IntegralPlan& plan, const Output& out) {
  BuildOptions options;
  options.define_depth("SRC", plan.src->depth()).define_depth("DST", out.image->depth());
  if (out.image->depth() == Depth::f64 || plan.src->depth() == Depth::f64) options.define("PLINTH_NEED_FP64");
  const bool narrow = out.image->depth() == Depth::s32 || out.image->depth() == Depth::u32;
  options.define("VACC", narrow ? "uint" : "ulong").define("Q_KIND", out.kind);
  if (plan.count) options.define("COUNT", 1);
  return options;
}

int planes_of(const IntegralPlan& plan) { return plan.channels * plan.batch; }
std::size_t st(int v) { return static_cast<std::size_t>(v); }

std::shared_ptr<EventImpl> block_4x4(Queue& queue, const IntegralPlan& plan, const Output& out,
                                     std::shared_ptr<EventImpl>& first) {
  const auto program = get_program(queue, "integral.cl", variant_options(plan, out));
  const int w = plan.width, h = plan.height, planes = planes_of(plan);
  const int blocks = (w + 3) / 4, bands = (h + 3) / 4;
  const bool narrow = out.image->depth() == Depth::s32 || out.image->depth() == Depth::u32;
  const std::size_t acc = narrow ? 4 : 8;
  const ScratchLease rows = scratch(queue, "integral_block_4x4.rows", st(planes) * st(h) * st(blocks) * acc);
  const ScratchLease columns = scratch(queue, "integral_block_4x4.columns", st(planes) * st(bands) * st(w) * acc);

  auto ev = Launch(queue, program, "integral_block_local")
                .arg(w).arg(h).arg(plan.channels).image(*plan.src).image(*out.image)
                .run(range(round_up(st(blocks), 16), round_up(st(bands), 4), st(planes)), range(16, 4, 1));
  if (!first) first = ev;
  Launch(queue, program, "integral_block_scan_rows").arg(w).arg(h).arg(plan.channels).arg(blocks)
      .buffer(*rows.buffer).image(*out.image).run(range(round_up(st(h), 64), st(planes)), range(64, 1));
  Launch(queue, program, "integral_block_add_rows").arg(w).arg(h).arg(plan.channels).arg(blocks)
      .buffer(*rows.buffer).image(*out.image)
      .run(range(round_up(st(w), 64), round_up(st(h), 4), st(planes)), range(64, 4, 1));
  Launch(queue, program, "integral_block_scan_columns").arg(w).arg(h).arg(plan.channels).arg(bands)
      .buffer(*columns.buffer).image(*out.image).run(range(round_up(st(w), 64), st(planes)), range(64, 1));
  return Launch(queue, program, "integral_block_add_columns").arg(w).arg(h).arg(plan.channels).arg(bands)
      .buffer(*columns.buffer).image(*out.image)
      .run(range(round_up(st(w), 64), round_up(st(h), 4), st(planes)), range(64, 4, 1));
}

std::shared_ptr<EventImpl> line_scans(Queue& queue, const IntegralPlan& plan, const Output& out, const char* kernel,
                                      std::shared_ptr<EventImpl>& first) {
  const LinePolicy policy;
  BuildOptions options = variant_options(plan, out);
  options.define("LINE_GROUP", policy.group).define("SEGMENT", policy.segment);
  const auto program = get_program(queue, "integral.cl", options);
  const int planes = planes_of(plan);
  const std::size_t group = st(policy.group);
  // Rows of the source into the output, then the output's columns in place.
  auto ev = Launch(queue, program, kernel).arg(plan.width).arg(plan.height).arg(plan.channels).arg(1)
                .image(*plan.src).image(*out.image)
                .run(range(group, st(plan.height), st(planes)), range(group, 1, 1));
  if (!first) first = ev;
  return Launch(queue, program, kernel).arg(plan.width).arg(plan.height).arg(plan.channels).arg(0)
      .image(*plan.src).image(*out.image)
      .run(range(group, st(plan.width), st(planes)), range(group, 1, 1));
}

}  // namespace

Event launch_integral_block_4x4(Queue& queue, const IntegralPlan& plan) {
  std::shared_ptr<EventImpl> first, last;
  for (const Output& out : outputs_of(plan)) last = block_4x4(queue, plan, out, first);
  return Event(first, last);
}

Event launch_integral_blelloch(Queue& queue, const IntegralPlan& plan) {
  std::shared_ptr<EventImpl> first, last;
  for (const Output& out : outputs_of(plan)) last = line_scans(queue, plan, out, "integral_blelloch_lines", first);
  return Event(first, last);
}

Event launch_integral_blocked_scan(Queue& queue, const IntegralPlan& plan) {
  std::shared_ptr<EventImpl> first, last;
  for (const Output& out : outputs_of(plan)) last = line_scans(queue, plan, out, "integral_blocked_lines", first);
  return Event(first, last);
}

}  // namespace plinth::detail
