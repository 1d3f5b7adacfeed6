#pragma once
// Checks and small helpers shared by the box, separable, 2-D and Gaussian filters.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <initializer_list>
#include <string>
#include <string_view>

#include "core/backend.hpp"
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

// Output rows per work-item of the u8 `tiled` box and separable filters (work-groups of 8 x 32
// work-items) where the backend cannot say how many work-groups a compute unit holds (OpenCL):
// more rows amortise the window's extra rows, but fewer, longer work-groups leave more of the GPU
// idle in the last wave. H200, u8, 4 against 8 rows: box 3x3 at 3840x2160 13.1 / 15.1 us, at
// 7680x4320 30.9 / 29.6; Gaussian 5x5 17.0 / 18.6 and 43.1 / 40.3 (docs/PERFORMANCE.md,
// 2026-11-28): 8 above 16 M elements, else 4.
inline int tiled_rows_per_item(const DeviceImage& image) {
  const double elements = static_cast<double>(image.width()) * image.channels() * image.height();
  return elements > 16.0 * (1 << 20) ? 8 : 4;
}

// The same choice where the backend knows how many work-groups the GPU holds at once
// (`resident`: per compute unit times units). A launch of `strips` x ceil(height / (8 rows))
// work-groups runs in waves of `resident`, and a last wave that is partly full costs about as much
// as a full one (Nsight Compute, H200, box 3x3 at 7680x4320: 4.12 waves, the partial one "up to
// 20%" of the time). Cost model: waves rounded up x (rows + 0.75 (kh - 1)), the second term the
// window's extra rows each work-item loads and a work-group's fixed costs, fitted to the H200
// figures above (it gives 8 rows 1.15x 4 rows at 3840x2160, 0.96x at 7680x4320; measured 1.15x,
// 0.96x). Rows from 2 to max_rows; on a tie the more rows.
int balanced_rows_per_item(std::size_t strips, int height, int kh, std::size_t resident, int max_rows);

// The rows a `tiled` launch takes: `rows` where the backend cannot say how many work-groups of
// `group` work-items a compute unit holds, else balanced_rows_per_item's for `kernel` as
// program_for builds it (first with `rows`, then with the rows chosen, at most three programs).
int tiled_rows_for_launch(const Queue& queue, int rows, int max_rows, std::size_t strips, int height, int kh,
                          std::size_t group, const std::function<std::shared_ptr<Program>(int)>& program_for,
                          std::string_view kernel);

// For tests: while alive, every `tiled` launch of this thread takes `rows` rows per work-item (at
// most the launch's max_rows), whatever the backend, so that PoCL runs the row counts that
// balanced_rows_per_item gives GPUs.
class ScopedTiledRows {
 public:
  explicit ScopedTiledRows(int rows) : previous_(forced_) { forced_ = rows; }
  ~ScopedTiledRows() { forced_ = previous_; }
  ScopedTiledRows(const ScopedTiledRows&) = delete;
  ScopedTiledRows& operator=(const ScopedTiledRows&) = delete;
  static int forced() { return forced_; }

 private:
  int previous_;
  static thread_local int forced_;
};

// Whether every row of `image` starts on a boundary of `elements` elements, so that a kernel may
// move vectors of that many elements through vector pointers (buffers are aligned far beyond).
inline bool vector_aligned(const DeviceImage& image, int elements) {
  const auto v = static_cast<std::int64_t>(elements);
  return image.offset_elements() % v == 0 && image.pitch_elements() % v == 0;
}

}  // namespace plinth::detail
