// Non-separable linear filter (cv::filter2D): checks, coefficients on the device, tile policy and
// launches. Kernels: kernels/filter2d.cl.
#include <cmath>
#include <string>

#include "core/image_checks.hpp"
#include "core/launch.hpp"
#include "ops/filter_support.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace {

constexpr const char* kOp = "filter2d";

// Work-group shape of the fused kernel: 16 x 16 work-items, each PXP x PYP outputs.
struct Filter2DPolicy {
  static constexpr int gx = 16;
  static constexpr int gy = 16;
  int pxp = 0;
  int pyp = 0;
  int tile_pitch = 0;
  std::size_t tile_bytes = 0;
  bool fits = false;
};

// The largest output block per work-item whose source tile fits the local-memory budget.
Filter2DPolicy fused_policy(Queue& queue, const DeviceImage& src, Size k) {
  Filter2DPolicy best;
  if (detail::work_group_size(queue, 256) < 256) return best;
  const int cn = src.channels();
  const std::size_t esize = depth_size(src.depth());
  const std::size_t words = esize >= 4 ? 1 : 4 / esize;  // elements per 32-bit word
  const int blocks[][2] = {{4, 4}, {4, 2}, {2, 2}, {2, 1}, {1, 1}};
  for (const auto& b : blocks) {
    Filter2DPolicy p;
    p.pxp = b[0];
    p.pyp = b[1];
    int pitch = (Filter2DPolicy::gx * p.pxp + k.width - 1) * cn;
    pitch = static_cast<int>((static_cast<std::size_t>(pitch) + words - 1) / words * words);
    if ((pitch / static_cast<int>(words)) % 2 == 0) pitch += static_cast<int>(words);  // rows in different banks
    p.tile_pitch = pitch;
    p.tile_bytes = static_cast<std::size_t>(Filter2DPolicy::gy * p.pyp + k.height - 1) * pitch * esize;
    if (p.tile_bytes <= detail::local_budget(queue)) {
      p.fits = true;
      return p;
    }
  }
  return best;
}

// Shape of the tiled_rows kernel: 16 x 16 work-items, each px x py outputs of all channels, where
// px * channels is a multiple of 4 (4-element vector loads) and px * py * channels <= 16.
struct TiledRowsPolicy {
  static constexpr int gx = 16;
  static constexpr int gy = 16;
  int px = 0;
  int py = 0;
  int tile_pitch = 0;  // elements
  int coef_pitch = 0;  // floats
  std::size_t tile_bytes = 0;
  std::size_t coef_bytes = 0;
  bool fits = false;
};

TiledRowsPolicy tiled_rows_policy(Queue& queue, const DeviceImage& src, Size k) {
  TiledRowsPolicy best;
  if (detail::work_group_size(queue, 256) < 256) return best;
  const int cn = src.channels();
  const std::size_t esize = depth_size(src.depth());
  const int px = cn == 1 ? 4 : cn == 2 ? 2 : cn == 3 ? 4 : 1;
  const int max_py = cn == 3 ? 1 : 4;
  for (int py = max_py; py >= 1; py /= 2) {
    TiledRowsPolicy p;
    p.px = px;
    p.py = py;
    int pitch = (TiledRowsPolicy::gx * px + k.width - 1) * cn;
    pitch = (pitch + 3) / 4 * 4;
    if (esize == 1) {
      // 4-byte loads: the two rows of work-items in a warp land half a bank row apart.
      while ((py * pitch / 4) % 32 != 16) pitch += 4;
    }
    p.tile_pitch = pitch;
    p.coef_pitch = (k.width + 3) / 4 * 4;
    p.tile_bytes = static_cast<std::size_t>(TiledRowsPolicy::gy * py + k.height - 1) * pitch * esize;
    // The coefficients (read as float4) follow the tile where a runtime packs local arguments.
    p.tile_bytes = (p.tile_bytes + 127) / 128 * 128;
    p.coef_bytes = static_cast<std::size_t>(k.height) * p.coef_pitch * sizeof(float);
    if (p.tile_bytes + p.coef_bytes <= detail::local_budget(queue)) {
      p.fits = true;
      return p;
    }
  }
  return best;
}

detail::BuildOptions base_options(const DeviceImage& src, const DeviceImage& dst) {
  detail::BuildOptions o;
  o.define_depth("SRC", src.depth()).define_depth("DST", dst.depth()).define("CN", src.channels());
  return o;
}

}  // namespace

std::string_view to_string(Filter2DMethod method) noexcept {
  switch (method) {
    case Filter2DMethod::automatic: return "auto";
    case Filter2DMethod::fused: return "fused";
    case Filter2DMethod::direct: return "direct";
    case Filter2DMethod::tiled_rows: return "tiled_rows";
  }
  return "?";
}

Filter2DMethod parse_filter2d_method(std::string_view text) {
  for (Filter2DMethod m :
       {Filter2DMethod::automatic, Filter2DMethod::fused, Filter2DMethod::direct, Filter2DMethod::tiled_rows}) {
    if (text == to_string(m)) return m;
  }
  throw Error(ErrorCode::invalid_argument, kOp, "method",
              "unknown method '" + std::string(text) + "' (expected auto, fused, direct or tiled_rows)");
}

Filter2DKernel::Filter2DKernel(Queue& queue, Size ksize, std::span<const float> coefficients) {
  detail::check_ksize(ksize, filter2d_max_ksize, kOp, "ksize");
  const std::size_t n = static_cast<std::size_t>(ksize.width) * static_cast<std::size_t>(ksize.height);
  if (coefficients.size() != n) {
    throw Error(ErrorCode::invalid_argument, kOp, "kernel",
                std::to_string(coefficients.size()) + " coefficients for a " + detail::size_text(ksize) +
                    " kernel (expected " + std::to_string(n) + ")");
  }
  for (float v : coefficients) {
    if (!std::isfinite(v)) throw Error(ErrorCode::invalid_argument, kOp, "kernel", "has a coefficient that is not finite");
  }
  ksize_ = ksize;
  coefficients_.assign(coefficients.begin(), coefficients.end());
  HostImage host = HostImage::wrap(coefficients_.data(), static_cast<int>(n), 1, Format{Depth::f32, 1}, n * sizeof(float));
  device_ = DeviceImage(queue.context(), static_cast<int>(n), 1, Format{Depth::f32, 1});
  queue.upload(host, device_).wait();
}

Event filter2d(Queue& queue, const DeviceImage& src, DeviceImage& dst, const Filter2DKernel& kernel,
               const Filter2DOptions& options) {
  detail::check_device(queue, src, kOp, "src");
  detail::check_depth(src.depth(), {Depth::u8, Depth::f32}, kOp, "src");
  if (kernel.empty()) throw Error(ErrorCode::invalid_argument, kOp, "kernel", "is empty");
  detail::check_device(queue, kernel.device(), kOp, "kernel");
  detail::check_border(options.border,
                       {BorderMode::constant, BorderMode::replicate, BorderMode::reflect, BorderMode::reflect_101}, kOp);
  const Depth ddepth = options.ddepth.value_or(src.depth());
  if (src.depth() == Depth::u8) {
    detail::check_depth(ddepth, {Depth::u8, Depth::s16, Depth::f32}, kOp, "ddepth");
  } else {
    detail::check_depth(ddepth, {Depth::f32}, kOp, "ddepth");
  }
  if (!std::isfinite(options.delta)) throw Error(ErrorCode::invalid_argument, kOp, "delta", "is not finite");
  const Size k = kernel.ksize();
  const Anchor anchor = detail::resolve_anchor(options.anchor, k, kOp);
  detail::prepare_output(queue, src, dst, Format{ddepth, src.channels()}, kOp);
  const float delta = static_cast<float>(options.delta);

  Filter2DMethod method = options.method;
  const Filter2DPolicy p = fused_policy(queue, src, k);
  const TiledRowsPolicy tr = tiled_rows_policy(queue, src, k);
  if (method == Filter2DMethod::automatic) {
    // GPUs: tiled_rows (H100, f32 31x31 at 3840x2160: fused 1184 us, bound by its local loads,
    // several per multiply-add and 4-way bank conflicts). CPUs: fused (docs/filters.md).
    const bool cpu = queue.context().device().type == DeviceType::cpu;
    method = (!cpu && tr.fits) ? Filter2DMethod::tiled_rows : p.fits ? Filter2DMethod::fused : Filter2DMethod::direct;
  }
  if ((method == Filter2DMethod::fused && !p.fits) || (method == Filter2DMethod::tiled_rows && !tr.fits)) {
    throw Error(ErrorCode::invalid_argument, kOp, "method",
                std::string(to_string(method)) +
                    ": no tile fits the device's local memory or work-group size; use auto or direct");
  }

  if (method == Filter2DMethod::tiled_rows) {
    detail::BuildOptions o = base_options(src, dst);
    o.define("KW", k.width).define("KH", k.height).define("TR_GX", TiledRowsPolicy::gx).define("TR_GY", TiledRowsPolicy::gy);
    o.define("TR_PX", tr.px).define("TR_PY", tr.py).define("TR_TP", tr.tile_pitch).define("TR_KP", tr.coef_pitch);
    const auto program = detail::get_program(queue, "filter2d.cl", o);
    detail::Launch launch(queue, program, "filter2d_tiled_rows");
    launch.arg(src.width()).arg(src.height()).arg(anchor.x).arg(anchor.y).arg(detail::border_code(options.border));
    launch.arg(delta).image(kernel.device()).image(src).image(dst).local(tr.tile_bytes).local(tr.coef_bytes);
    const std::size_t tw = static_cast<std::size_t>(TiledRowsPolicy::gx * tr.px);
    const std::size_t th = static_cast<std::size_t>(TiledRowsPolicy::gy * tr.py);
    const std::size_t groups_x = (static_cast<std::size_t>(src.width()) + tw - 1) / tw;
    const std::size_t groups_y = (static_cast<std::size_t>(src.height()) + th - 1) / th;
    return Event(launch.run(detail::range(groups_x * TiledRowsPolicy::gx, groups_y * TiledRowsPolicy::gy),
                            detail::range(TiledRowsPolicy::gx, TiledRowsPolicy::gy)));
  }

  if (method == Filter2DMethod::direct) {
    const auto program = detail::get_program(queue, "filter2d.cl", base_options(src, dst));
    detail::Launch launch(queue, program, "filter2d_direct");
    launch.arg(src.width()).arg(src.height()).arg(k.width).arg(k.height).arg(anchor.x).arg(anchor.y);
    launch.arg(detail::border_code(options.border)).arg(delta).image(kernel.device()).image(src).image(dst);
    const std::size_t row_elements = static_cast<std::size_t>(src.width()) * src.channels();
    return Event(launch.run(detail::range(detail::round_up(row_elements, 64), static_cast<std::size_t>(src.height())),
                            detail::range(64, 1)));
  }

  detail::BuildOptions o = base_options(src, dst);
  o.define("KW", k.width).define("KH", k.height).define("GX", Filter2DPolicy::gx).define("GY", Filter2DPolicy::gy);
  o.define("PXP", p.pxp).define("PYP", p.pyp);
  const auto program = detail::get_program(queue, "filter2d.cl", o);
  detail::Launch launch(queue, program, "filter2d_fused");
  launch.arg(src.width()).arg(src.height()).arg(anchor.x).arg(anchor.y).arg(detail::border_code(options.border));
  launch.arg(delta).image(kernel.device()).image(src).image(dst).arg(p.tile_pitch).local(p.tile_bytes);
  const std::size_t tw = static_cast<std::size_t>(Filter2DPolicy::gx * p.pxp);
  const std::size_t th = static_cast<std::size_t>(Filter2DPolicy::gy * p.pyp);
  const std::size_t groups_x = (static_cast<std::size_t>(src.width()) + tw - 1) / tw;
  const std::size_t groups_y = (static_cast<std::size_t>(src.height()) + th - 1) / th;
  return Event(launch.run(detail::range(groups_x * Filter2DPolicy::gx, groups_y * Filter2DPolicy::gy),
                          detail::range(Filter2DPolicy::gx, Filter2DPolicy::gy)));
}

HostImage filter2d(Queue& queue, const HostImage& src, Size ksize, std::span<const float> coefficients,
                   const Filter2DOptions& options) {
  detail::check_host(src, kOp, "src");
  const Filter2DKernel kernel(queue, ksize, coefficients);
  const DeviceImage d_src = queue.upload(src);
  DeviceImage d_dst;
  filter2d(queue, d_src, d_dst, kernel, options);
  return queue.download(d_dst);
}

}  // namespace plinth
