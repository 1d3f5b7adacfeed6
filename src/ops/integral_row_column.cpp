// row_column: rows first, then one work-item per output column accumulating top to bottom
// (OpenCV's own recurrence out(x, y) = out(x, y - 1) + rowsum). Order-sensitive requests scan
// each row left to right in one work-item (OpenCV's order, exact for every depth); order-free
// ones scan each row with a warp (any order is exact there), which is much faster.
#include "core/launch.hpp"
#include "ops/integral_plan.hpp"

namespace plinth::detail {

BuildOptions integral_build_options(const IntegralPlan& plan) {
  BuildOptions options;
  options.define_depth("SRC", plan.src->depth());
  const bool fp64 = plan.src->depth() == Depth::f64 || (plan.sum && plan.sum_depth == Depth::f64) ||
                    (plan.sqsum && plan.sq_depth == Depth::f64);
  if (fp64) options.define("PLINTH_NEED_FP64");
  options.define("HAS_SUM", plan.sum ? 1 : 0).define("HAS_SQ", plan.sqsum ? 1 : 0);
  if (plan.sum) options.define_depth("SUM", plan.sum_depth);
  if (plan.sqsum) options.define_depth("SQ", plan.sq_depth);
  if (plan.count) options.define("COUNT", 1);
  return options;
}

namespace {

// Work-items per work-group of the warp row pass (one warp per row).
constexpr int kRowGroup = 256;

}  // namespace

Event launch_integral_row_column(Queue& queue, const IntegralPlan& plan) {
  BuildOptions options = integral_build_options(plan);
  if (plan.order_free) {
    const bool narrow = (!plan.sum || plan.sum_depth == Depth::s32 || plan.sum_depth == Depth::u32) &&
                        (!plan.sqsum || plan.sq_depth == Depth::s32);
    options.define("ROW_ACC", narrow ? "uint" : "ulong").define("ROW_ACC_SUFFIX", narrow ? "u32" : "u64");
    options.define("ROW_GROUP", kRowGroup);
  }
  const auto program = get_program(queue, "integral.cl", options);
  const int rows = plan.height * plan.batch;

  std::shared_ptr<EventImpl> first;
  if (plan.order_free) {
    Launch rows_pass(queue, program, "integral_rows_warp");
    rows_pass.arg(plan.width).arg(plan.height).arg(plan.channels).arg(rows).image(*plan.src);
    if (plan.sum) rows_pass.image(*plan.sum);
    if (plan.sqsum) rows_pass.image(*plan.sqsum);
    const std::size_t groups = (static_cast<std::size_t>(rows) + kRowGroup / 32 - 1) / (kRowGroup / 32);
    first = rows_pass.run(range(groups * kRowGroup, static_cast<std::size_t>(plan.channels)), range(kRowGroup, 1));
  } else {
    Launch rows_pass(queue, program, "integral_rows_ordered");
    rows_pass.arg(plan.width).arg(plan.height).arg(plan.channels).arg(rows).image(*plan.src);
    if (plan.sum) rows_pass.image(*plan.sum);
    if (plan.sqsum) rows_pass.image(*plan.sqsum);
    first = rows_pass.run(range(round_up(static_cast<std::size_t>(rows), 64), static_cast<std::size_t>(plan.channels)),
                          range(64, 1));
  }

  const int row_elements = (plan.width + 1) * plan.channels;
  Launch columns_pass(queue, program, "integral_columns_ordered");
  columns_pass.arg(row_elements).arg(plan.height);
  if (plan.sum) columns_pass.image(*plan.sum);
  if (plan.sqsum) columns_pass.image(*plan.sqsum);
  auto last = columns_pass.run(range(round_up(static_cast<std::size_t>(row_elements), 64), static_cast<std::size_t>(plan.batch)),
                               range(64, 1));
  return Event(first, last);
}

}  // namespace plinth::detail
