#pragma once
// Checks and small helpers shared by the box, separable, 2-D and Gaussian filters.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "plinth/filters.hpp"

namespace plinth::detail {

// Kernel-side code of a border mode (kernels/common/border.h follows BorderMode's order).
inline int border_code(BorderMode mode) { return static_cast<int>(mode); }

// Throws invalid_argument unless `mode` is one of `allowed` (OpenCV rejects the others).
void check_border(BorderMode mode, std::initializer_list<BorderMode> allowed, std::string_view op);

// 1 <= size <= limit each way, else out_of_range.
void check_ksize(Size ksize, int limit, std::string_view op, std::string_view arg);

// Resolves -1 to the centre (size / 2); throws out_of_range for a position outside the kernel.
Anchor resolve_anchor(Anchor anchor, Size ksize, std::string_view op);

// Allocates dst when empty; otherwise checks its device, size and format, and that it does not
// overlap src.
void prepare_output(Queue& queue, const DeviceImage& src, DeviceImage& dst, Format format, std::string_view op);

// f64 images and double arithmetic need cl_khr_fp64.
void check_fp64(const Queue& queue, Depth depth, std::string_view op, std::string_view arg);

// Local memory a filter tile may use: the device's, capped at 48 KiB so that CPU devices (whose
// "local" memory is ordinary memory) choose the same tiles as GPUs.
std::size_t local_budget(const Queue& queue);

// Largest power of two <= the device's work-group limit, capped at `cap`.
int work_group_size(const Queue& queue, int cap);

std::string size_text(Size size);

// Elements (pixels x channels) of an image, for size-dependent choices of method and shape.
inline double element_count(const DeviceImage& image) {
  return static_cast<double>(image.width()) * image.channels() * image.height();
}

// Output rows per work-item of the u8 `tiled` box and separable filters (work-groups of 8 x 32
// work-items): more rows amortise the window's extra rows; fewer, shorter work-groups won on the
// smaller images. H200, u8, 4 against 8 rows: box 3x3 at 3840x2160 13.1 / 15.1 us, at 7680x4320
// 30.9 / 29.6; Gaussian 5x5 17.0 / 18.6 and 43.1 / 40.3 (docs/PERFORMANCE.md, 2026-11-28): 8 above
// 16 M elements, else 4. Rows chosen per launch from the GPU's occupancy against the last wave
// measured no faster (docs/filters.md).
inline int tiled_rows_per_item(const DeviceImage& image) { return element_count(image) > 16.0 * (1 << 20) ? 8 : 4; }

// The `wide_rows` kernels' shape (kernels/common/wide_rows.h; the box and separable filters):
// work-groups of wide_rows_group work-items, each owning 16 elements of `rows` output rows; a
// warp's first and last work-items only lend halo, so a warp covers 30 spans (480 elements).
inline constexpr int wide_rows_group = 128;
// Output rows per work-item: 2 for one channel of at most 4 M elements (more work-items where a row
// is only a few warps wide: H200, box 3x3 at 1920x1080 7.9 against 10.0 us on CUDA), else 4 (2 lost
// elsewhere, 8 everywhere: docs/filters.md).
inline int wide_rows_rows_per_item(const DeviceImage& image) {
  return image.channels() == 1 && element_count(image) <= 4.0 * (1 << 20) ? 2 : 4;
}
// Work-groups across (x) and down (y) for an image.
inline std::size_t wide_rows_groups_x(const DeviceImage& image) {
  constexpr std::size_t warp_elements = 30 * 16;
  const std::size_t row_elements = static_cast<std::size_t>(image.width()) * image.channels();
  const std::size_t warps = (row_elements + warp_elements - 1) / warp_elements;
  return (warps * 32 + wide_rows_group - 1) / wide_rows_group;
}
inline std::size_t wide_rows_groups_y(const DeviceImage& image, int rows) {
  return (static_cast<std::size_t>(image.height()) + static_cast<std::size_t>(rows) - 1) / static_cast<std::size_t>(rows);
}

// Whether every row of `image` starts on a boundary of `elements` elements, so that a kernel may
// move vectors of that many elements through vector pointers (buffers are aligned far beyond).
inline bool vector_aligned(const DeviceImage& image, int elements) {
  const auto v = static_cast<std::int64_t>(elements);
  return image.offset_elements() % v == 0 && image.pitch_elements() % v == 0;
}

}  // namespace plinth::detail
