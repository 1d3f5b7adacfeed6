// Benchmark cases of bow_assign (include/plinth/bow.hpp): n 64-d f32 descriptors, one image,
// assigned to k = 256 and k = 1024 words and counted, by every method of bow_methods(). The seed's
// dimension-major methods get dimension-major descriptors (its setup: the transpose is not timed);
// the others descriptor-major rows. n = min(1,000,000, W * H) of --size, so that the default
// 3840x2160 times the million descriptors and a small --size makes a quick check.
// Peer: bench/peers/torch_bow_peer.py (matmul + argmin + bincount) with the same config names.
#include <algorithm>
#include <memory>
#include <random>

#include "bench_support.hpp"

namespace plinth::bench {
namespace {

constexpr int kDim = 64;

std::vector<float> uniform(std::size_t count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  std::vector<float> v(count);
  for (float& x : v) x = u(rng);
  return v;
}

std::vector<Case> make_cases(Env& env) {
  const Size size = env.settings.size;
  const std::int64_t n = std::min<std::int64_t>(1'000'000, static_cast<std::int64_t>(size.width) * size.height);
  // Two sets of 256 MB each already pass the L2 many times over.
  const int sets = std::clamp(env.settings.input_sets, 1, 2);
  Queue* queue = &env.queue;
  auto rows = std::make_shared<std::vector<DeviceArray>>();
  auto columns = std::make_shared<std::vector<DeviceArray>>();
  for (int s = 0; s < sets; ++s) {
    std::vector<float> desc = uniform(static_cast<std::size_t>(n) * kDim, 0xb0a0 + static_cast<std::uint32_t>(s));
    rows->push_back(upload_array<float>(*queue, desc));
    std::vector<float> t(desc.size());
    for (std::int64_t i = 0; i < n; ++i) {
      for (int d = 0; d < kDim; ++d) t[static_cast<std::size_t>(d * n + i)] = desc[static_cast<std::size_t>(i * kDim + d)];
    }
    columns->push_back(upload_array<float>(*queue, t));
  }
  auto starts = std::make_shared<DeviceArray>(upload_array<std::int32_t>(*queue, std::vector<std::int32_t>{0, static_cast<std::int32_t>(n)}));
  std::vector<Case> cases;
  for (int k : {256, 1024}) {
    auto vocab = std::make_shared<DeviceArray>(upload_array<float>(*queue, uniform(static_cast<std::size_t>(k) * kDim, 0xc0de + k)));
    auto outs = std::make_shared<std::vector<BowOutputs>>(static_cast<std::size_t>(sets));
    for (BowOutputs& o : *outs) {
      o.counts = DeviceArray(queue->context(), k, Format{Depth::s32, 1});
      o.histograms = DeviceArray(queue->context(), k, Format{Depth::f32, 1});
    }
    for (const BowMethodInfo& m : bow_methods()) {
      if (m.method == BowMethod::constant && k * kDim * 4 > 65536) continue;  // 64 KiB of constant memory
      Case c;
      c.op = "bow_assign";
      c.variant = std::string(m.name);
      c.config = std::to_string(n) + " x 64, k=" + std::to_string(k);
      c.size = Size{static_cast<int>(n), 1};
      c.bytes = static_cast<double>(n) * kDim * 4 + static_cast<double>(k) * kDim * 4 + 8.0 * k;
      c.ops = 2.0 * static_cast<double>(n) * k * kDim;
      if (m.reads_transposed) c.note = "descriptors given dimension-major (the seed's layout; no transpose timed)";
      BowOptions options;
      options.method = m.method;
      options.transposed_input = m.reads_transposed;
      const auto inputs = m.reads_transposed ? columns : rows;
      c.run = [=](int s) {
        const std::size_t i = static_cast<std::size_t>(s % sets);
        return bow_assign(*queue, (*inputs)[i], *vocab, *starts, kDim, (*outs)[i], options);
      };
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

const Registration registration("bow_assign", make_cases);

}  // namespace
}  // namespace plinth::bench
