// resize: argument checks and launches; the arithmetic is in kernels/resize.cl and
// docs/resize.md. Only 8-bit images, where OpenCV's fixed-point result can be matched exactly.
#include "plinth/resize.hpp"

#include <algorithm>
#include <string>

#include "core/image_checks.hpp"
#include "core/launch.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace {

constexpr const char* kOp = "resize";

// Work-group shape: rows of 32 elements, 8 rows, so that a group reads a compact source patch.
struct ResizePolicy {
  static constexpr std::size_t group_x = 32;
  static constexpr std::size_t group_y = 8;
};

detail::BuildOptions build_options() {
  detail::BuildOptions options;
  options.define("PLINTH_NEED_FP64");
  return options;
}

void check_fp64(const Queue& queue) {
  if (!queue.context().device().has_fp64) {
    throw Error(ErrorCode::unsupported_type, kOp, "device",
                "the device has no double precision (cl_khr_fp64), which OpenCV's coordinate arithmetic needs");
  }
}

}  // namespace

Event resize(Queue& queue, const DeviceImage& src, DeviceImage& dst, Interpolation interpolation) {
  if (interpolation != Interpolation::linear && interpolation != Interpolation::linear_exact) {
    throw Error(ErrorCode::invalid_argument, kOp, "interpolation", "unknown");
  }
  detail::check_device(queue, src, kOp, "src");
  detail::check_device(queue, dst, kOp, "dst");
  detail::check_depth(src.depth(), {Depth::u8}, kOp, "src");
  detail::check_channels(src.channels(), {1, 2, 3, 4}, kOp, "src");
  if (dst.format() != src.format()) {
    throw Error(ErrorCode::invalid_argument, kOp, "dst",
                "must have the source's format (" + std::string(to_string(src.depth())) + "C" +
                    std::to_string(src.channels()) + ")");
  }
  detail::check_no_overlap(src, dst, kOp, "dst");
  check_fp64(queue);
  const int cn = src.channels();
  const auto program = detail::get_program(queue, "resize.cl", build_options());
  detail::Launch launch(queue, program, "resize_linear_u8");
  launch.arg(interpolation == Interpolation::linear_exact ? 1 : 0).arg(src.width()).arg(src.height()).arg(cn).arg(dst.width()).arg(dst.height()).image(src).image(dst);
  const auto global = detail::range(detail::round_up(static_cast<std::size_t>(dst.width()) * cn, ResizePolicy::group_x),
                                    detail::round_up(static_cast<std::size_t>(dst.height()), ResizePolicy::group_y));
  return Event(launch.run(global, detail::range(ResizePolicy::group_x, ResizePolicy::group_y)));
}

Event resize(Queue& queue, const DeviceImage& src, DeviceImage& dst, Size size, Interpolation interpolation) {
  detail::check_device(queue, src, kOp, "src");
  detail::check_geometry(size.width, size.height, src.format(), kOp, "size");
  if (dst.empty()) {
    dst = DeviceImage(queue.context(), size.width, size.height, src.format());
  } else if (dst.size() != size) {
    throw Error(ErrorCode::invalid_argument, kOp, "dst",
                "is " + std::to_string(dst.width()) + "x" + std::to_string(dst.height()) + " but the size asked is " +
                    std::to_string(size.width) + "x" + std::to_string(size.height));
  }
  return resize(queue, src, dst, interpolation);
}

HostImage resize(Queue& queue, const HostImage& src, Size size, Interpolation interpolation) {
  detail::check_host(src, kOp, "src");
  const DeviceImage d_src = queue.upload(src);
  DeviceImage d_dst;
  resize(queue, d_src, d_dst, size, interpolation);
  return queue.download(d_dst);
}

}  // namespace plinth
