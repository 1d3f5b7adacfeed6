// The stand-in for plinth::video in builds without FFmpeg: the same API, and every reader or
// writer opened throws one clear Error instead of a link failure or a silent fallback.
#include "plinth/error.hpp"
#include "plinth/video.hpp"

namespace plinth {
namespace {

[[noreturn]] void unavailable(const char* op, const std::string& path) {
  throw Error(ErrorCode::unsupported_type, op, path,
              "video support was not built (FFmpeg's libavformat, libavcodec and libswscale were not found, or "
              "PLINTH_WITH_VIDEO was OFF, when plinth was configured); decode the video to PNG frames "
              "(plinth frames) where it was built, and pass those");
}

}  // namespace

bool video_supported() noexcept { return false; }

struct VideoReader::Impl {};
VideoReader::VideoReader(const std::string& path, VideoPixels) { unavailable("VideoReader", path); }
VideoReader::~VideoReader() = default;
VideoReader::VideoReader(VideoReader&&) noexcept = default;
VideoReader& VideoReader::operator=(VideoReader&&) noexcept = default;
const VideoInfo& VideoReader::info() const { unavailable("VideoReader", ""); }
const std::string& VideoReader::path() const { unavailable("VideoReader", ""); }
bool VideoReader::read(HostImage&) { unavailable("VideoReader", ""); }
bool VideoReader::read(HostImage&, HostImage&) { unavailable("VideoReader", ""); }
std::int64_t VideoReader::frames_read() const { unavailable("VideoReader", ""); }

struct VideoWriter::Impl {};
VideoWriter::VideoWriter(const std::string& path, Size, const VideoWriterOptions&) { unavailable("VideoWriter", path); }
VideoWriter::~VideoWriter() = default;
VideoWriter::VideoWriter(VideoWriter&&) noexcept = default;
VideoWriter& VideoWriter::operator=(VideoWriter&&) noexcept = default;
void VideoWriter::write(const HostImage&) { unavailable("VideoWriter", ""); }
void VideoWriter::close() { unavailable("VideoWriter", ""); }
std::int64_t VideoWriter::frames_written() const { unavailable("VideoWriter", ""); }
const std::string& VideoWriter::codec() const { unavailable("VideoWriter", ""); }

}  // namespace plinth
