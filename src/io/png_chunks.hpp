#pragma once
// The checks and the repair of PNG files that stb_image needs before it reads them
// (src/io/png_chunks.cpp).
#include <cstdio>
#include <optional>
#include <vector>

namespace plinth::detail {

// What a PNG needs before stb_image reads it, from one walk over its chunks (nothing for anything
// that does not start as a PNG does). Reads `file` from its start and leaves it there.
//  - chunk_too_long: a chunk before IEND declares more than 2^31 - 1 bytes, which the PNG
//    specification forbids and libpng (cv::imread's decoder) refuses. stb_image 2.27, reading
//    a file, takes such a length as a negative int, skips to the end of its buffer but not of the
//    file, and goes on reading chunks from the middle of the file (an empty IDAT there led to
//    memcpy(nullptr, p, 0): UBSan, found by CI's run of fuzz/fuzz_image). The reader refuses it.
//  - chunk_past_end: a chunk before IEND runs past the end of the file (a truncated file, which
//    libpng refuses too). stb_image allocates what the length declares before it reads: an IDAT
//    that claimed 1.2 GB in a 323-byte file made it ask for 2 GiB (fuzz/fuzz_image, an
//    out-of-memory stop). The reader refuses it.
//  - repaired: the file's bytes without its empty IDAT chunks when an empty IDAT comes before the
//    first one with data (std::nullopt otherwise). Such a file is valid PNG, and the empty chunks
//    carry nothing, but stb_image 2.27 copies zero bytes into a null buffer for them (found by
//    fuzz/fuzz_image). Both inputs are kept in fuzz/regressions/image/.
struct PngForStb {
  bool chunk_too_long = false;
  bool chunk_past_end = false;
  std::optional<std::vector<unsigned char>> repaired;
};
PngForStb png_for_stb(std::FILE* file);

}  // namespace plinth::detail
