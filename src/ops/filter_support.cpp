#include "ops/filter_support.hpp"

#include <algorithm>

#include "core/image_checks.hpp"
#include "plinth/error.hpp"

namespace plinth::detail {

void check_border(BorderMode mode, std::initializer_list<BorderMode> allowed, std::string_view op) {
  if (std::find(allowed.begin(), allowed.end(), mode) != allowed.end()) return;
  std::string list;
  for (BorderMode m : allowed) {
    if (!list.empty()) list += ", ";
    list += to_string(m);
  }
  throw Error(ErrorCode::invalid_argument, std::string(op), "border",
              std::string(to_string(mode)) + " is not supported here (OpenCV accepts " + list + ")");
}

void check_ksize(Size ksize, int limit, std::string_view op, std::string_view arg) {
  if (ksize.width < 1 || ksize.height < 1 || ksize.width > limit || ksize.height > limit) {
    throw Error(ErrorCode::out_of_range, std::string(op), std::string(arg),
                size_text(ksize) + " (each side must be 1 to " + std::to_string(limit) + ")");
  }
}

Anchor resolve_anchor(Anchor anchor, Size ksize, std::string_view op) {
  Anchor a = anchor;
  if (a.x == -1) a.x = ksize.width / 2;
  if (a.y == -1) a.y = ksize.height / 2;
  if (a.x < 0 || a.x >= ksize.width || a.y < 0 || a.y >= ksize.height) {
    throw Error(ErrorCode::out_of_range, std::string(op), "anchor",
                "(" + std::to_string(anchor.x) + ", " + std::to_string(anchor.y) + ") lies outside the " +
                    size_text(ksize) + " kernel (use -1 for the centre)");
  }
  return a;
}

void prepare_output(Queue& queue, const DeviceImage& src, DeviceImage& dst, Format format, std::string_view op) {
  if (dst.empty()) {
    dst = DeviceImage(queue.context(), src.width(), src.height(), format);
    return;
  }
  check_device(queue, dst, op, "dst");
  if (dst.size() != src.size() || dst.format() != format) {
    throw Error(ErrorCode::invalid_argument, std::string(op), "dst",
                "is " + size_text(dst.size()) + " " + std::string(to_string(dst.depth())) + "C" +
                    std::to_string(dst.channels()) + " but must be " + size_text(src.size()) + " " +
                    std::string(to_string(format.depth)) + "C" + std::to_string(format.channels));
  }
  check_no_overlap(src, dst, op, "dst");
}

void check_fp64(const Queue& queue, Depth depth, std::string_view op, std::string_view arg) {
  if (depth == Depth::f64 && !queue.context().device().has_fp64) {
    throw Error(ErrorCode::unsupported_type, std::string(op), std::string(arg),
                "f64 needs double precision, which the device lacks (cl_khr_fp64)");
  }
}

std::size_t local_budget(const Queue& queue) {
  const std::uint64_t device = queue.context().device().local_memory;
  return static_cast<std::size_t>(std::min<std::uint64_t>(device, 48 * 1024));
}

int work_group_size(const Queue& queue, int cap) {
  const std::size_t limit = std::max<std::size_t>(queue.context().device().max_work_group_size, 1);
  int size = 1;
  while (size * 2 <= cap && static_cast<std::size_t>(size * 2) <= limit) size *= 2;
  return size;
}

std::string size_text(Size size) { return std::to_string(size.width) + "x" + std::to_string(size.height); }

}  // namespace plinth::detail
