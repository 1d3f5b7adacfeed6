#pragma once
// What the FFmpeg reader and writer share: owners for FFmpeg's objects, its error text, the
// BGR-to-grey conversion and the names of video files. Only src/video includes FFmpeg's headers.

#include <string>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libswscale/swscale.h>
}

#include "plinth/error.hpp"
#include "plinth/image.hpp"

namespace plinth::detail {

// FFmpeg's message for an AVERROR code, e.g. "Invalid data found when processing input".
std::string av_error_text(int code);
// Quietens FFmpeg's own logging (errors reach the user as plinth::Error instead) once per process.
void quiet_ffmpeg_log();

struct PacketDeleter {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};
struct FrameDeleter {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};
struct CodecContextDeleter {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct SwsDeleter {
  void operator()(SwsContext* s) const { sws_freeContext(s); }
};

// cv::cvtColor(COLOR_BGR2GRAY) for u8: weights 0.114, 0.587, 0.299 in 14-bit fixed point, rounded.
void bgr_to_gray(const HostImage& bgr, HostImage& gray);
// Grey to BGR by copying the value into the three channels (cv::cvtColor(COLOR_GRAY2BGR)).
void gray_to_bgr(const HostImage& gray, HostImage& bgr);

}  // namespace plinth::detail
