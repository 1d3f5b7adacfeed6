#pragma once
// Elementwise arithmetic with OpenCV's semantics (cv::add, cv::subtract, cv::absdiff and
// cv::Mat::convertTo). Channels are independent, so an image is treated as rows of
// width * channels elements. Depths: u8, s8, u16, s16, s32, f32 and f64 (f64 needs a device with
// double precision). The exact rules, including OpenCV's quirks kept on purpose, are in
// docs/filters.md.

#include <string_view>

#include "plinth/core.hpp"
#include "plinth/image.hpp"

namespace plinth {

enum class ElementwiseMethod {
  automatic,  // vector: the fastest path the images allow
  plain,      // one element per work-item: the obviously correct reference
  vector,     // several elements per work-item with vector loads and stores; 16-byte aligned rows
              // take whole-vector loads, other views and odd widths element-aligned ones
};

std::string_view to_string(ElementwiseMethod method) noexcept;
// Parses "auto", "plain" or "vector".
ElementwiseMethod parse_elementwise_method(std::string_view text);

// dst = a + b, a - b or |a - b|. a and b have the same size, depth and channels; dst may be
// empty (then it is allocated) or an image of that shape, and may be a itself or b itself (in
// place); partial overlaps are refused. Small integer depths saturate; s32 wraps around as
// OpenCV's does, and absdiff of s32 is the unsigned difference read as s32.
Event add(Queue& queue, const DeviceImage& a, const DeviceImage& b, DeviceImage& dst,
          ElementwiseMethod method = ElementwiseMethod::automatic);
Event subtract(Queue& queue, const DeviceImage& a, const DeviceImage& b, DeviceImage& dst,
               ElementwiseMethod method = ElementwiseMethod::automatic);
Event absdiff(Queue& queue, const DeviceImage& a, const DeviceImage& b, DeviceImage& dst,
              ElementwiseMethod method = ElementwiseMethod::automatic);

HostImage add(Queue& queue, const HostImage& a, const HostImage& b);
HostImage subtract(Queue& queue, const HostImage& a, const HostImage& b);
HostImage absdiff(Queue& queue, const HostImage& a, const HostImage& b);

// cv::Mat::convertTo(dst, depth, alpha, beta): dst = saturate(src * alpha + beta) in the output
// depth, computed as OpenCV does: in float with one fused multiply-add, or in double when the
// source or destination is f64 or both are s32; integers round half to even. dst may be empty
// (allocated with `depth`) or an image of src's size and channels whose depth then counts.
struct ConvertOptions {
  double alpha = 1.0;
  double beta = 0.0;
  ElementwiseMethod method = ElementwiseMethod::automatic;
};
Event convert_to(Queue& queue, const DeviceImage& src, DeviceImage& dst, Depth depth, const ConvertOptions& options = {});
HostImage convert_to(Queue& queue, const HostImage& src, Depth depth, const ConvertOptions& options = {});

}  // namespace plinth
