#pragma once
// Inputs for the filters-b benchmark cases (median, epsilon, pyramid, arithm, convert, color):
// seeded random images uploaded once per input set, outputs to match, and byte counts. Kept in
// their own namespace so that they never meet the driver's helpers.

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "bench.hpp"

namespace plinth::bench::filters_b {

// Random bytes of the image's whole pixel range (floats in [0, 255] so that they stay ordinary
// numbers); the same seed gives the same image.
inline HostImage random_host_image(Size size, Format format, std::uint64_t seed) {
  HostImage image(size.width, size.height, format);
  std::mt19937_64 rng(seed);
  for (int y = 0; y < size.height; ++y) {
    std::byte* row = image.row(y);
    const std::size_t elements = static_cast<std::size_t>(size.width) * static_cast<std::size_t>(format.channels);
    if (format.depth == Depth::f32) {
      std::uniform_real_distribution<float> dist(0.0f, 255.0f);
      for (std::size_t i = 0; i < elements; ++i) {
        const float v = dist(rng);
        std::memcpy(row + 4 * i, &v, 4);
      }
    } else {
      for (std::size_t i = 0; i < image.row_bytes(); ++i) row[i] = static_cast<std::byte>(rng() >> 56);
    }
  }
  return image;
}

// One random device image per input set.
inline std::vector<DeviceImage> inputs(Env& env, Size size, Format format, std::uint64_t seed) {
  std::vector<DeviceImage> images;
  for (int i = 0; i < env.settings.input_sets; ++i) {
    images.push_back(env.queue.upload(random_host_image(size, format, seed + static_cast<std::uint64_t>(i) * 7919)));
  }
  return images;
}

// One output image per input set, written once so that the memory is really allocated.
inline std::vector<DeviceImage> outputs(Env& env, Size size, Format format) {
  std::vector<DeviceImage> images;
  for (int i = 0; i < env.settings.input_sets; ++i) {
    images.emplace_back(env.context, size.width, size.height, format);
    env.queue.fill_bytes(images.back(), 0xa5);
  }
  env.queue.finish();
  return images;
}

// NV12 frames of `size`, random Y and UV planes, one per input set.
inline std::vector<DeviceNv12Frame> nv12_inputs(Env& env, Size size, std::uint64_t seed) {
  std::vector<DeviceNv12Frame> frames;
  for (int i = 0; i < env.settings.input_sets; ++i) {
    const std::uint64_t s = seed + static_cast<std::uint64_t>(i) * 7919;
    frames.push_back(DeviceNv12Frame{
        env.queue.upload(random_host_image(size, Format{Depth::u8, 1}, s)),
        env.queue.upload(random_host_image(Size{size.width / 2, size.height / 2}, Format{Depth::u8, 2}, s + 1))});
  }
  return frames;
}

// Bytes of an image's pixels: one pass over it.
inline double bytes_of(Size size, Format format) {
  return static_cast<double>(size.width) * size.height * static_cast<double>(format.pixel_size());
}

// The largest even size not above `size` (NV12 frames need even sides).
inline Size even(Size size) { return Size{size.width & ~1, size.height & ~1}; }

}  // namespace plinth::bench::filters_b
