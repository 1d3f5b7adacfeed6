// read_image / write_image: dispatch on the format, decode PNG and BMP through stb_image (JPEG:
// src/io/jpeg.cpp), grey conversion.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "core/image_checks.hpp"
#include "io/io_detail.hpp"
#include "io/png_chunks.hpp"
#include "plinth/error.hpp"
#include "plinth/io.hpp"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#include <stb_image.h>
#include <stb_image_write.h>
#pragma GCC diagnostic pop

namespace plinth {
namespace {

constexpr const char* kRead = "read_image";
constexpr const char* kWrite = "write_image";

using detail::File;

bool starts_with(const unsigned char* data, std::size_t size, std::string_view magic) {
  return size >= magic.size() && std::memcmp(data, magic.data(), magic.size()) == 0;
}

std::uint32_t big_endian32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) << 24 | static_cast<std::uint32_t>(p[1]) << 16 |
         static_cast<std::uint32_t>(p[2]) << 8 | p[3];
}

std::int32_t little_endian32(const unsigned char* p) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
                                   static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24);
}

std::uint16_t little_endian16(const unsigned char* p) { return static_cast<std::uint16_t>(p[0] | p[1] << 8); }

// The sizes PNG and BMP headers state, checked before stb looks at the file: stb's own refusal of
// a zero or huge size reads "unknown image type", which says nothing useful. An uncompressed BMP
// must also hold all its rows: stb would read the missing bytes as zeros, slowly for a large
// size, and return an image nobody wrote.
void check_header_size(const unsigned char* head, std::size_t got, std::uint64_t file_size, const std::string& path) {
  if (starts_with(head, got, "\x89PNG\r\n\x1a\n")) {
    if (got < 26 || std::memcmp(head + 12, "IHDR", 4) != 0) {
      throw Error(ErrorCode::format, kRead, path, "not a readable PNG file: the IHDR header is missing or truncated");
    }
    const int colour = head[25];
    const int channels = colour == 0 ? 1 : colour == 4 ? 2 : colour == 6 ? 4 : 3;
    detail::check_decoded_size(big_endian32(head + 16), big_endian32(head + 20), channels, "PNG", path);
  } else if (starts_with(head, got, "BM")) {
    // stb reads what the file lacks as zeros, so a header cut short would state sizes and a bit
    // count nobody wrote (a 29-byte file decoded as 32769x7426 pixels at 1 bit, for 48 s under
    // ASan): the file must hold its header's sizes, bit count and compression.
    const std::uint32_t header_bytes = got >= 18 ? static_cast<std::uint32_t>(little_endian32(head + 14)) : 0;
    const std::size_t fields = header_bytes == 12 ? 26 : 34;
    if (got < fields || file_size < 14 + std::uint64_t{header_bytes}) {
      throw Error(ErrorCode::format, kRead, path, "truncated BMP file: its header is cut short");
    }
    long long width = 0, height = 0;
    int bits = 0;
    std::uint32_t compression = 0;
    if (header_bytes == 12) {  // OS/2 BITMAPCOREHEADER: 16-bit sizes
      width = little_endian16(head + 18);
      height = little_endian16(head + 20);
      bits = little_endian16(head + 24);
    } else {
      width = little_endian32(head + 18);
      height = little_endian32(head + 22);
      if (height < 0) height = -height;  // top-down rows
      bits = little_endian16(head + 28);
      compression = static_cast<std::uint32_t>(little_endian32(head + 30));
    }
    detail::check_decoded_size(width, height, 3, "BMP", path);
    // Every row is stored but in RLE (1, 2), which stb refuses; stb reads any other compression
    // code as uncompressed rows.
    const bool uncompressed = compression != 1 && compression != 2;
    if (uncompressed && bits >= 1 && bits <= 32) {
      const std::uint64_t data_offset = static_cast<std::uint32_t>(little_endian32(head + 10));
      const std::uint64_t row_bytes = (static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(bits) + 31) / 32 * 4;
      const std::uint64_t needed = data_offset + row_bytes * static_cast<std::uint64_t>(height);
      if (file_size < needed) {
        throw Error(ErrorCode::format, kRead, path,
                    "truncated BMP file: its " + std::to_string(width) + "x" + std::to_string(height) + " pixels at " +
                        std::to_string(bits) + " bits need " + std::to_string(needed) + " bytes, the file has " +
                        std::to_string(file_size));
      }
    }
  }
}

// stb's entry points for a file, or for its bytes where they had to be repaired first.
struct StbSource {
  std::FILE* file;
  std::optional<std::vector<unsigned char>> bytes;

  const stbi_uc* data() const { return bytes->data(); }
  int size() const { return static_cast<int>(bytes->size()); }
  bool info(int* w, int* h, int* c) const {
    return (bytes ? stbi_info_from_memory(data(), size(), w, h, c) : stbi_info_from_file(file, w, h, c)) != 0;
  }
  bool sixteen_bit() const {
    return (bytes ? stbi_is_16_bit_from_memory(data(), size()) : stbi_is_16_bit_from_file(file)) != 0;
  }
  void* load(bool sixteen, int* w, int* h, int* c) const {
    if (bytes) {
      return sixteen ? static_cast<void*>(stbi_load_16_from_memory(data(), size(), w, h, c, 0))
                     : static_cast<void*>(stbi_load_from_memory(data(), size(), w, h, c, 0));
    }
    std::fseek(file, 0, SEEK_SET);
    return sixteen ? static_cast<void*>(stbi_load_from_file_16(file, w, h, c, 0))
                   : static_cast<void*>(stbi_load_from_file(file, w, h, c, 0));
  }
};

HostImage read_with_stb(detail::InputFile input, const std::string& path) {
  std::FILE* file = input.file.get();
  detail::PngForStb png = detail::png_for_stb(file);
  if (png.chunk_too_long) {
    throw Error(ErrorCode::format, kRead, path, "corrupt PNG file: a chunk declares more than 2^31 - 1 bytes");
  }
  if (png.chunk_past_end) throw Error(ErrorCode::format, kRead, path, "truncated PNG file: a chunk runs past the end of the file");
  StbSource source{file, std::nullopt};
  source.bytes.swap(png.repaired);
  if (source.bytes && source.bytes->size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw Error(ErrorCode::format, kRead, path, "PNG file too large to read (over 2 GiB)");
  }
  int width = 0, height = 0, channels = 0;
  if (!source.info(&width, &height, &channels)) {
    const char* reason = stbi_failure_reason();
    // stb tries every format in turn and then names none; its own reason only when it has one.
    const bool specific = reason != nullptr && std::string_view(reason) != "unknown image type";
    throw Error(ErrorCode::format, kRead, path,
                std::string("not a readable image: ") + (specific ? reason : "corrupt or truncated header"));
  }
  detail::check_decoded_size(width, height, std::clamp(channels, 1, 4), "image", path);
  detail::check_geometry(width, height, Format{Depth::u8, std::clamp(channels, 1, 4)}, kRead, path);
  const bool sixteen = source.sixteen_bit();
  int w = 0, h = 0, c = 0;
  void* pixels = source.load(sixteen, &w, &h, &c);
  if (pixels == nullptr) {
    const char* reason = stbi_failure_reason();
    throw Error(ErrorCode::format, kRead, path,
                std::string("cannot decode: ") + (reason != nullptr && *reason != '\0' ? reason : "truncated or corrupt data"));
  }
  std::unique_ptr<void, void (*)(void*)> owner(pixels, stbi_image_free);
  const Format format{sixteen ? Depth::u16 : Depth::u8, c};
  HostImage image(w, h, format);
  for (int y = 0; y < h; ++y) {
    std::memcpy(image.row(y), static_cast<const std::byte*>(pixels) + static_cast<std::size_t>(y) * image.row_bytes(),
                image.row_bytes());
  }
  return image;
}

HostImage to_rgb(const HostImage& image) {
  if (image.depth() != Depth::u8) {
    throw Error(ErrorCode::unsupported_type, kRead, "mode", "colour conversion needs an 8-bit image");
  }
  if (image.channels() == 3) return image;
  HostImage rgb(image.width(), image.height(), Format{Depth::u8, 3});
  for (int y = 0; y < image.height(); ++y) {
    for (int x = 0; x < image.width(); ++x) {
      for (int c = 0; c < 3; ++c) {
        rgb.at<std::uint8_t>(x, y, c) = image.channels() >= 3 ? image.at<std::uint8_t>(x, y, c) : image.at<std::uint8_t>(x, y, 0);
      }
    }
  }
  return rgb;
}

}  // namespace

namespace detail {

std::string extension_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  std::string ext = path.substr(dot);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return ext;
}

void check_decoded_size(long long width, long long height, int channels, const char* what, const std::string& path) {
  const std::string size = std::to_string(width) + "x" + std::to_string(height);
  if (width <= 0 || height <= 0) {
    throw Error(ErrorCode::format, kRead, path, std::string("the ") + what + " header gives a size of " + size + "; both sides must be positive");
  }
  if (width > max_image_dimension || height > max_image_dimension) {
    throw Error(ErrorCode::out_of_range, kRead, path,
                std::string("the ") + what + " header gives a size of " + size + "; each side must be at most " +
                    std::to_string(max_image_dimension));
  }
  if (width * height > max_decoded_pixels || width * height * channels > max_image_elements) {
    throw Error(ErrorCode::out_of_range, kRead, path,
                std::string("the ") + what + " header gives a size of " + size + ", more than the " +
                    std::to_string(max_decoded_pixels) + " pixels (2^28) read_image decodes");
  }
}

}  // namespace detail

HostImage to_gray(const HostImage& image) {
  if (image.empty()) throw Error(ErrorCode::invalid_argument, "to_gray", "image", "the image is empty");
  if (image.depth() != Depth::u8) throw Error(ErrorCode::unsupported_type, "to_gray", "image", "needs an 8-bit image");
  if (image.channels() == 1) return image;
  HostImage gray(image.width(), image.height(), Format{Depth::u8, 1});
  for (int y = 0; y < image.height(); ++y) {
    const std::uint8_t* in = image.row_as<std::uint8_t>(y);
    std::uint8_t* out = gray.row_as<std::uint8_t>(y);
    for (int x = 0; x < image.width(); ++x, in += image.channels()) {
      if (image.channels() == 2) {
        out[x] = in[0];
      } else {
        // cv::cvtColor's RGB2GRAY for 8 bits: 0.299, 0.587, 0.114 in 15-bit fixed point, rounded.
        out[x] = static_cast<std::uint8_t>((in[0] * 9798 + in[1] * 19235 + in[2] * 3735 + (1 << 14)) >> 15);
      }
    }
  }
  return gray;
}

namespace {

HostImage convert_mode(HostImage image, ReadMode mode, const std::string& path) {
  switch (mode) {
    case ReadMode::unchanged: return image;
    case ReadMode::gray:
      if (image.depth() != Depth::u8) throw Error(ErrorCode::unsupported_type, kRead, path, "grey conversion needs an 8-bit image");
      return to_gray(image);
    case ReadMode::rgb: return to_rgb(image);
  }
  return image;
}

// stb hands the encoded PNG over in one piece; errors are kept and thrown after stb returns, so
// that no exception crosses its code.
struct PngSink {
  OutputFile* out;
  std::exception_ptr error;
};

void png_sink(void* context, void* data, int size) {
  auto* sink = static_cast<PngSink*>(context);
  if (sink->error) return;
  try {
    sink->out->write(data, static_cast<std::size_t>(size));
  } catch (...) {
    sink->error = std::current_exception();
  }
}

}  // namespace

HostImage read_image(const std::string& path, ReadMode mode) {
  bool pnm = false;
  {
    detail::InputFile input = detail::open_input(path, kRead);
    if (input.size == 0) throw Error(ErrorCode::format, kRead, path, "the file is empty");
    unsigned char head[64] = {};
    const std::size_t got = std::fread(head, 1, sizeof head, input.file.get());
    if (got == 0) throw Error(ErrorCode::io, kRead, path, "cannot read the file");
    pnm = got >= 2 && head[0] == 'P' && (head[1] == '2' || head[1] == '3' || head[1] == '5' || head[1] == '6');
    const bool known = pnm || starts_with(head, got, "\x89PNG") || starts_with(head, got, "\xFF\xD8") ||
                       starts_with(head, got, "BM");
    if (!known) throw Error(ErrorCode::format, kRead, path, "not a PNG, JPEG, BMP, PGM or PPM file");
    if (starts_with(head, got, "\xFF\xD8")) {
      std::fseek(input.file.get(), 0, SEEK_SET);
      return convert_mode(detail::read_jpeg(input.file.get(), path, mode), mode, path);
    }
    if (!pnm) {
      check_header_size(head, got, input.size, path);
      std::fseek(input.file.get(), 0, SEEK_SET);
      return convert_mode(read_with_stb(std::move(input), path), mode, path);
    }
  }
  return convert_mode(detail::read_pnm(path), mode, path);
}

void write_image(const std::string& path, const HostImage& image) {
  if (image.empty()) throw Error(ErrorCode::invalid_argument, kWrite, "image", "the image is empty");
  const std::string ext = detail::extension_of(path);
  if (ext != ".npy" && ext != ".pgm" && ext != ".ppm" && ext != ".pnm" && ext != ".png") {
    throw Error(ErrorCode::invalid_argument, kWrite, path, "unknown extension '" + ext + "' (use .png, .pgm, .ppm or .npy)");
  }
  OutputFile out(path, kWrite);
  write_image(out, image);
  out.commit();
}

void write_image(OutputFile& out, const HostImage& image) {
  const std::string& path = out.path();
  if (image.empty()) throw Error(ErrorCode::invalid_argument, kWrite, "image", "the image is empty");
  const std::string ext = detail::extension_of(path);
  if (ext == ".npy") return detail::write_npy_to(out, image);
  if (ext == ".pgm" || ext == ".ppm" || ext == ".pnm") return detail::write_pnm(out, image);
  if (ext != ".png") {
    throw Error(ErrorCode::invalid_argument, kWrite, path, "unknown extension '" + ext + "' (use .png, .pgm, .ppm or .npy)");
  }
  if (image.depth() != Depth::u8) {
    throw Error(ErrorCode::unsupported_type, kWrite, path,
                "PNG output takes 8-bit images; write " + std::string(to_string(image.depth())) + " as .pgm/.ppm (16 bit) or .npy");
  }
  PngSink sink{&out, nullptr};
  if (!stbi_write_png_to_func(png_sink, &sink, image.width(), image.height(), image.channels(), image.data(),
                              static_cast<int>(image.pitch()))) {
    throw Error(ErrorCode::io, kWrite, path, "cannot encode the PNG file");
  }
  if (sink.error) std::rethrow_exception(sink.error);
}

}  // namespace plinth
