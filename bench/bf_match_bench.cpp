// Benchmark cases of brute-force matching (bf_knn_match, include/plinth/features.hpp): the k = 2
// nearest train descriptors of every query (what knnMatch + the ratio test need), L2 on 64-d f32
// descriptors (SURF's) and Hamming on 32-byte ones (ORB's), 5,000 queries against 5,000 and
// 50,000 train descriptors. Sized down by --size: queries = min(5,000, W * H), train = min(5,000,
// W * H) and min(50,000, 10 * W * H). Inputs are rotated over up to 4 sets (50,000 x 64 f32 is
// 12.8 MB, so 4 sets outgrow an H100's L2).
// Peer: bench/peers/bf_match_peer.py (torch.cdist + topk on CUDA, cv2.BFMatcher on the CPU) with
// the same config names.
#include <algorithm>
#include <memory>
#include <random>

#include "bench_support.hpp"

namespace plinth::bench {
namespace {

constexpr int kNeighbours = 2;
constexpr int kFloatDim = 64;
constexpr int kBinaryBytes = 32;

DeviceArray random_array(Queue& queue, std::int64_t count, bool binary, std::uint32_t seed) {
  std::mt19937 rng(seed);
  if (binary) {
    std::vector<std::uint8_t> v(static_cast<std::size_t>(count));
    for (auto& b : v) b = static_cast<std::uint8_t>(rng());
    return upload_array<std::uint8_t>(queue, v);
  }
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> v(static_cast<std::size_t>(count));
  for (float& x : v) x = u(rng);
  return upload_array<float>(queue, v);
}

std::vector<Case> make_cases(Env& env) {
  const std::int64_t pixels = static_cast<std::int64_t>(env.settings.size.width) * env.settings.size.height;
  const std::int64_t queries = std::min<std::int64_t>(5'000, pixels);
  const int sets = std::clamp(env.settings.input_sets, 1, 4);
  Queue* queue = &env.queue;
  std::vector<Case> cases;
  for (const MatchNorm norm : {MatchNorm::l2, MatchNorm::hamming}) {
    const bool binary = norm == MatchNorm::hamming;
    const int dim = binary ? kBinaryBytes : kFloatDim;
    const double value_bytes = binary ? 1.0 : 4.0;
    for (const std::int64_t train_count : {std::min<std::int64_t>(5'000, pixels), std::min<std::int64_t>(50'000, 10 * pixels)}) {
      auto query = std::make_shared<std::vector<DeviceArray>>();
      auto train = std::make_shared<std::vector<DeviceArray>>();
      auto indices = std::make_shared<std::vector<DeviceArray>>();
      auto distances = std::make_shared<std::vector<DeviceArray>>();
      for (int s = 0; s < sets; ++s) {
        const auto seed = static_cast<std::uint32_t>(0xbf00 + 16 * s + (binary ? 1 : 0));
        query->push_back(random_array(*queue, queries * dim, binary, seed));
        train->push_back(random_array(*queue, train_count * dim, binary, seed + 8));
        indices->emplace_back(queue->context(), queries * kNeighbours, Format{Depth::s32, 1});
        distances->emplace_back(queue->context(), queries * kNeighbours, Format{Depth::f32, 1});
      }
      Case c;
      c.op = "bf_match";
      c.variant = binary ? "hamming" : "l2";
      c.config = std::to_string(queries) + (binary ? " x 32 B" : " x 64 f32") + " vs " + std::to_string(train_count) + ", k=2";
      c.size = Size{static_cast<int>(queries), 1};
      c.bytes = static_cast<double>(queries + train_count) * dim * value_bytes + 8.0 * static_cast<double>(queries) * kNeighbours;
      // L2: a subtraction and a fused multiply-add per value pair; Hamming: xor and popcount per 32-bit word.
      c.ops = static_cast<double>(queries) * static_cast<double>(train_count) * (binary ? 2.0 * dim / 4 : 2.0 * dim);
      c.run = [=](int s) {
        const auto i = static_cast<std::size_t>(s % sets);
        return bf_knn_match(*queue, (*query)[i], (*train)[i], dim, norm, kNeighbours, (*indices)[i], (*distances)[i]);
      };
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

const Registration registration("bf_match", make_cases);

}  // namespace
}  // namespace plinth::bench
