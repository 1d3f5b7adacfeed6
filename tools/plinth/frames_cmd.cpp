// plinth frames VIDEO OUT [--gray] [--first N] [--count N]
// Writes a video's frames as PNG files frame_000000.png ... into a new folder OUT (or, with a
// video extension, re-encodes them into OUT). This is how frames reach machines without FFmpeg:
// `plinth track` and `plinth detect` take the folder as their input there.
#include <iostream>

#include "cli_video.hpp"
#include "command.hpp"

namespace plinth::cli {
namespace {

constexpr const char* kCmd = "frames";

struct Options {
  std::string input, output;
  bool gray = false;
  std::int64_t first = 0;
  std::int64_t count = -1;
};

void run(const Options& o, Globals& globals) {
  if (o.first < 0) throw Error(ErrorCode::invalid_argument, kCmd, "--first", "must be >= 0");
  if (o.count == 0 || o.count < -1) throw Error(ErrorCode::invalid_argument, kCmd, "--count", "must be >= 1");
  if (!is_video_file(o.input)) throw Error(ErrorCode::invalid_argument, kCmd, o.input, "is not a video file (.avi, .mp4, .mkv, ...)");
  FrameSink sink(o.output, kCmd, globals);
  FrameSource frames({o.input}, kCmd);
  Progress progress(o.count > 0 ? o.count : frames.expected_count() - o.first);
  HostImage gray, bgr;
  std::int64_t written = 0;
  while ((o.count < 0 || written < o.count) && frames.next(gray, &bgr)) {
    if (frames.index() < o.first) continue;
    sink.write(o.gray ? gray : bgr, frames.fps());
    progress.update(++written);
  }
  progress.finish();
  if (written == 0) {
    throw Error(ErrorCode::invalid_argument, kCmd, o.input, "has no frame from --first " + std::to_string(o.first));
  }
  sink.close();
  std::cout << o.input << ": " << written << " frames (" << (o.gray ? "grey" : "colour") << ") -> " << sink.target() << '\n';
}

void setup(Args& command, Globals& globals) {
  auto o = std::make_shared<Options>();
  command.add_option("input", o->input, "video file").required();
  command.add_option("output", o->output, "new folder for PNG frames (or a video file to re-encode into)").required();
  command.add_flag("--gray", o->gray, "grey frames (OpenCV's BGR2GRAY of the decoded frame)");
  command.add_option("--first", o->first, "index of the first frame written (default 0)");
  command.add_option("--count", o->count, "frames written at most (default: all)");
  command.callback([o, &globals] { run(*o, globals); });
}

const Command registration("frames", "write a video's frames as PNG files (or into another video)", setup);

}  // namespace
}  // namespace plinth::cli
