// VideoWriter: libswscale converts BGR or grey frames to the encoder's pixel format, libavcodec
// encodes, libavformat muxes into a temporary file that close() renames into place.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>

#include "core/image_checks.hpp"
#include "plinth/video.hpp"
#include "video/ffmpeg_support.hpp"

extern "C" {
#include <libavutil/opt.h>
}

namespace plinth {
namespace {

constexpr const char* kOp = "VideoWriter";

bool has_pixel_format(const AVCodec& codec, AVPixelFormat wanted) {
  if (codec.pix_fmts == nullptr) return false;
  for (const AVPixelFormat* f = codec.pix_fmts; *f != AV_PIX_FMT_NONE; ++f) {
    if (*f == wanted) return true;
  }
  return false;
}

bool is_container(const AVOutputFormat& format, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (std::strcmp(format.name, n) == 0) return true;
  }
  return false;
}

}  // namespace

struct VideoWriter::Impl {
  std::string path;
  std::string temp;  // the file being written; renamed to `path` by close()
  Size size;
  std::string codec_name;
  AVFormatContext* format = nullptr;
  AVStream* stream = nullptr;
  std::unique_ptr<AVCodecContext, detail::CodecContextDeleter> encoder;
  std::unique_ptr<AVFrame, detail::FrameDeleter> picture{av_frame_alloc()};
  std::unique_ptr<AVPacket, detail::PacketDeleter> packet{av_packet_alloc()};
  std::unique_ptr<SwsContext, detail::SwsDeleter> converter;
  int converter_channels = 0;
  int quality = 0;  // FF_QP2LAMBDA units for encoders driven by a fixed quantiser (mpeg4), else 0
  std::int64_t frames = 0;
  bool closed = false;

  ~Impl() { abandon(); }

  [[noreturn]] void fail(ErrorCode code, const std::string& message) const { throw Error(code, kOp, path, message); }

  // Frees FFmpeg's objects and removes the temporary file (nothing is left under either name).
  void abandon() noexcept {
    if (format != nullptr) {
      if (format->pb != nullptr) avio_closep(&format->pb);
      avformat_free_context(format);
      format = nullptr;
    }
    if (!temp.empty() && !closed) std::remove(temp.c_str());
    temp.clear();
  }

  const AVCodec* choose_encoder(const AVOutputFormat& container, const VideoWriterOptions& options) const {
    const bool mp4_like = is_container(container, {"mp4", "mov", "matroska", "ipod"});
    if (options.lossless) {
      if (!is_container(container, {"avi", "matroska", "nut"})) {
        fail(ErrorCode::invalid_argument, "lossless video (FFV1) needs a .avi or .mkv file");
      }
      const AVCodec* ffv1 = avcodec_find_encoder(AV_CODEC_ID_FFV1);
      if (ffv1 == nullptr) fail(ErrorCode::invalid_argument, "this FFmpeg has no FFV1 encoder for lossless video");
      return ffv1;
    }
    if (!options.codec.empty()) {
      const AVCodec* named = avcodec_find_encoder_by_name(options.codec.c_str());
      if (named == nullptr || named->type != AVMEDIA_TYPE_VIDEO) {
        fail(ErrorCode::invalid_argument, "this FFmpeg has no video encoder named '" + options.codec + "'");
      }
      return named;
    }
    if (mp4_like) {
      if (const AVCodec* x264 = avcodec_find_encoder_by_name("libx264")) return x264;
      if (const AVCodec* mpeg4 = avcodec_find_encoder(AV_CODEC_ID_MPEG4)) return mpeg4;
    }
    if (is_container(container, {"avi"})) {
      if (const AVCodec* mpeg4 = avcodec_find_encoder(AV_CODEC_ID_MPEG4)) return mpeg4;
    }
    const AVCodec* fallback = avcodec_find_encoder(container.video_codec);
    if (fallback == nullptr) fail(ErrorCode::invalid_argument, std::string("no video encoder for the '") + container.name + "' container");
    return fallback;
  }

  AVPixelFormat choose_pixel_format(const AVCodec& codec, bool lossless) const {
    if (lossless) return AV_PIX_FMT_0RGB32;  // FFV1's packed BGR: every 8-bit BGR (and grey) frame exactly
    const bool even = size.width % 2 == 0 && size.height % 2 == 0;
    // JPEG-based encoders (mjpeg) take full-range YUV, as OpenCV's writer gives them; they refuse
    // the limited-range formats below unless told to break the standard.
    if (has_pixel_format(codec, AV_PIX_FMT_YUVJ420P) && even) return AV_PIX_FMT_YUVJ420P;
    if (has_pixel_format(codec, AV_PIX_FMT_YUVJ444P)) return AV_PIX_FMT_YUVJ444P;
    if (has_pixel_format(codec, AV_PIX_FMT_YUV420P) && even) return AV_PIX_FMT_YUV420P;  // what players expect
    if (has_pixel_format(codec, AV_PIX_FMT_YUV444P)) return AV_PIX_FMT_YUV444P;
    if (has_pixel_format(codec, AV_PIX_FMT_YUV420P)) {
      fail(ErrorCode::invalid_argument, "the " + codec_name + " encoder stores 4:2:0 colour and needs even sides; the frames are " +
                                            std::to_string(size.width) + "x" + std::to_string(size.height));
    }
    if (codec.pix_fmts == nullptr) return AV_PIX_FMT_YUV420P;
    return avcodec_find_best_pix_fmt_of_list(codec.pix_fmts, AV_PIX_FMT_BGR24, 0, nullptr);
  }

  void open(const VideoWriterOptions& options) {
    detail::quiet_ffmpeg_log();
    if (!picture || !packet) fail(ErrorCode::out_of_memory, "cannot allocate FFmpeg's packet and frame");
    if (!(options.fps > 0) || !std::isfinite(options.fps) || options.fps > 1000) {
      fail(ErrorCode::invalid_argument, "fps must lie in (0, 1000]");
    }
    detail::check_geometry(size.width, size.height, Format{Depth::u8, 3}, kOp, path);
    const AVOutputFormat* container = av_guess_format(nullptr, path.c_str(), nullptr);
    if (container == nullptr || container->video_codec == AV_CODEC_ID_NONE) {
      fail(ErrorCode::invalid_argument, "the extension names no video container FFmpeg knows (use .mp4, .avi or .mkv)");
    }
    const AVCodec* codec = choose_encoder(*container, options);
    codec_name = codec->name;
    if (avformat_query_codec(container, codec->id, FF_COMPLIANCE_NORMAL) == 0) {
      fail(ErrorCode::invalid_argument, std::string("a '") + container->name + "' file cannot hold " + codec_name + " video");
    }
    const AVRational rate = av_d2q(options.fps, 65535);  // MPEG-4 allows time bases up to 1/65535

    encoder.reset(avcodec_alloc_context3(codec));
    if (!encoder) fail(ErrorCode::out_of_memory, "cannot allocate the encoder");
    encoder->width = size.width;
    encoder->height = size.height;
    encoder->time_base = av_inv_q(rate);
    encoder->framerate = rate;
    encoder->pix_fmt = choose_pixel_format(*codec, options.lossless);
    encoder->gop_size = 12;
    encoder->thread_count = 0;
    if (codec->id == AV_CODEC_ID_MPEG4 || codec->id == AV_CODEC_ID_MSMPEG4V3 || codec->id == AV_CODEC_ID_MJPEG) {
      // A fixed quantiser of 3 (ffmpeg's -q:v 3): good quality whatever the size; the default
      // 200 kbit/s would smear the drawn points.
      quality = 3 * FF_QP2LAMBDA;
      encoder->flags |= AV_CODEC_FLAG_QSCALE;
      encoder->global_quality = quality;
    }
    if (std::strcmp(codec->name, "libx264") == 0) {
      av_opt_set(encoder->priv_data, "preset", "veryfast", 0);
      av_opt_set(encoder->priv_data, "crf", "18", 0);
    }
    if ((container->flags & AVFMT_GLOBALHEADER) != 0) encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    int rc = avcodec_open2(encoder.get(), codec, nullptr);
    if (rc < 0) fail(ErrorCode::invalid_argument, "the " + codec_name + " encoder refuses " + std::to_string(size.width) + "x" +
                                                       std::to_string(size.height) + " at " + std::to_string(options.fps) +
                                                       " fps: " + detail::av_error_text(rc));

    rc = avformat_alloc_output_context2(&format, container, nullptr, path.c_str());
    if (rc < 0 || format == nullptr) fail(ErrorCode::out_of_memory, "cannot allocate the container: " + detail::av_error_text(rc));
    stream = avformat_new_stream(format, nullptr);
    if (stream == nullptr) fail(ErrorCode::out_of_memory, "cannot add the video stream");
    rc = avcodec_parameters_from_context(stream->codecpar, encoder.get());
    if (rc < 0) fail(ErrorCode::internal, "cannot copy the encoder's parameters: " + detail::av_error_text(rc));
    stream->time_base = encoder->time_base;
    stream->avg_frame_rate = rate;

    picture->format = encoder->pix_fmt;
    picture->width = size.width;
    picture->height = size.height;
    if (av_frame_get_buffer(picture.get(), 0) < 0) fail(ErrorCode::out_of_memory, "cannot allocate a frame");

    temp = create_temporary();
    rc = avio_open(&format->pb, temp.c_str(), AVIO_FLAG_WRITE);
    if (rc < 0) fail(ErrorCode::io, "cannot write: " + detail::av_error_text(rc));
    rc = avformat_write_header(format, nullptr);
    if (rc < 0) fail(ErrorCode::io, "cannot write the header: " + detail::av_error_text(rc));
  }

  // A fresh temporary file beside the output (O_EXCL: never someone else's file; mode 0666 less
  // the umask, as the finished file should have), so that the rename is atomic and a failure
  // leaves nothing behind.
  std::string create_temporary() const {
    const std::filesystem::path target(path);
    std::random_device entropy;
    for (int attempt = 0; attempt < 100; ++attempt) {
      std::string hidden = target.filename().string();
      hidden.insert(hidden.begin(), '.');
      hidden.append(".partial-" + std::to_string(::getpid()) + "-" + std::to_string(entropy() % 1000000));
      const std::string name = (target.parent_path() / hidden).string();
      const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd >= 0) {
        ::close(fd);
        return name;
      }
      if (errno != EEXIST) break;
    }
    fail(ErrorCode::io, std::string("cannot create a file in its folder: ") + std::strerror(errno));
  }

  void check_io(const char* what) const {
    if (format->pb != nullptr && format->pb->error < 0) {
      fail(ErrorCode::io, std::string("cannot write ") + what + ": " + detail::av_error_text(format->pb->error));
    }
  }

  // Sends a frame (nullptr: the end) and writes every packet the encoder returns.
  void encode(const AVFrame* frame) {
    int rc = avcodec_send_frame(encoder.get(), frame);
    if (rc < 0) fail(ErrorCode::internal, "the encoder refused frame " + std::to_string(frames) + ": " + detail::av_error_text(rc));
    for (;;) {
      rc = avcodec_receive_packet(encoder.get(), packet.get());
      if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) break;
      if (rc < 0) fail(ErrorCode::internal, "encoding failed: " + detail::av_error_text(rc));
      av_packet_rescale_ts(packet.get(), encoder->time_base, stream->time_base);
      packet->stream_index = stream->index;
      rc = av_interleaved_write_frame(format, packet.get());  // takes the packet's reference
      if (rc < 0) fail(ErrorCode::io, "cannot write frame data: " + detail::av_error_text(rc));
      check_io("frame data");
    }
  }

  void write(const HostImage& frame) {
    if (closed) fail(ErrorCode::invalid_argument, "the writer is closed");
    if (format == nullptr) fail(ErrorCode::invalid_argument, "the writer failed earlier; nothing more can be written");
    if (frame.empty() || frame.depth() != Depth::u8 || (frame.channels() != 1 && frame.channels() != 3)) {
      fail(ErrorCode::unsupported_type, "frames must be u8 with 1 (grey) or 3 (BGR) channels");
    }
    if (frame.size() != size) {
      fail(ErrorCode::invalid_argument, "frame " + std::to_string(frames) + " is " + std::to_string(frame.width()) + "x" +
                                            std::to_string(frame.height()) + "; the video is " + std::to_string(size.width) +
                                            "x" + std::to_string(size.height));
    }
    if (!converter || converter_channels != frame.channels()) {
      const AVPixelFormat from = frame.channels() == 1 ? AV_PIX_FMT_GRAY8 : AV_PIX_FMT_BGR24;
      converter.reset(sws_getContext(size.width, size.height, from, size.width, size.height, encoder->pix_fmt,
                                     SWS_BICUBIC | SWS_ACCURATE_RND, nullptr, nullptr, nullptr));
      if (!converter) fail(ErrorCode::internal, "cannot convert frames to the encoder's pixel format");
      converter_channels = frame.channels();
    }
    if (av_frame_make_writable(picture.get()) < 0) fail(ErrorCode::out_of_memory, "cannot allocate a frame");
    const std::uint8_t* planes[4] = {reinterpret_cast<const std::uint8_t*>(frame.data()), nullptr, nullptr, nullptr};
    const int pitches[4] = {static_cast<int>(frame.pitch()), 0, 0, 0};
    sws_scale(converter.get(), planes, pitches, 0, size.height, picture->data, picture->linesize);
    picture->pts = frames;
    picture->quality = quality;
    encode(picture.get());
    ++frames;
  }

  void close() {
    if (closed) return;
    if (format == nullptr) fail(ErrorCode::invalid_argument, "the writer failed earlier and holds nothing to close");
    encode(nullptr);
    int rc = av_write_trailer(format);
    if (rc < 0) fail(ErrorCode::io, "cannot write the trailer: " + detail::av_error_text(rc));
    check_io("the trailer");
    rc = avio_closep(&format->pb);
    if (rc < 0) fail(ErrorCode::io, "cannot finish the file: " + detail::av_error_text(rc));
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
      fail(ErrorCode::io, std::string("cannot rename the finished file into place: ") + std::strerror(errno));
    }
    closed = true;
    avformat_free_context(format);
    format = nullptr;
    temp.clear();
  }
};

VideoWriter::VideoWriter(const std::string& path, Size size, const VideoWriterOptions& options)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->size = size;
  impl_->open(options);
}

VideoWriter::~VideoWriter() = default;
VideoWriter::VideoWriter(VideoWriter&&) noexcept = default;
VideoWriter& VideoWriter::operator=(VideoWriter&&) noexcept = default;

void VideoWriter::write(const HostImage& frame) {
  try {
    impl_->write(frame);
  } catch (const Error& e) {
    // A bad frame leaves the file usable; a failed encode or write does not.
    if (e.code() != ErrorCode::invalid_argument && e.code() != ErrorCode::unsupported_type) impl_->abandon();
    throw;
  }
}

void VideoWriter::close() {
  try {
    impl_->close();
  } catch (...) {
    impl_->abandon();
    throw;
  }
}

std::int64_t VideoWriter::frames_written() const { return impl_->frames; }
const std::string& VideoWriter::codec() const { return impl_->codec_name; }

}  // namespace plinth
