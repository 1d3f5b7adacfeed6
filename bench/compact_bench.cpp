// Benchmark cases of compact (include/plinth/sort.hpp): width x height u32 values, half of them
// kept at random.
#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#include "bench_support.hpp"

namespace plinth::bench {
namespace {

std::vector<Case> make_cases(Env& env) {
  const Size size = env.settings.size;
  const std::int64_t n = static_cast<std::int64_t>(size.width) * size.height;
  const int sets = std::min(env.settings.input_sets, 4);
  auto values = std::make_shared<std::vector<DeviceArray>>();
  auto flags = std::make_shared<std::vector<DeviceArray>>();
  std::vector<std::uint32_t> v(static_cast<std::size_t>(n));
  std::vector<std::uint8_t> f(static_cast<std::size_t>(n));
  for (int s = 0; s < sets; ++s) {
    std::mt19937 engine(0xc0 + static_cast<std::uint32_t>(s));
    for (std::size_t i = 0; i < v.size(); ++i) {
      v[i] = static_cast<std::uint32_t>(engine());
      f[i] = static_cast<std::uint8_t>(v[i] >> 31);
    }
    values->push_back(upload_array<std::uint32_t>(env.queue, v));
    flags->push_back(upload_array<std::uint8_t>(env.queue, f));
  }
  auto out = std::make_shared<DeviceArray>(env.context, n, Format{Depth::u32, 1});
  auto count = std::make_shared<DeviceArray>(env.context, 1, Format{Depth::u32, 1});
  Queue* queue = &env.queue;
  Case c;
  c.op = "compact";
  c.variant = "three_pass";
  c.config = "u32 half kept";
  c.size = size;
  c.bytes = 4.0 * static_cast<double>(n) + static_cast<double>(n) + 2.0 * static_cast<double>(n);  // values, flags, half written
  c.run = [=](int s) {
    const auto i = static_cast<std::size_t>(s % sets);
    return compact(*queue, (*values)[i], (*flags)[i], *out, *count);
  };
  return {c};
}

const Registration registration("compact", make_cases);

}  // namespace
}  // namespace plinth::bench
