#pragma once
// Resizing one source into several sizes inside one buffer with one launch (the cascade's scale
// pyramid), with INTER_LINEAR_EXACT arithmetic. Each job is bit-exact with
// resize(..., Interpolation::linear_exact) to its size. The coefficients (OpenCV's double
// coordinate arithmetic) are computed once on the host, so the kernel only gathers and blends.

#include <memory>
#include <span>
#include <vector>

#include "core/launch.hpp"
#include "plinth/image.hpp"
#include "plinth/resize.hpp"

namespace plinth::detail {

struct ResizeJob {
  Size size;                    // destination size
  std::int64_t dst_offset = 0;  // element offset of the destination's first pixel in dst
};

// The device table of launch_resize_jobs for a source of `src` size: job records, one record
// per destination row (all jobs' rows in order) and the packed column coefficients.
struct ResizeJobTable {
  std::vector<int> words;  // jobs, then rows, then columns (int4-aligned sections)
  int jobs = 0;
  int rows = 0;             // destination rows of all jobs
  int widest = 0;           // widest destination
  int rows_at = 0, columns_at = 0;  // int4 index of the rows section, int index of the columns
};
ResizeJobTable pack_resize_jobs(Size src, std::span<const ResizeJob> jobs);

// `table` holds pack_resize_jobs(src.size(), ...)'s words (already on the device); src is u8 C1.
std::shared_ptr<EventImpl> launch_resize_jobs(const Queue& queue, const DeviceImage& src, const Buffer& dst,
                                              int dst_pitch, const ResizeJobTable& layout, const Buffer& table);

}  // namespace plinth::detail
