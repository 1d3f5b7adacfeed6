#include "video/ffmpeg_support.hpp"

#include <cstdint>
#include <mutex>

extern "C" {
#include <libavutil/log.h>
}

namespace plinth::detail {

std::string av_error_text(int code) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  if (av_strerror(code, text, sizeof text) < 0) return "FFmpeg error " + std::to_string(code);
  return text;
}

void quiet_ffmpeg_log() {
  static std::once_flag once;
  // Decoders print warnings about concealed errors on stderr; plinth reports failures itself.
  std::call_once(once, [] { av_log_set_level(AV_LOG_QUIET); });
}

void bgr_to_gray(const HostImage& bgr, HostImage& gray) {
  for (int y = 0; y < bgr.height(); ++y) {
    const std::uint8_t* in = bgr.row_as<std::uint8_t>(y);
    std::uint8_t* out = gray.row_as<std::uint8_t>(y);
    for (int x = 0; x < bgr.width(); ++x, in += 3) {
      // OpenCV's 8-bit RGB2Gray: 0.114 B + 0.587 G + 0.299 R in 15-bit fixed point, rounded.
      out[x] = static_cast<std::uint8_t>((in[0] * 3735 + in[1] * 19235 + in[2] * 9798 + (1 << 14)) >> 15);
    }
  }
}

void gray_to_bgr(const HostImage& gray, HostImage& bgr) {
  for (int y = 0; y < gray.height(); ++y) {
    const std::uint8_t* in = gray.row_as<std::uint8_t>(y);
    std::uint8_t* out = bgr.row_as<std::uint8_t>(y);
    for (int x = 0; x < gray.width(); ++x, out += 3) out[0] = out[1] = out[2] = in[x];
  }
}

}  // namespace plinth::detail

namespace plinth {

bool video_supported() noexcept { return true; }

}  // namespace plinth
