#pragma once
// fuzz_video's input (kept apart from targets.hpp, whose readers need no FFmpeg): shared by the
// libFuzzer entry point and by tests/video_fuzz_corpus_test.cpp, which replays the seeds in the
// video tests. Returns when plinth accepted the input, throws plinth::Error
// when it refused it; anything else is a defect (targets.hpp says which).
#include <cstddef>
#include <cstdint>

#include "memory_file.hpp"
#include "plinth/video.hpp"

namespace plinth::fuzz {

// Frames read of one input at most. A few bytes can stand for a frame in most codecs (a repeated
// or skipped picture), so a small file may hold thousands; what is fuzzed is the path of each
// frame (demuxing, decoding, the size checks, conversion to BGR and grey), not a video's length.
constexpr int kVideoFrames = 16;

// VideoReader on the bytes as a file with no extension (FFmpeg picks the container by content, as
// it does for any file), then up to kVideoFrames frames, BGR and grey at once.
inline void video_input(const std::uint8_t* data, std::size_t size) {
  const MemoryFile file(data, size);
  VideoReader reader(file.path());
  HostImage bgr, gray;
  for (int i = 0; i < kVideoFrames && reader.read(bgr, gray); ++i) {
  }
}

}  // namespace plinth::fuzz
