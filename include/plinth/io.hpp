#pragma once
// Image files in and out, and numeric arrays as NumPy .npy files.
//   in:  PNG, JPEG, BMP (through stb_image), PGM / PPM (P2, P3, P5, P6; 8 or 16 bit)
//   out: PNG (8 bit), PGM / PPM (8 or 16 bit), .npy (any depth and channel count)
// Colour images are read and written in the file's channel order, RGB(A); OpenCV's imread
// gives BGR instead. Grey conversion matches cv::cvtColor(RGB2GRAY) bit for bit.

#include <string>

#include "plinth/image.hpp"

namespace plinth {

enum class ReadMode {
  unchanged,  // the file's channels (1 grey, 2 grey+alpha, 3 RGB, 4 RGBA) and depth (u8 or u16)
  gray,       // one u8 channel
  rgb,        // three u8 channels
};

// Throws Error(io) when the file cannot be opened, Error(format) when it is not a readable
// image (corrupt, truncated, unknown format), Error(out_of_range) for absurd dimensions.
HostImage read_image(const std::string& path, ReadMode mode = ReadMode::unchanged);
// The format follows the extension (.png, .pgm, .ppm, .npy). Overwrites an existing file.
void write_image(const std::string& path, const HostImage& image);

// .npy: shape (height, width) for one channel, (height, width, channels) otherwise.
void write_npy(const std::string& path, const HostImage& image);
HostImage read_npy(const std::string& path);

// RGB(A) or grey+alpha to grey with OpenCV's fixed-point weights; u8 sources only.
HostImage to_gray(const HostImage& image);

}  // namespace plinth
