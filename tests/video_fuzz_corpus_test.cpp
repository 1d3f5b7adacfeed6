// fuzz_video's inputs in the video tests (fuzz/video_target.hpp runs each as its fuzzer does):
// every seed in fuzz/corpus/video/ must be accepted, so the fuzzer starts from valid files, and
// every input in fuzz/regressions/video/ (a defect a fuzzer once found) accepted or refused with a
// plinth::Error. tests/fuzz_corpus_test.cpp does the same for the readers without FFmpeg.
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

TEST(VideoFuzzCorpus, EveryFoundDefectIsNowAcceptedOrRefusedCleanly) {
  for (const fs::path& input : files_in(fs::path(PLINTH_SOURCE_DIR) / "fuzz/regressions/video")) {
    SCOPED_TRACE(input.string());
    const auto data = bytes_of(input);
    try {
      fuzz::video_input(data.data(), data.size());
    } catch (const Error&) {
      // A clear refusal is what the fix gives.
    } catch (const std::exception& e) {
      ADD_FAILURE() << "threw a non-plinth exception: " << e.what();
    }
  }
}

}  // namespace
}  // namespace plinth
