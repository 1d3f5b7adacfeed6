// Method seed of calc_optical_flow_pyr_lk: both frames' subsampled pyramids (pyr_down's KLT
// sibling, subsampled_pyramid; one launch per level for both), then one launch of
// kernels/pyr_lk_seed.cl's seed_klt_level per level, coarsest first. docs/tracking.md describes
// the algorithm.
#include <cmath>
#include <string>

#include "core/launch.hpp"
#include "ops/elementwise_common.hpp"
#include "ops/pyr_lk_seed.hpp"
#include "ops/pyramid_pair.hpp"
#include "plinth/pyramid.hpp"

namespace plinth::detail {
namespace {

constexpr std::size_t kSeedGroup = 64;  // SEED_GROUP in kernels/pyr_lk_seed.cl
// The kernel's own local arrays (part, pos, state, total: 3844 bytes), with room to spare.
constexpr std::size_t kSeedStaticLocal = 6144;

}  // namespace

Event seed_track(Queue& queue, const OpticalFlowPyramid& prev_pyr, const OpticalFlowPyramid& next_pyr, const DeviceArray& prev_pts,
                 const DeviceArray& next_pts, const DeviceArray& status, const DeviceArray& err, const PyrLkParams& params) {
  const char* op = "calc_optical_flow_pyr_lk";
  const DeviceImage& prev = prev_pyr.levels[0];
  const DeviceImage& next = next_pyr.levels[0];
  const int s = params.seed_subsampling;
  if (s < 2 || s > 8) {
    throw Error(ErrorCode::out_of_range, op, "seed_subsampling", std::to_string(s) + " is outside 2..8");
  }
  if (params.win_size.width > static_cast<int>(kSeedGroup)) {
    throw Error(ErrorCode::out_of_range, op, "win_size",
                "method seed takes windows up to " + std::to_string(kSeedGroup) + " wide (one work-item per column)");
  }
  // Local memory: the template's samples (3 floats a row for each of the group's work-items) and
  // each feature's grid of J samples ((win_w + 2) x (win_h + 2) floats).
  const std::size_t fpg_size = kSeedGroup / static_cast<std::size_t>(params.win_size.width);
  const std::size_t grid_bytes_per_row = fpg_size * static_cast<std::size_t>(params.win_size.width + 2) * sizeof(float);
  const std::size_t row_bytes = 3 * kSeedGroup * sizeof(float) + grid_bytes_per_row, room = queue.context().device().local_memory;
  const std::size_t fixed = kSeedStaticLocal + 2 * grid_bytes_per_row;  // the grid's two ring rows
  const std::size_t max_rows = room > fixed ? (room - fixed) / row_bytes : 0;
  if (static_cast<std::size_t>(params.win_size.height) > max_rows) {
    throw Error(ErrorCode::out_of_range, op, "win_size",
                "method seed takes windows up to " + std::to_string(max_rows) + " rows high on this device (its local memory)");
  }
  check_same_shape(prev.size(), prev.format(), next.size(), next.format(), op, "next");
  check_depth(prev.depth(), {Depth::u8, Depth::f32}, op, "prev");
  check_channels(prev.channels(), {1}, op, "prev");
  // Levels while the next one stays larger than the window (OpenCV's rule, with this step).
  int levels = 1;
  for (Size z = prev.size(); levels <= params.max_level; ++levels) {
    z = Size{z.width / s, z.height / s};
    if (z.width <= params.win_size.width || z.height <= params.win_size.height) break;
  }
  SubsampledPyramidOptions options;
  options.levels = levels;
  options.subsampling = s;
  std::vector<DeviceImage>& prev_levels = prev_pyr.seed_levels;
  std::vector<DeviceImage>& next_levels = next_pyr.seed_levels;
  // Both frames' levels in one launch per level; one object: one frame.
  const Event first = &prev_pyr != &next_pyr ? subsampled_pyramid_pair(queue, prev, prev_levels, next, next_levels, options)
                                             : subsampled_pyramid(queue, prev, prev_levels, options);
  const int max_count = (params.criteria.type & TermCriteria::count) == 0 ? 30 : std::min(std::max(params.criteria.max_count, 0), 100);
  const double eps = (params.criteria.type & TermCriteria::eps) == 0 ? 0.01 : std::min(std::max(params.criteria.epsilon, 0.0), 10.0);
  const auto program = get_program(queue, "pyr_lk_seed.cl", BuildOptions{});
  const int n = static_cast<int>(prev_pts.size());
  const int fpg = static_cast<int>(kSeedGroup) / params.win_size.width;
  const std::size_t groups = (static_cast<std::size_t>(n) + static_cast<std::size_t>(fpg) - 1) / static_cast<std::size_t>(fpg);
  std::shared_ptr<EventImpl> last;
  for (int level = levels - 1; level >= 0; --level) {
    const auto L = static_cast<std::size_t>(level);
    Launch launch(queue, program, "seed_klt_level");
    launch.arg(n).arg(level).arg(levels - 1).arg(s).arg(static_cast<float>(std::pow(1.0 / s, level)));
    launch.arg(params.win_size.width).arg(params.win_size.height).arg(max_count).arg(static_cast<float>(eps * eps));
    launch.arg(prev_levels[L].width()).arg(prev_levels[L].height());
    launch.image(prev_levels[L]).image(next_levels[L]);
    launch.array(prev_pts).array(next_pts).array(status).array(err.empty() ? status : err).arg(static_cast<int>(!err.empty()));
    // The template's samples: three planes of win_h rows of kSeedGroup floats; the J grids.
    launch.local(static_cast<std::size_t>(params.win_size.height) * 3 * kSeedGroup * sizeof(float));
    launch.local(static_cast<std::size_t>(params.win_size.height + 2) * grid_bytes_per_row);
    last = launch.run(range(groups * kSeedGroup), range(kSeedGroup));
  }
  return Event(first.valid() ? first.first() : last, last);
}

}  // namespace plinth::detail
