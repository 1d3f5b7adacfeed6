// Separable linear filter: checks, OpenCV's choice of arithmetic (createSeparableLinearFilter in
// filter.dispatch.cpp / filter.simd.hpp), tile policy and launches. Kernels: kernels/sep_filter.cl.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "core/image_checks.hpp"
#include "core/launch.hpp"
#include "ops/filter_support.hpp"
#include "ops/sep_filter_plan.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace detail {
namespace {

// Work-group shape and output tile of the fused kernel.
struct FusedPolicy {
  int gx = 16;
  int gy = 16;
  int twp = 0;   // output tile width in pixels
  int th = 0;    // output tile height
  int pxp = 4;   // row pass: pixels per work-item (all channels)
  int pyp = 4;   // column pass: rows per work-item (one element column)
  int tile_pitch = 0;
  int rows_pitch = 0;
  std::size_t tile_bytes = 0;
  std::size_t rows_bytes = 0;
  bool fits = false;
};

std::size_t rb_size(SepMode) { return 4; }  // float, int or uint row sums

// The cheapest tile that fits the local-memory budget, by a simple count of local loads,
// multiply-adds and global loads per output pixel (the lead tunes the weights on the GPU).
FusedPolicy fused_policy(Queue& queue, const SepPlan& plan) {
  FusedPolicy best;
  const int cn = plan.src->channels();
  const std::size_t src_size = depth_size(plan.src->depth());
  const std::size_t budget = local_budget(queue);
  const int group = work_group_size(queue, 256);
  if (group < 256) return best;  // REQD_GROUP_SIZE(16, 16): fall back to two_pass
  double best_cost = std::numeric_limits<double>::max();
  for (int twp : {128, 64, 32, 16, 8}) {
    for (int th : {128, 64, 32, 16, 8}) {
      FusedPolicy p;
      // More outputs per work-item reuse more loaded values; four channels already give four.
      p.pxp = cn == 1 ? 8 : 4;
      p.pyp = cn == 1 ? 8 : 4;
      if (twp % p.pxp != 0 || th % p.pyp != 0) continue;
      p.twp = twp;
      p.th = th;
      const int nr = th + plan.kh - 1;
      // Pitches chosen so that work-items reading different rows hit different banks.
      const std::size_t words = src_size >= 4 ? 1 : 4 / src_size;  // elements per 32-bit word
      int tp = (twp + plan.kw - 1) * cn;
      tp = static_cast<int>((static_cast<std::size_t>(tp) + words - 1) / words * words);
      if ((tp / static_cast<int>(words)) % 2 == 0) tp += static_cast<int>(words);
      p.tile_pitch = tp;
      p.rows_pitch = (twp * cn) | 1;
      p.tile_bytes = static_cast<std::size_t>(nr) * p.tile_pitch * src_size;
      p.rows_bytes = static_cast<std::size_t>(nr) * p.rows_pitch * rb_size(plan.mode);
      if (p.tile_bytes + p.rows_bytes > budget) continue;
      const double rows_factor = static_cast<double>(nr) / th;
      const double cost_row = rows_factor * (plan.kw + static_cast<double>(p.pxp + plan.kw - 1) / p.pxp);
      const double cost_col = plan.kh + static_cast<double>(p.pyp + plan.kh - 1) / p.pyp;
      const double cost_load = 4.0 * (twp + plan.kw - 1) * rows_factor / twp;
      const double cost = cost_row + cost_col + cost_load;
      if (cost < best_cost) {
        best_cost = cost;
        best = p;
        best.fits = true;
      }
    }
  }
  return best;
}

// Tile of the fused_direct kernel: a 1-D group of `gs` work-items, output tile tw x th pixels,
// row tasks of px pixels, column tasks of py rows, source loads of ve elements (one vector).
struct DirectPolicy {
  int gs = 256;
  int tw = 0;
  int th = 0;
  int px = 4;
  int py = 8;
  int ve = 1;
  std::size_t rows_bytes = 0;
  bool fits = false;    // a tile fits local memory
  bool narrow = false;  // a row task's source vectors fit in registers
  static constexpr int max_local_words = 64;  // row-task inputs held per work-item (32-bit words)
};

// Picks the tile with the fewest issue slots per output (row pass on the tile's extra KH - 1
// rows included, rounded up to whole rounds of the group) plus the cache traffic of the source
// region, among those whose row results fit the local-memory budget.
DirectPolicy direct_policy(Queue& queue, const SepPlan& plan) {
  DirectPolicy best;
  const int cn = plan.src->channels();
  const int es = static_cast<int>(depth_size(plan.src->depth()));
  const std::size_t budget = local_budget(queue);
  if (work_group_size(queue, 256) < 256) return best;
  // Pixels per row task: one 16-byte vector's worth where a pixel is at least 4 bytes, else
  // 8 pixels (8-byte vectors for u8, 16 for u16).
  const int px = cn * es >= 4 ? 4 : 8;
  int ve_bytes = 16;
  while ((px * cn * es) % ve_bytes != 0) ve_bytes /= 2;
  const int ve = std::max(1, ve_bytes / es);
  const int need = (px + plan.kw - 1) * cn;
  const int left = (plan.anchor.x * cn + ve - 1) / ve * ve;
  const int nv = (left - plan.anchor.x * cn + need + ve - 1) / ve;
  const int words = (nv * ve * es + 3) / 4;
  // Row tasks this wide would not stay in registers: the automatic choice takes fused instead
  // (an explicit request still runs, reading elements one by one).
  const bool narrow = words <= DirectPolicy::max_local_words;
  if (!narrow) best.ve = 0;
  const int width = std::max(plan.src->width(), 1);
  const int height = std::max(plan.src->height(), 1);
  // Groups that run at once: the model takes 4 of 256 work-items a compute unit (on NVIDIA GPUs
  // the kernel's 64-128 registers allow 2 to 4). A last wave that is mostly empty costs about as
  // much as a full one: on the H200 at 1920x1080 the 64x128 tiles' 270 groups took 36.5 us on
  // NVIDIA OpenCL (264 at once, then 6) and 64x64 tiles 28.5 (docs/filters.md).
  const double slots = 4.0 * std::max(1u, queue.context().device().compute_units);
  double best_cost = std::numeric_limits<double>::max();
  for (int tw : {32, 64, 128}) {
    for (int th : {16, 32, 64, 128, 256}) {
      for (int py : {4, 8}) {
        if (tw % px != 0 || th % py != 0) continue;
        const int nr = th + plan.kh - 1;
        const std::size_t bytes = static_cast<std::size_t>(nr) * tw * cn * 4;
        if (bytes > budget) continue;
        const double outputs = static_cast<double>(tw) * th * cn;
        const double gs = best.gs;
        const double row_tasks = static_cast<double>(nr) * (tw / px);
        const double row_slots = std::ceil(row_tasks / gs) * gs * (px * cn * plan.kw + nv + 6.0);
        const double col_tasks = static_cast<double>(tw) * cn * (th / py);
        const double col_slots = std::ceil(col_tasks / gs) * gs * (py * plan.kh + (py + plan.kh - 1) + py + 4.0);
        const double source = static_cast<double>(tw + plan.kw - 1 + ve) * cn * nr;  // elements through the cache
        // Tiles cut by the image's right and bottom edges do the work of whole ones.
        const double cut = (static_cast<double>((width + tw - 1) / tw) * tw / width) *
                           (static_cast<double>((height + th - 1) / th) * th / height);
        // The share of the waves' room that the groups fill.
        const double groups = static_cast<double>((width + tw - 1) / tw) * ((height + th - 1) / th);
        const double busy = groups / (std::ceil(groups / slots) * slots);
        const double cost = cut * (row_slots + col_slots + 2.0 * source) / outputs / busy;
        if (cost < best_cost) {
          best_cost = cost;
          best.tw = tw;
          best.th = th;
          best.py = py;
          best.rows_bytes = bytes;
          best.fits = true;
          best.narrow = narrow;
        }
      }
    }
  }
  best.px = px;
  if (best.ve != 0) best.ve = ve;
  return best;
}

BuildOptions sep_build_options(const SepPlan& plan) {
  BuildOptions o;
  o.define_depth("SRC", plan.src->depth()).define_depth("DST", plan.dst->depth());
  o.define("CN", plan.src->channels()).define("KW", plan.kw).define("KH", plan.kh);
  o.define("MODE", static_cast<long long>(plan.mode)).define("COL_KIND", plan.col_kind);
  return o;
}

void common_args(Launch& launch, const SepPlan& plan) {
  launch.arg(plan.src->width()).arg(plan.src->height()).arg(plan.anchor.x).arg(plan.anchor.y);
  launch.arg(border_code(plan.border)).arg(plan.tail).arg(plan.delta_f).arg(plan.delta_i);
}

void coefficient_args(Launch& launch, const std::array<std::uint32_t, 64>& k) {
  for (std::uint32_t v : k) launch.arg(v);
}

Event launch_two_pass(Queue& queue, const SepPlan& plan) {
  const DeviceImage& src = *plan.src;
  const std::size_t row_elements = static_cast<std::size_t>(src.width()) * src.channels();
  const std::size_t rows = static_cast<std::size_t>(src.height());
  const ScratchLease tmp = scratch(queue, "sep_filter.rows", row_elements * rows * rb_size(plan.mode));
  const auto program = get_program(queue, "sep_filter.cl", sep_build_options(plan));
  const NDRange global = range(round_up(row_elements, 64), rows);

  Launch first(queue, program, "sep_filter_rows");
  common_args(first, plan);
  coefficient_args(first, plan.kx);
  first.image(src).buffer(*tmp.buffer).arg(static_cast<int>(row_elements));
  auto a = first.run(global, range(64, 1));

  Launch second(queue, program, "sep_filter_columns");
  common_args(second, plan);
  coefficient_args(second, plan.ky);
  second.buffer(*tmp.buffer).arg(static_cast<int>(row_elements)).image(*plan.dst);
  auto b = second.run(global, range(64, 1));
  return Event(a, b);
}

Event launch_fused(Queue& queue, const SepPlan& plan, const FusedPolicy& p) {
  BuildOptions o = sep_build_options(plan);
  o.define("GX", p.gx).define("GY", p.gy).define("TWP", p.twp).define("TH", p.th);
  o.define("PXP", p.pxp).define("PYP", p.pyp);
  const auto program = get_program(queue, "sep_filter.cl", o);
  Launch launch(queue, program, "sep_filter_fused");
  common_args(launch, plan);
  coefficient_args(launch, plan.kx);
  coefficient_args(launch, plan.ky);
  launch.image(*plan.src).image(*plan.dst).arg(p.tile_pitch).arg(p.rows_pitch);
  launch.local(p.tile_bytes).local(p.rows_bytes);
  const std::size_t groups_x = (static_cast<std::size_t>(plan.src->width()) + p.twp - 1) / p.twp;
  const std::size_t groups_y = (static_cast<std::size_t>(plan.src->height()) + p.th - 1) / p.th;
  return Event(launch.run(range(groups_x * p.gx, groups_y * p.gy),
                          range(static_cast<std::size_t>(p.gx), static_cast<std::size_t>(p.gy))));
}

// nullopt: the compiled kernel cannot run work-groups of p.gs work-items on this device.
std::optional<Event> launch_fused_direct(Queue& queue, const SepPlan& plan, const DirectPolicy& p) {
  BuildOptions o = sep_build_options(plan);
  const bool aligned = p.ve > 0 && vector_aligned(*plan.src, p.ve);
  o.define("FD_GS", p.gs).define("FD_TW", p.tw).define("FD_TH", p.th).define("FD_PX", p.px).define("FD_PY", p.py);
  o.define("FD_VE", std::max(p.ve, 1)).define("AX", plan.anchor.x).define("FD_ALIGNED", aligned ? 1 : 0);
  // The 8-bit fixed-point smoothing modes run in exact float arithmetic here (their sums stay
  // integers below 2^24; kernels/sep_filter.cl), with the kernels' integers as float bits.
  const bool float_rows = plan.mode == SepMode::gauss8 || plan.mode == SepMode::bit_exact;
  std::array<std::uint32_t, 64> kx = plan.kx;
  std::array<std::uint32_t, 64> ky = plan.ky;
  if (float_rows) {
    o.define("FD_FLOAT_ROWS");
    for (auto* k : {&kx, &ky}) {
      for (std::uint32_t& v : *k) v = float_bits(static_cast<float>(static_cast<std::int32_t>(v)));
    }
  }
  const auto program = get_program(queue, "sep_filter.cl", o);
  Launch launch(queue, program, "sep_filter_fused_direct");
  if (launch.max_work_group_size() < static_cast<std::size_t>(p.gs)) return std::nullopt;
  common_args(launch, plan);
  coefficient_args(launch, kx);
  coefficient_args(launch, ky);
  launch.image(*plan.src).image(*plan.dst).local(p.rows_bytes);
  const std::size_t groups_x = (static_cast<std::size_t>(plan.src->width()) + p.tw - 1) / p.tw;
  const std::size_t groups_y = (static_cast<std::size_t>(plan.src->height()) + p.th - 1) / p.th;
  return Event(launch.run(range(groups_x * p.gs, groups_y), range(static_cast<std::size_t>(p.gs), 1)));
}

}  // namespace

int kernel_type(std::span<const float> kernel, int anchor) {
  const int n = static_cast<int>(kernel.size());
  int type = kernel_smooth | kernel_integer;
  if (anchor * 2 + 1 == n) type |= kernel_symmetrical | kernel_asymmetrical;
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    const double a = kernel[static_cast<std::size_t>(i)];
    const double b = kernel[static_cast<std::size_t>(n - 1 - i)];
    if (a != b) type &= ~kernel_symmetrical;
    if (a != -b) type &= ~kernel_asymmetrical;
    if (a < 0) type &= ~kernel_smooth;
    if (a != std::nearbyint(a)) type &= ~kernel_integer;
    sum += a;
  }
  if (std::fabs(sum - 1) > FLT_EPSILON * (std::fabs(sum) + 1)) type &= ~kernel_smooth;
  return type;
}

std::uint32_t float_bits(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// GPUs: wide_rows or tiled where they apply (u8 fixed point, up to 9 taps: sep_filter_tiled.cpp
// says which), else
// fused_direct (H100, f32 31-tap at 3840x2160: fused 121 us, two_pass 394 us; fused_direct
// saves the source tile's trip through local memory and its barrier). CPUs (PoCL): fused, which
// timed faster there (docs/filters.md). Either falls back to two_pass when no tile fits.
Event launch_sep(Queue& queue, const SepPlan& plan) {
  SepFilterMethod method = plan.method;
  const auto no_tile = [&](const char* name) {
    throw Error(ErrorCode::invalid_argument, "sep_filter", "method",
                std::string(name) + ": no tile of a " + std::to_string(plan.kw) + "x" + std::to_string(plan.kh) +
                    " kernel fits the device's local memory or work-group size; use auto or two_pass");
  };
  // tiled and wide_rows: only the 8-bit fixed-point arithmetic.
  const auto fixed_point_only = [&](const char* name) {
    throw Error(ErrorCode::invalid_argument, "sep_filter", "method",
                std::string(name) +
                    " filters u8 into u8 in 8-bit fixed point (GaussianBlur u8, or sepFilter2D's smoothing kernels with "
                    "delta 0) with at most " + std::to_string(sep_tiled_max_taps) + " taps each way; use auto or fused_direct");
  };
  if (method == SepFilterMethod::tiled) {
    const int rpt = sep_tiled_rows(queue, plan);
    if (rpt == 0) fixed_point_only("tiled");
    return launch_sep_tiled(queue, plan, rpt);
  }
  if (method == SepFilterMethod::wide_rows) {
    const int rpt = sep_wide_rows_rows(queue, plan);
    if (rpt == 0) fixed_point_only("wide_rows");
    return launch_sep_wide_rows(queue, plan, rpt);
  }
  if (method == SepFilterMethod::automatic) {
    const bool gpu = queue.context().device().type != DeviceType::cpu;
    if (gpu) {
      const int wide = sep_wide_rows_rows(queue, plan);
      if (wide > 0 && sep_wide_rows_preferred(queue, plan)) return launch_sep_wide_rows(queue, plan, wide);
      if (const int rpt = sep_tiled_rows(queue, plan)) return launch_sep_tiled(queue, plan, rpt);
    }
    method = gpu ? SepFilterMethod::fused_direct : SepFilterMethod::fused;
    if (method == SepFilterMethod::fused_direct) {
      const DirectPolicy p = direct_policy(queue, plan);
      if (!p.fits || !p.narrow) method = SepFilterMethod::fused;
    }
    if (method == SepFilterMethod::fused && !fused_policy(queue, plan).fits) method = SepFilterMethod::two_pass;
  }
  if (method == SepFilterMethod::fused_direct) {
    const DirectPolicy p = direct_policy(queue, plan);
    if (!p.fits) no_tile("fused_direct");
    // The device may still refuse the launch: NVIDIA's OpenCL answers CL_OUT_OF_RESOURCES for
    // u8x4 9-tap on the H100 although the kernel reports groups of 256 as runnable. `auto` then
    // takes the next method; an explicit request gets the error.
    try {
      if (std::optional<Event> done = launch_fused_direct(queue, plan, p)) return *done;
    } catch (const Error& e) {
      const bool refused = e.code() == ErrorCode::device && e.message().find("CL_OUT_OF_RESOURCES") != std::string::npos;
      if (!refused || plan.method != SepFilterMethod::automatic) throw;
    }
    if (plan.method != SepFilterMethod::automatic) {
      throw Error(ErrorCode::device, "sep_filter", "method",
                  "fused_direct: the device cannot run this kernel's work-groups of " + std::to_string(p.gs) +
                      " work-items (too many registers); use auto, fused or two_pass");
    }
    method = fused_policy(queue, plan).fits ? SepFilterMethod::fused : SepFilterMethod::two_pass;
  }
  switch (method) {
    case SepFilterMethod::fused_direct: break;
    case SepFilterMethod::fused: {
      const FusedPolicy p = fused_policy(queue, plan);
      if (!p.fits) no_tile("fused");
      return launch_fused(queue, plan, p);
    }
    case SepFilterMethod::two_pass:
    case SepFilterMethod::tiled:
    case SepFilterMethod::wide_rows:
    case SepFilterMethod::automatic: break;
  }
  return launch_two_pass(queue, plan);
}

}  // namespace detail

namespace {

constexpr const char* kOp = "sep_filter";

// createBitExactKernel_32S: the kernel in fixed point with `bits` fraction bits, if every
// coefficient is within 10 * FLT_EPSILON of such a value.
bool bit_exact_kernel(std::span<const float> k, int bits, std::array<std::uint32_t, 64>& out) {
  const double scale = static_cast<double>(1 << bits);
  const double eps = 10 * FLT_EPSILON * scale;
  for (std::size_t i = 0; i < k.size(); ++i) {
    const double v = static_cast<double>(k[i]) * scale;
    const double r = std::nearbyint(v);
    if (std::fabs(v - r) > eps) return false;
    out[i] = static_cast<std::uint32_t>(static_cast<std::int32_t>(r));
  }
  return true;
}

void check_taps(std::span<const float> k, const char* name) {
  if (k.empty() || k.size() > static_cast<std::size_t>(sep_filter_max_taps)) {
    throw Error(ErrorCode::out_of_range, kOp, name,
                std::to_string(k.size()) + " taps (1 to " + std::to_string(sep_filter_max_taps) + " are supported)");
  }
  for (float v : k) {
    if (!std::isfinite(v)) throw Error(ErrorCode::invalid_argument, kOp, name, "has a coefficient that is not finite");
  }
}

}  // namespace

std::string_view to_string(SepFilterMethod method) noexcept {
  switch (method) {
    case SepFilterMethod::automatic: return "auto";
    case SepFilterMethod::fused: return "fused";
    case SepFilterMethod::two_pass: return "two_pass";
    case SepFilterMethod::fused_direct: return "fused_direct";
    case SepFilterMethod::tiled: return "tiled";
    case SepFilterMethod::wide_rows: return "wide_rows";
  }
  return "?";
}

SepFilterMethod parse_sep_filter_method(std::string_view text) {
  for (SepFilterMethod m : {SepFilterMethod::automatic, SepFilterMethod::fused, SepFilterMethod::two_pass,
                            SepFilterMethod::fused_direct, SepFilterMethod::tiled,
                            SepFilterMethod::wide_rows}) {
    if (text == to_string(m)) return m;
  }
  throw Error(ErrorCode::invalid_argument, kOp, "method",
              "unknown method '" + std::string(text) + "' (expected auto, fused, two_pass, fused_direct, tiled or wide_rows)");
}

Event sep_filter(Queue& queue, const DeviceImage& src, DeviceImage& dst, std::span<const float> kx,
                 std::span<const float> ky, const SepFilterOptions& options) {
  detail::check_device(queue, src, kOp, "src");
  detail::check_depth(src.depth(), {Depth::u8, Depth::f32}, kOp, "src");
  check_taps(kx, "kx");
  check_taps(ky, "ky");
  detail::check_border(options.border,
                       {BorderMode::constant, BorderMode::replicate, BorderMode::reflect, BorderMode::reflect_101}, kOp);
  const Depth ddepth = options.ddepth.value_or(src.depth());
  if (src.depth() == Depth::u8) {
    detail::check_depth(ddepth, {Depth::u8, Depth::s16, Depth::f32}, kOp, "ddepth");
  } else {
    detail::check_depth(ddepth, {Depth::f32}, kOp, "ddepth");
  }
  if (!std::isfinite(options.delta)) throw Error(ErrorCode::invalid_argument, kOp, "delta", "is not finite");

  detail::SepPlan plan;
  plan.src = &src;
  plan.kw = static_cast<int>(kx.size());
  plan.kh = static_cast<int>(ky.size());
  plan.anchor = detail::resolve_anchor(options.anchor, Size{plan.kw, plan.kh}, kOp);
  plan.border = options.border;
  plan.method = options.method;
  plan.delta_f = static_cast<float>(options.delta);

  const int rtype = detail::kernel_type(kx, plan.anchor.x);
  const int ctype = detail::kernel_type(ky, plan.anchor.y);
  const int smooth_symm = detail::kernel_smooth | detail::kernel_symmetrical;
  const int symm_any = detail::kernel_symmetrical | detail::kernel_asymmetrical;
  bool fixed = false;
  if (src.depth() == Depth::u8 && ddepth == Depth::u8 && rtype == smooth_symm && ctype == smooth_symm) {
    fixed = bit_exact_kernel(kx, 8, plan.kx) && bit_exact_kernel(ky, 8, plan.ky);
    if (fixed) {
      plan.mode = detail::SepMode::bit_exact;
      plan.delta_i = static_cast<int>(std::nearbyint(options.delta * 65536.0));
      // SymmColumnVec_32s8u covers whole vectors of 4 elements; the rest is scalar.
      plan.tail = src.width() * src.channels() / 4 * 4;
    }
  } else if (src.depth() == Depth::u8 && ddepth == Depth::s16 && (rtype & symm_any) && (ctype & symm_any) &&
             (rtype & ctype & detail::kernel_integer)) {
    fixed = bit_exact_kernel(kx, 0, plan.kx) && bit_exact_kernel(ky, 0, plan.ky);
    if (fixed) {
      plan.mode = detail::SepMode::integer;
      plan.delta_i = static_cast<int>(std::nearbyint(options.delta));
    }
  }
  if (!fixed) {
    plan.mode = detail::SepMode::float_path;
    plan.kx = {};
    plan.ky = {};
    for (std::size_t i = 0; i < kx.size(); ++i) plan.kx[i] = detail::float_bits(kx[i]);
    for (std::size_t i = 0; i < ky.size(); ++i) plan.ky[i] = detail::float_bits(ky[i]);
    plan.col_kind = (ctype & detail::kernel_symmetrical) ? 1 : (ctype & detail::kernel_asymmetrical) ? 2 : 0;
  }
  detail::prepare_output(queue, src, dst, Format{ddepth, src.channels()}, kOp);
  plan.dst = &dst;
  return detail::launch_sep(queue, plan);
}

HostImage sep_filter(Queue& queue, const HostImage& src, std::span<const float> kx, std::span<const float> ky,
                     const SepFilterOptions& options) {
  detail::check_host(src, kOp, "src");
  const DeviceImage d_src = queue.upload(src);
  DeviceImage d_dst;
  sep_filter(queue, d_src, d_dst, kx, ky, options);
  return queue.download(d_dst);
}

}  // namespace plinth
