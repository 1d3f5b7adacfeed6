#pragma once
// The integral benchmark's config names and sizes, shared by plinth's cases
// (integral_bench.cpp) and the NPP peer (peers/npp_integral.cpp), so that the table pairs them.

#include "bench.hpp"

namespace plinth::bench::integral_configs {

inline constexpr const char* sum_s32 = "u8 -> s32";
inline constexpr const char* sum_u32 = "u8 -> u32";
inline constexpr const char* sum_sqsum = "u8 -> s32 + f64 sq";
inline constexpr const char* tilted = "u8 -> s32 tilted";
inline constexpr const char* count = "u8 -> s32 count";
inline constexpr const char* batch = "u8 -> s32 batch of 8";

// Batches: 8 images of the run's size, stacked vertically, at sizes up to 1920x1080 (where a
// launch per image costs most).
inline constexpr int batch_images = 8;
inline bool has_batch(Size size) { return static_cast<double>(size.width) * size.height <= 1920.0 * 1080.0; }

// Bytes one run moves: the u8 source read once, each (W+1)x(H+1) output written once.
inline double bytes(Size size, double output_bytes_per_element, int images = 1) {
  const double in = static_cast<double>(size.width) * size.height;
  const double out = static_cast<double>(size.width + 1) * (size.height + 1) * output_bytes_per_element;
  return images * (in + out);
}

}  // namespace plinth::bench::integral_configs
