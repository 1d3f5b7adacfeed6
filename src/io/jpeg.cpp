// read_jpeg: JPEG files through libjpeg-turbo, decoded as cv::imread decodes them.
//
// OpenCV's imread decodes JPEG with libjpeg(-turbo): the default integer IDCT (JDCT_ISLOW) and
// fancy upsampling, colour output converted by libjpeg, and for IMREAD_GRAYSCALE libjpeg's own
// grey output (the luma plane; no RGB-to-grey conversion). plinth asks libjpeg for the same
// things, so its pixels equal cv::imread's (tests/jpeg_test.cpp), in RGB order; and it turns the
// image to its EXIF orientation where imread does (all modes but unchanged, IMREAD_UNCHANGED).
//
// libjpeg reports errors through a callback that must not return; it jumps back here with
// longjmp. The jumps only leave libjpeg's C frames and the callbacks below, and the functions
// that call setjmp hold nothing with a destructor, so no C++ object is skipped. plinth's
// exceptions are thrown after the jump, from C++ code.
#include <algorithm>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include <jpeglib.h>

#include "core/image_checks.hpp"
#include "io/io_detail.hpp"
#include "plinth/error.hpp"
#include "plinth/io.hpp"

namespace plinth::detail {
namespace {

constexpr const char* kRead = "read_image";
// A progressive file may have any number of scans, each a pass over the components it names; a
// hostile one repeats scans to take minutes. libjpeg-turbo's TurboJPEG API stops at 500 scans too.
// The scans' samples are bounded as well: an arithmetic-coded file needs no bytes for a flat image
// (at a marker libjpeg's arithmetic decoder feeds zeros without a warning, as the standard lets
// it), so a few hundred bytes can state a 16384x16384 image and hundreds of scans over it. 2^33
// samples are 32 passes over the largest image read_image decodes; libjpeg's own progressive
// script takes 14 for a colour image without subsampling.
constexpr int kMaxScans = 500;
constexpr std::uint64_t kMaxScanSamples = std::uint64_t{1} << 33;

constexpr int kExifMarker = JPEG_APP0 + 1;

struct ErrorManager {
  jpeg_error_mgr base;  // first, so that libjpeg's pointer to it is a pointer to this
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void on_error(j_common_ptr info) {
  auto* errors = reinterpret_cast<ErrorManager*>(info->err);
  (*info->err->format_message)(info, errors->message);
  std::longjmp(errors->jump, 1);
}

// libjpeg goes on after a warning ("Corrupt JPEG data: premature end of data segment", a bad
// Huffman code) and fills the rest with grey; plinth refuses the file instead, as TurboJPEG's
// TJFLAG_STOPONWARNING does. Trace messages (level > 0) are ignored.
void on_message(j_common_ptr info, int level) {
  if (level < 0) on_error(info);
}

// libjpeg's progress monitor with the scans counted so far: libjpeg calls it before each row of
// blocks it reads, so a scan over the limits is refused before its data is decoded.
struct ScanCount {
  jpeg_progress_mgr base;  // first, so that libjpeg's pointer to it is a pointer to this
  int scan = 0;
  std::uint64_t samples = 0;
};

void on_progress(j_common_ptr info) {
  auto* decoder = reinterpret_cast<j_decompress_ptr>(info);
  auto* count = reinterpret_cast<ScanCount*>(decoder->progress);
  if (decoder->input_scan_number == count->scan) return;
  count->scan = decoder->input_scan_number;
  for (int i = 0; i < decoder->comps_in_scan; ++i) {
    const jpeg_component_info* component = decoder->cur_comp_info[i];
    count->samples += std::uint64_t{component->width_in_blocks} * component->height_in_blocks * DCTSIZE2;
  }
  auto* errors = reinterpret_cast<ErrorManager*>(info->err);
  if (count->scan > kMaxScans) {
    std::snprintf(errors->message, sizeof errors->message, "a progressive JPEG of more than %d scans", kMaxScans);
    std::longjmp(errors->jump, 1);
  }
  if (count->samples > kMaxScanSamples) {
    std::snprintf(errors->message, sizeof errors->message,
                  "a JPEG whose scans decode more than 2^33 samples (32 passes over a 2^28-pixel image)");
    std::longjmp(errors->jump, 1);
  }
}

struct Decoder {
  jpeg_decompress_struct info;
  ErrorManager errors;
  ScanCount progress;
};

// The steps that may fail inside libjpeg, each behind its own setjmp: false with the message in
// decoder.errors.message.
bool create(Decoder& decoder) {
  if (setjmp(decoder.errors.jump) != 0) return false;
  jpeg_create_decompress(&decoder.info);
  return true;
}

bool read_header(Decoder& decoder, std::FILE* file) {
  if (setjmp(decoder.errors.jump) != 0) return false;
  jpeg_stdio_src(&decoder.info, file);
  jpeg_save_markers(&decoder.info, kExifMarker, 0xFFFF);
  jpeg_read_header(&decoder.info, TRUE);
  return true;
}

bool start(Decoder& decoder, J_COLOR_SPACE out) {
  if (setjmp(decoder.errors.jump) != 0) return false;
  decoder.info.out_color_space = out;
  jpeg_start_decompress(&decoder.info);
  return true;
}

bool read_rows(Decoder& decoder, unsigned char* pixels, std::size_t pitch) {
  if (setjmp(decoder.errors.jump) != 0) return false;
  while (decoder.info.output_scanline < decoder.info.output_height) {
    JSAMPROW row = pixels + decoder.info.output_scanline * pitch;
    jpeg_read_scanlines(&decoder.info, &row, 1);
  }
  jpeg_finish_decompress(&decoder.info);
  return true;
}

// The SOF segment's size when libjpeg got that far: a failure after it (a file cut after its
// header) is reported as the size's refusal where the size alone is refused.
void check_size_if_known(const Decoder& decoder, const std::string& path) {
  if (decoder.info.image_width != 0 && decoder.info.image_height != 0) {
    check_decoded_size(decoder.info.image_width, decoder.info.image_height, std::max(decoder.info.num_components, 1),
                       "JPEG", path);
  }
}

// The EXIF orientation (1 to 8), read as OpenCV's JPEG decoder reads it: from the first APP1
// segment (OpenCV does not check its "Exif" name and neither does this), whose TIFF structure
// starts 6 bytes in, in the first directory; 1 (as stored) where there is none or it cannot be
// read, or where the first APP1 segment is another kind (XMP).
int exif_orientation(const jpeg_decompress_struct& info) {
  for (jpeg_saved_marker_ptr m = info.marker_list; m != nullptr; m = m->next) {
    if (m->marker != kExifMarker) continue;
    if (m->data_length < 6) return 1;
    const unsigned char* tiff = m->data + 6;
    const std::size_t size = m->data_length - 6;
    if (size < 8) return 1;
    const bool intel = tiff[0] == 'I' && tiff[1] == 'I';
    if (!intel && !(tiff[0] == 'M' && tiff[1] == 'M')) return 1;
    const auto u16 = [&](std::size_t at) {
      return intel ? tiff[at] | tiff[at + 1] << 8 : tiff[at] << 8 | tiff[at + 1];
    };
    const auto u32 = [&](std::size_t at) {
      return static_cast<std::size_t>(intel ? u16(at) | static_cast<std::uint32_t>(u16(at + 2)) << 16
                                            : static_cast<std::uint32_t>(u16(at)) << 16 | u16(at + 2));
    };
    const std::size_t directory = u32(4);
    if (directory + 2 > size) return 1;
    const std::size_t entries = u16(directory);
    for (std::size_t i = 0; i < entries; ++i) {
      const std::size_t entry = directory + 2 + 12 * i;
      if (entry + 12 > size) return 1;
      if (u16(entry) == 0x0112) {  // Orientation, a SHORT
        const int value = u16(entry + 8);
        return value >= 1 && value <= 8 ? value : 1;
      }
    }
    return 1;
  }
  return 1;
}

// cv::imread's turn of the decoded image to the EXIF orientation: 2 mirrors left-right, 3 turns
// by 180 degrees, 4 mirrors top-bottom, 5 transposes, 6 turns clockwise, 7 transposes the other
// way, 8 turns counter-clockwise.
HostImage apply_orientation(const HostImage& image, int orientation) {
  if (orientation == 1) return image;
  const bool transpose = orientation >= 5;
  const int w = image.width(), h = image.height(), c = image.channels();
  const int out_w = transpose ? h : w, out_h = transpose ? w : h;
  // Where output pixel (x, y) comes from: transposed first where asked, then mirrored.
  const bool mirror_x = orientation == 2 || orientation == 3 || orientation == 6 || orientation == 7;
  const bool mirror_y = orientation == 3 || orientation == 4 || orientation == 7 || orientation == 8;
  HostImage out(out_w, out_h, image.format());
  for (int y = 0; y < out_h; ++y) {
    const int ty = mirror_y ? out_h - 1 - y : y;
    std::uint8_t* dst = out.row_as<std::uint8_t>(y);
    for (int x = 0; x < out_w; ++x) {
      const int tx = mirror_x ? out_w - 1 - x : x;
      const std::uint8_t* src = transpose ? image.row_as<std::uint8_t>(tx) + static_cast<std::size_t>(ty) * c
                                          : image.row_as<std::uint8_t>(ty) + static_cast<std::size_t>(tx) * c;
      std::memcpy(dst + static_cast<std::size_t>(x) * c, src, static_cast<std::size_t>(c));
    }
  }
  return out;
}

class DecoderOwner {
 public:
  explicit DecoderOwner(Decoder& decoder) : decoder_(decoder) {}
  DecoderOwner(const DecoderOwner&) = delete;
  DecoderOwner& operator=(const DecoderOwner&) = delete;
  ~DecoderOwner() { jpeg_destroy_decompress(&decoder_.info); }

 private:
  Decoder& decoder_;
};

}  // namespace

HostImage read_jpeg(std::FILE* file, const std::string& path, ReadMode mode) {
  const bool gray = mode == ReadMode::gray;
  Decoder decoder{};
  decoder.info.err = jpeg_std_error(&decoder.errors.base);
  decoder.errors.base.error_exit = on_error;
  decoder.errors.base.emit_message = on_message;
  DecoderOwner owner(decoder);  // jpeg_destroy_decompress also takes a structure whose creation failed
  if (!create(decoder)) throw Error(ErrorCode::io, kRead, path, std::string("cannot start the JPEG decoder: ") + decoder.errors.message);
  decoder.progress.base.progress_monitor = on_progress;
  decoder.info.progress = &decoder.progress.base;

  const auto refuse = [&](const char* step) {
    check_size_if_known(decoder, path);
    return Error(ErrorCode::format, kRead, path, std::string(step) + ": " + decoder.errors.message);
  };
  if (!read_header(decoder, file)) throw refuse("not a readable JPEG file");
  check_size_if_known(decoder, path);
  const int orientation = exif_orientation(decoder.info);  // the saved segments last until decoding ends
  const int components = decoder.info.num_components;
  if (components != 1 && components != 3) {
    throw Error(ErrorCode::unsupported_type, kRead, path,
                "a JPEG of " + std::to_string(components) + " components (CMYK or YCCK) is not supported; grey and colour are");
  }
  const int channels = gray || components == 1 ? 1 : 3;
  check_geometry(static_cast<int>(decoder.info.image_width), static_cast<int>(decoder.info.image_height),
                 Format{Depth::u8, channels}, kRead, path);
  if (!start(decoder, channels == 1 ? JCS_GRAYSCALE : JCS_RGB)) throw refuse("cannot decode the JPEG file");
  HostImage image(static_cast<int>(decoder.info.output_width), static_cast<int>(decoder.info.output_height),
                  Format{Depth::u8, channels});
  if (!read_rows(decoder, reinterpret_cast<unsigned char*>(image.data()), image.pitch())) {
    throw refuse("cannot decode the JPEG file");
  }
  // cv::imread turns the image to its EXIF orientation unless it reads IMREAD_UNCHANGED.
  return mode == ReadMode::unchanged ? image : apply_orientation(image, orientation);
}

}  // namespace plinth::detail
