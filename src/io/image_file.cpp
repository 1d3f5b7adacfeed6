// read_image / write_image: dispatch on the format, decode through stb_image, grey conversion.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "core/image_checks.hpp"
#include "io/io_detail.hpp"
#include "io/jpeg_check.hpp"
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

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

File open_for_reading(const std::string& path, const char* op) {
  File file(std::fopen(path.c_str(), "rb"));
  if (!file) throw Error(ErrorCode::io, op, path, std::string("cannot open: ") + std::strerror(errno));
  return file;
}

bool starts_with(const unsigned char* data, std::size_t size, std::string_view magic) {
  return size >= magic.size() && std::memcmp(data, magic.data(), magic.size()) == 0;
}

HostImage read_with_stb(const std::string& path) {
  File file = open_for_reading(path, kRead);
  detail::check_jpeg_huffman_tables(file.get(), path);  // before stb reads any table
  int width = 0, height = 0, channels = 0;
  if (!stbi_info_from_file(file.get(), &width, &height, &channels)) {
    throw Error(ErrorCode::format, kRead, path, std::string("not a readable image: ") + stbi_failure_reason());
  }
  detail::check_geometry(width, height, Format{Depth::u8, std::clamp(channels, 1, 4)}, kRead, path);
  const bool sixteen = stbi_is_16_bit_from_file(file.get()) != 0;
  std::fseek(file.get(), 0, SEEK_SET);
  int w = 0, h = 0, c = 0;
  void* pixels = sixteen ? static_cast<void*>(stbi_load_from_file_16(file.get(), &w, &h, &c, 0))
                         : static_cast<void*>(stbi_load_from_file(file.get(), &w, &h, &c, 0));
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

HostImage read_image(const std::string& path, ReadMode mode) {
  bool pnm = false;
  {
    File file = open_for_reading(path, kRead);
    unsigned char head[8] = {};
    const std::size_t got = std::fread(head, 1, sizeof head, file.get());
    if (got == 0) throw Error(ErrorCode::format, kRead, path, "the file is empty");
    pnm = got >= 2 && head[0] == 'P' && (head[1] == '2' || head[1] == '3' || head[1] == '5' || head[1] == '6');
    const bool known = pnm || starts_with(head, got, "\x89PNG") || starts_with(head, got, "\xFF\xD8") ||
                       starts_with(head, got, "BM");
    if (!known) throw Error(ErrorCode::format, kRead, path, "not a PNG, JPEG, BMP, PGM or PPM file");
  }
  HostImage image = pnm ? detail::read_pnm(path) : read_with_stb(path);
  switch (mode) {
    case ReadMode::unchanged: return image;
    case ReadMode::gray:
      if (image.depth() != Depth::u8) throw Error(ErrorCode::unsupported_type, kRead, path, "grey conversion needs an 8-bit image");
      return to_gray(image);
    case ReadMode::rgb: return to_rgb(image);
  }
  return image;
}

void write_image(const std::string& path, const HostImage& image) {
  if (image.empty()) throw Error(ErrorCode::invalid_argument, kWrite, "image", "the image is empty");
  const std::string ext = detail::extension_of(path);
  if (ext == ".npy") return write_npy(path, image);
  if (ext == ".pgm" || ext == ".ppm" || ext == ".pnm") return detail::write_pnm(path, image);
  if (ext != ".png") {
    throw Error(ErrorCode::invalid_argument, kWrite, path, "unknown extension '" + ext + "' (use .png, .pgm, .ppm or .npy)");
  }
  if (image.depth() != Depth::u8) {
    throw Error(ErrorCode::unsupported_type, kWrite, path,
                "PNG output takes 8-bit images; write " + std::string(to_string(image.depth())) + " as .pgm/.ppm (16 bit) or .npy");
  }
  if (!stbi_write_png(path.c_str(), image.width(), image.height(), image.channels(), image.data(),
                      static_cast<int>(image.pitch()))) {
    throw Error(ErrorCode::io, kWrite, path, "cannot write the PNG file");
  }
}

}  // namespace plinth
