// row_column: one work-item per source row scans it left to right, then one work-item per
// output column accumulates top to bottom: OpenCV's own order, so exact for every depth.
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

Event launch_integral_row_column(Queue& queue, const IntegralPlan& plan) {
  const auto program = get_program(queue, "integral.cl", integral_build_options(plan));
  const int rows = plan.height * plan.batch;

  Launch rows_pass(queue, program, "integral_rows_ordered");
  rows_pass.arg(plan.width).arg(plan.height).arg(plan.channels).arg(rows).image(*plan.src);
  if (plan.sum) rows_pass.image(*plan.sum);
  if (plan.sqsum) rows_pass.image(*plan.sqsum);
  auto first = rows_pass.run(range(round_up(static_cast<std::size_t>(rows), 64), static_cast<std::size_t>(plan.channels)),
                             range(64, 1));

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
