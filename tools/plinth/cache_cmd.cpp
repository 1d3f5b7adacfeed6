// plinth cache warm: builds every kernel program the ops use for the selected device into the
// on-disk program cache (PLINTH_CACHE_DIR, else ~/.cache/plinth), so that first calls on a fresh
// machine do not compile.
#include <chrono>
#include <iostream>

#include "command.hpp"

namespace plinth::cli {
namespace {

void setup_cache(Args& command, Globals&) { command.require_subcommand(1); }

void setup_warm(Args& command, Globals& globals) {
  static bool verbose = false;
  command.add_flag("-v,--verbose", verbose, "print each program and where it came from as it is ready");
  command.callback([&globals] {
    const auto start = std::chrono::steady_clock::now();
    const DeviceInfo& device = globals.context().device();
    const Context& context = globals.context();
    ProgramCounts before = program_counts(context);
    const std::size_t built = warm_program_cache(context, [&](const std::string& file, const std::string& options) {
      const ProgramCounts now = program_counts(context);
      if (verbose) {
        const char* origin = now.store > before.store               ? "store"
                             : now.store_rejected > before.store_rejected ? "compiled (store entry rejected)"
                             : now.compiled > before.compiled         ? "compiled"
                             : now.disk_cache > before.disk_cache     ? "disk cache"
                                                                      : "memory";
        std::cout << origin << '\t' << file << options << '\n' << std::flush;
      }
      before = now;
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << built << " programs ready for " << device.backend << ':' << device.index << " (" << device.name
              << ") in " << seconds << " s\n";
    print_program_counts(std::cout, context);
  });
}

const Command cache("cache", "the on-disk kernel program cache", setup_cache);
const Command warm("warm", "build every kernel program the ops use for the selected device ahead of time", setup_warm,
                   "cache");

}  // namespace
}  // namespace plinth::cli
