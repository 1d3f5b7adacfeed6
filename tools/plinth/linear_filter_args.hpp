#pragma once
// Argument parsing and file handling shared by the `plinth filter box|sep|conv|gaussian` commands.

#include <string>
#include <vector>

#include "command.hpp"

namespace plinth::cli {

// "X,Y" -> Anchor; throws Error(invalid_argument) naming `what`.
Anchor parse_anchor(const std::string& text, const char* what);
// "a,b,c" (commas and/or spaces) -> numbers; throws Error(invalid_argument) naming `what`.
std::vector<float> parse_numbers(const std::string& text, const char* what);
// A 2-D kernel: rows separated by ';' or newlines, numbers by commas or spaces, either inline or
// in the text file named by `text`. Its size comes from the rows; a single row of n * n numbers
// is read as an n x n kernel.
std::vector<float> parse_kernel_2d(const std::string& text, Size& ksize);

// .npy through read_npy / write_npy, anything else through read_image / write_image.
HostImage read_any(const std::string& path);
void write_any(const std::string& path, const HostImage& image);

// "IN: WxH u8C3 -> OUT (f32), 12.3 us on DEVICE"
void report(const std::string& in, const HostImage& src, const std::string& out, const HostImage& dst,
            const Event& event, Globals& globals);

}  // namespace plinth::cli
