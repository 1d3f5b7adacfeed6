// epsilon_filter: argument checks and the launches of kernels/epsilon.cl; on NV12 frames the UV
// plane is copied alongside. The formula is in docs/epsilon_filter.md.
#include <string>

#include "../../kernels/epsilon_pairs_shape.h"
#include "core/launch.hpp"
#include "ops/elementwise_common.hpp"
#include "ops/filter_support.hpp"
#include "plinth/filters.hpp"

namespace plinth {
namespace {

constexpr const char* kOp = "epsilon_filter";
constexpr int kMaxWindow = 31;

// Work shape of the tiled and blocked kernels: GX x GY work-items, each PX outputs along x
// (blocked: by blocked_rows(window) rows).
struct EpsilonPolicy {
  int gx = 32;
  int gy = 8;
  int px = 4;
  std::size_t plain_x = 64;
  std::size_t plain_y = 4;
  // Rows per work-item of blocked: 4 while the unrolled block stays small (a 9x9 window: 12 row
  // segments of 12 values feeding 16 outputs), fewer for wider windows, whose code and registers
  // grow with the window.
  static int blocked_rows(int window) { return window <= 9 ? 4 : window <= 15 ? 2 : 1; }
  // Rows per strip of pairs (a work-group covers 128 x 8 * rows outputs): a strip's first and last
  // R rows are read for their neighbours only, so longer strips waste less (8: 2 of 10 rows for
  // 3x3); 8 still gives 3840x2160 1020 work-groups of 256, 7.7 per SM of the H100's 132. Not
  // tuned on the GPU.
  static int pairs_rows(int /*window*/) { return 8; }
};

void check_options(const EpsilonOptions& o) {
  if (o.window < 1 || o.window % 2 == 0) {
    throw Error(ErrorCode::invalid_argument, kOp, "window", std::to_string(o.window) + " is not a positive odd number");
  }
  if (o.window > kMaxWindow) {
    throw Error(ErrorCode::out_of_range, kOp, "window", std::to_string(o.window) + " exceeds the largest window, 31");
  }
  if (o.threshold < 0 || o.threshold > 255) {
    throw Error(ErrorCode::out_of_range, kOp, "threshold", std::to_string(o.threshold) + " is outside 0..255");
  }
  if (o.border_value < 0 || o.border_value > 255) {
    throw Error(ErrorCode::out_of_range, kOp, "border_value", std::to_string(o.border_value) + " is outside 0..255");
  }
}

}  // namespace

std::string_view to_string(EpsilonMethod method) noexcept {
  switch (method) {
    case EpsilonMethod::automatic: return "auto";
    case EpsilonMethod::plain: return "plain";
    case EpsilonMethod::tiled: return "tiled";
    case EpsilonMethod::blocked: return "blocked";
    case EpsilonMethod::pairs: return "pairs";
  }
  return "?";
}

EpsilonMethod parse_epsilon_method(std::string_view text) {
  for (EpsilonMethod m : epsilon_methods) {
    if (text == to_string(m)) return m;
  }
  throw Error(ErrorCode::invalid_argument, kOp, "method",
              "unknown method '" + std::string(text) + "' (expected auto, plain, tiled, blocked or pairs)");
}

Event epsilon_filter(Queue& queue, const DeviceImage& src, DeviceImage& dst, const EpsilonOptions& options) {
  check_options(options);
  detail::check_device(queue, src, kOp, "src");
  if (src.format() != Format{Depth::u8, 1}) {
    throw Error(ErrorCode::unsupported_type, kOp, "src",
                "is " + std::string(to_string(src.depth())) + "C" + std::to_string(src.channels()) +
                    "; the epsilon filter works on u8 planes of one channel");
  }
  detail::prepare_output(queue, dst, src.size(), src.format(), kOp, "dst");
  detail::check_no_overlap(src, dst, kOp, "dst");

  const EpsilonPolicy policy;
  detail::BuildOptions build;
  build.define("WIN", options.window).define("BORDER", static_cast<long long>(options.border));
  // automatic (docs/filters.md "What limits each kernel"): pairs for 3x3 to 7x7, blocked for 9x9,
  // tiled for the others. Measured on the H100 (CUDA, u8, 3840x2160, 2026-11-25 08:25 UTC): pairs
  // 21.7 / 33.7 / 82.0 / 188.9 us at 3x3 / 5x5 / 7x7 / 9x9 against blocked's 43.7 / 72.3 / 105.7 /
  // 150.6 (at 9x9 NVRTC keeps pairs' row walk as a loop, 345 instructions per output).
  const bool automatic = options.method == EpsilonMethod::automatic;
  const bool pairs = options.method == EpsilonMethod::pairs || (automatic && options.window >= 3 && options.window <= 7);
  if (pairs) {
    if (options.window > EPS_PAIRS_MAX_WINDOW) {
      throw Error(ErrorCode::invalid_argument, kOp, "method",
                  "pairs runs windows up to " + std::to_string(EPS_PAIRS_MAX_WINDOW) + "x" +
                      std::to_string(EPS_PAIRS_MAX_WINDOW) + ", not " + std::to_string(options.window));
    }
    const int rows = EpsilonPolicy::pairs_rows(options.window);
    build.define("RPT", rows)
        .define("SRC_WORDS", detail::vector_aligned(src, 4) ? 1 : 0)
        .define("DST_WORDS", detail::vector_aligned(dst, 4) ? 1 : 0);
    const auto program = detail::get_program(queue, "epsilon_pairs.cl", build);
    detail::Launch launch(queue, program, "epsilon_pairs");
    launch.arg(src.width()).arg(src.height()).arg(options.threshold).arg(options.border_value).image(src).image(dst);
    const auto tile_w = static_cast<std::size_t>(4 * EPS_PAIRS_TW_WORDS);
    const auto tile_h = static_cast<std::size_t>(EPS_PAIRS_GROUP / EPS_PAIRS_TW_WORDS * rows);
    const std::size_t groups_x = (static_cast<std::size_t>(src.width()) + tile_w - 1) / tile_w;
    const std::size_t groups_y = (static_cast<std::size_t>(src.height()) + tile_h - 1) / tile_h;
    return Event(launch.run(detail::range(groups_x * EPS_PAIRS_GROUP, groups_y), detail::range(EPS_PAIRS_GROUP, 1)));
  }
  const bool tiled = options.method != EpsilonMethod::plain;
  const bool blocked = options.method == EpsilonMethod::blocked || (automatic && options.window == 9);
  const int rows = blocked ? EpsilonPolicy::blocked_rows(options.window) : 1;
  if (tiled) build.define("GX", policy.gx).define("GY", policy.gy).define("PX", policy.px);
  if (blocked) build.define("PY", rows);
  const auto program = detail::get_program(queue, "epsilon.cl", build);
  detail::Launch launch(queue, program, blocked ? "epsilon_blocked" : tiled ? "epsilon_tiled" : "epsilon_plain");
  launch.arg(src.width()).arg(src.height()).arg(options.threshold).arg(options.border_value).image(src).image(dst);
  const auto width = static_cast<std::size_t>(src.width()), height = static_cast<std::size_t>(src.height());
  if (!tiled) {
    return Event(launch.run(detail::range(detail::round_up(width, policy.plain_x), detail::round_up(height, policy.plain_y)),
                            detail::range(policy.plain_x, policy.plain_y)));
  }
  const auto gx = static_cast<std::size_t>(policy.gx), gy = static_cast<std::size_t>(policy.gy);
  const std::size_t tile_w = gx * static_cast<std::size_t>(policy.px), tile_h = gy * static_cast<std::size_t>(rows);
  const std::size_t groups_x = (width + tile_w - 1) / tile_w, groups_y = (height + tile_h - 1) / tile_h;
  return Event(launch.run(detail::range(groups_x * gx, groups_y * gy), detail::range(gx, gy)));
}

Event epsilon_filter(Queue& queue, const DeviceNv12Frame& src, DeviceNv12Frame& dst, const EpsilonOptions& options) {
  check_nv12_frame(src, kOp, "src");
  if (dst.uv.empty() && !dst.y.empty()) throw Error(ErrorCode::invalid_argument, kOp, "dst", "has a Y plane but no UV plane");
  detail::prepare_output(queue, dst.uv, src.uv.size(), src.uv.format(), kOp, "dst.uv");
  detail::check_no_overlap(src.y, dst.uv, kOp, "dst.uv");
  if (!dst.y.empty()) detail::check_no_overlap(src.uv, dst.y, kOp, "dst.y");
  const Event luma = epsilon_filter(queue, src.y, dst.y, options);
  if (detail::same_view(src.uv, dst.uv)) return luma;
  const Event chroma = queue.copy(src.uv, dst.uv);
  return Event(luma.first(), chroma.last());
}

Nv12Frame epsilon_filter(Queue& queue, const Nv12Frame& src, const EpsilonOptions& options) {
  check_nv12_frame(src, kOp, "src");
  const DeviceNv12Frame d_src = upload_nv12(queue, src);
  DeviceNv12Frame dst;
  epsilon_filter(queue, d_src, dst, options);
  return download_nv12(queue, dst);
}

}  // namespace plinth
