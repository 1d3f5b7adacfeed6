// One libFuzzer entry point; CMakeLists.txt builds it once per target with PLINTH_FUZZ_INPUT set
// to one of targets.hpp's functions. A refusal (plinth::Error) is a normal outcome.
#include <cstddef>
#include <cstdint>

#include "plinth/error.hpp"
#include "targets.hpp"
#if PLINTH_FUZZ_VIDEO
#include "video_target.hpp"
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    plinth::fuzz::PLINTH_FUZZ_INPUT(data, size);
  } catch (const plinth::Error&) {
  }
  return 0;
}
