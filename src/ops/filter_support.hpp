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

// Whether every row of `image` starts on a boundary of `elements` elements, so that a kernel may
// move vectors of that many elements through vector pointers (buffers are aligned far beyond).
inline bool vector_aligned(const DeviceImage& image, int elements) {
  const auto v = static_cast<std::int64_t>(elements);
  return image.offset_elements() % v == 0 && image.pitch_elements() % v == 0;
}

}  // namespace plinth::detail
