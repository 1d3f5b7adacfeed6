#pragma once
// Image files in and out, and numeric arrays as NumPy .npy files.
//   in:  PNG, BMP (through stb_image), JPEG (libjpeg-turbo, decoded as cv::imread decodes it),
//        PGM / PPM (P2, P3, P5, P6; 8 or 16 bit)
//   out: PNG (8 bit), PGM / PPM (8 or 16 bit), .npy (any depth and channel count)
// Colour images are read and written in the file's channel order, RGB(A); OpenCV's imread
// gives BGR instead. Grey conversion matches cv::cvtColor(RGB2GRAY) bit for bit. The modes below
// give what cv::imread gives with the flags named (tests/jpeg_test.cpp for JPEG).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "plinth/image.hpp"

namespace plinth {

// The most pixels (width x height) read_image decodes. The header's size is checked against it
// before any pixel is decoded, so that a small file that claims a huge image (a decompression
// bomb) is refused at once: Error(out_of_range). 2^28 pixels is 16384x16384.
inline constexpr std::int64_t max_decoded_pixels = std::int64_t{1} << 28;
// The longest .npy header read_npy accepts (NumPy writes 64 to a few hundred bytes).
inline constexpr std::size_t max_npy_header_bytes = 65536;

// Every file plinth writes goes through an OutputFile. The bytes go to a temporary file in the
// same directory (".NAME.XXXXXXXX.tmp"), and commit() flushes, syncs, closes and renames it into
// place: a reader never sees a partial file, a failed write leaves nothing behind, and a file
// that was at the path stays untouched until the new one is complete. Every write, the flush and
// the close are checked (Error(io) naming the path). Destroyed without commit(), it removes the
// temporary file. A path that exists and is not a regular file (/dev/null, /dev/full, a FIFO) is
// written in place, without a temporary file; a symbolic link is followed.
class OutputFile {
 public:
  // `operation` names the caller in errors ("write_image").
  OutputFile(std::string path, std::string operation);
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  void write(const void* data, std::size_t size);
  void write(std::string_view text) { write(text.data(), text.size()); }
  // Completes the file; after an error (thrown here or by write) the file is not there.
  void commit();
  const std::string& path() const noexcept { return path_; }

 private:
  void flush_buffer();
  void discard() noexcept;

  std::string path_;       // as given; errors name it
  std::string operation_;
  std::string temp_;       // empty when written in place
  std::string target_;     // where the temporary file is renamed to (the link's target for a link)
  int fd_ = -1;
  bool committed_ = false;
  std::string buffer_;
};

enum class ReadMode {
  unchanged,  // the file's channels (1 grey, 2 grey+alpha, 3 RGB, 4 RGBA) and depth (u8 or u16);
              // IMREAD_UNCHANGED: a JPEG's EXIF orientation is not applied
  gray,       // one u8 channel; IMREAD_GRAYSCALE: a colour JPEG gives libjpeg's own grey output
              // (its luma, not cvtColor of its RGB), turned to its EXIF orientation
  rgb,        // three u8 channels; IMREAD_COLOR in RGB order, a JPEG turned to its EXIF orientation
};

// Throws Error(io) when the file cannot be opened, Error(format) when it is not a readable
// image (corrupt, truncated, unknown format), Error(out_of_range) for absurd dimensions.
HostImage read_image(const std::string& path, ReadMode mode = ReadMode::unchanged);
// The format follows the extension (.png, .pgm, .ppm, .npy). Replaces an existing file, through
// an OutputFile: on failure the file that was there is kept.
void write_image(const std::string& path, const HostImage& image);
// The same into an OutputFile (the format follows its path); the caller commits, so that several
// files can be completed together.
void write_image(OutputFile& out, const HostImage& image);

// .npy: shape (height, width) for one channel, (height, width, channels) otherwise.
void write_npy(const std::string& path, const HostImage& image);
HostImage read_npy(const std::string& path);

// RGB(A) or grey+alpha to grey with OpenCV's fixed-point weights; u8 sources only.
HostImage to_gray(const HostImage& image);

}  // namespace plinth
