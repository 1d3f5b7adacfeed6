// Separable filter, the 8-bit fixed-point methods `tiled` (kernels/sep_filter_tiled.cl) and
// `wide_rows` (kernels/sep_filter_wide_rows.cl): u8 -> u8 (GaussianBlur u8; sepFilter2D's smoothing
// kernels with delta 0), up to 9 taps each way.
#include <array>
#include <cstddef>
#include <cstdint>

#include "core/launch.hpp"
#include "ops/filter_support.hpp"
#include "ops/sep_filter_plan.hpp"

namespace plinth::detail {
namespace {

constexpr int kGroup = 256;
constexpr int kTileWords = 32;  // output words (4 elements) per tile row
constexpr int kRowGroups = kGroup / kTileWords;

// Non-negative integer taps summing to 256: every row sum fits a 16-bit lane (at most
// 255 * 256), which the kernel's two-lane multiply-adds need.
bool fits_lanes(const std::array<std::uint32_t, 64>& k, int n) {
  std::uint64_t sum = 0;
  for (int i = 0; i < n; ++i) {
    const std::uint32_t v = k[static_cast<std::size_t>(i)];
    if (v > 256) return false;  // also rejects negative coefficients (two's complement)
    sum += v;
  }
  return sum == 256;
}

// Local words of a tile (the kernel's EXT_WORDS).
std::size_t tile_words(const SepPlan& plan, int rpt) {
  const int cn = plan.src->channels();
  const int lhw = (plan.anchor.x * cn + 3) / 4;
  const int rhw = ((plan.kw - 1 - plan.anchor.x) * cn + 3) / 4;
  return static_cast<std::size_t>(kRowGroups * rpt + plan.kh - 1) * static_cast<std::size_t>(kTileWords + lhw + rhw);
}

// The kernels' arithmetic applies: u8 -> u8 in 8-bit fixed point, at most sep_tiled_max_taps
// non-negative taps each way summing to 256.
bool fixed_point_u8(const SepPlan& plan) {
  if (plan.src->depth() != Depth::u8 || plan.dst->depth() != Depth::u8) return false;
  const bool mode_ok = plan.mode == SepMode::gauss8 ||
                       (plan.mode == SepMode::bit_exact && plan.delta_i == 0 && plan.delta_f == 0.0f);
  if (!mode_ok || plan.kw > sep_tiled_max_taps || plan.kh > sep_tiled_max_taps) return false;
  return fits_lanes(plan.kx, plan.kw) && fits_lanes(plan.ky, plan.kh);
}

bool symmetric(const std::array<std::uint32_t, 64>& k, int n) {
  for (int i = 0; i < n / 2; ++i) {
    if (k[static_cast<std::size_t>(i)] != k[static_cast<std::size_t>(n - 1 - i)]) return false;
  }
  return true;
}

// What both kernels take: their options up to the rows per work-item (the callers add the row
// alignments), and their arguments (size, anchor row, border, tail, the taps, the images).
BuildOptions fixed_point_options(const SepPlan& plan, int rpt) {
  BuildOptions o;
  o.define("CN", plan.src->channels()).define("KW", plan.kw).define("KH", plan.kh).define("AX", plan.anchor.x);
  o.define("MODE", static_cast<long long>(plan.mode)).define("RPT", rpt);
  return o;
}

void fixed_point_args(Launch& launch, const SepPlan& plan) {
  launch.arg(plan.src->width()).arg(plan.src->height()).arg(plan.anchor.y).arg(border_code(plan.border)).arg(plan.tail);
  for (const auto* k : {&plan.kx, &plan.ky}) {
    for (int i = 0; i < sep_tiled_max_taps; ++i) launch.arg((*k)[static_cast<std::size_t>(i)]);
  }
  launch.image(*plan.src).image(*plan.dst);
}

}  // namespace

int sep_tiled_rows(Queue& queue, const SepPlan& plan) {
  if (!fixed_point_u8(plan) || work_group_size(queue, kGroup) < kGroup) return 0;
  // The row pass of the KH - 1 extra source rows a strip needs costs (rpt + KH - 1) / rpt of its own.
  const int rpt = tiled_rows_per_item(*plan.src);
  if (tile_words(plan, rpt) * 4 > local_budget(queue)) return 0;
  return rpt;
}

Event launch_sep_tiled(Queue& queue, const SepPlan& plan, int rpt) {
  const DeviceImage& src = *plan.src;
  const DeviceImage& dst = *plan.dst;
  BuildOptions o = fixed_point_options(plan, rpt);
  o.define("SRC_WORDS", vector_aligned(src, 4) ? 1 : 0).define("DST_WORDS", vector_aligned(dst, 4) ? 1 : 0);
  Launch launch(queue, get_program(queue, "sep_filter_tiled.cl", o), "sep_filter_tiled");
  fixed_point_args(launch, plan);
  const std::size_t words = (static_cast<std::size_t>(src.width()) * src.channels() + 3) / 4;
  const std::size_t tile_h = static_cast<std::size_t>(kRowGroups * rpt);
  const std::size_t groups_x = (words + kTileWords - 1) / kTileWords;
  const std::size_t groups_y = (static_cast<std::size_t>(src.height()) + tile_h - 1) / tile_h;
  return Event(launch.run(range(groups_x * kGroup, groups_y), range(kGroup, 1)));
}

// The kernel pairs taps k and n - 1 - k, which every kernel of the fixed-point modes allows (OpenCV
// takes sepFilter2D's fixed point only for kernels symmetric about their anchor; Gaussians are), and
// so reaches at most 4 taps of 4 channels, 16 elements, each side. Rows per work-item as the box
// filter's wide_rows (filter_support.hpp).
int sep_wide_rows_rows(Queue& queue, const SepPlan& plan) {
  if (!fixed_point_u8(plan) || work_group_size(queue, wide_rows_group) < wide_rows_group) return 0;
  const bool centred = plan.anchor.x == plan.kw / 2 && plan.anchor.y == plan.kh / 2;
  if (!centred || !symmetric(plan.kx, plan.kw) || !symmetric(plan.ky, plan.kh)) return 0;
  return wide_rows_rows_per_item(*plan.src);
}

// automatic's choice between the two on NVIDIA sm_90, where each measured faster (H200, 2026-11-29,
// docs/filters.md): wide_rows for one channel with 3-row kernels above 16 M elements and between 1 M
// and 4 M (both backends: 3x3 at 7680x4320 30.5 against 33.2 us on CUDA; at 3840x2160 too few
// warps), and on CUDA for several channels above 4 M pixels (u8x3 7x7 at 7680x4320 107.0 against
// 127.5 us; NVIDIA's OpenCL was slower there); tiled elsewhere, 5 to 9 rows of one channel
// included (7680x4320 5x5: 41.4 against 38.9 us on CUDA).
bool sep_wide_rows_preferred(Queue& queue, const SepPlan& plan) {
  const DeviceInfo& device = queue.context().device();
  if (device.type != DeviceType::gpu || device.nvidia_arch < 90) return false;
  constexpr double mega = 1 << 20;
  const int cn = plan.src->channels();
  const double n = element_count(*plan.src);
  const bool one = cn == 1 && plan.kh <= 3 && (n > 16 * mega || (n > 1 * mega && n <= 4 * mega));
  const bool several = cn > 1 && device.backend == "cuda" && n / cn > 4 * mega;
  return one || several;
}

Event launch_sep_wide_rows(Queue& queue, const SepPlan& plan, int rpt) {
  const DeviceImage& src = *plan.src;
  const DeviceImage& dst = *plan.dst;
  BuildOptions o = fixed_point_options(plan, rpt);
  o.define("SRC_WORDS", vector_aligned(src, 4) ? 1 : 0).define("SRC_SPANS", vector_aligned(src, 16) ? 1 : 0);
  o.define("DST_WORDS", vector_aligned(dst, 4) ? 1 : 0).define("DST_SPANS", vector_aligned(dst, 16) ? 1 : 0);
  Launch launch(queue, get_program(queue, "sep_filter_wide_rows.cl", o), "sep_filter_wide_rows");
  fixed_point_args(launch, plan);
  return Event(launch.run(range(wide_rows_groups_x(src) * wide_rows_group, wide_rows_groups_y(src, rpt)),
                          range(wide_rows_group, 1)));
}

}  // namespace plinth::detail
