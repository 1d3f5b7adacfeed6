// Benchmark cases of kmeans (include/plinth/bow.hpp): n 64-d f32 samples (uniform in [-0.5, 0.5))
// into k = 256 and k = 1024 clusters, all on the device. n = min(1,000,000, W * H) of --size, so
// that the default 3840x2160 times the million samples and a small --size makes a quick
// check. Cases, each from device events of one whole kmeans call:
//   random_start          random centres, then 20 assignments and updates, and the compactness:
//                         the whole call (cv::kmeans' max_count 21, its first iteration being the
//                         seeding; epsilon 0, so all 20 run unless the centres stop moving exactly)
//   plus_plus_seeding     k-means++ seeding alone (its span within a call of max_count 2)
//   plus_plus_iterations  the 20 assignments and updates after a k-means++ start (the call's
//                         iteration span)
// Peer: bench/peers/faiss_kmeans_peer.py (faiss CPU and GPU, or scikit-learn; torch Lloyd) with the
// same config names.
#include <algorithm>
#include <memory>
#include <random>

#include "bench_support.hpp"

namespace plinth::bench {
namespace {

constexpr int kDim = 64;
constexpr int kIterations = 20;

std::vector<Case> make_cases(Env& env) {
  const Size size = env.settings.size;
  const std::int64_t n = std::min<std::int64_t>(1'000'000, static_cast<std::int64_t>(size.width) * size.height);
  Queue* queue = &env.queue;
  // One set: every iteration reads all 256 MB, far past any cache, so rotating sets adds nothing.
  std::vector<float> host(static_cast<std::size_t>(n) * kDim);
  std::mt19937 rng(0x6b6d);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  for (float& v : host) v = u(rng);
  auto samples = std::make_shared<DeviceArray>(upload_array<float>(*queue, host));
  const std::string count = std::to_string(n) + " x " + std::to_string(kDim);
  const double data_bytes = static_cast<double>(n) * kDim * 4;
  std::vector<Case> cases;
  for (int k : {256, 1024}) {
    if (k > n) continue;
    struct Variant {
      const char* name;
      KmeansInit init;
      int max_count;
      Event KmeansDeviceResult::*span;
    };
    for (const Variant v : {Variant{"random_start", KmeansInit::random, kIterations + 1, &KmeansDeviceResult::span},
                            Variant{"plus_plus_seeding", KmeansInit::plus_plus, 2, &KmeansDeviceResult::seeding_span},
                            Variant{"plus_plus_iterations", KmeansInit::plus_plus, kIterations + 1,
                                    &KmeansDeviceResult::iteration_span}}) {
      const bool seeding = v.init == KmeansInit::plus_plus && v.max_count == 2;
      Case c;
      c.op = "kmeans";
      c.variant = v.name;
      c.config = count + ", k=" + std::to_string(k) + (seeding ? ", k-means++ seeding" : ", 20 iterations");
      c.size = Size{static_cast<int>(n), 1};
      // Fewest bytes: the samples read once per iteration (seeding: once per new centre).
      c.bytes = data_bytes * (seeding ? k : kIterations);
      c.ops = 2.0 * static_cast<double>(n) * kDim * (seeding ? 3.0 * k : static_cast<double>(k) * kIterations);
      c.note = seeding ? "device span of the seeding: 3 candidates per centre, as cv::kmeans"
                       : "20 assignments (bow_assign) and centre updates, then the compactness; epsilon 0";
      KmeansOptions options;
      options.init = v.init;
      options.max_count = v.max_count;
      options.epsilon = 0;
      options.seed = 1;
      const auto span = v.span;
      c.run = [=](int) { return kmeans(*queue, *samples, kDim, k, options).*span; };
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

const Registration registration("kmeans", make_cases);

}  // namespace
}  // namespace plinth::bench
