// warm_program_cache: builds the recorded programs of kernels/programs.list ahead of time.
#include <set>
#include <sstream>

#include "core/context_state.hpp"
#include "core/kernel_source.hpp"
#include "plinth/core.hpp"
#include "plinth/error.hpp"

namespace plinth {

std::size_t warm_program_cache(const Context& context,
                               const std::function<void(const std::string&, const std::string&)>& progress) {
  const auto& state = detail::context_state(context);
  std::string_view list;
  for (const auto& f : detail::embedded_kernel_files()) {
    if (f.path == "programs.list") list = f.text;
  }
  const std::string backend = state->device->info().backend;
  std::set<std::pair<std::string, std::string>> programs;
  std::istringstream in{std::string(list)};
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t a = line.find('\t');
    const std::size_t b = a == std::string::npos ? a : line.find('\t', a + 1);
    if (line.empty() || line[0] == '#' || b == std::string::npos || line.compare(0, a, backend) != 0) continue;
    programs.emplace(line.substr(a + 1, b - a - 1), line.substr(b + 1));
  }
  if (programs.empty()) {
    throw Error(ErrorCode::invalid_argument, "warm_program_cache", "backend",
                "kernels/programs.list records no program for the " + backend + " backend");
  }
  for (const auto& [file, options] : programs) {
    detail::BuildOptions built;
    // The recorded text starts with the space that BuildOptions puts before each option: the
    // same string gives the same cache key as the op's own request.
    built.raw(options.empty() ? std::string_view() : std::string_view(options).substr(1));
    state->programs.get(*state->device, file, built);
    if (progress) progress(file, options);
  }
  return programs.size();
}

ProgramCounts program_counts(const Context& context) { return detail::context_state(context)->programs.counts(); }

}  // namespace plinth
