// Benchmark cases of sort_pairs / sort_keys (include/plinth/sort.hpp): width x height f32 keys
// with u32 values (`plinth bench sort --size 4096x4096` is the 16.8M-pair case of issue 16,
// compared with torch.sort by bench/peers/torch_sort_peer.py), every method of the table.
#include <algorithm>
#include <bit>
#include <memory>
#include <random>
#include <vector>

#include "bench_support.hpp"

namespace plinth::bench {
namespace {

// `sets` arrays of n random words (f32 keys: uniform in [-1, 1); u32: uniform).
std::vector<DeviceArray> random_arrays(Env& env, std::int64_t n, Depth depth, int sets, std::uint32_t seed) {
  std::vector<DeviceArray> arrays;
  std::vector<std::uint32_t> host(static_cast<std::size_t>(n));
  for (int s = 0; s < sets; ++s) {
    std::mt19937 engine(seed + static_cast<std::uint32_t>(s));
    std::uniform_real_distribution<float> real(-1.0f, 1.0f);
    for (auto& x : host) x = depth == Depth::f32 ? std::bit_cast<std::uint32_t>(real(engine)) : static_cast<std::uint32_t>(engine());
    DeviceArray a(env.context, n, Format{depth, 1});
    upload_array(env.queue, host.data(), host.size() * 4, a).wait();
    arrays.push_back(std::move(a));
  }
  return arrays;
}

std::vector<Case> make_cases(Env& env) {
  const Size size = env.settings.size;
  const std::int64_t n = static_cast<std::int64_t>(size.width) * size.height;
  const int sets = std::min(env.settings.input_sets, 4);
  auto keys = std::make_shared<std::vector<DeviceArray>>(random_arrays(env, n, Depth::f32, sets, 0x5047));
  auto values = std::make_shared<std::vector<DeviceArray>>(random_arrays(env, n, Depth::u32, sets, 0x7a1));
  auto keys_out = std::make_shared<DeviceArray>(env.context, n, Format{Depth::f32, 1});
  auto values_out = std::make_shared<DeviceArray>(env.context, n, Format{Depth::u32, 1});
  Queue* queue = &env.queue;
  std::vector<Case> cases;
  for (const SortMethodInfo& m : sort_methods()) {
    Case pairs;
    pairs.op = "sort";
    pairs.variant = std::string(m.name);
    pairs.config = "f32 -> u32 pairs";
    pairs.size = size;
    pairs.bytes = 16.0 * static_cast<double>(n);  // keys and values read once and written once
    const SortMethod method = m.method;
    pairs.run = [=](int s) {
      const auto i = static_cast<std::size_t>(s % sets);
      return sort_pairs(*queue, (*keys)[i], (*values)[i], *keys_out, *values_out, SortOrder::ascending, method);
    };
    cases.push_back(pairs);
  }
  Case only_keys;
  only_keys.op = "sort";
  only_keys.variant = "radix";
  only_keys.config = "f32 keys";
  only_keys.size = size;
  only_keys.bytes = 8.0 * static_cast<double>(n);
  only_keys.run = [=](int s) {
    return sort_keys(*queue, (*keys)[static_cast<std::size_t>(s % sets)], *keys_out, SortOrder::ascending, SortMethod::radix);
  };
  cases.push_back(only_keys);
  return cases;
}

const Registration registration("sort", make_cases);

}  // namespace
}  // namespace plinth::bench
