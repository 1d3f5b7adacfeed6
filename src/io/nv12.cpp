// NV12 frames: allocation, plane views, raw files and the RGB -> NV12 conversion of OpenCV's
// COLOR_RGB2YUV_I420 (its U and V planes interleaved).
#include "plinth/nv12.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <cstdio>

#include "core/image_checks.hpp"
#include "io/io_detail.hpp"
#include "plinth/error.hpp"
#include "plinth/io.hpp"

namespace plinth {
namespace {

void check_frame_size(Size size, std::string_view op, std::string_view arg) {
  if (size.width <= 0 || size.height <= 0 || size.width % 2 != 0 || size.height % 2 != 0) {
    throw Error(ErrorCode::invalid_argument, std::string(op), std::string(arg),
                "NV12 frames need an even, positive size; got " + std::to_string(size.width) + "x" +
                    std::to_string(size.height));
  }
  detail::check_geometry(size.width, size.height + size.height / 2, Format{Depth::u8, 1}, op, arg);
}

std::string shape_text(int w, int h, Format f) {
  return std::to_string(w) + "x" + std::to_string(h) + " " + std::string(to_string(f.depth)) + "C" + std::to_string(f.channels);
}

template <class Image>
void check_planes(const Image& y, const Image& uv, std::string_view op, std::string_view arg) {
  if (y.empty() || uv.empty()) throw Error(ErrorCode::invalid_argument, std::string(op), std::string(arg), "a plane is empty");
  check_frame_size(y.size(), op, arg);
  if (y.format() != Format{Depth::u8, 1}) {
    throw Error(ErrorCode::invalid_argument, std::string(op), std::string(arg),
                "the Y plane is " + shape_text(y.width(), y.height(), y.format()) + " but must be u8C1");
  }
  if (uv.format() != Format{Depth::u8, 2} || uv.width() != y.width() / 2 || uv.height() != y.height() / 2) {
    throw Error(ErrorCode::invalid_argument, std::string(op), std::string(arg),
                "the UV plane is " + shape_text(uv.width(), uv.height(), uv.format()) + " but must be " +
                    shape_text(y.width() / 2, y.height() / 2, Format{Depth::u8, 2}));
  }
}

std::uint64_t frame_bytes(Size size) {
  return static_cast<std::uint64_t>(size.width) * static_cast<std::uint64_t>(size.height) * 3u / 2u;
}

// OpenCV's BT.601 RGB -> YUV420 coefficients in 20-bit fixed point.
constexpr int kShift = 20;
constexpr int kRY = 269484, kGY = 528482, kBY = 102760;
constexpr int kRU = -155188, kGU = -305135, kBU = 460324;
constexpr int kGV = -385875, kBV = -74448;

std::uint8_t clamp_u8(int v) { return static_cast<std::uint8_t>(std::clamp(v, 0, 255)); }

}  // namespace

Nv12Frame make_nv12_frame(Size size) {
  check_frame_size(size, "make_nv12_frame", "size");
  return Nv12Frame{HostImage(size.width, size.height, Format{Depth::u8, 1}),
                   HostImage(size.width / 2, size.height / 2, Format{Depth::u8, 2})};
}

DeviceNv12Frame make_device_nv12_frame(const Context& context, Size size) {
  check_frame_size(size, "make_device_nv12_frame", "size");
  return DeviceNv12Frame{DeviceImage(context, size.width, size.height, Format{Depth::u8, 1}),
                         DeviceImage(context, size.width / 2, size.height / 2, Format{Depth::u8, 2})};
}

void check_nv12_frame(const Nv12Frame& frame, std::string_view op, std::string_view arg) {
  check_planes(frame.y, frame.uv, op, arg);
}

void check_nv12_frame(const DeviceNv12Frame& frame, std::string_view op, std::string_view arg) {
  check_planes(frame.y, frame.uv, op, arg);
}

Nv12Frame nv12_planes(const HostImage& packed) {
  detail::check_host(packed, "nv12_planes", "packed");
  if (packed.format() != Format{Depth::u8, 1} || packed.height() % 3 != 0) {
    throw Error(ErrorCode::invalid_argument, "nv12_planes", "packed",
                "is " + shape_text(packed.width(), packed.height(), packed.format()) +
                    "; a packed NV12 frame is u8C1 with a height divisible by 3");
  }
  const Size size{packed.width(), packed.height() / 3 * 2};
  check_frame_size(size, "nv12_planes", "packed");
  return Nv12Frame{packed.view(Rect{0, 0, size.width, size.height}),
                   HostImage::wrap(packed.row(size.height), size.width / 2, size.height / 2, Format{Depth::u8, 2},
                                   packed.pitch())};
}

DeviceNv12Frame nv12_planes(const Context& context, const DeviceImage& packed) {
  if (packed.empty()) throw Error(ErrorCode::invalid_argument, "nv12_planes", "packed", "the image is empty");
  if (packed.format() != Format{Depth::u8, 1} || packed.height() % 3 != 0) {
    throw Error(ErrorCode::invalid_argument, "nv12_planes", "packed",
                "is " + shape_text(packed.width(), packed.height(), packed.format()) +
                    "; a packed NV12 frame is u8C1 with a height divisible by 3");
  }
  const Size size{packed.width(), packed.height() / 3 * 2};
  check_frame_size(size, "nv12_planes", "packed");
  const std::size_t uv_offset = packed.offset() + packed.pitch() * static_cast<std::size_t>(size.height);
  return DeviceNv12Frame{packed.view(Rect{0, 0, size.width, size.height}),
                         DeviceImage::wrap(context, packed.native(), size.width / 2, size.height / 2,
                                           Format{Depth::u8, 2}, packed.pitch(), uv_offset)};
}

HostImage pack_nv12(const Nv12Frame& frame) {
  check_nv12_frame(frame, "pack_nv12", "frame");
  const int w = frame.y.width(), h = frame.y.height();
  HostImage packed(w, h + h / 2, Format{Depth::u8, 1});
  for (int y = 0; y < h; ++y) std::memcpy(packed.row(y), frame.y.row(y), static_cast<std::size_t>(w));
  for (int y = 0; y < h / 2; ++y) std::memcpy(packed.row(h + y), frame.uv.row(y), static_cast<std::size_t>(w));
  return packed;
}

int count_nv12_frames(const std::string& path, Size size) {
  check_frame_size(size, "read_nv12", "size");
  const std::uint64_t bytes = detail::open_input(path, "read_nv12").size;
  const std::uint64_t frame = frame_bytes(size);
  if (bytes == 0 || bytes % frame != 0) {
    throw Error(ErrorCode::format, "read_nv12", path,
                "holds " + std::to_string(bytes) + " bytes, not a whole number of " + std::to_string(size.width) + "x" +
                    std::to_string(size.height) + " NV12 frames (" + std::to_string(frame) + " bytes each)");
  }
  if (bytes / frame > static_cast<std::uint64_t>(INT32_MAX)) {
    throw Error(ErrorCode::out_of_range, "read_nv12", path, "holds too many frames");
  }
  return static_cast<int>(bytes / frame);
}

Nv12Frame read_nv12(const std::string& path, Size size, int index) {
  const int frames = count_nv12_frames(path, size);
  if (index < 0 || index >= frames) {
    throw Error(ErrorCode::out_of_range, "read_nv12", "index",
                std::to_string(index) + " is not one of the file's " + std::to_string(frames) + " frames");
  }
  detail::InputFile input = detail::open_input(path, "read_nv12");
  std::FILE* in = input.file.get();
  if (::fseeko(in, static_cast<off_t>(frame_bytes(size) * static_cast<std::uint64_t>(index)), SEEK_SET) != 0) {
    throw Error(ErrorCode::io, "read_nv12", path, "cannot seek to frame " + std::to_string(index));
  }
  Nv12Frame frame = make_nv12_frame(size);
  const auto w = static_cast<std::size_t>(size.width);
  bool ok = true;
  for (int y = 0; y < size.height && ok; ++y) ok = std::fread(frame.y.row(y), 1, w, in) == w;
  for (int y = 0; y < size.height / 2 && ok; ++y) ok = std::fread(frame.uv.row(y), 1, w, in) == w;
  if (!ok) throw Error(ErrorCode::io, "read_nv12", path, "the file ended early while reading");
  return frame;
}

void write_nv12(OutputFile& out, const Nv12Frame& frame) {
  check_nv12_frame(frame, "write_nv12", "frame");
  const auto w = static_cast<std::size_t>(frame.y.width());
  for (int y = 0; y < frame.y.height(); ++y) out.write(frame.y.row(y), w);
  for (int y = 0; y < frame.uv.height(); ++y) out.write(frame.uv.row(y), w);
}

void write_nv12(const std::string& path, const Nv12Frame& frame, bool append) {
  check_nv12_frame(frame, "write_nv12", "frame");
  if (!append) {
    OutputFile out(path, "write_nv12");
    write_nv12(out, frame);
    out.commit();
    return;
  }
  // Appending cannot go through a temporary file; every write and the close are checked. A FIFO
  // without a reader fails instead of waiting for ever, as with OutputFile.
  const int fd = detail::open_without_waiting(path, O_WRONLY | O_APPEND | O_CREAT, 0666);
  std::FILE* file = fd < 0 ? nullptr : ::fdopen(fd, "ab");
  if (file == nullptr) {
    const int error = errno;
    if (fd >= 0) ::close(fd);
    throw Error(ErrorCode::io, "write_nv12", path, "cannot open the file for writing: " + std::string(std::strerror(error)));
  }
  detail::File owner(file);
  const auto w = static_cast<std::size_t>(frame.y.width());
  bool ok = true;
  for (int y = 0; y < frame.y.height() && ok; ++y) ok = std::fwrite(frame.y.row(y), 1, w, file) == w;
  for (int y = 0; y < frame.uv.height() && ok; ++y) ok = std::fwrite(frame.uv.row(y), 1, w, file) == w;
  if (!ok || std::fflush(file) != 0) {
    throw Error(ErrorCode::io, "write_nv12", path, "writing failed: " + std::string(std::strerror(errno)));
  }
  if (std::fclose(owner.release()) != 0) {
    throw Error(ErrorCode::io, "write_nv12", path, "closing failed: " + std::string(std::strerror(errno)));
  }
}

Nv12Frame nv12_from_rgb(const HostImage& rgb, bool bgr) {
  detail::check_host(rgb, "nv12_from_rgb", "rgb");
  if (rgb.depth() != Depth::u8 || (rgb.channels() != 3 && rgb.channels() != 4)) {
    throw Error(ErrorCode::unsupported_type, "nv12_from_rgb", "rgb",
                "needs an 8-bit image of 3 or 4 channels, not " + shape_text(rgb.width(), rgb.height(), rgb.format()));
  }
  Nv12Frame frame = make_nv12_frame(rgb.size());
  const int cn = rgb.channels();
  const int ri = bgr ? 2 : 0, bi = bgr ? 0 : 2;
  constexpr int half = 1 << (kShift - 1);
  for (int y = 0; y < rgb.height(); ++y) {
    const std::uint8_t* in = rgb.row_as<std::uint8_t>(y);
    std::uint8_t* out = frame.y.row_as<std::uint8_t>(y);
    for (int x = 0; x < rgb.width(); ++x) {
      const int r = in[x * cn + ri], g = in[x * cn + 1], b = in[x * cn + bi];
      out[x] = clamp_u8((kRY * r + kGY * g + kBY * b + half + (16 << kShift)) >> kShift);
    }
    if (y % 2 != 0) continue;
    // OpenCV takes U and V from the top-left pixel of each 2x2 block, without averaging.
    std::uint8_t* uv = frame.uv.row_as<std::uint8_t>(y / 2);
    for (int x = 0; x < rgb.width(); x += 2) {
      const int r = in[x * cn + ri], g = in[x * cn + 1], b = in[x * cn + bi];
      uv[x] = clamp_u8((kRU * r + kGU * g + kBU * b + half + (128 << kShift)) >> kShift);
      uv[x + 1] = clamp_u8((kBU * r + kGV * g + kBV * b + half + (128 << kShift)) >> kShift);
    }
  }
  return frame;
}

DeviceNv12Frame upload_nv12(Queue& queue, const Nv12Frame& frame) {
  check_nv12_frame(frame, "upload_nv12", "frame");
  return DeviceNv12Frame{queue.upload(frame.y), queue.upload(frame.uv)};
}

Nv12Frame download_nv12(Queue& queue, const DeviceNv12Frame& frame) {
  check_nv12_frame(frame, "download_nv12", "frame");
  return Nv12Frame{queue.download(frame.y), queue.download(frame.uv)};
}

}  // namespace plinth
