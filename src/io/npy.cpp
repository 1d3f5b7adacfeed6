// NumPy .npy files (format version 1.0 written; 1.0 to 3.0 read), little-endian, C order.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "core/image_checks.hpp"
#include "io/io_detail.hpp"
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

// The header is a Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }.
// A hand-written scanner reads it in one pass, without recursion or backtracking, so that work and
// stack stay bounded whatever the file holds (std::regex overflowed its stack on long fields).
class HeaderScanner {
 public:
  HeaderScanner(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  struct Header {
    std::string descr;
    bool has_descr = false;
    bool fortran_order = false;
    std::vector<std::uint64_t> shape;
    bool has_shape = false;
  };

  Header parse() {
    Header h;
    expect('{', "the header must start with '{'");
    skip_space();
    while (peek() != '}') {
      const std::string key = string_literal("a quoted key");
      expect(':', "':' after the key '" + shown(key) + "'");
      skip_space();
      if (key == "descr") {
        h.descr = string_literal("the element type string");
        h.has_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
      } else if (key == "shape") {
        h.shape = tuple();
        h.has_shape = true;
      } else {
        skip_value();  // later format versions may add keys
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        skip_space();
      } else if (peek() != '}') {
        fail("expected ',' or '}' after the value of '" + shown(key) + "'");
      }
    }
    ++pos_;
    skip_space();
    if (pos_ != text_.size()) fail("text after the closing '}'");
    return h;
  }

  // At most 32 characters of user text in a message.
  static std::string shown(std::string_view text) {
    constexpr std::size_t limit = 32;
    std::string out;
    for (char c : text.substr(0, limit)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
    if (text.size() > limit) out += "... (" + std::to_string(text.size()) + " characters)";
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(ErrorCode::format, "read_npy", path_, "malformed header: " + what);
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  void expect(char c, const std::string& what) {
    skip_space();
    if (peek() != c) fail("expected " + what);
    ++pos_;
  }
  std::string string_literal(const char* what) {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail(std::string("expected ") + what);
    const std::size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) fail(std::string("unterminated ") + what);
    std::string value(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return value;
  }
  bool boolean() {
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail("'fortran_order' must be True or False");
  }
  std::vector<std::uint64_t> tuple() {
    if (peek() != '(') fail("'shape' must be a tuple");
    ++pos_;
    std::vector<std::uint64_t> values;
    skip_space();
    while (peek() != ')') {
      if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("'shape' must hold non-negative integers");
      std::uint64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        v = v * 10 + static_cast<std::uint64_t>(peek() - '0');
        if (v > (std::uint64_t{1} << 40)) fail("a 'shape' entry is too large");
        ++pos_;
      }
      if (peek() == 'L') ++pos_;  // Python 2's long literals
      if (values.size() == 8) fail("'shape' has too many dimensions");
      values.push_back(v);
      skip_space();
      if (peek() == ',') {
        ++pos_;
        skip_space();
      } else if (peek() != ')') {
        fail("expected ',' or ')' in 'shape'");
      }
    }
    ++pos_;
    return values;
  }
  // A value of a key plinth does not use: a string, a word, a number or a flat tuple.
  void skip_value() {
    const char c = peek();
    if (c == '\'' || c == '"') {
      string_literal("a string");
    } else if (c == '(') {
      const std::size_t end = text_.find(')', pos_);
      if (end == std::string_view::npos) fail("unterminated tuple");
      pos_ = end + 1;
    } else {
      const std::size_t start = pos_;
      while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == '.' || peek() == '-') ++pos_;
      if (pos_ == start) fail("unexpected character in a value");
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  const std::string& path_;
};

}  // namespace

namespace detail {

void write_npy_to(OutputFile& out, const HostImage& image) {
  if (image.empty()) throw Error(ErrorCode::invalid_argument, "write_npy", "image", "the image is empty");
  std::string header = "{'descr': '" + descr_of(image.depth()) + "', 'fortran_order': False, 'shape': (" +
                       std::to_string(image.height()) + ", " + std::to_string(image.width()) +
                       (image.channels() > 1 ? ", " + std::to_string(image.channels()) + ")" : ")") + ", }";
  // Magic (6) + version (2) + length (2) + header + newline, padded to a multiple of 64.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  out.write(kMagic, 6);
  const char version[2] = {1, 0};
  out.write(version, 2);
  const std::uint16_t length = static_cast<std::uint16_t>(header.size());
  const char length_bytes[2] = {static_cast<char>(length & 0xff), static_cast<char>(length >> 8)};
  out.write(length_bytes, 2);
  out.write(header);
  for (int y = 0; y < image.height(); ++y) out.write(image.row(y), image.row_bytes());
}

}  // namespace detail

void write_npy(const std::string& path, const HostImage& image) {
  if (image.empty()) throw Error(ErrorCode::invalid_argument, "write_npy", "image", "the image is empty");
  OutputFile out(path, "write_npy");
  detail::write_npy_to(out, image);
  out.commit();
}

HostImage read_npy(const std::string& path) {
  detail::InputFile input = detail::open_input(path, "read_npy");
  std::FILE* in = input.file.get();
  char magic[6] = {};
  unsigned char version[2] = {};
  if (std::fread(magic, 1, 6, in) != 6 || std::fread(version, 1, 2, in) != 2 || std::memcmp(magic, kMagic, 6) != 0 ||
      version[0] < 1 || version[0] > 3) {
    throw Error(ErrorCode::format, "read_npy", path, "not a .npy file");
  }
  const std::size_t length_bytes = version[0] == 1 ? 2 : 4;
  unsigned char bytes[4] = {};
  if (std::fread(bytes, 1, length_bytes, in) != length_bytes) throw Error(ErrorCode::format, "read_npy", path, "truncated header");
  const std::uint64_t length = version[0] == 1 ? (bytes[0] | bytes[1] << 8)
                                               : (bytes[0] | bytes[1] << 8 | bytes[2] << 16 | std::uint64_t{bytes[3]} << 24);
  const std::uint64_t offset = 8 + length_bytes + length;  // where the data starts
  if (length > max_npy_header_bytes) {
    throw Error(ErrorCode::format, "read_npy", path,
                "the header claims " + std::to_string(length) + " bytes; at most " + std::to_string(max_npy_header_bytes) +
                    " are accepted");
  }
  if (offset > input.size) throw Error(ErrorCode::format, "read_npy", path, "truncated header");
  std::string header(static_cast<std::size_t>(length), '\0');
  if (std::fread(header.data(), 1, header.size(), in) != header.size()) {
    throw Error(ErrorCode::format, "read_npy", path, "truncated header");
  }

  const HeaderScanner::Header h = HeaderScanner(header, path).parse();
  if (!h.has_descr) throw Error(ErrorCode::format, "read_npy", path, "no 'descr' in the header");
  const std::optional<Depth> depth = depth_of(h.descr);
  if (!depth) {
    throw Error(ErrorCode::unsupported_type, "read_npy", path,
                "element type '" + HeaderScanner::shown(h.descr) + "' is not supported");
  }
  if (h.fortran_order) throw Error(ErrorCode::unsupported_type, "read_npy", path, "Fortran-ordered arrays are not supported");
  if (!h.has_shape || h.shape.size() < 2 || h.shape.size() > 3) {
    throw Error(ErrorCode::format, "read_npy", path, "the shape must be (height, width) or (height, width, channels)");
  }
  const std::uint64_t limit = static_cast<std::uint64_t>(max_image_dimension) + 1;  // larger values fail the check below
  const int height = static_cast<int>(std::min(h.shape[0], limit));
  const int width = static_cast<int>(std::min(h.shape[1], limit));
  const int channels = h.shape.size() == 3 ? static_cast<int>(std::min<std::uint64_t>(h.shape[2], 64)) : 1;
  const Format format{*depth, channels};
  detail::check_geometry(width, height, format, "read_npy", path);
  // The data must be in the file before anything is allocated for it.
  const std::uint64_t data_bytes = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height) * format.pixel_size();
  if (input.size - offset < data_bytes) {
    throw Error(ErrorCode::format, "read_npy", path,
                "truncated data: the shape needs " + std::to_string(data_bytes) + " bytes, the file holds " +
                    std::to_string(input.size - offset));
  }
  HostImage image(width, height, format);
  for (int y = 0; y < height; ++y) {
    if (std::fread(image.row(y), 1, image.row_bytes(), in) != image.row_bytes()) {
      throw Error(ErrorCode::format, "read_npy", path, "truncated data");
    }
  }
  return image;
}

}  // namespace plinth
