// Writes fuzz_video's seed corpus, fuzz/corpus/video/: tiny videos (32x24, 3 frames of a moving
// ramp) in the codecs and containers plinth's users bring, through plinth's own VideoWriter, so the
// fuzzer starts from inside each format. Built by fuzz/CMakeLists.txt where FFmpeg was found; run
// by hand (`build-fuzz/make_video_corpus fuzz/corpus/video`) when a seed is added. The encoders'
// output may differ between FFmpeg versions; the seeds only need to be valid.
#include <cstdio>
#include <exception>
#include <string>

#include "plinth/video.hpp"

namespace {

struct Seed {
  const char* name;
  const char* codec;  // empty: the extension's default
  bool lossless;
  bool gray;
};

constexpr Seed kSeeds[] = {
    {"mpeg4.avi", "", false, false},    {"mpeg4.mp4", "mpeg4", false, false}, {"h264.mp4", "libx264", false, false},
    {"h264.mkv", "libx264", false, false}, {"mjpeg.avi", "mjpeg", false, false}, {"ffv1_bgr.mkv", "", true, false},
    {"ffv1_gray.avi", "", true, true},   {"mpeg4.mov", "mpeg4", false, false},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FOLDER\n", argv[0]);
    return 2;
  }
  const int w = 32, h = 24;
  int status = 0;
  for (const Seed& seed : kSeeds) {
    try {
      plinth::VideoWriterOptions options;
      options.codec = seed.codec;
      options.lossless = seed.lossless;
      options.fps = 10;
      plinth::VideoWriter writer(std::string(argv[1]) + "/" + seed.name, {w, h}, options);
      const int channels = seed.gray ? 1 : 3;
      for (int f = 0; f < 3; ++f) {
        plinth::HostImage frame(w, h, plinth::Format{plinth::Depth::u8, channels});
        for (int y = 0; y < h; ++y) {
          auto* row = frame.row_as<std::uint8_t>(y);
          for (int x = 0; x < w * channels; ++x) {
            row[x] = static_cast<std::uint8_t>((x * 7 + y * 5 + f * 16 + x % 3 * 40) & 0xff);
          }
        }
        writer.write(frame);
      }
      writer.close();
      std::printf("%s: %s\n", seed.name, writer.codec().c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", seed.name, e.what());
      status = 1;
    }
  }
  return status;
}
