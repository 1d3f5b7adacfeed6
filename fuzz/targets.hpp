#pragma once
// What each fuzz target does with one input, shared by the libFuzzer entry points (fuzz_*.cpp)
// and by tests/fuzz_corpus_test.cpp, which replays every seed and every saved crash input in the
// normal test suite. Each function returns when plinth accepted the input and throws
// plinth::Error when it refused it; anything else (a crash, a sanitizer report, another
// exception, a hang, an allocation above libFuzzer's -malloc_limit_mb) is a defect.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "memory_file.hpp"
#include "ops/cascade_model.hpp"
#include "ops/cascade_tables.hpp"
#include "plinth/io.hpp"
#include "plinth/nv12.hpp"

namespace plinth::fuzz {

// read_image as for any user file: PNG, BMP (stb_image), JPEG (libjpeg-turbo, src/io/jpeg.cpp) or
// PGM/PPM (src/io/pnm.cpp), picked by the file's magic; then, for 8-bit results, the file read
// again in grey mode.
inline void image_input(const std::uint8_t* data, std::size_t size) {
  const MemoryFile file(data, size);
  const HostImage image = read_image(file.path());
  // Grey: to_gray, and for JPEG libjpeg's grey output turned to the EXIF orientation.
  if (image.depth() == Depth::u8) (void)read_image(file.path(), ReadMode::gray);
}

inline void npy_input(const std::uint8_t* data, std::size_t size) {
  const MemoryFile file(data, size);
  (void)read_npy(file.path());
}

// The first 5 bytes are what a user gives on the command line: the frame width and height (16
// bits each, little-endian) and the frame index (a signed byte); the rest is the raw file.
constexpr std::size_t nv12_parameter_bytes = 5;
inline void nv12_input(const std::uint8_t* data, std::size_t size) {
  if (size < nv12_parameter_bytes) return;
  const Size frame_size{data[0] | data[1] << 8, data[2] | data[3] << 8};
  const int index = static_cast<std::int8_t>(data[4]);
  const MemoryFile file(data + nv12_parameter_bytes, size - nv12_parameter_bytes);
  (void)count_nv12_frames(file.path(), frame_size);
  (void)pack_nv12(read_nv12(file.path(), frame_size, index));
}

// The cascade loader on XML text (current and old OpenCV formats, Haar and LBP), then the device
// tables detection builds from what it accepted, with the integral planes of a 1920x1080 image.
inline void cascade_input(const std::uint8_t* data, std::size_t size) {
  const auto model = detail::parse_cascade_xml(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  constexpr int kPitch = 1921;
  (void)detail::make_cascade_tables(*model, kPitch, 2 * kPitch * 1081);
}

}  // namespace plinth::fuzz
