#pragma once
// Bags of visual words: each descriptor is assigned to its nearest vocabulary word (centroid) by
// squared Euclidean distance and the words are counted per image, with the semantics of
// cv::BOWImgDescriptorExtractor: hard assignment, counts divided by the image's descriptor count,
// an empty histogram for an image without descriptors. docs/features.md gives the formulas.
//
// Ties: of centroids at the same distance the lowest index wins, as a linear scan with a strict
// comparison would choose. Methods sum the squared differences in different orders (and `fused`
// ranks by |c|^2 - 2 x.c), so labels may differ between methods where two distances are equal to
// within float rounding; exactly equal centroids always resolve to the lower index.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "plinth/array.hpp"
#include "plinth/core.hpp"

namespace plinth {

enum class BowMethod {
  automatic,   // fused where it applies (fused_pipelined on CUDA for k > 256), else baseline
  baseline,    // seed GPU1: a work-item per descriptor, distances summed over rows of descriptors
  transposed,  // seed GPU2: descriptors read dimension-major, so neighbouring work-items coalesce
  float4,      // seed GPU3: transposed, four dimensions per step as float4
  local,       // seed GPU4: transposed, the work-group's descriptors staged in local memory
  constant,    // seed GPU5: as local, centroids in constant memory (K * dim * 4 <= 64 KiB)
  fused,       // tiles of descriptors against tiles of centroids in local memory, |c|^2 - 2 x.c by register
               // blocks, arg-min and count in one kernel (dim 32 to 128, a multiple of 16)
  fused_pipelined,  // fused's blocks and labels (bit for bit), centroid slices double-buffered: the next
                    // slice's loads in flight during the current one's multiply-adds, one barrier a slice
};

// The one table of methods: name, one line, and whether it reads descriptors dimension-major.
struct BowMethodInfo {
  BowMethod method;
  std::string_view name;
  std::string_view doc;
  bool reads_transposed;
};
std::span<const BowMethodInfo> bow_methods() noexcept;
std::string_view to_string(BowMethod method) noexcept;
// Parses a name of bow_methods() ("auto" for automatic); throws Error(invalid_argument) otherwise.
BowMethod parse_bow_method(std::string_view text);

// Largest descriptor length the kernels take (SURF's extended descriptor is 128).
inline constexpr int bow_max_dim = 512;

struct BowOptions {
  BowMethod method = BowMethod::automatic;
  // The descriptors are stored dimension-major (dim rows of n values: the seed's transposed
  // layout) instead of OpenCV's descriptor-major rows. Methods that read the other layout get a
  // transposed copy first (timed within the returned event).
  bool transposed_input = false;
};

// Device form. descriptors: f32, n * dim values (n descriptors of dim values; dim a multiple of 4,
// 4 to bow_max_dim); vocabulary: f32, k * dim values, descriptor-major; image_starts: s32,
// images + 1 offsets 0 = s[0] <= s[1] <= ... <= s[images] = n, image i owning descriptors
// [s[i], s[i+1]). Outputs, allocated when empty, else checked:
//   counts      s32, images * k: descriptors of image i assigned to word j at i * k + j
//   histograms  f32, images * k: counts times 1/n_i (OpenCV's float scale); zeros for an empty image
//   labels      s32, n: the word of each descriptor; left untouched (not computed) when `labels` is
//               nullptr. A descriptor whose distances are all NaN or infinite gets -1 and is not counted.
struct BowOutputs {
  DeviceArray counts;
  DeviceArray histograms;
  DeviceArray* labels = nullptr;
};
Event bow_assign(Queue& queue, const DeviceArray& descriptors, const DeviceArray& vocabulary,
                 const DeviceArray& image_starts, int dim, BowOutputs& out, const BowOptions& options = {});

// Host convenience. Checks the values (NaN or infinity: Error(invalid_argument)) and returns one
// histogram per image, empty for an image without descriptors, as cv::BOWImgDescriptorExtractor.
struct BowResult {
  std::vector<std::vector<float>> histograms;
  std::vector<std::int32_t> labels;  // per descriptor
};
BowResult bow_assign(Queue& queue, std::span<const float> descriptors, std::span<const std::int32_t> image_starts,
                     std::span<const float> vocabulary, int dim, const BowOptions& options = {});

}  // namespace plinth

namespace plinth {

// ---- Vocabularies: k-means with cv::kmeans' semantics ----

enum class KmeansInit {
  plus_plus,       // k-means++ (Arthur and Vassilvitskii), 3 trials per centre as cv::KMEANS_PP_CENTERS
  random,          // uniform in the data's bounding box widened by 1/dim each side (cv::KMEANS_RANDOM_CENTERS)
  initial_labels,  // the first attempt starts from `initial_labels` (cv::KMEANS_USE_INITIAL_LABELS)
};

struct KmeansOptions {
  // cv::TermCriteria: at most max_count iterations (OpenCV clamps it to 2..100) or until no centre
  // moves more than epsilon (compared squared, as OpenCV).
  int max_count = 100;
  double epsilon = 1.1920928955078125e-07;  // FLT_EPSILON, OpenCV's value when EPS is not set
  int attempts = 1;                         // the attempt of least compactness is returned
  KmeansInit init = KmeansInit::plus_plus;
  std::uint64_t seed = 0;                   // the same seed gives the same result
  BowMethod method = BowMethod::automatic;  // the device assignment kernel
};

struct KmeansResult {
  std::vector<float> centers;        // k * dim
  std::vector<std::int32_t> labels;  // per sample
  double compactness = 0;            // sum of squared distances to the labelled centres
};

// cv::kmeans of n = data.size() / dim samples into k clusters (1 <= k <= n), all on the device:
// seeding (k-means++ or random centres), the assignment (bow_assign's kernels), the centre update
// in a fixed order (samples sorted stably by label, so summed in sample order within a cluster),
// OpenCV's rule for an empty cluster (it takes the sample of the largest cluster farthest from
// that cluster's centre), and the compactness of the last iteration, which keeps its labels as
// OpenCV's does. Only a few status words are read back per iteration. docs/features.md has the
// details. NaN or infinite data: Error(invalid_argument).
KmeansResult kmeans(Queue& queue, std::span<const float> data, int dim, int k, const KmeansOptions& options = {},
                    std::span<const std::int32_t> initial_labels = {});

// Device form. samples: f32, n * dim values, descriptor-major, dim a multiple of 4 from 4 to
// bow_max_dim (pad with zero dimensions: distances and sums are unchanged). initial_labels (s32, n,
// values 0..k-1) is read when options.init is initial_labels. Values must be finite (not checked
// here: an assignment whose distances overflow is reported as Error(out_of_range)).
struct KmeansDeviceResult {
  DeviceArray centers;      // f32, k * dim
  DeviceArray labels;       // s32, n
  double compactness = 0;
  int iterations = 0;       // of the returned attempt, counted as cv::kmeans counts them
  Event seeding_span;       // the returned attempt's seeding (invalid when it started from labels)
  Event iteration_span;     // the returned attempt's iterations, compactness included
  Event span;               // every attempt
};
KmeansDeviceResult kmeans(Queue& queue, const DeviceArray& samples, int dim, int k, const KmeansOptions& options = {},
                          const DeviceArray* initial_labels = nullptr);

}  // namespace plinth
