// NumPy .npy files (format version 1.0 written; 1.0 to 3.0 read), little-endian, C order.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <regex>
#include <vector>

#include "plinth/error.hpp"
#include "plinth/io.hpp"

namespace plinth {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

std::string descr_of(Depth depth) {
  switch (depth) {
    case Depth::u8: return "|u1";
    case Depth::s8: return "|i1";
    case Depth::u16: return "<u2";
    case Depth::s16: return "<i2";
    case Depth::u32: return "<u4";
    case Depth::s32: return "<i4";
    case Depth::u64: return "<u8";
    case Depth::s64: return "<i8";
    case Depth::f32: return "<f4";
    case Depth::f64: return "<f8";
  }
  return "";
}

std::optional<Depth> depth_of(std::string descr) {
  if (descr.size() == 3 && descr[0] == '=') descr[0] = '<';
  if (descr == "<u1" || descr == "|u1") return Depth::u8;
  if (descr == "<i1" || descr == "|i1") return Depth::s8;
  for (Depth d : {Depth::u16, Depth::s16, Depth::u32, Depth::s32, Depth::u64, Depth::s64, Depth::f32, Depth::f64}) {
    if (descr == descr_of(d)) return d;
  }
  return std::nullopt;
}

}  // namespace

void write_npy(const std::string& path, const HostImage& image) {
  if (image.empty()) throw Error(ErrorCode::invalid_argument, "write_npy", "image", "the image is empty");
  std::string header = "{'descr': '" + descr_of(image.depth()) + "', 'fortran_order': False, 'shape': (" +
                       std::to_string(image.height()) + ", " + std::to_string(image.width()) +
                       (image.channels() > 1 ? ", " + std::to_string(image.channels()) + ")" : ")") + ", }";
  // Magic (6) + version (2) + length (2) + header + newline, padded to a multiple of 64.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(ErrorCode::io, "write_npy", path, std::string("cannot create: ") + std::strerror(errno));
  out.write(kMagic, 6);
  const char version[2] = {1, 0};
  out.write(version, 2);
  const std::uint16_t length = static_cast<std::uint16_t>(header.size());
  const char length_bytes[2] = {static_cast<char>(length & 0xff), static_cast<char>(length >> 8)};
  out.write(length_bytes, 2);
  out << header;
  for (int y = 0; y < image.height(); ++y) {
    out.write(reinterpret_cast<const char*>(image.row(y)), static_cast<std::streamsize>(image.row_bytes()));
  }
  if (!out) throw Error(ErrorCode::io, "write_npy", path, "write failed");
}

HostImage read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::io, "read_npy", path, std::string("cannot open: ") + std::strerror(errno));
  char magic[6] = {};
  unsigned char version[2] = {};
  in.read(magic, 6);
  in.read(reinterpret_cast<char*>(version), 2);
  if (!in || std::memcmp(magic, kMagic, 6) != 0 || version[0] < 1 || version[0] > 3) {
    throw Error(ErrorCode::format, "read_npy", path, "not a .npy file");
  }
  std::size_t length = 0;
  unsigned char bytes[4] = {};
  in.read(reinterpret_cast<char*>(bytes), version[0] == 1 ? 2 : 4);
  length = version[0] == 1 ? (bytes[0] | bytes[1] << 8) : (bytes[0] | bytes[1] << 8 | bytes[2] << 16 | static_cast<std::size_t>(bytes[3]) << 24);
  if (!in || length > 65536) throw Error(ErrorCode::format, "read_npy", path, "bad header length");
  std::string header(length, '\0');
  in.read(header.data(), static_cast<std::streamsize>(length));
  if (!in) throw Error(ErrorCode::format, "read_npy", path, "truncated header");

  std::smatch m;
  if (!std::regex_search(header, m, std::regex(R"('descr'\s*:\s*'([^']*)')"))) {
    throw Error(ErrorCode::format, "read_npy", path, "no 'descr' in the header");
  }
  const std::optional<Depth> depth = depth_of(m[1]);
  if (!depth) throw Error(ErrorCode::unsupported_type, "read_npy", path, "element type '" + m[1].str() + "' is not supported");
  if (std::regex_search(header, std::regex(R"('fortran_order'\s*:\s*True)"))) {
    throw Error(ErrorCode::unsupported_type, "read_npy", path, "Fortran-ordered arrays are not supported");
  }
  if (!std::regex_search(header, m, std::regex(R"('shape'\s*:\s*\(\s*(\d{1,9})\s*,\s*(\d{1,9})\s*(?:,\s*(\d{1,9})\s*)?,?\s*\))"))) {
    throw Error(ErrorCode::format, "read_npy", path, "the shape must be (height, width) or (height, width, channels)");
  }
  const int height = std::stoi(m[1]);
  const int width = std::stoi(m[2]);
  const int channels = m[3].matched ? std::stoi(m[3]) : 1;
  HostImage image(width, height, Format{*depth, channels});  // checks sizes and channels
  for (int y = 0; y < height; ++y) {
    in.read(reinterpret_cast<char*>(image.row(y)), static_cast<std::streamsize>(image.row_bytes()));
    if (!in) throw Error(ErrorCode::format, "read_npy", path, "truncated data");
  }
  return image;
}

}  // namespace plinth
