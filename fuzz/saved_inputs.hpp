#pragma once
// The files of fuzz/corpus/<target>/ and fuzz/regressions/<target>/ for the test suite's replays
// (tests/fuzz_corpus_test.cpp, tests/video_fuzz_corpus_test.cpp): the regular files of a folder in
// name order (README.md left out; none where the folder is missing), and a file's bytes.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

namespace plinth::fuzz {

inline std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.is_regular_file() && e.path().filename() != "README.md") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::vector<std::uint8_t> bytes_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace plinth::fuzz
