#pragma once
// Small helpers shared by the median, epsilon, pyramid, convert and color commands:
// reading any supported image file and describing images in one line.

#include <string>

#include "plinth/plinth.hpp"

namespace plinth::cli {

// read_npy for .npy files, read_image otherwise (the file's own channels and depth).
HostImage read_any_image(const std::string& path);
// "640x480 u8C3"
std::string describe(const HostImage& image);
// Whether path names a raw NV12 file (.nv12 or .yuv).
bool is_raw_nv12(const std::string& path);

}  // namespace plinth::cli
