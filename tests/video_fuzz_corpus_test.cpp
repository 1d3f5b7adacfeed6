// fuzz_video's seeds in the video tests (fuzz/video_target.hpp runs each as its fuzzer does): every
// file in fuzz/corpus/video/ must be accepted, so the fuzzer starts from valid files.
// tests/fuzz_corpus_test.cpp does the same for the readers without FFmpeg, and replays their saved
// finds; fuzz_video has found nothing yet, so there is no fuzz/regressions/video/ to replay (a
// first find goes there with a test of its own).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../fuzz/saved_inputs.hpp"
#include "../fuzz/video_target.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace {

namespace fs = std::filesystem;

using fuzz::bytes_of;
using fuzz::files_in;

TEST(VideoFuzzCorpus, EverySeedIsAccepted) {
  const auto seeds = files_in(fs::path(PLINTH_SOURCE_DIR) / "fuzz/corpus/video");
  EXPECT_GE(seeds.size(), 4u) << "fuzz/corpus/video lacks seeds";
  for (const fs::path& seed : seeds) {
    SCOPED_TRACE(seed.string());
    const auto data = bytes_of(seed);
    try {
      fuzz::video_input(data.data(), data.size());
    } catch (const Error& e) {
      ADD_FAILURE() << "refused: " << e.what();
    }
  }
}

}  // namespace
}  // namespace plinth
