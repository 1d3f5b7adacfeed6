// PGM / PPM (Netpbm) reading and writing: P2/P5 grey, P3/P6 colour, maxval up to 65535
// (16-bit samples are big-endian). Values are kept as stored, not rescaled to the maxval.
#include <cctype>
#include <cerrno>
#include <cstring>
#include <vector>

#include "io/io_detail.hpp"
#include "plinth/error.hpp"
#include "plinth/io.hpp"

namespace plinth::detail {
namespace {

constexpr const char* kRead = "read_image";

class Reader {
 public:
  Reader(std::vector<char> data, const std::string& path) : data_(std::move(data)), path_(path) {}

  // Skips whitespace and # comments, then reads an unsigned decimal number.
  long long number(const char* what) {
    skip_space();
    if (pos_ >= data_.size() || !std::isdigit(static_cast<unsigned char>(data_[pos_]))) {
      throw Error(ErrorCode::format, kRead, path_, std::string("truncated or malformed header: expected the ") + what);
    }
    long long value = 0;
    while (pos_ < data_.size() && std::isdigit(static_cast<unsigned char>(data_[pos_]))) {
      value = value * 10 + (data_[pos_++] - '0');
      if (value > (1ll << 31)) throw Error(ErrorCode::out_of_range, kRead, path_, std::string("the ") + what + " is too large");
    }
    return value;
  }

  // After the maxval exactly one whitespace byte separates the header from binary samples.
  void end_of_header() {
    if (pos_ >= data_.size() || !std::isspace(static_cast<unsigned char>(data_[pos_]))) {
      throw Error(ErrorCode::format, kRead, path_, "malformed header: no whitespace after the maxval");
    }
    ++pos_;
  }

  std::size_t remaining() const { return data_.size() - pos_; }
  const unsigned char* here() const { return reinterpret_cast<const unsigned char*>(data_.data()) + pos_; }

 private:
  void skip_space() {
    while (pos_ < data_.size()) {
      if (data_[pos_] == '#') {
        while (pos_ < data_.size() && data_[pos_] != '\n') ++pos_;
      } else if (std::isspace(static_cast<unsigned char>(data_[pos_]))) {
        ++pos_;
      } else {
        break;
      }
    }
  }

  std::vector<char> data_;
  std::size_t pos_ = 2;  // past the magic number
  std::string path_;
};

}  // namespace

HostImage read_pnm(const std::string& path) {
  InputFile input = open_input(path, kRead);
  // The largest PGM/PPM: 2^28 pixels of three 16-bit samples, as ASCII of up to 6 bytes a sample,
  // plus room for comments; read_image's size check refuses bigger images before this one would.
  constexpr std::uint64_t max_file_bytes = std::uint64_t{1} << 33;
  if (input.size > max_file_bytes) throw Error(ErrorCode::out_of_range, kRead, path, "the file is too large for a PGM/PPM image");
  std::vector<char> data(static_cast<std::size_t>(input.size));
  if (!data.empty() && std::fread(data.data(), 1, data.size(), input.file.get()) != data.size()) {
    throw Error(ErrorCode::io, kRead, path, "cannot read the file");
  }
  if (data.size() < 2 || data[0] != 'P') throw Error(ErrorCode::format, kRead, path, "not a PGM or PPM file");
  const char kind = data[1];
  const bool ascii = kind == '2' || kind == '3';
  const int channels = (kind == '3' || kind == '6') ? 3 : 1;
  Reader reader(std::move(data), path);
  const long long width = reader.number("width");
  const long long height = reader.number("height");
  const long long maxval = reader.number("maxval");
  if (maxval < 1 || maxval > 65535) throw Error(ErrorCode::format, kRead, path, "maxval must be 1 to 65535");
  check_decoded_size(width, height, channels, channels == 1 ? "PGM" : "PPM", path);
  const Depth depth = maxval > 255 ? Depth::u16 : Depth::u8;
  const std::size_t sample_bytes = depth_size(depth);
  const std::size_t samples = static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * channels;
  if (!ascii) {
    reader.end_of_header();
    // Checked before allocating, so a lying header cannot make us reserve memory the file lacks.
    if (reader.remaining() < samples * sample_bytes) throw Error(ErrorCode::format, kRead, path, "truncated pixel data");
  } else if (reader.remaining() < samples) {
    throw Error(ErrorCode::format, kRead, path, "truncated pixel data");
  }
  HostImage image(static_cast<int>(width), static_cast<int>(height), Format{depth, channels});
  const std::size_t row_samples = static_cast<std::size_t>(width) * channels;
  for (int y = 0; y < image.height(); ++y) {
    for (std::size_t i = 0; i < row_samples; ++i) {
      long long v = 0;
      if (ascii) {
        v = reader.number("sample");
      } else {
        const unsigned char* p = reader.here() + (static_cast<std::size_t>(y) * row_samples + i) * sample_bytes;
        v = sample_bytes == 2 ? (p[0] << 8 | p[1]) : p[0];
      }
      if (v > maxval) throw Error(ErrorCode::format, kRead, path, "a sample exceeds the maxval");
      if (depth == Depth::u8) {
        image.row_as<std::uint8_t>(y)[i] = static_cast<std::uint8_t>(v);
      } else {
        image.row_as<std::uint16_t>(y)[i] = static_cast<std::uint16_t>(v);
      }
    }
  }
  return image;
}

void write_pnm(OutputFile& out, const HostImage& image) {
  const std::string& path = out.path();
  if (image.depth() != Depth::u8 && image.depth() != Depth::u16) {
    throw Error(ErrorCode::unsupported_type, "write_image", path, "PGM/PPM hold u8 or u16 samples; use .npy for other depths");
  }
  const std::string ext = extension_of(path);
  const bool want_color = ext == ".ppm" || (ext == ".pnm" && image.channels() == 3);
  if ((want_color && image.channels() != 3) || (!want_color && image.channels() != 1)) {
    throw Error(ErrorCode::unsupported_type, "write_image", path,
                "PGM holds 1 channel and PPM 3; this image has " + std::to_string(image.channels()));
  }
  const bool sixteen = image.depth() == Depth::u16;
  out.write(std::string(want_color ? "P6" : "P5") + '\n' + std::to_string(image.width()) + ' ' +
            std::to_string(image.height()) + '\n' + (sixteen ? "65535" : "255") + '\n');
  std::vector<unsigned char> row(image.row_bytes());
  for (int y = 0; y < image.height(); ++y) {
    if (sixteen) {
      const std::uint16_t* in = image.row_as<std::uint16_t>(y);
      for (std::size_t i = 0; i < row.size() / 2; ++i) {
        row[2 * i] = static_cast<unsigned char>(in[i] >> 8);
        row[2 * i + 1] = static_cast<unsigned char>(in[i] & 0xff);
      }
    } else {
      std::memcpy(row.data(), image.row(y), row.size());
    }
    out.write(row.data(), row.size());
  }
}

}  // namespace plinth::detail
