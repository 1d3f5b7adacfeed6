// Benchmark cases of top_k (include/plinth/sort.hpp): the 1000 largest of width x height f32
// keys (`plinth bench top_k --size 4096x4096` is issue 16's 16.8M case, compared with torch.topk
// by bench/peers/torch_sort_peer.py).
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
  auto keys = std::make_shared<std::vector<DeviceArray>>();
  std::vector<float> host(static_cast<std::size_t>(n));
  for (int s = 0; s < sets; ++s) {
    std::mt19937 engine(0x70c + static_cast<std::uint32_t>(s));
    std::uniform_real_distribution<float> real(-1.0f, 1.0f);
    for (auto& x : host) x = real(engine);
    keys->push_back(upload_array<float>(env.queue, host));
  }
  Queue* queue = &env.queue;
  std::vector<Case> cases;
  for (int k : {1000, 1}) {
    if (k > n) continue;
    auto keys_out = std::make_shared<DeviceArray>(env.context, k, Format{Depth::f32, 1});
    auto indices_out = std::make_shared<DeviceArray>(env.context, k, Format{Depth::u32, 1});
    Case c;
    c.op = "top_k";
    c.variant = "radix_select";
    c.config = "f32 k=" + std::to_string(k);
    c.size = size;
    c.bytes = 4.0 * static_cast<double>(n);  // the keys read once
    c.run = [=](int s) { return top_k(*queue, (*keys)[static_cast<std::size_t>(s % sets)], k, *keys_out, *indices_out); };
    cases.push_back(c);
  }
  return cases;
}

const Registration registration("top_k", make_cases);

}  // namespace
}  // namespace plinth::bench
