// cvt_color: the conversion table, argument checks and launches of kernels/color.cl.
#include <string>

#include "core/launch.hpp"
#include "ops/elementwise_common.hpp"
#include "plinth/color.hpp"

namespace plinth {
namespace {

constexpr const char* kOp = "cvt_color";

struct Conversion {
  ColorConversion code;
  const char* name;
  bool from_nv12;
  int channels;  // source channels (RGB family) or destination channels (NV12)
  bool red_first;
};

constexpr Conversion kConversions[] = {
    {ColorConversion::rgb_to_gray, "rgb_to_gray", false, 3, true},
    {ColorConversion::bgr_to_gray, "bgr_to_gray", false, 3, false},
    {ColorConversion::rgba_to_gray, "rgba_to_gray", false, 4, true},
    {ColorConversion::bgra_to_gray, "bgra_to_gray", false, 4, false},
    {ColorConversion::nv12_to_gray, "nv12_to_gray", true, 1, true},
    {ColorConversion::nv12_to_rgb, "nv12_to_rgb", true, 3, true},
    {ColorConversion::nv12_to_bgr, "nv12_to_bgr", true, 3, false},
    {ColorConversion::nv12_to_rgba, "nv12_to_rgba", true, 4, true},
    {ColorConversion::nv12_to_bgra, "nv12_to_bgra", true, 4, false},
};

const Conversion& lookup(ColorConversion code) {
  for (const Conversion& c : kConversions) {
    if (c.code == code) return c;
  }
  throw Error(ErrorCode::invalid_argument, kOp, "code", "unknown conversion");
}

// Policy: pixels per work-item of rgb_to_gray and the work-group shape.
struct ColorPolicy {
  int gray_pixels = 4;
  std::size_t group_x = 64;
  std::size_t group_y = 4;
};

}  // namespace

std::string_view to_string(ColorConversion code) noexcept {
  for (const Conversion& c : kConversions) {
    if (c.code == code) return c.name;
  }
  return "?";
}

ColorConversion parse_color_conversion(std::string_view text) {
  std::string names;
  for (const Conversion& c : kConversions) {
    if (text == c.name) return c.code;
    names += names.empty() ? "" : ", ";
    names += c.name;
  }
  throw Error(ErrorCode::invalid_argument, kOp, "code", "unknown conversion '" + std::string(text) + "' (expected " + names + ")");
}

Event cvt_color(Queue& queue, const DeviceImage& src, DeviceImage& dst, ColorConversion code) {
  const Conversion& conv = lookup(code);
  if (conv.from_nv12) {
    throw Error(ErrorCode::invalid_argument, kOp, "code",
                std::string(conv.name) + " converts NV12 frames; pass a DeviceNv12Frame (or nv12_planes of a packed frame)");
  }
  detail::check_device(queue, src, kOp, "src");
  detail::check_depth(src.depth(), {Depth::u8, Depth::u16, Depth::f32}, kOp, "src");
  if (src.channels() != conv.channels) {
    throw Error(ErrorCode::invalid_argument, kOp, "src",
                std::string(conv.name) + " needs " + std::to_string(conv.channels) + " channels, not " +
                    std::to_string(src.channels()));
  }
  detail::prepare_output(queue, dst, src.size(), Format{src.depth(), 1}, kOp, "dst");
  detail::check_no_overlap(src, dst, kOp, "dst");

  const ColorPolicy policy;
  detail::BuildOptions options;
  options.define_depth("SRC", src.depth()).define("SCN", conv.channels).define("RIDX", conv.red_first ? 0 : 2);
  options.define("PX", policy.gray_pixels);
  detail::Launch launch(queue, detail::get_program(queue, "color.cl", options), "rgb_to_gray");
  launch.arg(src.width()).arg(src.height()).image(src).image(dst);
  const auto items = static_cast<std::size_t>((src.width() + policy.gray_pixels - 1) / policy.gray_pixels);
  return Event(launch.run(detail::range(detail::round_up(items, policy.group_x),
                                        detail::round_up(static_cast<std::size_t>(src.height()), policy.group_y)),
                          detail::range(policy.group_x, policy.group_y)));
}

Event cvt_color(Queue& queue, const DeviceNv12Frame& src, DeviceImage& dst, ColorConversion code) {
  const Conversion& conv = lookup(code);
  if (!conv.from_nv12) {
    throw Error(ErrorCode::invalid_argument, kOp, "code", std::string(conv.name) + " does not convert NV12 frames");
  }
  check_nv12_frame(src, kOp, "src");
  detail::check_device(queue, src.y, kOp, "src.y");
  detail::check_device(queue, src.uv, kOp, "src.uv");
  detail::prepare_output(queue, dst, src.size(), Format{Depth::u8, conv.channels}, kOp, "dst");
  detail::check_no_overlap(src.y, dst, kOp, "dst");
  detail::check_no_overlap(src.uv, dst, kOp, "dst");
  if (code == ColorConversion::nv12_to_gray) return queue.copy(src.y, dst);  // OpenCV's grey is the Y plane

  const ColorPolicy policy;
  detail::BuildOptions options;
  options.define("DCN", conv.channels).define("RIDX", conv.red_first ? 0 : 2);
  detail::Launch launch(queue, detail::get_program(queue, "color.cl", options), "nv12_to_rgb");
  launch.arg(src.y.width()).arg(src.y.height()).image(src.y).image(src.uv).image(dst);
  const auto bx = static_cast<std::size_t>(src.y.width() / 2), by = static_cast<std::size_t>(src.y.height() / 2);
  return Event(launch.run(detail::range(detail::round_up(bx, policy.group_x), detail::round_up(by, policy.group_y)),
                          detail::range(policy.group_x, policy.group_y)));
}

HostImage cvt_color(Queue& queue, const HostImage& src, ColorConversion code) {
  detail::check_host(src, kOp, "src");
  const DeviceImage d_src = queue.upload(src);
  DeviceImage dst;
  cvt_color(queue, d_src, dst, code);
  return queue.download(dst);
}

HostImage cvt_color(Queue& queue, const Nv12Frame& src, ColorConversion code) {
  const DeviceNv12Frame d_src = upload_nv12(queue, src);
  DeviceImage dst;
  cvt_color(queue, d_src, dst, code);
  return queue.download(dst);
}

}  // namespace plinth
