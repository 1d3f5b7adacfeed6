// kmeans (cv::kmeans) on the device: the iteration with OpenCV's order of steps, driving the
// kernels of kernels/kmeans.cl (seeding, centre update, compactness) and bow_assign (assignment).
// Only status words cross to the host per iteration; docs/features.md describes the semantics and
// how each sum is kept in a fixed order.
#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <random>
#include <string>

#include "../../kernels/kmeans_shape.h"
#include "core/launch.hpp"
#include "plinth/bow.hpp"
#include "plinth/error.hpp"
#include "plinth/sort.hpp"

namespace plinth {
namespace {

constexpr const char* kOp = "kmeans";

// Uniform doubles in [0, 1) from the attempt's generator.
double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

std::size_t groups_of(std::int64_t count) { return static_cast<std::size_t>((count + KMEANS_GROUP - 1) / KMEANS_GROUP); }
detail::NDRange items(std::int64_t count) { return detail::range(groups_of(count) * KMEANS_GROUP); }
detail::NDRange group() { return detail::range(KMEANS_GROUP); }

// The first and last launch of a stretch of work, as an Event.
struct Span {
  std::shared_ptr<detail::EventImpl> first, last;
  void add(const std::shared_ptr<detail::EventImpl>& e) { add(Event(e)); }
  void add(const Event& e) {
    if (e.valid()) {
      if (!first) first = e.first();
      last = e.last();
    }
  }
  Event event() const { return first ? Event(first, last) : Event(); }
};

// The device state of one call: samples n x pdim, and every work array, allocated once.
class Run {
 public:
  Run(Queue& queue, const DeviceArray& samples, int dim, int pdim, int k, BowMethod method)
      : q_(queue), samples_(samples), dim_(dim), pdim_(pdim), n_(samples.size() / pdim), k_(k),
        nblocks_(static_cast<int>(groups_of(n_))) {
    detail::BuildOptions build;
    build.define("DIM", pdim).define("PLINTH_NEED_FP64");
    program_ = detail::get_program(queue, "kmeans.cl", build);
    const Context& ctx = queue.context();
    auto array = [&](std::int64_t size, Depth depth) { return DeviceArray(ctx, std::max<std::int64_t>(size, 1), Format{depth, 1}); };
    auto f32 = [&](std::int64_t size) { return array(size, Depth::f32); };
    auto s32 = [&](std::int64_t size) { return array(size, Depth::s32); };
    auto f64 = [&](std::int64_t size) { return array(size, Depth::f64); };
    labels = s32(n_);
    sorted_ = s32(n_);
    order_ = s32(n_);
    iota_ = s32(n_);
    chunk_sums_ = f32(n_ / KMEANS_CHUNK * pdim);
    sums_ = f32(std::int64_t{k} * pdim);
    counts_ = s32(k);
    shift_ = f64(k);
    status_ = f64(KMEANS_STATUS_WORDS);
    partial_ = f64(nblocks_);
    total_ = f64(1);
    centres = f32(std::int64_t{k} * pdim);
    old = f32(std::int64_t{k} * pdim);
    starts_ = upload_array<std::int32_t>(queue, std::vector<std::int32_t>{0, static_cast<std::int32_t>(n_)});
    // Defined values in the centre buffers: the first update from labels reads `old` (unused).
    fill_array_bytes(queue, centres, 0);
    fill_array_bytes(queue, old, 0);
    detail::Launch iota(queue, program_, "kmeans_iota");
    iota.arg(static_cast<int>(n_)).array(iota_).run(items(n_), group());
    assign_options_.method = method;
    assign_out_.labels = &labels;
    assign_out_.counts = s32(k);  // allocated here, not inside the first assignment's span
    assign_out_.histograms = f32(k);
  }

  // k-means++: centre 0 uniformly, then each next one the best of KMEANS_TRIALS candidates drawn
  // with probability proportional to the squared distance to the nearest centre so far.
  void seed_plus_plus(std::mt19937_64& rng, Span& span) {
    if (weights_.empty()) {
      weights_ = DeviceArray(q_.context(), KMEANS_TRIALS * n_, Format{Depth::f32, 1});
      block_sums_ = DeviceArray(q_.context(), std::int64_t{KMEANS_TRIALS} * nblocks_, Format{Depth::f64, 1});
      cand_ = DeviceArray(q_.context(), KMEANS_TRIALS, Format{Depth::s32, 1});
      state_ = DeviceArray(q_.context(), 1, Format{Depth::s32, 1});
      chosen_ = DeviceArray(q_.context(), k_, Format{Depth::s32, 1});
    }
    const auto first = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(n_));
    const Event up = upload_array(q_, &first, sizeof first, cand_.slice(0, 1));
    span.add(up);
    up.wait();  // `first` lives on this stack
    span.add(fill_array_bytes(q_, state_, 0xFF));  // -1: no current weights yet
    trials(1);  // the weights: squared distances to centre 0
    choose(0);
    for (int c = 1; c < k_; ++c) {
      double u[KMEANS_TRIALS];
      for (double& v : u) v = uniform(rng);
      detail::Launch search(q_, program_, "kmeans_pp_search");
      search.arg(static_cast<int>(n_)).arg(nblocks_).arg(u[0]).arg(u[1]).arg(u[2]);
      search.array(block_sums_).array(weights_).array(state_).array(cand_);
      search.run(detail::range(std::size_t{KMEANS_TRIALS} * KMEANS_GROUP), group());
      trials(KMEANS_TRIALS);
      choose(c);
    }
    detail::Launch gather(q_, program_, "kmeans_gather");
    gather.arg(k_).array(chosen_).array(samples_).array(centres);
    span.add(gather.run(items(std::int64_t{k_} * pdim_), group()));
  }

  // Uniform in the bounding box widened by 1/dim each side; the uniforms come from the host's
  // generator in cv::kmeans' order (centre by centre, dimension by dimension).
  void seed_random(std::mt19937_64& rng, Span& span) {
    const auto runs = static_cast<int>((n_ + KMEANS_BOUNDS_RUN - 1) / KMEANS_BOUNDS_RUN);
    if (bounds_.empty()) {
      bounds_ = DeviceArray(q_.context(), std::int64_t{runs} * 2 * pdim_, Format{Depth::f32, 1});
      uniforms_ = DeviceArray(q_.context(), std::int64_t{k_} * dim_, Format{Depth::f32, 1});
    }
    host_uniforms_.resize(static_cast<std::size_t>(k_) * static_cast<std::size_t>(dim_));
    for (float& v : host_uniforms_) v = static_cast<float>(uniform(rng));
    const Event up = upload_array(q_, host_uniforms_.data(), host_uniforms_.size() * sizeof(float), uniforms_);
    span.add(up);
    detail::Launch partial(q_, program_, "kmeans_bounds_runs");
    partial.arg(static_cast<int>(n_)).arg(runs).array(samples_).array(bounds_);
    span.add(partial.run(items(std::int64_t{runs} * pdim_), group()));
    detail::Launch make(q_, program_, "kmeans_random_centres");
    make.arg(k_).arg(dim_).arg(runs).array(bounds_).array(uniforms_).array(centres);
    span.add(make.run(items(std::int64_t{k_} * pdim_), group()));
    up.wait();  // host_uniforms_ is rewritten by the next attempt
  }

  // Centres from the labels (into `centres`, shift measured against `old`); returns the status.
  std::array<double, KMEANS_STATUS_WORDS> update(Span& span) {
    span.add(sort_pairs(q_, labels, iota_, sorted_, order_));
    const int n = static_cast<int>(n_);
    if (n_ >= KMEANS_CHUNK) {
      detail::Launch chunks(q_, program_, "kmeans_chunk_sums");
      chunks.arg(n).array(samples_).array(order_).array(chunk_sums_);
      span.add(chunks.run(items(n_ / KMEANS_CHUNK * pdim_), group()));
    }
    detail::Launch sums(q_, program_, "kmeans_cluster_sums");
    sums.arg(n).arg(k_).array(sorted_).array(order_).array(samples_).array(chunk_sums_).array(sums_).array(counts_);
    span.add(sums.run(items(std::int64_t{k_} * pdim_), group()));
    detail::Launch empty(q_, program_, "kmeans_empty_clusters");
    empty.arg(n).arg(k_).array(sorted_).array(order_).array(samples_).array(sums_).array(counts_).array(labels);
    span.add(empty.run(group(), group()));
    detail::Launch scale(q_, program_, "kmeans_scale");
    scale.arg(k_).array(sums_).array(counts_).array(old).array(centres).array(shift_);
    span.add(scale.run(items(k_), group()));
    detail::Launch status(q_, program_, "kmeans_status");
    status.arg(n).arg(k_).array(shift_).array(sorted_).array(status_);
    span.add(status.run(group(), group()));
    std::array<double, KMEANS_STATUS_WORDS> words{};
    download_array(q_, status_, words.data(), sizeof words).wait();
    return words;
  }

  void assign(Span& span) { span.add(bow_assign(q_, samples_, centres, starts_, pdim_, assign_out_, assign_options_)); }

  double compactness(Span& span) {
    detail::Launch distances(q_, program_, "kmeans_distances");
    distances.arg(static_cast<int>(n_)).array(samples_).array(centres).array(labels).array(partial_);
    span.add(distances.run(items(n_), group()));
    detail::Launch total(q_, program_, "kmeans_total");
    total.arg(nblocks_).array(partial_).array(total_);
    span.add(total.run(group(), group()));
    double value = 0;
    download_array(q_, total_, &value, sizeof value).wait();
    return value;
  }

  // Fresh buffers for the next attempt, once the current ones are kept as the best.
  void renew() {
    centres = DeviceArray(q_.context(), centres.size(), centres.format());
    labels = DeviceArray(q_.context(), labels.size(), labels.format());
  }

  DeviceArray labels, centres, old;

 private:
  void trials(int count) {
    detail::Launch t(q_, program_, "kmeans_pp_trials");
    t.arg(static_cast<int>(n_)).arg(nblocks_).arg(count).array(samples_).array(cand_).array(state_).array(weights_).array(block_sums_);
    t.run(items(n_), group());
  }
  void choose(int c) {
    detail::Launch ch(q_, program_, "kmeans_pp_choose");
    ch.arg(nblocks_).arg(c == 0 ? 1 : KMEANS_TRIALS).arg(c).array(block_sums_).array(cand_).array(state_).array(chosen_);
    ch.run(group(), group());
  }

  Queue& q_;
  const DeviceArray& samples_;
  int dim_, pdim_;
  std::int64_t n_;
  int k_, nblocks_;
  std::shared_ptr<detail::Program> program_;
  DeviceArray sorted_, order_, iota_, chunk_sums_, sums_, counts_, shift_, status_, partial_, total_, starts_;
  DeviceArray weights_, block_sums_, cand_, state_, chosen_, bounds_, uniforms_;
  std::vector<float> host_uniforms_;
  BowOptions assign_options_;
  BowOutputs assign_out_;
};

// The device form's work for samples of `dim` values padded with zeros to `pdim` (the host form pads
// to bow_assign's multiple of 4; random centres need the real dim). Centres come out k x pdim.
KmeansDeviceResult run_kmeans(Queue& queue, const DeviceArray& samples, int dim, int pdim, int k, const KmeansOptions& options,
                              const DeviceArray* initial_labels) {
  const std::int64_t n = samples.size() / pdim;
  if (options.init == KmeansInit::initial_labels &&
      (initial_labels == nullptr || initial_labels->format() != Format{Depth::s32, 1} || initial_labels->size() != n)) {
    throw Error(ErrorCode::invalid_argument, kOp, "initial_labels", "must be s32 with one label per sample (" + std::to_string(n) + ")");
  }
  if (!queue.context().device().has_fp64) {
    throw Error(ErrorCode::unsupported_type, kOp, "device", "has no double precision (cl_khr_fp64), which kmeans' sums need");
  }
  // OpenCV's criteria: epsilon compared squared, iterations clamped to 2..100; one cluster: 2 iterations.
  const double epsilon = std::max(options.epsilon, 0.0) * std::max(options.epsilon, 0.0);
  int max_count = std::min(std::max(options.max_count, 2), 100);
  int attempts = std::max(options.attempts, 1);
  if (k == 1) {
    attempts = 1;
    max_count = 2;
  }

  Run run(queue, samples, dim, pdim, k, options.method);
  std::mt19937_64 rng(options.seed);
  KmeansDeviceResult best;
  best.compactness = DBL_MAX;
  Span whole;
  for (int a = 0; a < attempts; ++a) {
    Span seeding, iterations;
    double compactness = 0;
    int iter = 0;
    for (;;) {
      double shift = iter == 0 ? DBL_MAX : 0.0;
      std::swap(run.old, run.centres);
      if (iter == 0 && (a > 0 || options.init != KmeansInit::initial_labels)) {
        if (options.init == KmeansInit::random) run.seed_random(rng, seeding);
        else run.seed_plus_plus(rng, seeding);
      } else {
        if (iter == 0) iterations.add(copy_array(queue, *initial_labels, run.labels));
        const auto status = run.update(iterations);
        if (status[KMEANS_STATUS_FLAG] != 0) {
          if (iter == 0) throw Error(ErrorCode::invalid_argument, kOp, "initial_labels", "must be from 0 to k - 1");
          throw Error(ErrorCode::out_of_range, kOp, "samples", "values too large: squared distances overflow float");
        }
        if (iter > 0) shift = status[KMEANS_STATUS_SHIFT];
      }
      ++iter;
      if (iter == max_count || shift <= epsilon) {
        // The last iteration keeps the labels (no new empty clusters) and measures compactness.
        compactness = run.compactness(iterations);
        break;
      }
      run.assign(iterations);
    }
    whole.add(seeding.event());
    whole.add(iterations.event());
    if (compactness < best.compactness) {
      best.compactness = compactness;
      best.centers = run.centres;
      best.labels = run.labels;
      best.iterations = iter;
      best.seeding_span = seeding.event();
      best.iteration_span = iterations.event();
      if (a + 1 < attempts) run.renew();
    }
  }
  best.span = whole.event();
  return best;
}

}  // namespace

KmeansDeviceResult kmeans(Queue& queue, const DeviceArray& samples, int dim, int k, const KmeansOptions& options,
                          const DeviceArray* initial_labels) {
  if (dim < 4 || dim > bow_max_dim || dim % 4 != 0) {
    throw Error(ErrorCode::invalid_argument, kOp, "dim", std::to_string(dim) + " is not a multiple of 4 from 4 to " + std::to_string(bow_max_dim));
  }
  if (samples.empty() || samples.format() != Format{Depth::f32, 1} || samples.size() % dim != 0) {
    throw Error(ErrorCode::invalid_argument, kOp, "samples", "must be f32 with one channel, whole samples of dim " + std::to_string(dim));
  }
  const std::int64_t n = samples.size() / dim;
  if (n > max_array_elements / 4) throw Error(ErrorCode::out_of_range, kOp, "samples", "holds too many samples");
  if (k < 1 || k > n) {
    throw Error(ErrorCode::invalid_argument, kOp, "k",
                std::to_string(k) + " clusters for " + std::to_string(n) + " samples (k must be from 1 to the sample count)");
  }
  return run_kmeans(queue, samples, dim, dim, k, options, initial_labels);
}

KmeansResult kmeans(Queue& queue, std::span<const float> data, int dim, int k, const KmeansOptions& options,
                    std::span<const std::int32_t> initial_labels) {
  if (dim < 1 || dim > bow_max_dim) {
    throw Error(ErrorCode::invalid_argument, kOp, "dim", std::to_string(dim) + " is not from 1 to " + std::to_string(bow_max_dim));
  }
  if (data.empty() || data.size() % static_cast<std::size_t>(dim) != 0) {
    throw Error(ErrorCode::invalid_argument, kOp, "data", "must hold at least one sample of dim " + std::to_string(dim) + " values");
  }
  const int pdim = (dim + 3) / 4 * 4;
  const std::size_t count = data.size() / static_cast<std::size_t>(dim);
  if (count > static_cast<std::size_t>(max_array_elements / 4) || count * static_cast<std::size_t>(pdim) > static_cast<std::size_t>(max_array_elements)) {
    throw Error(ErrorCode::out_of_range, kOp, "data", "holds too many samples");
  }
  const int n = static_cast<int>(count);
  if (k < 1 || k > n) {
    throw Error(ErrorCode::invalid_argument, kOp, "k",
                std::to_string(k) + " clusters for " + std::to_string(n) + " samples (k must be from 1 to the sample count)");
  }
  if (!std::all_of(data.begin(), data.end(), [](float v) { return std::isfinite(v); })) {
    throw Error(ErrorCode::invalid_argument, kOp, "data", "holds NaN or infinite values");
  }
  DeviceArray labels;
  if (options.init == KmeansInit::initial_labels) {
    if (initial_labels.size() != count) {
      throw Error(ErrorCode::invalid_argument, kOp, "initial_labels", "must hold one label per sample (" + std::to_string(n) + ")");
    }
    if (!std::all_of(initial_labels.begin(), initial_labels.end(), [&](std::int32_t l) { return l >= 0 && l < k; })) {
      throw Error(ErrorCode::invalid_argument, kOp, "initial_labels", "must be from 0 to k - 1");
    }
    labels = upload_array(queue, initial_labels);
  }
  // The device copy, padded with zero dimensions to bow_assign's multiple of 4 (distances and sums unchanged).
  std::vector<float> padded(count * static_cast<std::size_t>(pdim), 0.0f);
  for (std::size_t i = 0; i < count; ++i) {
    std::copy_n(data.begin() + static_cast<std::ptrdiff_t>(i * dim), dim, padded.begin() + static_cast<std::ptrdiff_t>(i * pdim));
  }
  const DeviceArray samples = upload_array<float>(queue, padded);
  const KmeansDeviceResult r = run_kmeans(queue, samples, dim, pdim, k, options, labels.empty() ? nullptr : &labels);
  const std::vector<float> centers = download_array<float>(queue, r.centers);
  KmeansResult result;
  result.compactness = r.compactness;
  result.labels = download_array<std::int32_t>(queue, r.labels);
  result.centers.resize(static_cast<std::size_t>(k) * static_cast<std::size_t>(dim));
  for (int c = 0; c < k; ++c) {
    std::copy_n(centers.begin() + static_cast<std::ptrdiff_t>(c) * pdim, dim, result.centers.begin() + static_cast<std::ptrdiff_t>(c) * dim);
  }
  return result;
}

}  // namespace plinth
