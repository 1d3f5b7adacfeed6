// bf_knn_match and the host matching forms (cv::BFMatcher): argument checks, the launch of
// kernels/bf_match.cl, OpenCV's cross-check and the ratio test. docs/features.md explains them.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "core/launch.hpp"
#include "plinth/error.hpp"
#include "plinth/features.hpp"

namespace plinth {
namespace {

constexpr const char* kOp = "bf_match";

// Work shape: a query per work-item; TILE train descriptors staged in local memory at a time.
struct MatchPolicy {
  std::size_t group = 64;
  int tile = 64;
};

// The device form reads binary descriptors as 32-bit words (a multiple of 4 bytes); the host forms
// pad rows of other lengths.
void check_dim(int dim, MatchNorm norm, bool whole_words) {
  const int most = norm == MatchNorm::hamming ? 512 : 256;
  if (dim < 1 || dim > most || (whole_words && norm == MatchNorm::hamming && dim % 4 != 0)) {
    throw Error(ErrorCode::invalid_argument, kOp, "dim",
                std::to_string(dim) + (norm == MatchNorm::hamming ? " bytes is not a length from 1 to 512 (a multiple of 4 on the device)"
                                                                  : " is not a length from 1 to 256"));
  }
}

void check_input(const DeviceArray& a, MatchNorm norm, int dim, const char* arg) {
  const Depth depth = norm == MatchNorm::hamming ? Depth::u8 : Depth::f32;
  if (a.empty()) throw Error(ErrorCode::invalid_argument, kOp, arg, "is empty");
  if (a.format() != Format{depth, 1}) {
    throw Error(ErrorCode::unsupported_type, kOp, arg,
                "must be " + std::string(to_string(depth)) + " with one channel for this norm, not " +
                    std::string(to_string(a.depth())) + " x" + std::to_string(a.channels()));
  }
  if (a.size() % dim != 0) {
    throw Error(ErrorCode::invalid_argument, kOp, arg,
                "holds " + std::to_string(a.size()) + " values, not a multiple of dim " + std::to_string(dim));
  }
  if (norm == MatchNorm::hamming && a.offset() % 4 != 0) {
    throw Error(ErrorCode::invalid_argument, kOp, arg, "must start on a 4-byte boundary (binary descriptors are read as words)");
  }
}

void prepare(Queue& queue, DeviceArray& a, Depth depth, std::int64_t size, const char* arg) {
  if (a.empty()) {
    a = DeviceArray(queue.context(), size, Format{depth, 1});
    return;
  }
  if (a.format() != Format{depth, 1} || a.size() != size) {
    throw Error(ErrorCode::invalid_argument, kOp, arg,
                "must be " + std::string(to_string(depth)) + " with " + std::to_string(size) + " elements");
  }
}

template <class T>
std::vector<std::vector<Match>> knn_host(Queue& queue, std::span<const T> query, std::span<const T> train, int dim,
                                         MatchNorm norm, int k) {
  check_dim(dim, norm, false);
  const auto d = static_cast<std::size_t>(dim);
  if (query.size() % d != 0 || train.size() % d != 0) {
    throw Error(ErrorCode::invalid_argument, kOp, "dim", "the descriptors do not hold whole rows of " + std::to_string(dim));
  }
  if (k < 1 || k > max_knn) {
    throw Error(ErrorCode::invalid_argument, kOp, "k", std::to_string(k) + " is not from 1 to " + std::to_string(max_knn));
  }
  if constexpr (std::is_same_v<T, float>) {
    const auto finite = [](float v) { return std::isfinite(v); };
    if (!std::all_of(query.begin(), query.end(), finite) || !std::all_of(train.begin(), train.end(), finite)) {
      throw Error(ErrorCode::invalid_argument, kOp, "descriptors", "hold NaN or infinite values");
    }
  }
  const std::size_t n = query.size() / d, m = train.size() / d;
  std::vector<std::vector<Match>> result(n);
  if (n == 0 || m == 0) return result;
  // Binary descriptors of any byte count (AKAZE's are 61): rows padded with zero bytes to whole
  // words, which differ in no bit.
  const int words_dim = norm == MatchNorm::hamming ? (dim + 3) / 4 * 4 : dim;
  auto padded = [&](std::span<const T> rows) {
    std::vector<T> out(rows.size() / d * static_cast<std::size_t>(words_dim), T{});
    for (std::size_t i = 0; i < rows.size() / d; ++i) std::copy_n(rows.begin() + static_cast<std::ptrdiff_t>(i * d), d, out.begin() + static_cast<std::ptrdiff_t>(i * static_cast<std::size_t>(words_dim)));
    return out;
  };
  const DeviceArray q = upload_array<T>(queue, padded(query)), t = upload_array<T>(queue, padded(train));
  DeviceArray indices, distances;
  bf_knn_match(queue, q, t, words_dim, norm, k, indices, distances);
  const auto idx = download_array<std::int32_t>(queue, indices);
  const auto dist = download_array<float>(queue, distances);
  const auto kk = static_cast<std::size_t>(k);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t s = 0; s < kk && idx[i * kk + s] >= 0; ++s) {
      result[i].push_back(Match{static_cast<int>(i), idx[i * kk + s], dist[i * kk + s]});
    }
  }
  return result;
}

// OpenCV 4.6's cross-check: query q keeps its nearest train descriptor j only when q is j's nearest
// query (each the first of equal distances): mutual nearest neighbours.
template <class T>
std::vector<Match> match_host(Queue& queue, std::span<const T> query, std::span<const T> train, int dim, MatchNorm norm,
                              bool cross_check) {
  const auto forward = knn_host(queue, query, train, dim, norm, 1);
  const auto backward = cross_check ? knn_host(queue, train, query, dim, norm, 1) : std::vector<std::vector<Match>>{};
  std::vector<Match> out;
  for (const auto& m : forward) {
    if (m.empty()) continue;
    if (cross_check) {
      const auto& b = backward[static_cast<std::size_t>(m[0].train)];
      if (b.empty() || b[0].train != m[0].query) continue;
    }
    out.push_back(m[0]);
  }
  return out;
}

}  // namespace

Event bf_knn_match(Queue& queue, const DeviceArray& query, const DeviceArray& train, int dim, MatchNorm norm, int k,
                   DeviceArray& indices, DeviceArray& distances) {
  check_dim(dim, norm, true);
  check_input(query, norm, dim, "query");
  check_input(train, norm, dim, "train");
  if (k < 1 || k > max_knn) {
    throw Error(ErrorCode::invalid_argument, kOp, "k", std::to_string(k) + " is not from 1 to " + std::to_string(max_knn));
  }
  const std::int64_t n = query.size() / dim, m = train.size() / dim;
  if (n * k > max_array_elements) throw Error(ErrorCode::out_of_range, kOp, "k", "queries * k exceeds 2^31 - 1");
  prepare(queue, indices, Depth::s32, n * k, "indices");
  prepare(queue, distances, Depth::f32, n * k, "distances");
  const MatchPolicy p;
  const bool hamming = norm == MatchNorm::hamming;
  const int words = hamming ? dim / 4 : dim;
  detail::BuildOptions build;
  build.define("HAMMING", hamming ? 1 : 0).define("WORDS", words).define("K", k);
  build.define("GROUP", static_cast<long long>(p.group)).define("TILE", p.tile);
  const auto program = detail::get_program(queue, "bf_match.cl", build);
  detail::Launch launch(queue, program, "bf_knn");
  launch.arg(static_cast<int>(n)).arg(static_cast<int>(m));
  if (hamming) {
    // The kernel reads 32-bit words: the byte arrays' offsets are given in words.
    launch.buffer(*query.buffer()).arg(static_cast<int>(query.offset() / 4));
    launch.buffer(*train.buffer()).arg(static_cast<int>(train.offset() / 4));
  } else {
    launch.array(query).array(train);
  }
  launch.array(indices).array(distances);
  return Event(launch.run(detail::range(detail::round_up(static_cast<std::size_t>(n), p.group)), detail::range(p.group)));
}

std::vector<std::vector<Match>> knn_match(Queue& queue, std::span<const float> query, std::span<const float> train, int dim,
                                          int k) {
  return knn_host(queue, query, train, dim, MatchNorm::l2, k);
}
std::vector<std::vector<Match>> knn_match(Queue& queue, std::span<const std::uint8_t> query,
                                          std::span<const std::uint8_t> train, int dim, int k) {
  return knn_host(queue, query, train, dim, MatchNorm::hamming, k);
}
std::vector<Match> match(Queue& queue, std::span<const float> query, std::span<const float> train, int dim, bool cross_check) {
  return match_host(queue, query, train, dim, MatchNorm::l2, cross_check);
}
std::vector<Match> match(Queue& queue, std::span<const std::uint8_t> query, std::span<const std::uint8_t> train, int dim,
                         bool cross_check) {
  return match_host(queue, query, train, dim, MatchNorm::hamming, cross_check);
}

std::vector<Match> ratio_test(const std::vector<std::vector<Match>>& knn, float ratio) {
  std::vector<Match> out;
  for (const auto& m : knn) {
    if (m.size() >= 2 && m[0].distance < ratio * m[1].distance) out.push_back(m[0]);
  }
  return out;
}

}  // namespace plinth
