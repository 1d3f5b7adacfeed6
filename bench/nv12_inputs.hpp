#pragma once
// NV12 inputs for benchmark cases: random Y and UV planes, one frame per input set.

#include <cstdint>
#include <vector>

#include "bench_support.hpp"
#include "plinth/nv12.hpp"

namespace plinth::bench {

inline std::vector<DeviceNv12Frame> nv12_inputs(Env& env, Size size, std::uint64_t seed) {
  std::vector<DeviceNv12Frame> frames;
  for (int i = 0; i < env.settings.input_sets; ++i) {
    const std::uint64_t s = seed * 1000003ULL + static_cast<std::uint64_t>(i);
    frames.push_back(DeviceNv12Frame{
        env.queue.upload(random_image(size, Format{Depth::u8, 1}, s)),
        env.queue.upload(random_image(Size{size.width / 2, size.height / 2}, Format{Depth::u8, 2}, s + 1))});
  }
  return frames;
}

// The largest even size not above `size` (NV12 frames need even sides).
inline Size even(Size size) { return Size{size.width & ~1, size.height & ~1}; }

}  // namespace plinth::bench
