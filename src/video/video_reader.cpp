// VideoReader: FFmpeg demuxes and decodes; libswscale converts to BGR exactly as OpenCV's
// FFmpeg backend (cv::VideoCapture, CAP_FFMPEG) does, so that frames compare bit for bit.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "plinth/video.hpp"
#include "video/ffmpeg_support.hpp"

extern "C" {
#include <libavutil/imgutils.h>
}

namespace plinth {
namespace {

constexpr const char* kOp = "VideoReader";
// The most pixels of a frame: its BGR copy must fit plinth's element limit.
constexpr std::int64_t kMaxPixels = max_image_elements / 3;

// OpenCV's count (CvCapture_FFMPEG::get_total_frames): the stream's own count when the container
// keeps one, else the duration times the frame rate, rounded.
std::int64_t announced_frames(const AVFormatContext& format, const AVStream& stream, double fps) {
  if (stream.nb_frames > 0) return stream.nb_frames;
  double seconds = static_cast<double>(format.duration) / AV_TIME_BASE;
  if (!(seconds >= 0.000025)) seconds = static_cast<double>(stream.duration) * av_q2d(stream.time_base);
  if (!(seconds > 0) || !(fps > 0)) return 0;
  return static_cast<std::int64_t>(std::floor(seconds * fps + 0.5));
}

}  // namespace

struct VideoReader::Impl {
  std::string path;
  VideoPixels pixels = VideoPixels::bgr;
  VideoInfo info;
  AVFormatContext* format = nullptr;
  std::unique_ptr<AVCodecContext, detail::CodecContextDeleter> decoder;
  std::unique_ptr<AVPacket, detail::PacketDeleter> packet{av_packet_alloc()};
  std::unique_ptr<AVFrame, detail::FrameDeleter> picture{av_frame_alloc()};
  std::unique_ptr<AVFrame, detail::FrameDeleter> coded_bgr;  // only when the coded size exceeds the picture
  std::unique_ptr<SwsContext, detail::SwsDeleter> converter;
  int converter_format = AV_PIX_FMT_NONE;
  int stream = -1;
  std::int64_t container_frames = 0;  // the stream's own frame count (0: none kept)
  std::int64_t frames = 0;
  bool draining = false;
  bool finished = false;
  HostImage bgr;  // the BGR frame before grey conversion

  ~Impl() { avformat_close_input(&format); }

  [[noreturn]] void fail(ErrorCode code, const std::string& message) const { throw Error(code, kOp, path, message); }
  std::string frame_name() const { return "frame " + std::to_string(frames); }

  // Plinth's image limits for a BGR frame (tighter than FFmpeg's own, which are checked too).
  void check_size(const AVCodecParameters& par) const {
    if (par.codec_type != AVMEDIA_TYPE_VIDEO || (par.width == 0 && par.height == 0)) return;
    if (par.width < 0 || par.height < 0 || par.width > max_image_dimension || par.height > max_image_dimension ||
        static_cast<std::int64_t>(par.width) * par.height > kMaxPixels ||
        av_image_check_size(static_cast<unsigned>(par.width), static_cast<unsigned>(par.height), 0, nullptr) < 0) {
      fail(ErrorCode::out_of_range, "frames of " + std::to_string(par.width) + "x" + std::to_string(par.height) +
                                        " exceed the largest image plinth accepts (sides up to " +
                                        std::to_string(max_image_dimension) + ", " + std::to_string(kMaxPixels) +
                                        " pixels of three channels)");
    }
  }

  void open() {
    detail::quiet_ffmpeg_log();
    if (!packet || !picture) fail(ErrorCode::out_of_memory, "cannot allocate FFmpeg's packet and frame");
    // What the path names, if anything, must be a regular file, as for every reader: FFmpeg would
    // wait in open() for ever on a FIFO without a writer. A path that names nothing (a frame
    // pattern such as frames/%04d.png) goes to FFmpeg as it is.
    struct stat entry {};
    if (::stat(path.c_str(), &entry) == 0 && !S_ISREG(entry.st_mode)) {
      fail(ErrorCode::io, S_ISDIR(entry.st_mode) ? "is a directory, not a file" : "is not a regular file");
    }
    int rc = avformat_open_input(&format, path.c_str(), nullptr, nullptr);
    if (rc == AVERROR(ENOENT) || rc == AVERROR(EACCES) || rc == AVERROR(EISDIR)) {
      fail(ErrorCode::io, "cannot open: " + detail::av_error_text(rc));
    }
    if (rc < 0) fail(ErrorCode::format, "not a video file FFmpeg can read: " + detail::av_error_text(rc));
    // Sizes the header announces are checked before FFmpeg probes (decodes) anything; the probe's
    // decoders are bounded too (max_pixels), for containers whose header says nothing.
    for (unsigned i = 0; i < format->nb_streams; ++i) check_size(*format->streams[i]->codecpar);
    std::vector<AVDictionary*> probe_options(format->nb_streams, nullptr);
    for (AVDictionary*& d : probe_options) av_dict_set_int(&d, "max_pixels", kMaxPixels, 0);
    rc = avformat_find_stream_info(format, probe_options.data());
    for (AVDictionary*& d : probe_options) av_dict_free(&d);
    if (rc < 0) fail(ErrorCode::format, "cannot read the streams' parameters: " + detail::av_error_text(rc));
    for (unsigned i = 0; i < format->nb_streams; ++i) {
      if (format->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO) {
        stream = static_cast<int>(i);
        break;
      }
    }
    if (stream < 0) fail(ErrorCode::format, "holds no video stream");
    AVStream& st = *format->streams[stream];
    const AVCodecParameters& par = *st.codecpar;
    info.codec = avcodec_get_name(par.codec_id);
    info.container = format->iformat->name;
    if (par.width <= 0 || par.height <= 0) fail(ErrorCode::format, "the video stream has no frame size");
    check_size(par);
    info.size = {par.width, par.height};
    const AVCodec* codec = avcodec_find_decoder(par.codec_id);
    if (codec == nullptr) {
      char tag[AV_FOURCC_MAX_STRING_SIZE] = {};
      av_fourcc_make_string(tag, par.codec_tag);
      fail(ErrorCode::format, par.codec_id == AV_CODEC_ID_NONE
                                  ? "the video codec (fourcc '" + std::string(tag) + "') is unknown to this FFmpeg"
                                  : "the codec '" + info.codec + "' has no decoder in this FFmpeg");
    }
    decoder.reset(avcodec_alloc_context3(codec));
    if (!decoder) fail(ErrorCode::out_of_memory, "cannot allocate the decoder");
    rc = avcodec_parameters_to_context(decoder.get(), &par);
    if (rc < 0) fail(ErrorCode::format, "bad codec parameters: " + detail::av_error_text(rc));
    decoder->max_pixels = kMaxPixels;
    decoder->thread_count = 0;  // FFmpeg picks; the decoded pictures do not depend on it
    rc = avcodec_open2(decoder.get(), codec, nullptr);
    if (rc < 0) fail(ErrorCode::format, "cannot open the '" + info.codec + "' decoder: " + detail::av_error_text(rc));
    info.fps = av_q2d(av_guess_frame_rate(format, &st, nullptr));
    if (!std::isfinite(info.fps) || info.fps < 0) info.fps = 0;
    container_frames = st.nb_frames > 0 ? st.nb_frames : 0;
    info.frame_count = announced_frames(*format, st, info.fps);
  }

  // The decoded picture to BGR (SWS_BICUBIC, converted at the coded size as OpenCV does).
  void convert(HostImage& out) {
    const AVFrame& pic = *picture;
    if (pic.width != info.size.width || pic.height != info.size.height) {
      fail(ErrorCode::format, frame_name() + " is " + std::to_string(pic.width) + "x" + std::to_string(pic.height) +
                                  " where the stream is " + std::to_string(info.size.width) + "x" +
                                  std::to_string(info.size.height) + "; size changes are not supported");
    }
    const int coded_w = std::max(decoder->coded_width, pic.width);
    const int coded_h = std::max(decoder->coded_height, pic.height);
    if (!converter || converter_format != pic.format) {
      converter.reset(sws_getContext(coded_w, coded_h, static_cast<AVPixelFormat>(pic.format), coded_w, coded_h,
                                     AV_PIX_FMT_BGR24, SWS_BICUBIC, nullptr, nullptr, nullptr));
      if (!converter) {
        const char* name = av_get_pix_fmt_name(static_cast<AVPixelFormat>(pic.format));
        fail(ErrorCode::format, "cannot convert the pixel format '" + std::string(name != nullptr ? name : "?") + "' to BGR");
      }
      converter_format = pic.format;
      coded_bgr.reset();
      if (coded_w != pic.width || coded_h != pic.height) {
        coded_bgr.reset(av_frame_alloc());
        if (!coded_bgr) fail(ErrorCode::out_of_memory, "cannot allocate a frame");
        coded_bgr->format = AV_PIX_FMT_BGR24;
        coded_bgr->width = coded_w;
        coded_bgr->height = coded_h;
        if (av_frame_get_buffer(coded_bgr.get(), 32) < 0) fail(ErrorCode::out_of_memory, "cannot allocate a frame");
      }
    }
    if (out.size() != info.size || out.format() != Format{Depth::u8, 3}) out = HostImage(info.size.width, info.size.height, Format{Depth::u8, 3});
    if (coded_bgr) {
      sws_scale(converter.get(), pic.data, pic.linesize, 0, pic.height, coded_bgr->data, coded_bgr->linesize);
      for (int y = 0; y < out.height(); ++y) {
        std::memcpy(out.row(y), coded_bgr->data[0] + static_cast<std::ptrdiff_t>(y) * coded_bgr->linesize[0], out.row_bytes());
      }
    } else {
      std::uint8_t* planes[4] = {reinterpret_cast<std::uint8_t*>(out.data()), nullptr, nullptr, nullptr};
      int pitches[4] = {static_cast<int>(out.pitch()), 0, 0, 0};
      sws_scale(converter.get(), pic.data, pic.linesize, 0, pic.height, planes, pitches);
    }
  }

  // Decodes the next picture; false (once the count is checked) at the end.
  bool next() {
    if (finished) return false;
    if (decode_next()) return true;
    finished = true;
    if (container_frames > 0 && frames < container_frames) {
      fail(ErrorCode::format, "the file ends after " + std::to_string(frames) + " of the " +
                                  std::to_string(container_frames) + " frames its container announces (truncated?)");
    }
    return false;
  }

  void gray_of(const HostImage& bgr_frame, HostImage& gray) const {
    if (gray.size() != info.size || gray.format() != Format{Depth::u8, 1}) {
      gray = HostImage(info.size.width, info.size.height, Format{Depth::u8, 1});
    }
    detail::bgr_to_gray(bgr_frame, gray);
  }

  void done_with_picture() {
    av_frame_unref(picture.get());
    ++frames;
  }

  // The next decoded picture into `picture`; false at the end of the stream.
  bool decode_next() {
    for (;;) {
      int rc = avcodec_receive_frame(decoder.get(), picture.get());
      if (rc == 0) return true;
      if (rc == AVERROR_EOF) return false;
      if (rc != AVERROR(EAGAIN)) fail(ErrorCode::format, frame_name() + " cannot be decoded: " + detail::av_error_text(rc));
      if (draining) fail(ErrorCode::internal, "the decoder asks for input after the end of the stream");
      rc = av_read_frame(format, packet.get());
      if (rc == AVERROR_EOF) {
        draining = true;
        rc = avcodec_send_packet(decoder.get(), nullptr);
        if (rc < 0 && rc != AVERROR_EOF) fail(ErrorCode::format, "cannot flush the decoder: " + detail::av_error_text(rc));
        continue;
      }
      if (rc < 0) fail(ErrorCode::format, "cannot read after " + frame_name() + ": " + detail::av_error_text(rc));
      const bool ours = packet->stream_index == stream;
      const bool cut_short = (packet->flags & AV_PKT_FLAG_CORRUPT) != 0;
      if (ours && !cut_short) rc = avcodec_send_packet(decoder.get(), packet.get());
      av_packet_unref(packet.get());
      if (!ours) continue;
      if (cut_short) fail(ErrorCode::format, frame_name() + ": its data is cut short (a truncated or damaged file)");
      if (rc < 0) fail(ErrorCode::format, frame_name() + " cannot be decoded: " + detail::av_error_text(rc));
    }
  }
};

VideoReader::VideoReader(const std::string& path, VideoPixels pixels) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->pixels = pixels;
  impl_->open();
}

VideoReader::~VideoReader() = default;
VideoReader::VideoReader(VideoReader&&) noexcept = default;
VideoReader& VideoReader::operator=(VideoReader&&) noexcept = default;

const VideoInfo& VideoReader::info() const { return impl_->info; }
const std::string& VideoReader::path() const { return impl_->path; }
std::int64_t VideoReader::frames_read() const { return impl_->frames; }

bool VideoReader::read(HostImage& frame) {
  Impl& s = *impl_;
  if (!s.next()) return false;
  if (s.pixels == VideoPixels::bgr) {
    s.convert(frame);
  } else {
    s.convert(s.bgr);
    s.gray_of(s.bgr, frame);
  }
  s.done_with_picture();
  return true;
}

bool VideoReader::read(HostImage& bgr, HostImage& gray) {
  Impl& s = *impl_;
  if (!s.next()) return false;
  s.convert(bgr);
  s.gray_of(bgr, gray);
  s.done_with_picture();
  return true;
}

}  // namespace plinth
