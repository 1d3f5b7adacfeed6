#pragma once
// Helpers shared by the file readers and writers in src/io.

#include <string>
#include <string_view>

#include "plinth/image.hpp"

namespace plinth::detail {

// Lower-case extension with the dot (".png"), or empty.
std::string extension_of(const std::string& path);
// PGM / PPM (P2, P3, P5, P6).
HostImage read_pnm(const std::string& path);
void write_pnm(const std::string& path, const HostImage& image);

}  // namespace plinth::detail
