#pragma once
// A repair of PNG files that stb_image needs before it reads them (src/io/png_chunks.cpp).
#include <cstdio>
#include <optional>
#include <vector>

namespace plinth::detail {

// The file's bytes without its empty IDAT chunks when an empty IDAT comes before the first one
// with data; std::nullopt otherwise (and for anything that does not start as a PNG does). Such a
// file is valid PNG, and the empty chunks carry nothing, but stb_image 2.27 (Debian 12's) copies
// zero bytes into a null buffer for them (memcpy(nullptr, p, 0), undefined behaviour that UBSan
// reports; found by fuzz/fuzz_image, kept in fuzz/regressions/image/). Reads `file` from its
// start and leaves it there.
std::optional<std::vector<unsigned char>> png_without_leading_empty_idat(std::FILE* file);

}  // namespace plinth::detail
