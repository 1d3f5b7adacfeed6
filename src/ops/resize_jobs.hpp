#pragma once
// Resizing one source into several sizes inside one buffer with one launch (the cascade's
// scale pyramid). Each job is bit-exact with resize() to its size.

#include <memory>
#include <span>

#include "core/backend.hpp"
#include "plinth/image.hpp"
#include "plinth/resize.hpp"

namespace plinth::detail {

struct ResizeJob {
  Size size;                    // destination size
  std::int64_t dst_offset = 0;  // element offset of the destination's first pixel in dst
};

// `table` holds the jobs packed by pack_resize_jobs (already on the device); src is u8 C1.
std::shared_ptr<EventImpl> launch_resize_jobs(const Queue& queue, const DeviceImage& src, const Buffer& dst,
                                              int dst_pitch, std::span<const ResizeJob> jobs, const Buffer& table,
                                              Interpolation interpolation);
// The device table of launch_resize_jobs: 4 ints per job.
std::vector<int> pack_resize_jobs(std::span<const ResizeJob> jobs);

}  // namespace plinth::detail
