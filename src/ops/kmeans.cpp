// kmeans (cv::kmeans): seeding, the iteration with OpenCV's order of steps, and the assignment on
// the device through bow_assign. docs/features.md describes the semantics.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <random>
#include <string>

#include "plinth/bow.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace {

constexpr const char* kOp = "kmeans";
constexpr int kPlusPlusTrials = 3;  // cv::kmeans' SPP_TRIALS

float squared_distance(const float* a, const float* b, int dim) {
  float s = 0.0f;
  for (int j = 0; j < dim; ++j) {
    const float t = a[j] - b[j];
    s += t * t;
  }
  return s;
}

// Uniform doubles in [0, 1) from the attempt's generator.
double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

void plus_plus(const std::vector<float>& data, int n, int dim, int k, std::mt19937_64& rng, std::vector<float>& centers) {
  std::vector<int> chosen(static_cast<std::size_t>(k));
  std::vector<float> dist(static_cast<std::size_t>(n)), trial(static_cast<std::size_t>(n)), best_trial(static_cast<std::size_t>(n));
  auto row = [&](int i) { return data.data() + static_cast<std::size_t>(i) * dim; };
  chosen[0] = static_cast<int>(rng() % static_cast<std::uint64_t>(n));
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += dist[static_cast<std::size_t>(i)] = squared_distance(row(i), row(chosen[0]), dim);
  for (int c = 1; c < k; ++c) {
    double best_sum = DBL_MAX;
    int best = -1;
    for (int t = 0; t < kPlusPlusTrials; ++t) {
      // A sample drawn with probability proportional to its squared distance to the centres so far.
      double p = uniform(rng) * sum;
      int ci = 0;
      for (; ci < n - 1; ++ci) {
        p -= dist[static_cast<std::size_t>(ci)];
        if (p <= 0) break;
      }
      double s = 0;
      for (int i = 0; i < n; ++i) {
        trial[static_cast<std::size_t>(i)] = std::min(squared_distance(row(i), row(ci), dim), dist[static_cast<std::size_t>(i)]);
        s += trial[static_cast<std::size_t>(i)];
      }
      if (s < best_sum) {
        best_sum = s;
        best = ci;
        best_trial.swap(trial);
      }
    }
    chosen[static_cast<std::size_t>(c)] = best;
    sum = best_sum;
    dist.swap(best_trial);
  }
  for (int c = 0; c < k; ++c) std::copy_n(row(chosen[static_cast<std::size_t>(c)]), dim, centers.begin() + static_cast<std::ptrdiff_t>(c) * dim);
}

void random_centers(const std::vector<float>& data, int n, int dim, int k, std::mt19937_64& rng, std::vector<float>& centers) {
  std::vector<float> lo(data.begin(), data.begin() + dim), hi = lo;
  for (int i = 1; i < n; ++i) {
    for (int j = 0; j < dim; ++j) {
      const float v = data[static_cast<std::size_t>(i) * dim + j];
      lo[static_cast<std::size_t>(j)] = std::min(lo[static_cast<std::size_t>(j)], v);
      hi[static_cast<std::size_t>(j)] = std::max(hi[static_cast<std::size_t>(j)], v);
    }
  }
  const float margin = 1.0f / static_cast<float>(dim);
  for (int c = 0; c < k; ++c) {
    for (int j = 0; j < dim; ++j) {
      const auto u = static_cast<float>(uniform(rng));
      centers[static_cast<std::size_t>(c) * dim + j] =
          (u * (1.0f + 2.0f * margin) - margin) * (hi[static_cast<std::size_t>(j)] - lo[static_cast<std::size_t>(j)]) + lo[static_cast<std::size_t>(j)];
    }
  }
}

// Centres as the means of their samples (summed in sample order, scaled by 1/count as float), an
// empty cluster taking the farthest sample of the largest one; returns the largest squared shift.
double update_centers(const std::vector<float>& data, int n, int dim, int k, std::vector<std::int32_t>& labels,
                      std::vector<float>& centers, const std::vector<float>& old, bool measure_shift) {
  std::fill(centers.begin(), centers.end(), 0.0f);
  std::vector<int> count(static_cast<std::size_t>(k), 0);
  for (int i = 0; i < n; ++i) {
    const int c = labels[static_cast<std::size_t>(i)];
    for (int j = 0; j < dim; ++j) centers[static_cast<std::size_t>(c) * dim + j] += data[static_cast<std::size_t>(i) * dim + j];
    ++count[static_cast<std::size_t>(c)];
  }
  for (int c = 0; c < k; ++c) {
    if (count[static_cast<std::size_t>(c)] != 0) continue;
    int largest = 0;
    for (int c1 = 1; c1 < k; ++c1) {
      if (count[static_cast<std::size_t>(largest)] < count[static_cast<std::size_t>(c1)]) largest = c1;
    }
    float* base = centers.data() + static_cast<std::size_t>(largest) * dim;
    std::vector<float> mean(static_cast<std::size_t>(dim));
    const float scale = 1.0f / static_cast<float>(count[static_cast<std::size_t>(largest)]);
    for (int j = 0; j < dim; ++j) mean[static_cast<std::size_t>(j)] = base[j] * scale;
    double farthest_d = 0;
    int farthest = -1;
    for (int i = 0; i < n; ++i) {
      if (labels[static_cast<std::size_t>(i)] != largest) continue;
      const double d = squared_distance(data.data() + static_cast<std::size_t>(i) * dim, mean.data(), dim);
      if (farthest_d <= d) {
        farthest_d = d;
        farthest = i;
      }
    }
    --count[static_cast<std::size_t>(largest)];
    ++count[static_cast<std::size_t>(c)];
    labels[static_cast<std::size_t>(farthest)] = c;
    for (int j = 0; j < dim; ++j) {
      const float v = data[static_cast<std::size_t>(farthest) * dim + j];
      base[j] -= v;
      centers[static_cast<std::size_t>(c) * dim + j] += v;
    }
  }
  double shift = 0;
  for (int c = 0; c < k; ++c) {
    const float scale = 1.0f / static_cast<float>(count[static_cast<std::size_t>(c)]);
    double d = 0;
    for (int j = 0; j < dim; ++j) {
      float& v = centers[static_cast<std::size_t>(c) * dim + j];
      v *= scale;
      const double t = static_cast<double>(v) - old[static_cast<std::size_t>(c) * dim + j];
      d += t * t;
    }
    if (measure_shift) shift = std::max(shift, d);
  }
  return shift;
}

}  // namespace

KmeansResult kmeans(Queue& queue, std::span<const float> data, int dim, int k, const KmeansOptions& options,
                    std::span<const std::int32_t> initial_labels) {
  if (dim < 1 || dim > bow_max_dim) {
    throw Error(ErrorCode::invalid_argument, kOp, "dim", std::to_string(dim) + " is not from 1 to " + std::to_string(bow_max_dim));
  }
  if (data.empty() || data.size() % static_cast<std::size_t>(dim) != 0) {
    throw Error(ErrorCode::invalid_argument, kOp, "data", "must hold at least one sample of dim " + std::to_string(dim) + " values");
  }
  if (data.size() / static_cast<std::size_t>(dim) > static_cast<std::size_t>(max_array_elements / 4)) {
    throw Error(ErrorCode::out_of_range, kOp, "data", "holds too many samples");
  }
  const int n = static_cast<int>(data.size() / static_cast<std::size_t>(dim));
  if (k < 1 || k > n) {
    throw Error(ErrorCode::invalid_argument, kOp, "k",
                std::to_string(k) + " clusters for " + std::to_string(n) + " samples (k must be from 1 to the sample count)");
  }
  if (!std::all_of(data.begin(), data.end(), [](float v) { return std::isfinite(v); })) {
    throw Error(ErrorCode::invalid_argument, kOp, "data", "holds NaN or infinite values");
  }
  if (options.init == KmeansInit::initial_labels) {
    if (initial_labels.size() != static_cast<std::size_t>(n)) {
      throw Error(ErrorCode::invalid_argument, kOp, "initial_labels", "must hold one label per sample (" + std::to_string(n) + ")");
    }
    if (!std::all_of(initial_labels.begin(), initial_labels.end(), [&](std::int32_t l) { return l >= 0 && l < k; })) {
      throw Error(ErrorCode::invalid_argument, kOp, "initial_labels", "must be from 0 to k - 1");
    }
  }
  // OpenCV's criteria: epsilon compared squared, iterations clamped to 2..100; one cluster: 2 iterations.
  const double epsilon = std::max(options.epsilon, 0.0) * std::max(options.epsilon, 0.0);
  int max_count = std::min(std::max(options.max_count, 2), 100);
  int attempts = std::max(options.attempts, 1);
  if (k == 1) {
    attempts = 1;
    max_count = 2;
  }

  // The device copy, padded with zero dimensions to bow_assign's multiple of 4 (distances unchanged).
  const std::vector<float> samples(data.begin(), data.end());
  const int pdim = (dim + 3) / 4 * 4;
  auto padded = [&](const std::vector<float>& rows, std::size_t count) {
    if (pdim == dim) return rows;
    std::vector<float> out(count * static_cast<std::size_t>(pdim), 0.0f);
    for (std::size_t i = 0; i < count; ++i) std::copy_n(rows.begin() + static_cast<std::ptrdiff_t>(i * dim), dim, out.begin() + static_cast<std::ptrdiff_t>(i * pdim));
    return out;
  };
  const DeviceArray device_data = upload_array<float>(queue, padded(samples, static_cast<std::size_t>(n)));
  const DeviceArray starts = upload_array<std::int32_t>(queue, std::vector<std::int32_t>{0, n});
  DeviceArray device_labels;
  BowOutputs outputs;
  outputs.labels = &device_labels;
  BowOptions assign;
  assign.method = options.method;

  std::mt19937_64 rng(options.seed);
  KmeansResult best;
  best.compactness = DBL_MAX;
  std::vector<float> centers(static_cast<std::size_t>(k) * dim), old(centers.size());
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n));
  if (options.init == KmeansInit::initial_labels) labels.assign(initial_labels.begin(), initial_labels.end());
  for (int a = 0; a < attempts; ++a) {
    double compactness = 0;
    for (int iter = 0;;) {
      double shift = iter == 0 ? DBL_MAX : 0.0;
      old.swap(centers);
      if (iter == 0 && (a > 0 || options.init != KmeansInit::initial_labels)) {
        if (options.init == KmeansInit::random) random_centers(samples, n, dim, k, rng, centers);
        else plus_plus(samples, n, dim, k, rng, centers);
      } else {
        const double s = update_centers(samples, n, dim, k, labels, centers, old, iter > 0);
        if (iter > 0) shift = s;
      }
      ++iter;
      if (iter == max_count || shift <= epsilon) {
        // The last iteration keeps the labels (no new empty clusters) and measures compactness.
        compactness = 0;
        for (int i = 0; i < n; ++i) {
          compactness += squared_distance(samples.data() + static_cast<std::size_t>(i) * dim,
                                          centers.data() + static_cast<std::size_t>(labels[static_cast<std::size_t>(i)]) * dim, dim);
        }
        break;
      }
      const DeviceArray vocab = upload_array<float>(queue, padded(centers, static_cast<std::size_t>(k)));
      bow_assign(queue, device_data, vocab, starts, pdim, outputs, assign);
      labels = download_array<std::int32_t>(queue, device_labels);
      if (std::any_of(labels.begin(), labels.end(), [](std::int32_t l) { return l < 0; })) {
        throw Error(ErrorCode::out_of_range, kOp, "data", "values too large: squared distances overflow float");
      }
    }
    if (compactness < best.compactness) {
      best.compactness = compactness;
      best.centers = centers;
      best.labels = labels;
    }
  }
  return best;
}

}  // namespace plinth
