#pragma once
// Colour conversions equal to cv::cvtColor.
//   *_to_gray from RGB, BGR, RGBA, BGRA: u8 and u16 in OpenCV's 15-bit fixed point
//     (Y = (9798 R + 19235 G + 3735 B + 2^14) >> 15), f32 as 0.299 R + 0.587 G + 0.114 B with
//     OpenCV's order of fused multiply-adds.
//   nv12_to_*: OpenCV's COLOR_YUV2{GRAY,RGB,BGR,RGBA,BGRA}_NV12 integer path (BT.601 studio range,
//     20-bit fixed point), bit exact; gray is the Y plane.

#include <string_view>

#include "plinth/core.hpp"
#include "plinth/image.hpp"
#include "plinth/nv12.hpp"

namespace plinth {

enum class ColorConversion {
  rgb_to_gray,
  bgr_to_gray,
  rgba_to_gray,
  bgra_to_gray,
  nv12_to_gray,
  nv12_to_rgb,
  nv12_to_bgr,
  nv12_to_rgba,
  nv12_to_bgra,
};

std::string_view to_string(ColorConversion code) noexcept;
// Parses the names above ("rgb_to_gray", "nv12_to_bgr", ...).
ColorConversion parse_color_conversion(std::string_view text);

// RGB-family sources (the *_to_gray codes). dst may be empty (allocated) or a one-channel image
// of src's size and depth.
Event cvt_color(Queue& queue, const DeviceImage& src, DeviceImage& dst, ColorConversion code);
// NV12 sources (the nv12_to_* codes). dst may be empty (allocated, u8) or a u8 image of the
// frame's size with the code's channels.
Event cvt_color(Queue& queue, const DeviceNv12Frame& src, DeviceImage& dst, ColorConversion code);

HostImage cvt_color(Queue& queue, const HostImage& src, ColorConversion code);
HostImage cvt_color(Queue& queue, const Nv12Frame& src, ColorConversion code);

}  // namespace plinth
