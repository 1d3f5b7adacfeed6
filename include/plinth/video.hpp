#pragma once
// Video files in and out through FFmpeg's libraries (libavformat, libavcodec, libswscale,
// libavutil). They live in their own library, plinth::video (src/video/), built only where
// FFmpeg's development files were found (CMake option PLINTH_WITH_VIDEO); a program linked with
// the stand-in library instead (plinth_video_unavailable) gets video_supported() == false and an
// Error(unsupported_type) saying so from every reader or writer it opens.
//
// Frames are what cv::VideoCapture's FFmpeg backend delivers: the decoded picture converted to
// BGR by libswscale with SWS_BICUBIC, and for grey frames that BGR frame converted as
// cv::cvtColor(COLOR_BGR2GRAY) does (fixed-point weights, rounded).

#include <cstdint>
#include <memory>
#include <string>

#include "plinth/image.hpp"
#include "plinth/types.hpp"

namespace plinth {

// Whether this program was linked with FFmpeg (plinth::video) rather than the stand-in.
bool video_supported() noexcept;
// Whether the name ends in a video extension plinth knows (.avi .mp4 .mkv .mov .webm .m4v .mpg
// .mpeg .wmv .flv .ogv .nut, any case), whatever the build: the CLI uses it to say that video
// support is missing rather than that a file is not an image.
bool is_video_file(const std::string& path);

enum class VideoPixels {
  bgr,   // three u8 channels, B G R (OpenCV's order)
  gray,  // one u8 channel
};

struct VideoInfo {
  Size size;                     // frame width and height
  double fps = 0;                // frames per second as FFmpeg guesses it from the container; 0 if unknown
  std::int64_t frame_count = 0;  // as CAP_PROP_FRAME_COUNT: the container's count, else duration x fps rounded; 0 if unknown
  std::string codec;             // FFmpeg's name of the codec, e.g. "msmpeg4v3"
  std::string container;         // FFmpeg's name of the container format, e.g. "avi"
};

// Reads the first video stream of a file, frame by frame, in decoding order of presentation.
class VideoReader {
 public:
  // Throws Error(io) when the file cannot be opened; Error(format) when it is not a container
  // FFmpeg can read, holds no video stream, or its codec has no decoder here; Error(out_of_range)
  // when the frame size lies beyond plinth's image limits (checked before anything is decoded).
  explicit VideoReader(const std::string& path, VideoPixels pixels = VideoPixels::bgr);
  ~VideoReader();
  VideoReader(VideoReader&&) noexcept;
  VideoReader& operator=(VideoReader&&) noexcept;

  const VideoInfo& info() const;
  const std::string& path() const;
  // Decodes the next frame into `frame` (reallocated only when its size or format differs) and
  // returns true; returns false after the last frame. Throws Error(format) naming the frame when
  // the data cannot be decoded, a packet was cut short, or the file ends before the frame count
  // its container announces (a truncated file).
  bool read(HostImage& frame);
  // The next frame both ways at once, BGR and grey, whatever the reader's VideoPixels.
  bool read(HostImage& bgr, HostImage& gray);
  // Frames returned so far.
  std::int64_t frames_read() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct VideoWriterOptions {
  double fps = 25;
  // Empty: chosen by the extension. .mp4 .mkv .mov: libx264 where this FFmpeg has it, else
  // mpeg4; .avi: mpeg4. Any encoder name FFmpeg knows may be given instead (e.g. "ffv1").
  std::string codec;
  // Exact frames: FFV1 (.avi, .mkv) in BGR or grey; refused for containers that cannot hold it.
  bool lossless = false;
};

// Writes frames (all of one size, BGR u8x3 or grey u8) into a new video file. The file is
// written under a temporary name in the same folder and renamed to `path` by close(); a writer
// destroyed without close() (an exception, a failed write) removes the temporary file, so a
// half-written video never appears under `path`. An existing `path` is replaced by close().
class VideoWriter {
 public:
  // Throws Error(invalid_argument) for an unknown extension or codec, a size the encoder
  // refuses (odd sides for 4:2:0 encoders), fps <= 0; Error(io) when the folder is not writable.
  VideoWriter(const std::string& path, Size size, const VideoWriterOptions& options = {});
  ~VideoWriter();
  VideoWriter(VideoWriter&&) noexcept;
  VideoWriter& operator=(VideoWriter&&) noexcept;

  // Encodes one frame; every write is checked (Error(io) on a failed write, e.g. a full disk).
  void write(const HostImage& frame);
  // Flushes the encoder, writes the trailer and renames the file into place.
  void close();
  std::int64_t frames_written() const;
  // The encoder chosen, e.g. "libx264".
  const std::string& codec() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace plinth
