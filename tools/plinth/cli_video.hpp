#pragma once
// What the commands that take video share (detect on a video, track): frames from one video file
// or a list of image files, annotated frames out to a video file or a folder of PNG frames, a
// progress bar, drawing on BGR frames, and JSON number formatting.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plinth/plinth.hpp"

namespace plinth::cli {

class Globals;

// Frames of one video file (decoded through plinth::video) or of image files read in the order
// given (a folder stands for its image files, sorted by name). Every image must have the size and
// the pixel format of the first one; only 8-bit images are accepted.
class FrameSource {
 public:
  FrameSource(const std::vector<std::string>& inputs, const char* command);
  ~FrameSource();

  // The next frame, grey (u8) and, when `bgr` is given, BGR (u8x3); false after the last one.
  bool next(HostImage& gray, HostImage* bgr);
  bool is_video() const { return video_ != nullptr; }
  // Frames expected: the image count, or the video's announced count (0 if unknown).
  std::int64_t expected_count() const;
  double fps() const;  // the video's frame rate; 0 for image files
  // The frame returned last: its index (from 0) and the file it came from.
  std::int64_t index() const { return index_; }
  const std::string& file() const;

 private:
  const char* command_;
  std::unique_ptr<VideoReader> video_;
  std::vector<std::string> images_;
  std::string current_;
  std::int64_t index_ = -1;
  Size size_{};
  Format format_{};
};

// Annotated BGR frames out: a video file when `target` has a video extension (written by
// VideoWriter: a temporary file renamed when complete), otherwise a new folder of PNG frames
// frame_000000.png ... (filled under a temporary name and renamed when complete). Refuses an
// existing target without --force; with --force a video file is replaced, a folder must be empty.
class FrameSink {
 public:
  FrameSink(std::string target, const char* command, const Globals& globals);
  ~FrameSink();  // without close(): removes what was written
  FrameSink(const FrameSink&) = delete;
  FrameSink& operator=(const FrameSink&) = delete;

  // A BGR u8x3 or grey u8 frame; fps (of the first frame) sets a video's rate (<= 0: 25).
  void write(const HostImage& frame, double fps);
  void close();
  const std::string& target() const { return target_; }

 private:
  std::string target_;
  const char* command_;
  bool to_video_ = false;
  std::optional<VideoWriter> writer_;
  std::string folder_temp_;  // PNG frames: the folder being filled
  std::int64_t written_ = 0;
  bool closed_ = false;
};

// A bar on stderr when stderr is a terminal, else nothing. total 0: a count without a bar.
class Progress {
 public:
  explicit Progress(std::int64_t total);
  void update(std::int64_t done);
  void finish();

 private:
  bool on_ = false;
  std::int64_t total_ = 0;
  std::int64_t shown_ = -1;
};

// Drawing on a BGR u8x3 image; pixels outside the image are skipped.
struct Bgr {
  std::uint8_t b = 0, g = 0, r = 0;
};
void draw_rect(HostImage& bgr, const Rect& rect, Bgr colour, int thickness);
void draw_line(HostImage& bgr, Point2f from, Point2f to, Bgr colour);
void draw_dot(HostImage& bgr, Point2f at, int radius, Bgr colour);

// A float that reads back to the same value (%.9g); non-finite values as null.
std::string json_number(double value, int digits = 9);
std::string json_string(const std::string& text);

}  // namespace plinth::cli
