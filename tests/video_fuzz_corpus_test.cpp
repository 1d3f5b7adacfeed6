// fuzz_video's inputs in the video tests (fuzz/video_target.hpp runs each as its fuzzer does):
// every seed in fuzz/corpus/video/ must be accepted, so the fuzzer starts from valid files, and
// every input in fuzz/regressions/video/ (a defect a fuzzer once found) accepted or refused with a
// plinth::Error. tests/fuzz_corpus_test.cpp does the same for the readers without FFmpeg.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../fuzz/video_target.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file() && e.path().filename() != "README.md") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::uint8_t> bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

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
