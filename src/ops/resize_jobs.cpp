// The cascade's scale pyramid: INTER_LINEAR_EXACT coefficient tables built on the host (the
// same double arithmetic as resize_exact_element in kernels/resize.cl), one launch per source.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/launch.hpp"
#include "ops/resize_jobs.hpp"
#include "plinth/error.hpp"

namespace plinth::detail {
namespace {

// Work shape of resize_exact_jobs: 4 destination pixels per work-item, rows of 64 work-items.
struct ResizeJobsPolicy {
  static constexpr int pixels = 4;
  static constexpr std::size_t group_x = 64;
  static constexpr std::size_t group_y = 4;
};

// One tap pair along an axis: out = ((256 - w) * s[i0] + w * s[i1]) before the other axis.
struct Tap {
  int i0 = 0, i1 = 0, w = 0;
};

// resize_exact_element's coefficients for destination index d of dsize from ssize, written so
// that every case is one blend: a copy (same size) is (d, d, 0), exact halving (2d, 2d + 1, 128),
// and an index outside the source takes one pixel, (i, i, 0). The blend reproduces OpenCV's
// results for all three: 256 * s rounds back to s, and 128-weights give (a + b + c + d + 2) >> 2.
Tap exact_tap(int d, int dsize, int ssize, bool copy, bool halve) {
  if (copy) return {d, d, 0};
  if (halve) return {2 * d, 2 * d + 1, 128};
  const double scale = 1.0 / (static_cast<double>(dsize) / static_cast<double>(ssize));
  // volatile: the kernel computes scale * (d + 0.5) - 0.5 without a fused multiply-add.
  const volatile double product = scale * (static_cast<double>(d) + 0.5);
  const double f = product - 0.5;
  const int i = static_cast<int>(std::floor(f));
  if (i >= 0 && ssize > 1) {
    if (i < ssize - 1) return {i, i + 1, static_cast<int>(std::nearbyint((f - static_cast<double>(i)) * 256.0))};
    return {ssize - 1, ssize - 1, 0};
  }
  return {0, 0, 0};
}

}  // namespace

ResizeJobTable pack_resize_jobs(Size src, std::span<const ResizeJob> jobs) {
  ResizeJobTable t;
  t.jobs = static_cast<int>(jobs.size());
  for (const ResizeJob& j : jobs) {
    t.rows += j.size.height;
    t.widest = std::max(t.widest, j.size.width);
  }
  // Jobs: (width, destination offset, first column record, first row) as int4.
  std::vector<int>& w = t.words;
  int columns = 0;
  std::vector<int> column_at;
  for (const ResizeJob& j : jobs) {
    column_at.push_back(columns);
    columns += (j.size.width + 3) / 4 * 4;  // each job's columns start on a uint4
  }
  t.rows_at = t.jobs;
  t.columns_at = (t.jobs + t.rows) * 4;
  w.assign(static_cast<std::size_t>(t.columns_at + columns), 0);
  int row = 0;
  for (int k = 0; k < t.jobs; ++k) {
    const ResizeJob& j = jobs[static_cast<std::size_t>(k)];
    if (j.dst_offset < 0 || j.dst_offset > (std::int64_t{1} << 30)) {
      throw Error(ErrorCode::internal, "resize", "jobs", "destination offset out of range");
    }
    const bool copy = j.size == src;
    const bool halve = src.width == 2 * j.size.width && src.height == 2 * j.size.height;
    w[4 * k + 0] = j.size.width;
    w[4 * k + 1] = static_cast<int>(j.dst_offset);
    w[4 * k + 2] = t.columns_at + column_at[static_cast<std::size_t>(k)];
    w[4 * k + 3] = row;
    // Rows: (job, first source row, second source row, weight).
    for (int dy = 0; dy < j.size.height; ++dy, ++row) {
      const Tap y = exact_tap(dy, j.size.height, src.height, copy, halve);
      int* r = w.data() + 4 * (t.rows_at + row);
      r[0] = k;
      r[1] = y.i0;
      r[2] = y.i1;
      r[3] = y.w;
    }
    // Columns: first source column | (second - first) << 22 | weight << 23.
    for (int dx = 0; dx < j.size.width; ++dx) {
      const Tap x = exact_tap(dx, j.size.width, src.width, copy, halve);
      const std::uint32_t packed = static_cast<std::uint32_t>(x.i0) | static_cast<std::uint32_t>(x.i1 - x.i0) << 22 |
                                   static_cast<std::uint32_t>(x.w) << 23;
      w[static_cast<std::size_t>(t.columns_at + column_at[static_cast<std::size_t>(k)] + dx)] = static_cast<int>(packed);
    }
  }
  if (src.width > (1 << 22)) throw Error(ErrorCode::internal, "resize", "src", "too wide for the column records");
  return t;
}

std::shared_ptr<EventImpl> launch_resize_jobs(const Queue& queue, const DeviceImage& src, const Buffer& dst,
                                              int dst_pitch, const ResizeJobTable& layout, const Buffer& table) {
  const auto program = get_program(queue, "resize.cl", BuildOptions{});
  Launch launch(queue, program, "resize_exact_jobs");
  launch.arg(layout.rows).arg(layout.rows_at).arg(dst_pitch).image(src).buffer(dst).buffer(table);
  const std::size_t quads = static_cast<std::size_t>((layout.widest + ResizeJobsPolicy::pixels - 1) / ResizeJobsPolicy::pixels);
  return launch.run(range(round_up(std::max<std::size_t>(quads, 1), ResizeJobsPolicy::group_x),
                          round_up(static_cast<std::size_t>(std::max(layout.rows, 1)), ResizeJobsPolicy::group_y)),
                    range(ResizeJobsPolicy::group_x, ResizeJobsPolicy::group_y));
}

}  // namespace plinth::detail
