// Box filter: argument checks, OpenCV's sum-type and rounding rules, variant choice and launches.
// Kernels: kernels/box_filter.cl. Rules: docs/filters.md.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/image_checks.hpp"
#include "core/launch.hpp"
#include "ops/filter_support.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace {

constexpr const char* kOp = "box_filter";

// Kernel-side OUT_* codes of kernels/box_filter.cl.
enum class OutMode { fixed = 0, saturate = 1, scale = 2, double_scale = 3 };

// How cv::boxFilter (OpenCV 4.6, box_filter.simd.hpp) turns a window sum into an output, for
// the sum type createBoxFilter picks.
struct BoxRules {
  OutMode mode = OutMode::saturate;
  bool int_sums = true;  // exact integer window sums (else floating-point sums)
  int dd = 0;            // OutMode::fixed: ((s + dd) * ds) >> 23
  int ds = 0;
  int simd_end = 0;      // OutMode::scale: elements below it use OpenCV's float vector lanes
  float scale_f = 1.0f;
  double scale_d = 1.0;
};

BoxRules box_rules(Depth src, Depth dst, Size ksize, bool normalize, int row_elements) {
  BoxRules r;
  const int area = ksize.width * ksize.height;
  const bool scaled = normalize && area != 1;  // OpenCV skips a scale of exactly 1
  r.scale_d = normalize ? 1.0 / area : 1.0;
  r.scale_f = static_cast<float>(r.scale_d);
  if (src == Depth::u8 && dst == Depth::u8 && area <= 256) {
    // ushort sums; ColumnSum<ushort, uchar> divides by a 23-bit fixed-point reciprocal.
    r.mode = scaled ? OutMode::fixed : OutMode::saturate;
    if (scaled) {
      double scalef = static_cast<double>(1 << 23) / area;
      r.ds = static_cast<int>(std::floor(scalef));
      scalef -= r.ds;
      r.dd = area / 2;
      if (scalef < 0.5) {
        ++r.dd;
      } else {
        ++r.ds;
      }
    }
    return r;
  }
  const bool int_src = src == Depth::u8 || src == Depth::u16;
  const int int_limit = src == Depth::u8 ? (1 << 23) : (1 << 15);
  if (int_src && (!normalize || area <= int_limit)) {
    r.mode = scaled ? OutMode::scale : OutMode::saturate;
    // The vector loops of ColumnSum<int, T> cover whole vectors of 8 (8/16-bit T) or 4 (32-bit T).
    const int lanes = (dst == Depth::s32 || dst == Depth::f32) ? 4 : 8;
    r.simd_end = dst == Depth::f64 ? 0 : row_elements / lanes * lanes;
    return r;
  }
  // Double sums: f32 sources, and normalized u16 windows larger than 2^15.
  r.mode = OutMode::double_scale;
  r.int_sums = int_src;
  return r;
}

struct BoxPlan {
  const DeviceImage* src = nullptr;
  DeviceImage* dst = nullptr;
  Size ksize;
  Anchor anchor;
  BorderMode border = BorderMode::reflect_101;
  BoxFilterMethod method = BoxFilterMethod::local_scan;
  BoxRules rules;
  bool fp64 = false;
};

// Work-group shape of the local_scan kernel; chosen per request from the device's limits.
struct ScanPolicy {
  int lx = 256;          // work-items per group
  int ncol = 1;          // element columns per work-item (compile-time)
  int twp = 0;           // output pixels per strip
  int rows = 32;         // rows per chunk (R)
  int pitch = 0;         // elements per local row (odd: rows fall in different banks)
  int nrun = 0;          // scan runs per row
  int run_px = 0;        // pixels per run
  int strip_rows = 0;    // output rows per work-group
  std::size_t vbuf_bytes = 0;
  std::size_t totals_bytes = 0;

  static constexpr int max_rows = 32;
  static constexpr int min_strip_px = 64;
  static constexpr int max_ncol = 16;
  static constexpr int max_strip_rows = 256;
};

ScanPolicy scan_policy(Queue& queue, const BoxPlan& plan, std::size_t acc_size) {
  ScanPolicy p;
  const int cn = plan.src->channels();
  const int width = plan.src->width();
  const int kw = plan.ksize.width;
  p.lx = detail::work_group_size(queue, 256);
  // Enough columns per work-item that the strip is at least min_strip_px wide (or the image).
  const int want_px = std::min(width, ScanPolicy::min_strip_px);
  p.ncol = 1;
  while ((p.lx * p.ncol) / cn - (kw - 1) < want_px && p.ncol < ScanPolicy::max_ncol) ++p.ncol;
  p.twp = std::min(width, std::max(1, (p.lx * p.ncol) / cn - (kw - 1)));
  while ((p.twp + kw - 1) * cn > p.lx * p.ncol) ++p.ncol;  // tiny work-groups: make room
  const int ext_px = p.twp + kw - 1;
  p.pitch = (ext_px * cn) | 1;
  const std::size_t budget = detail::local_budget(queue);
  p.rows = std::min(ScanPolicy::max_rows, p.lx);
  while (p.rows > 1) {
    const std::size_t bytes = (static_cast<std::size_t>(p.rows) * p.pitch + static_cast<std::size_t>(p.lx) * cn) * acc_size;
    if (bytes <= budget) break;
    p.rows /= 2;
  }
  p.nrun = std::max(1, p.lx / p.rows);
  p.run_px = (ext_px + p.nrun - 1) / p.nrun;
  p.vbuf_bytes = static_cast<std::size_t>(p.rows) * p.pitch * acc_size;
  p.totals_bytes = static_cast<std::size_t>(p.rows) * p.nrun * cn * acc_size;
  // Tall strips amortise the kh rows that start each strip's running sums.
  const int kh = plan.ksize.height;
  int strip = std::max(64, 4 * kh);
  strip = std::min(strip, ScanPolicy::max_strip_rows);
  strip = (strip + p.rows - 1) / p.rows * p.rows;
  p.strip_rows = std::min(strip, (plan.src->height() + p.rows - 1) / p.rows * p.rows);
  return p;
}

detail::BuildOptions build_options(const BoxPlan& plan) {
  detail::BuildOptions o;
  o.define_depth("SRC", plan.src->depth()).define_depth("DST", plan.dst->depth());
  o.define("CN", plan.src->channels());
  o.define("ACC_INT", plan.rules.int_sums ? 1 : 0);
  if (!plan.rules.int_sums) o.define("ACC_T", plan.fp64 ? "double" : "float");
  o.define("OUT_MODE", static_cast<long long>(plan.rules.mode));
  o.define("HAS_FP64", plan.fp64 ? 1 : 0);
  if (plan.fp64) o.define("PLINTH_NEED_FP64");
  return o;
}

void convert_args(detail::Launch& launch, const BoxPlan& plan) {
  launch.arg(plan.rules.dd).arg(plan.rules.ds).arg(plan.rules.simd_end).arg(plan.rules.scale_f);
  if (plan.fp64) launch.arg(plan.rules.scale_d);
}

Event launch_direct(Queue& queue, const BoxPlan& plan) {
  const auto program = detail::get_program(queue, "box_filter.cl", build_options(plan).define("DIRECT"));
  const DeviceImage& src = *plan.src;
  detail::Launch launch(queue, program, "box_filter_direct");
  launch.arg(src.width()).arg(src.height()).arg(plan.ksize.width).arg(plan.ksize.height);
  launch.arg(plan.anchor.x).arg(plan.anchor.y).arg(detail::border_code(plan.border));
  convert_args(launch, plan);
  launch.image(src).image(*plan.dst);
  const std::size_t row_elements = static_cast<std::size_t>(src.width()) * src.channels();
  return Event(launch.run(detail::range(detail::round_up(row_elements, 64), static_cast<std::size_t>(src.height())),
                          detail::range(64, 1)));
}

Event launch_local_scan(Queue& queue, const BoxPlan& plan) {
  const std::size_t acc_size = plan.rules.int_sums ? 4 : (plan.fp64 ? 8 : 4);
  const ScanPolicy p = scan_policy(queue, plan, acc_size);
  detail::BuildOptions o = build_options(plan);
  o.define("LX", p.lx).define("NCOL", p.ncol);
  const auto program = detail::get_program(queue, "box_filter.cl", o);
  const DeviceImage& src = *plan.src;
  detail::Launch launch(queue, program, "box_filter_local_scan");
  launch.arg(src.width()).arg(src.height()).arg(plan.ksize.width).arg(plan.ksize.height);
  launch.arg(plan.anchor.x).arg(plan.anchor.y).arg(detail::border_code(plan.border));
  launch.arg(p.twp).arg(p.strip_rows).arg(p.rows).arg(p.pitch).arg(p.nrun).arg(p.run_px);
  convert_args(launch, plan);
  launch.image(src).image(*plan.dst).local(p.vbuf_bytes).local(p.totals_bytes);
  const std::size_t groups_x = (static_cast<std::size_t>(src.width()) + p.twp - 1) / p.twp;
  const std::size_t groups_y = (static_cast<std::size_t>(src.height()) + p.strip_rows - 1) / p.strip_rows;
  return Event(launch.run(detail::range(groups_x * p.lx, groups_y), detail::range(static_cast<std::size_t>(p.lx), 1)));
}

// Shape of the registers kernel: pixels per work-item (0: the window is too wide for it) and rows
// per strip. Each work-item holds (run_px + kw - 1) * channels running sums.
struct RegistersPolicy {
  int run_px = 0;
  int strip_rows = 0;
  int lx = 64;
  static constexpr int max_sums = 64;        // 32-bit sums per work-item (double sums count twice)
  static constexpr int items_per_unit = 512;  // work-items wanted per compute unit
};

RegistersPolicy registers_policy(Queue& queue, const DeviceImage& src, Size ksize, bool int_sums) {
  RegistersPolicy p;
  const int cn = src.channels();
  const int per_sum = int_sums ? 1 : 2;
  for (int run : {16, 8}) {
    if ((run + ksize.width - 1) * cn * per_sum <= RegistersPolicy::max_sums) {
      p.run_px = run;
      break;
    }
  }
  if (p.run_px == 0) return p;
  // Enough strips to fill the device, but not so short that restarting the column sums (kh rows
  // per strip) dominates.
  const int runs = (src.width() + p.run_px - 1) / p.run_px;
  const long long want = static_cast<long long>(RegistersPolicy::items_per_unit) *
                         std::max<unsigned>(queue.context().device().compute_units, 1);
  const long long strips = std::max<long long>(1, (want + runs - 1) / runs);
  int rows = static_cast<int>((src.height() + strips - 1) / strips);
  rows = std::max(rows, std::min(ksize.height, 64));
  rows = std::clamp(rows, 8, 256);
  p.strip_rows = rows;
  p.lx = detail::work_group_size(queue, 64);
  return p;
}

Event launch_registers(Queue& queue, const BoxPlan& plan, const RegistersPolicy& p) {
  detail::BuildOptions o = build_options(plan);
  o.define("KW", plan.ksize.width).define("RUN_PX", p.run_px);
  const auto program = detail::get_program(queue, "box_filter.cl", o);
  const DeviceImage& src = *plan.src;
  detail::Launch launch(queue, program, "box_filter_registers");
  launch.arg(src.width()).arg(src.height()).arg(plan.ksize.height).arg(plan.anchor.x).arg(plan.anchor.y);
  launch.arg(detail::border_code(plan.border)).arg(p.strip_rows);
  convert_args(launch, plan);
  launch.image(src).image(*plan.dst);
  const std::size_t runs = (static_cast<std::size_t>(src.width()) + p.run_px - 1) / p.run_px;
  const std::size_t strips = (static_cast<std::size_t>(src.height()) + p.strip_rows - 1) / p.strip_rows;
  const std::size_t lx = static_cast<std::size_t>(p.lx);
  return Event(launch.run(detail::range(detail::round_up(runs, lx), strips), detail::range(lx, 1)));
}

// Shape of the vector_strips kernel. vl: elements per work-item (one vector of 4, 8 or 16 bytes;
// 0: the window is too wide for it); strip_rows: rows per work-item.
struct StripsPolicy {
  int vl = 0;
  int strip_rows = 0;
  int lx = 64;
  long long items = 0;  // work-items that hold outputs
  bool aligned = false;  // rows of src and dst start on vl-element boundaries (set at launch)
  static constexpr int max_sums = 64;          // 32-bit running sums per work-item (double sums count twice)
  static constexpr int min_strip_rows = 16;    // amortises the kh rows that start each strip
  static constexpr int max_strip_rows = 256;
};

StripsPolicy strips_policy(Queue& queue, const DeviceImage& src, Size ksize, Anchor anchor, bool double_sums) {
  StripsPolicy p;
  const int cn = src.channels();
  const int es = static_cast<int>(depth_size(src.depth()));
  const int halo = (ksize.width - 1) * cn;  // elements a window reaches beyond its own
  // The narrowest vector at least as wide as the halo (narrower: more work-items, the same bytes
  // in flight per row step; but a halo wider than the vector costs more adds per output than the
  // parallelism gains), else the widest (16 bytes).
  for (int bytes : {4, 8, 16}) {
    const int vl = bytes / es;
    if (vl < 2) continue;
    p.vl = vl;
    if (halo <= vl) break;
  }
  const int vl = p.vl;
  const int hl = anchor.x * cn;
  const int hr = (ksize.width - 1 - anchor.x) * cn;
  const int sums = vl + hl + hr;
  if (sums * (double_sums ? 2 : 1) > StripsPolicy::max_sums) {
    p.vl = 0;
    return p;
  }
  const long long lanes = (static_cast<long long>(src.width()) * cn + vl - 1) / vl;
  int rows = ksize.height <= StripsPolicy::min_strip_rows ? StripsPolicy::min_strip_rows
                                                           : (ksize.height + 7) / 8 * 8;
  rows = std::min(rows, StripsPolicy::max_strip_rows);
  rows = std::min(rows, std::max(src.height(), 1));
  p.strip_rows = rows;
  p.items = lanes * ((src.height() + rows - 1) / rows);
  p.lx = detail::work_group_size(queue, 64);
  return p;
}

Event launch_vector_strips(Queue& queue, const BoxPlan& plan, const StripsPolicy& p) {
  detail::BuildOptions o = build_options(plan);
  o.define("VS_VL", p.vl).define("KW", plan.ksize.width).define("AX", plan.anchor.x);
  o.define("VS_ALIGNED", p.aligned ? 1 : 0);
  // Four u8 channels with window sums below 2^16: horizontal sums two to a word as well.
  static_assert(box_filter_max_ksize <= 256, "vector_strips packs vertical u8 sums in 16 bits");
  const int area = plan.ksize.width * plan.ksize.height;
  if (plan.src->depth() == Depth::u8 && plan.src->channels() == 4 && plan.rules.int_sums && area * 255 < 65536) {
    o.define("VS_HPACK");
  }
  const auto program = detail::get_program(queue, "box_filter.cl", o);
  const DeviceImage& src = *plan.src;
  detail::Launch launch(queue, program, "box_filter_vector_strips");
  launch.arg(src.width()).arg(src.height()).arg(plan.ksize.height).arg(plan.anchor.y);
  launch.arg(detail::border_code(plan.border)).arg(p.strip_rows);
  convert_args(launch, plan);
  launch.image(src).image(*plan.dst);
  const std::size_t lanes = (static_cast<std::size_t>(src.width()) * src.channels() + p.vl - 1) / p.vl;
  const std::size_t strips = (static_cast<std::size_t>(src.height()) + p.strip_rows - 1) / p.strip_rows;
  const std::size_t lx = static_cast<std::size_t>(p.lx);
  return Event(launch.run(detail::range(detail::round_up(lanes, lx), strips), detail::range(lx, 1)));
}

// Shape of the tiled kernel (kernels/box_filter_tiled.cl): u8 sources with integer sums, windows
// of at most max_kh rows whose halo ((kw - 1) * channels elements) is at most max_halo, so that a
// work-item reads at most 12 words per row. A tile is 32 word columns (one per lane) of which
// tile_words hold outputs, the rest the windows' halo; rpt: output rows per work-item, 8 * rpt
// per tile (0: not applicable).
struct TiledPolicy {
  int rpt = 0;
  int tile_words = 0;
  static constexpr int group = 256;
  static constexpr int columns = 32;
  static constexpr int max_halo = 38;
  static constexpr int max_kh = 64;
};

TiledPolicy tiled_policy(Queue& queue, const BoxPlan& plan) {
  TiledPolicy p;
  const int cn = plan.src->channels();
  const int halo = (plan.ksize.width - 1) * cn;
  if (plan.src->depth() != Depth::u8 || !plan.rules.int_sums || halo > TiledPolicy::max_halo ||
      plan.ksize.height > TiledPolicy::max_kh || detail::work_group_size(queue, TiledPolicy::group) < TiledPolicy::group) {
    return p;
  }
  // Windows of more than 32 rows take 4 rows per work-item (each row a register in the vertical pass).
  p.rpt = plan.ksize.height <= 32 ? detail::tiled_rows_per_item(*plan.src) : 4;
  const int hl = plan.anchor.x * cn;
  const int hr = (plan.ksize.width - 1 - plan.anchor.x) * cn;
  p.tile_words = TiledPolicy::columns - (hl + 3) / 4 - (hr + 3) / 4;
  return p;
}

Event launch_tiled(Queue& queue, const BoxPlan& plan, const TiledPolicy& p) {
  const DeviceImage& src = *plan.src;
  const DeviceImage& dst = *plan.dst;
  detail::BuildOptions o = build_options(plan);
  o.define("KW", plan.ksize.width).define("KH", plan.ksize.height).define("AX", plan.anchor.x).define("RPT", p.rpt);
  o.define("SRC_WORDS", detail::vector_aligned(src, 4) ? 1 : 0).define("DST_VEC", detail::vector_aligned(dst, 4) ? 1 : 0);
  const auto program = detail::get_program(queue, "box_filter_tiled.cl", o);
  detail::Launch launch(queue, program, "box_filter_tiled");
  launch.arg(src.width()).arg(src.height()).arg(plan.anchor.y).arg(detail::border_code(plan.border));
  convert_args(launch, plan);
  launch.image(src).image(dst);
  const std::size_t words = (static_cast<std::size_t>(src.width()) * src.channels() + 3) / 4;
  const std::size_t tile_w = static_cast<std::size_t>(p.tile_words);
  const std::size_t tile_h = static_cast<std::size_t>(8 * p.rpt);
  const std::size_t groups_x = (words + tile_w - 1) / tile_w;
  const std::size_t groups_y = (static_cast<std::size_t>(src.height()) + tile_h - 1) / tile_h;
  const std::size_t group = TiledPolicy::group;
  return Event(launch.run(detail::range(groups_x * group, groups_y), detail::range(group, 1)));
}

// Shape of the wide_rows kernel (kernels/box_filter_wide_rows.cl): u8 sources, window sums below
// 2^16 (the packed horizontal sums), a halo of at most 16 elements each side (the span beside a
// work-item's own), at most max_kh rows (RPT + KH - 1 rows of 4 words held in registers). Its
// launch shape and rows per work-item: detail::wide_rows_* (filter_support.hpp).
struct WideRowsPolicy {
  bool fits = false;
  int rows = 4;                           // output rows per work-item
  static constexpr int max_halo = 16;
  static constexpr int max_kh = 9;
};

WideRowsPolicy wide_rows_policy(Queue& queue, const BoxPlan& plan) {
  WideRowsPolicy p;
  const int cn = plan.src->channels();
  const int hl = plan.anchor.x * cn;
  const int hr = (plan.ksize.width - 1 - plan.anchor.x) * cn;
  const bool sums_fit = plan.ksize.width * plan.ksize.height * 255 < 65536;
  p.fits = plan.src->depth() == Depth::u8 && plan.rules.int_sums && sums_fit && hl <= WideRowsPolicy::max_halo &&
           hr <= WideRowsPolicy::max_halo && plan.ksize.height <= WideRowsPolicy::max_kh &&
           detail::work_group_size(queue, detail::wide_rows_group) >= detail::wide_rows_group;
  p.rows = detail::wide_rows_rows_per_item(*plan.src);
  return p;
}

Event launch_wide_rows(Queue& queue, const BoxPlan& plan, const WideRowsPolicy& p) {
  const DeviceImage& src = *plan.src;
  const DeviceImage& dst = *plan.dst;
  detail::BuildOptions o = build_options(plan);
  o.define("KW", plan.ksize.width).define("KH", plan.ksize.height).define("AX", plan.anchor.x);
  o.define("RPT", p.rows);
  o.define("SRC_WORDS", detail::vector_aligned(src, 4) ? 1 : 0);
  o.define("SRC_SPANS", detail::vector_aligned(src, 16) ? 1 : 0);
  o.define("DST_VEC", detail::vector_aligned(dst, 4) ? 1 : 0);
  o.define("DST_SPANS", detail::vector_aligned(dst, 16) ? 1 : 0);
  const auto program = detail::get_program(queue, "box_filter_wide_rows.cl", o);
  detail::Launch launch(queue, program, "box_filter_wide_rows");
  launch.arg(src.width()).arg(src.height()).arg(plan.anchor.y).arg(detail::border_code(plan.border));
  convert_args(launch, plan);
  launch.image(src).image(dst);
  const std::size_t group = detail::wide_rows_group;
  return Event(launch.run(detail::range(detail::wide_rows_groups_x(src) * group, detail::wide_rows_groups_y(src, p.rows)),
                          detail::range(group, 1)));
}

Event launch_two_pass(Queue& queue, const BoxPlan& plan) {
  const DeviceImage& src = *plan.src;
  const int cn = src.channels();
  const std::size_t t_step = static_cast<std::size_t>(src.width() + 13) * cn;
  const std::size_t t_rows = static_cast<std::size_t>(src.height()) + 13;
  const detail::ScratchLease t = detail::scratch(queue, "box_filter.two_pass_8x8", t_step * t_rows * sizeof(std::uint16_t));
  const auto program = detail::get_program(queue, "box_filter.cl", build_options(plan).define("TWO_PASS"));

  detail::Launch first(queue, program, "box_filter_2x2");
  first.arg(src.width()).arg(src.height()).arg(detail::border_code(plan.border)).image(src);
  first.buffer(*t.buffer).arg(static_cast<int>(t_step));
  auto a = first.run(detail::range(detail::round_up(t_step, 64), t_rows), detail::range(64, 1));

  detail::Launch second(queue, program, "box_filter_8x8_from_2x2");
  second.arg(src.width()).arg(src.height()).arg(plan.anchor.x).arg(plan.anchor.y);
  convert_args(second, plan);
  second.buffer(*t.buffer).arg(static_cast<int>(t_step)).image(*plan.dst);
  const std::size_t row_elements = static_cast<std::size_t>(src.width()) * cn;
  auto b = second.run(detail::range(detail::round_up(row_elements, 64), static_cast<std::size_t>(src.height())),
                      detail::range(64, 1));
  return Event(a, b);
}

// GPUs: tiled where it applies (u8, small windows), else local_scan (H100, u8 3840x2160:
// docs/PERFORMANCE.md); on NVIDIA sm_90, wide_rows where it applies and measured faster (H200,
// 2026-11-29, docs/filters.md):
// - three and four channels: 3x3 and 8x8 1.2-2.0x at 3840x2160 and 7680x4320 on both backends,
//   8x8 up to 1.4x at 1920x1080, where 3x3 stays on tiled (3-6% slower on CUDA, equal on OpenCL);
// - one channel above 16 M elements and between 1 M and 4 M (1920x1080): on NVIDIA's OpenCL 3x3
//   to 8x8 (1.1-1.4x), on CUDA 3 rows only (3x3 at 7680x4320 27.4 against 28.8 us, at 1920x1080
//   8.0 against 9.0; 5x5 and 8x8 slower there); 3840x2160 is slower on both (too few warps).
// CPUs (PoCL, where the work-items of a group run as vector lanes and wide per-item runs pay):
// registers where it fits, else local_scan (timings in docs/filters.md).
BoxFilterMethod automatic_method(Queue& queue, const BoxPlan& plan, const RegistersPolicy& regs,
                                 const TiledPolicy& tiled, const WideRowsPolicy& wide) {
  const DeviceInfo& device = queue.context().device();
  if (device.type == DeviceType::cpu && regs.run_px > 0) return BoxFilterMethod::registers;
  if (device.type == DeviceType::cpu) return BoxFilterMethod::local_scan;
  if (wide.fits && device.nvidia_arch >= 90) {
    constexpr double mega = 1 << 20;
    const int cn = plan.src->channels();
    const double n = detail::element_count(*plan.src);
    const bool three_rows = plan.ksize.height <= 3;
    // Several channels: all but 3x3-like windows of at most 4 M pixels.
    const bool several_win = cn >= 3 && (!three_rows || n / cn > 4 * mega);
    // One channel: above 16 M elements and between 1 M and 4 M (not 3840x2160: too few warps);
    // every window on NVIDIA's OpenCL, 3 rows on CUDA.
    const bool one_size = n > 16 * mega || (n > 1 * mega && n <= 4 * mega);
    const bool one_win = cn == 1 && one_size && (device.backend == "opencl" || three_rows);
    if (several_win || one_win) return BoxFilterMethod::wide_rows;
  }
  if (tiled.rpt > 0) return BoxFilterMethod::tiled;
  return BoxFilterMethod::local_scan;
}

}  // namespace

std::string_view to_string(BoxFilterMethod method) noexcept {
  switch (method) {
    case BoxFilterMethod::automatic: return "auto";
    case BoxFilterMethod::registers: return "registers";
    case BoxFilterMethod::local_scan: return "local_scan";
    case BoxFilterMethod::two_pass_8x8: return "two_pass_8x8";
    case BoxFilterMethod::direct: return "direct";
    case BoxFilterMethod::vector_strips: return "vector_strips";
    case BoxFilterMethod::tiled: return "tiled";
    case BoxFilterMethod::wide_rows: return "wide_rows";
  }
  return "?";
}

BoxFilterMethod parse_box_filter_method(std::string_view text) {
  for (BoxFilterMethod m : {BoxFilterMethod::automatic, BoxFilterMethod::registers, BoxFilterMethod::local_scan,
                            BoxFilterMethod::two_pass_8x8, BoxFilterMethod::direct, BoxFilterMethod::vector_strips,
                            BoxFilterMethod::tiled, BoxFilterMethod::wide_rows}) {
    if (text == to_string(m)) return m;
  }
  throw Error(ErrorCode::invalid_argument, kOp, "method",
              "unknown method '" + std::string(text) +
                  "' (expected auto, wide_rows, tiled, registers, local_scan, two_pass_8x8, direct or vector_strips)");
}

Event box_filter(Queue& queue, const DeviceImage& src, DeviceImage& dst, const BoxFilterOptions& options) {
  detail::check_device(queue, src, kOp, "src");
  detail::check_depth(src.depth(), {Depth::u8, Depth::u16, Depth::f32}, kOp, "src");
  detail::check_ksize(options.ksize, box_filter_max_ksize, kOp, "ksize");
  detail::check_border(options.border,
                       {BorderMode::constant, BorderMode::replicate, BorderMode::reflect, BorderMode::reflect_101}, kOp);
  const Depth ddepth = options.ddepth.value_or(src.depth());
  if (src.depth() == Depth::f32) {
    detail::check_depth(ddepth, {Depth::u8, Depth::u16, Depth::s16, Depth::f32, Depth::f64}, kOp, "ddepth");
  } else {
    detail::check_depth(ddepth, {Depth::u8, Depth::u16, Depth::s16, Depth::s32, Depth::f32, Depth::f64}, kOp, "ddepth");
  }
  detail::check_fp64(queue, ddepth, kOp, "ddepth");

  BoxPlan plan;
  plan.src = &src;
  plan.ksize = options.ksize;
  plan.anchor = detail::resolve_anchor(options.anchor, options.ksize, kOp);
  plan.border = options.border;
  plan.fp64 = queue.context().device().has_fp64;
  plan.rules = box_rules(src.depth(), ddepth, options.ksize, options.normalize, src.width() * src.channels());
  const RegistersPolicy regs = registers_policy(queue, src, options.ksize, plan.rules.int_sums);
  const bool double_sums = !plan.rules.int_sums && plan.fp64;
  StripsPolicy strips = strips_policy(queue, src, options.ksize, plan.anchor, double_sums);
  plan.method = options.method;
  const TiledPolicy tiled = tiled_policy(queue, plan);
  const WideRowsPolicy wide = wide_rows_policy(queue, plan);
  if (plan.method == BoxFilterMethod::automatic) plan.method = automatic_method(queue, plan, regs, tiled, wide);
  const auto too_wide = [&](const char* method) {
    throw Error(ErrorCode::invalid_argument, kOp, "method",
                std::string(method) + ": a " + std::to_string(options.ksize.width) + "-pixel wide window of " +
                    std::to_string(src.channels()) + " channels needs too many registers; use auto or local_scan");
  };
  if (plan.method == BoxFilterMethod::registers && regs.run_px == 0) too_wide("registers");
  if (plan.method == BoxFilterMethod::vector_strips && strips.vl == 0) too_wide("vector_strips");
  if (plan.method == BoxFilterMethod::tiled && tiled.rpt == 0) {
    throw Error(ErrorCode::invalid_argument, kOp, "method",
                "tiled filters u8 images with windows of at most " + std::to_string(TiledPolicy::max_kh) +
                    " rows and (width - 1) x channels at most " + std::to_string(TiledPolicy::max_halo) +
                    "; use auto or local_scan");
  }
  if (plan.method == BoxFilterMethod::wide_rows && !wide.fits) {
    throw Error(ErrorCode::invalid_argument, kOp, "method",
                "wide_rows filters u8 images with windows of at most " + std::to_string(WideRowsPolicy::max_kh) +
                    " rows, at most " + std::to_string(WideRowsPolicy::max_halo) +
                    " elements (pixels x channels) each side of the anchor and width x height x 255 below 65536; "
                    "use auto or tiled");
  }
  if (plan.method == BoxFilterMethod::two_pass_8x8 &&
      (options.ksize != Size{8, 8} || !options.normalize || src.depth() != Depth::u8 || ddepth != Depth::u8)) {
    throw Error(ErrorCode::invalid_argument, kOp, "method",
                "two_pass_8x8 computes normalized 8x8 boxes of u8 images into u8 only");
  }
  detail::prepare_output(queue, src, dst, Format{ddepth, src.channels()}, kOp);
  plan.dst = &dst;

  switch (plan.method) {
    case BoxFilterMethod::vector_strips:
      strips.aligned = detail::vector_aligned(src, strips.vl) && detail::vector_aligned(dst, strips.vl);
      return launch_vector_strips(queue, plan, strips);
    case BoxFilterMethod::tiled: return launch_tiled(queue, plan, tiled);
    case BoxFilterMethod::wide_rows: return launch_wide_rows(queue, plan, wide);
    case BoxFilterMethod::registers: return launch_registers(queue, plan, regs);
    case BoxFilterMethod::local_scan: return launch_local_scan(queue, plan);
    case BoxFilterMethod::two_pass_8x8: return launch_two_pass(queue, plan);
    case BoxFilterMethod::direct: return launch_direct(queue, plan);
    case BoxFilterMethod::automatic: break;
  }
  throw Error(ErrorCode::internal, kOp, "method", "unresolved");
}

HostImage box_filter(Queue& queue, const HostImage& src, const BoxFilterOptions& options) {
  detail::check_host(src, kOp, "src");
  const DeviceImage d_src = queue.upload(src);
  DeviceImage d_dst;
  box_filter(queue, d_src, d_dst, options);
  return queue.download(d_dst);
}

}  // namespace plinth
