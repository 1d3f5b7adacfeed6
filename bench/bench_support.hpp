#pragma once
// Helpers for writing cases (bench/<op>_bench.cpp): random inputs made once per case set and
// rotated over Settings::input_sets, output sets to match, and the byte counts of images.
// Inputs are never zeros: zeros hide unwritten outputs and can run faster than real data.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench.hpp"

namespace plinth::bench {

// Uniformly random values: the full range of integer depths, [0, 1) for f32 and f64.
// The same seed gives the same image.
HostImage random_image(Size size, Format format, std::uint64_t seed);

// `count` random device images (count = env.settings.input_sets for inputs rotated per run);
// each with its own seed derived from `seed`.
std::vector<DeviceImage> random_device_images(Env& env, Size size, Format format, int count, std::uint64_t seed);

// `count` device images whose contents do not matter (outputs), one per input set, each written
// once (with 0xa5 bytes) so that the device has really allocated it.
std::vector<DeviceImage> device_images(Env& env, Size size, Format format, int count);

// Bytes of the pixels of an image (no padding): what one pass over it moves.
double image_bytes(Size size, Format format);

// The path of a file of the repository's data/ folder (e.g. "astronaut.png"), looked up in
// $PLINTH_DATA_DIR, ./data, then a data/ folder in any folder above the executable; Error(io)
// naming `who` (the benchmark) when none holds it.
std::string data_file(std::string_view name, std::string_view who);

// A grey photograph repeated over `size` and rolled right by `shift` pixels (corners_bench.cpp's
// input; its peer builds the same image with numpy).
HostImage repeated_photo(const HostImage& photo, Size size, int shift);

}  // namespace plinth::bench
