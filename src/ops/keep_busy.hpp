#pragma once
// keep_busy (kernels/keep_busy.cl): a kernel that only computes, for the benchmark's filler.
// Internal: the benchmark includes it from src/, users have no use for it.

#include <cstdint>

#include "plinth/array.hpp"
#include "plinth/core.hpp"

namespace plinth::detail {

// Enqueues one work-item per element of `out` (u32, at most 1024 elements), each running
// `steps` steps of xorshift32 from 0x9E3779B9 ^ its index and storing the result there. Its
// duration grows linearly with `steps` and it reads no memory.
Event keep_busy(Queue& queue, DeviceArray& out, std::uint32_t steps);

}  // namespace plinth::detail
