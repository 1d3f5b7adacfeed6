#pragma once
// Shared by the elementwise ops (arithm, convert, color): the launch policy, the alignment test of
// the vector fast path and output allocation.

#include <cstddef>
#include <string>
#include <string_view>

#include "core/image_checks.hpp"
#include "plinth/error.hpp"
#include "plinth/image.hpp"

namespace plinth::detail {

// Work shape of the elementwise kernels: each work-item of the vector path handles
// `vector_bytes` of its widest image, work-groups are group_x by group_y.
struct ElementwisePolicy {
  int vector_bytes = 16;
  std::size_t group_x = 64;
  std::size_t group_y = 4;
};

inline ElementwisePolicy elementwise_policy() { return {}; }

// Whether every row of `image` starts on a boundary of `vector_elements` elements, so that
// vectors of that many elements can be loaded through vector pointers (buffers themselves are
// aligned far beyond 16 bytes).
inline bool rows_aligned(const DeviceImage& image, int vector_elements) {
  const auto v = static_cast<std::int64_t>(vector_elements);
  return image.offset_elements() % v == 0 && image.pitch_elements() % v == 0;
}

// Leaves an allocated `out` of the expected shape alone (after checking it), or allocates it.
inline void prepare_output(Queue& queue, DeviceImage& out, Size size, Format format, std::string_view op,
                           std::string_view arg) {
  if (out.empty()) {
    out = DeviceImage(queue.context(), size.width, size.height, format);
    return;
  }
  check_device(queue, out, op, arg);
  if (out.size() != size || out.format() != format) {
    throw Error(ErrorCode::invalid_argument, std::string(op), std::string(arg),
                "is " + std::to_string(out.width()) + "x" + std::to_string(out.height()) + " " +
                    std::string(to_string(out.depth())) + "C" + std::to_string(out.channels()) + " but must be " +
                    std::to_string(size.width) + "x" + std::to_string(size.height) + " " +
                    std::string(to_string(format.depth)) + "C" + std::to_string(format.channels));
  }
}

// The same memory and layout: an in-place use that elementwise kernels can take.
inline bool same_view(const DeviceImage& a, const DeviceImage& b) {
  return a.native() == b.native() && a.offset() == b.offset() && a.pitch() == b.pitch() && a.size() == b.size() &&
         a.format() == b.format();
}

// Refuses devices without doubles when an f64 image or computation is involved.
inline void check_fp64(const Queue& queue, bool needed, std::string_view op) {
  if (needed && !queue.context().device().has_fp64) {
    throw Error(ErrorCode::unsupported_type, std::string(op), "depth", "the device has no double precision (cl_khr_fp64)");
  }
}

}  // namespace plinth::detail
