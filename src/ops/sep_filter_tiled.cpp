// Separable filter, method `tiled` (kernels/sep_filter_tiled.cl): u8 -> u8 in 8-bit fixed point
// (GaussianBlur u8; sepFilter2D's smoothing kernels with delta 0), up to 9 taps each way.
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

}  // namespace

int sep_tiled_rows(Queue& queue, const SepPlan& plan) {
  if (plan.src->depth() != Depth::u8 || plan.dst->depth() != Depth::u8) return 0;
  const bool mode_ok = plan.mode == SepMode::gauss8 ||
                       (plan.mode == SepMode::bit_exact && plan.delta_i == 0 && plan.delta_f == 0.0f);
  if (!mode_ok || plan.kw > sep_tiled_max_taps || plan.kh > sep_tiled_max_taps) return 0;
  if (!fits_lanes(plan.kx, plan.kw) || !fits_lanes(plan.ky, plan.kh)) return 0;
  if (work_group_size(queue, kGroup) < kGroup) return 0;
  // The row pass of the KH - 1 extra source rows a strip needs costs (rpt + KH - 1) / rpt of its own.
  const int rpt = tiled_rows_per_item(*plan.src);
  if (tile_words(plan, rpt) * 4 > local_budget(queue)) return 0;
  return rpt;
}

Event launch_sep_tiled(Queue& queue, const SepPlan& plan, int rpt) {
  const DeviceImage& src = *plan.src;
  const DeviceImage& dst = *plan.dst;
  BuildOptions o;
  o.define("CN", src.channels()).define("KW", plan.kw).define("KH", plan.kh).define("AX", plan.anchor.x);
  o.define("MODE", static_cast<long long>(plan.mode)).define("RPT", rpt);
  o.define("SRC_WORDS", vector_aligned(src, 4) ? 1 : 0).define("DST_WORDS", vector_aligned(dst, 4) ? 1 : 0);
  const auto program = get_program(queue, "sep_filter_tiled.cl", o);
  Launch launch(queue, program, "sep_filter_tiled");
  launch.arg(src.width()).arg(src.height()).arg(plan.anchor.y).arg(border_code(plan.border)).arg(plan.tail);
  for (const auto* k : {&plan.kx, &plan.ky}) {
    for (int i = 0; i < sep_tiled_max_taps; ++i) launch.arg((*k)[static_cast<std::size_t>(i)]);
  }
  launch.image(src).image(dst);
  const std::size_t words = (static_cast<std::size_t>(src.width()) * src.channels() + 3) / 4;
  const std::size_t tile_h = static_cast<std::size_t>(kRowGroups * rpt);
  const std::size_t groups_x = (words + kTileWords - 1) / kTileWords;
  const std::size_t groups_y = (static_cast<std::size_t>(src.height()) + tile_h - 1) / tile_h;
  return Event(launch.run(range(groups_x * kGroup, groups_y), range(kGroup, 1)));
}

}  // namespace plinth::detail
