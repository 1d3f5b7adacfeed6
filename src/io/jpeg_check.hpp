#pragma once
// A check of JPEG files that stb_image needs before it reads them (src/io/jpeg_check.cpp).
#include <cstdio>
#include <string>

namespace plinth::detail {

// Throws Error(format) when a JPEG's Huffman table (DHT segment) declares more than 256 codes:
// stb_image 2.27, Debian 12's, writes past its tables then (heap or struct overflow; found by
// fuzz/fuzz_image, kept in fuzz/regressions/image/). Reads `file` from its start and leaves it
// there; does nothing unless the file starts as a JPEG does (0xFF 0xD8).
void check_jpeg_huffman_tables(std::FILE* file, const std::string& path);

}  // namespace plinth::detail
