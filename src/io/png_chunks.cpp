// The chunk walk behind png_for_stb. A PNG is an 8-byte signature followed by
// chunks of a 4-byte big-endian length, a 4-byte type, the data and a 4-byte CRC.
#include "io/png_chunks.hpp"

#include <array>
#include <cstdint>
#include <cstring>

namespace plinth::detail {
namespace {

constexpr std::array<unsigned char, 8> kSignature{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
constexpr std::uint32_t kMaxChunkLength = 0x7FFFFFFF;  // the PNG limit; stb refuses longer ones

std::uint32_t big_endian32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) << 24 | static_cast<std::uint32_t>(p[1]) << 16 |
         static_cast<std::uint32_t>(p[2]) << 8 | p[3];
}

bool is_idat(const unsigned char* header) { return std::memcmp(header + 4, "IDAT", 4) == 0; }

// What the walk finds, read with seeks over chunk data.
struct Walk {
  bool leading_empty_idat = false;  // an empty IDAT before the first IDAT with data
  bool chunk_too_long = false;      // a length over kMaxChunkLength before IEND
  bool chunk_past_end = false;      // a chunk before IEND whose data and CRC the file does not hold
};

Walk walk_chunks(std::FILE* file) {
  Walk walk;
  std::fseek(file, 0, SEEK_END);
  const long size = std::ftell(file);
  std::fseek(file, 0, SEEK_SET);
  std::array<unsigned char, 8> header{};
  if (size < 0 || std::fread(header.data(), 1, 8, file) != 8 || header != kSignature) return walk;
  bool data_seen = false;
  while (std::fread(header.data(), 1, 8, file) == 8) {
    const std::uint32_t length = big_endian32(header.data());
    if (std::memcmp(header.data() + 4, "IEND", 4) == 0) break;
    if (length > kMaxChunkLength) {
      walk.chunk_too_long = true;
      break;
    }
    const long at = std::ftell(file);
    if (at < 0 || static_cast<std::uint64_t>(size - at) < static_cast<std::uint64_t>(length) + 4) {
      walk.chunk_past_end = true;
      break;
    }
    if (is_idat(header.data()) && !data_seen) {
      if (length != 0) {
        data_seen = true;
      } else {
        walk.leading_empty_idat = true;
      }
    }
    if (std::fseek(file, static_cast<long>(length) + 4, SEEK_CUR) != 0) break;
  }
  return walk;
}

std::vector<unsigned char> read_all(std::FILE* file) {
  std::vector<unsigned char> bytes;
  std::array<unsigned char, 1 << 16> block{};
  for (std::size_t got; (got = std::fread(block.data(), 1, block.size(), file)) > 0;) {
    bytes.insert(bytes.end(), block.begin(), block.begin() + static_cast<std::ptrdiff_t>(got));
  }
  return bytes;
}

}  // namespace

PngForStb png_for_stb(std::FILE* file) {
  std::fseek(file, 0, SEEK_SET);
  const Walk walk = walk_chunks(file);
  std::fseek(file, 0, SEEK_SET);
  PngForStb result;
  result.chunk_too_long = walk.chunk_too_long;
  result.chunk_past_end = walk.chunk_past_end;
  if (walk.chunk_too_long || walk.chunk_past_end || !walk.leading_empty_idat) return result;
  const std::vector<unsigned char> in = read_all(file);
  std::fseek(file, 0, SEEK_SET);
  // Chunks are copied whole except empty IDATs; where a length runs past the end or the PNG
  // limit, the rest is copied as it is, for stb to refuse as it would have.
  std::vector<unsigned char> out(in.begin(), in.begin() + 8);
  std::size_t at = 8;
  while (in.size() - at >= 12) {
    const std::uint32_t length = big_endian32(&in[at]);
    if (length > kMaxChunkLength || in.size() - at - 12 < length) break;
    const std::size_t end = at + 12 + length;
    if (!(length == 0 && is_idat(&in[at]))) out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(at), in.begin() + static_cast<std::ptrdiff_t>(end));
    at = end;
  }
  out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(at), in.end());
  result.repaired = std::move(out);
  return result;
}

}  // namespace plinth::detail
