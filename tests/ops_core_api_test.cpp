// Ops reach the device only through the op-facing core API (src/core/launch.hpp: Launch,
// scratch, allocate_buffer, fill_buffer, write_buffer, read_buffer; the checks of
// src/core/image_checks.hpp), never through a backend's queue or device: no op source names the
// core's state objects or a backend.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

TEST(OpsCoreApi, NoOpReachesTheBackendDirectly) {
  const fs::path ops = fs::path(PLINTH_SOURCE_DIR) / "src" / "ops";
  ASSERT_TRUE(fs::is_directory(ops)) << ops;
  int files = 0;
  for (const auto& entry : fs::directory_iterator(ops)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string code = text.str();
    ++files;
    for (const char* word : {"queue_state(", "context_state(", ".impl", "->impl", "->device->", "backend/", "core/backend.hpp",
                             "core/context_state.hpp"}) {
      EXPECT_EQ(code.find(word), std::string::npos) << entry.path().filename().string() << " uses '" << word << "'";
    }
  }
  EXPECT_GT(files, 20);
}

}  // namespace
