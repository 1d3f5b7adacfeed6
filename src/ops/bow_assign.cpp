// bow_assign (cv::BOWImgDescriptorExtractor's assignment and histogram): argument checks, the method
// table, and the launches of kernels/bow_assign.cl. docs/features.md explains the methods.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/launch.hpp"
#include "plinth/bow.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace {

constexpr const char* kOp = "bow_assign";

constexpr BowMethodInfo kMethods[] = {
    {BowMethod::automatic, "auto", "fused where it applies (fused_pipelined on CUDA for k > 256), else baseline", false},
    {BowMethod::baseline, "baseline", "seed GPU1: a work-item per descriptor, descriptor-major reads", false},
    {BowMethod::transposed, "transposed", "seed GPU2: dimension-major descriptors, coalesced reads", true},
    {BowMethod::float4, "float4", "seed GPU3: dimension-major, four dimensions a step as float4", true},
    {BowMethod::local, "local", "seed GPU4: dimension-major, the work-group's descriptors in local memory", true},
    {BowMethod::constant, "constant", "seed GPU5: as local, centroids in constant memory (k * dim * 4 <= 64 KiB)", true},
    {BowMethod::fused, "fused", "GEMM-blocked |c|^2 - 2 x.c with arg-min and count in one kernel (dim 32-128, multiple of 16)",
     false},
    {BowMethod::fused_pipelined, "fused_pipelined",
     "fused with double-buffered centroid slices (next slice loaded during the current one's multiply-adds); same labels", false},
};

// Work shapes, from the device and the descriptor length.
struct BowPolicy {
  std::size_t group = 64;  // the seed kernels (GPU4/5 stage group * dim floats in local memory)
  int row_threads = 16;    // fused: 16 x row_threads work-items, 8 * row_threads descriptors a group
  int dim_slice = 16;      // fused: dimensions of a centroid chunk held in local memory at once
};

constexpr std::size_t kConstantBytes = 64 * 1024;  // OpenCL's guaranteed constant buffer size

BowPolicy bow_policy(int dim) {
  BowPolicy p;
  p.row_threads = dim <= 64 ? 16 : 8;
  return p;
}

std::size_t fused_local_bytes(int dim, const BowPolicy& p, bool pipelined) {
  const std::size_t tm = 8 * static_cast<std::size_t>(p.row_threads);
  const std::size_t slice_floats = pipelined ? 2 * 8 : static_cast<std::size_t>(p.dim_slice);  // PIPE_SLICE 8, two buffers
  return 4 * (static_cast<std::size_t>(dim) * (tm + 4) + slice_floats * (128 + 4));
}

const BowMethodInfo& info(BowMethod method) {
  for (const BowMethodInfo& m : kMethods) {
    if (m.method == method) return m;
  }
  return kMethods[0];
}

// Why `method` cannot run this request, or empty.
std::string refusal(BowMethod method, const DeviceInfo& device, int dim, std::int64_t k) {
  const BowPolicy p = bow_policy(dim);
  switch (method) {
    case BowMethod::local:
    case BowMethod::constant:
      if (p.group * static_cast<std::size_t>(dim) * 4 > device.local_memory) return "needs more local memory than the device has";
      if (method == BowMethod::constant && static_cast<std::size_t>(k) * static_cast<std::size_t>(dim) * 4 > kConstantBytes) {
        return "holds at most 64 KiB of centroids (k * dim * 4 bytes)";
      }
      return {};
    case BowMethod::fused:
    case BowMethod::fused_pipelined:
      if (dim % 16 != 0 || dim < 32 || dim > 128) return "takes dim 32 to 128 in multiples of 16";
      if (fused_local_bytes(dim, p, method == BowMethod::fused_pipelined) > device.local_memory) {
        return "needs more local memory than the device has";
      }
      return {};
    default: return {};
  }
}

// What `automatic` runs. On the H100 (2026-11-25, 1M x 64 descriptors) fused_pipelined beat fused on
// the CUDA backend at k = 1024 (3.85 against 4.13 ms) and not at k = 256 (1.17 against 1.15 ms); on
// NVIDIA's OpenCL fused won at both (3.54 against 3.71 ms, 0.99 against 1.09).
BowMethod automatic_method(const DeviceInfo& device, int dim, std::int64_t k) {
  if (!refusal(BowMethod::fused, device, dim, k).empty()) return BowMethod::baseline;
  if (device.backend == "cuda" && k > 256 && refusal(BowMethod::fused_pipelined, device, dim, k).empty()) {
    return BowMethod::fused_pipelined;
  }
  return BowMethod::fused;
}

void check_array(const DeviceArray& a, Depth depth, std::int64_t size, const char* arg) {
  if (a.empty()) throw Error(ErrorCode::invalid_argument, kOp, arg, "is empty");
  if (a.format() != Format{depth, 1}) {
    throw Error(ErrorCode::unsupported_type, kOp, arg,
                "must be " + std::string(to_string(depth)) + " with one channel, not " + std::string(to_string(a.depth())) +
                    " x" + std::to_string(a.channels()));
  }
  if (size >= 0 && a.size() != size) {
    throw Error(ErrorCode::invalid_argument, kOp, arg,
                "holds " + std::to_string(a.size()) + " elements but must hold " + std::to_string(size));
  }
}

void prepare(Queue& queue, DeviceArray& a, Depth depth, std::int64_t size, const char* arg) {
  if (a.empty()) {
    a = DeviceArray(queue.context(), size, Format{depth, 1});
    return;
  }
  check_array(a, depth, size, arg);
}

}  // namespace

std::span<const BowMethodInfo> bow_methods() noexcept { return kMethods; }

std::string_view to_string(BowMethod method) noexcept { return info(method).name; }

BowMethod parse_bow_method(std::string_view text) {
  std::string names;
  for (const BowMethodInfo& m : kMethods) {
    if (text == m.name) return m.method;
    names += (names.empty() ? "" : ", ") + std::string(m.name);
  }
  throw Error(ErrorCode::invalid_argument, kOp, "method", "unknown method '" + std::string(text) + "' (expected " + names + ")");
}

Event bow_assign(Queue& queue, const DeviceArray& descriptors, const DeviceArray& vocabulary,
                 const DeviceArray& image_starts, int dim, BowOutputs& out, const BowOptions& options) {
  if (dim < 4 || dim > bow_max_dim || dim % 4 != 0) {
    throw Error(ErrorCode::invalid_argument, kOp, "dim",
                std::to_string(dim) + " is not a multiple of 4 from 4 to " + std::to_string(bow_max_dim));
  }
  check_array(descriptors, Depth::f32, -1, "descriptors");
  check_array(vocabulary, Depth::f32, -1, "vocabulary");
  check_array(image_starts, Depth::s32, -1, "image_starts");
  if (descriptors.size() % dim != 0) {
    throw Error(ErrorCode::invalid_argument, kOp, "descriptors",
                "holds " + std::to_string(descriptors.size()) + " values, not a multiple of dim " + std::to_string(dim));
  }
  if (vocabulary.size() % dim != 0) {
    throw Error(ErrorCode::invalid_argument, kOp, "vocabulary",
                "holds " + std::to_string(vocabulary.size()) + " values, not a multiple of dim " + std::to_string(dim));
  }
  const std::int64_t n = descriptors.size() / dim;
  const std::int64_t k = vocabulary.size() / dim;
  const std::int64_t images = image_starts.size() - 1;
  if (images < 1) throw Error(ErrorCode::invalid_argument, kOp, "image_starts", "needs at least 2 offsets (one image)");
  if (images * k > max_array_elements) throw Error(ErrorCode::out_of_range, kOp, "vocabulary", "images * k exceeds 2^31 - 1");
  prepare(queue, out.counts, Depth::s32, images * k, "counts");
  prepare(queue, out.histograms, Depth::f32, images * k, "histograms");
  if (out.labels != nullptr) prepare(queue, *out.labels, Depth::s32, n, "labels");

  const DeviceInfo& device = queue.context().device();
  BowMethod method = options.method;
  if (method == BowMethod::automatic) method = automatic_method(device, dim, k);
  if (const std::string why = refusal(method, device, dim, k); !why.empty()) {
    throw Error(ErrorCode::invalid_argument, kOp, "method", std::string(to_string(method)) + " " + why);
  }
  const BowPolicy p = bow_policy(dim);
  detail::BuildOptions build;
  build.define("DIM", dim).define("GROUP", static_cast<long long>(p.group));
  // Both fused kernels are in one program (the same options): fused_pipelined reuses fused's shapes.
  const bool fused = method == BowMethod::fused || method == BowMethod::fused_pipelined;
  if (fused) build.define("ROW_THREADS", p.row_threads).define("DIM_SLICE", p.dim_slice);
  const auto program = detail::get_program(queue, "bow_assign.cl", build);
  const int ni = static_cast<int>(n), ki = static_cast<int>(k), imgs = static_cast<int>(images);

  // Counts zeroed and, for fused, the centroid norms.
  const detail::ScratchLease norms = detail::scratch(queue, "bow_assign.norms", static_cast<std::size_t>(k) * 4);
  detail::Launch prep(queue, program, "bow_prepare");
  prep.arg(ki).arg(static_cast<int>(images * k)).array(vocabulary).buffer(*norms.buffer).arg(0).arg(fused ? 1 : 0).array(out.counts);
  const auto first = prep.run(detail::range(detail::round_up(static_cast<std::size_t>(std::max(k, images * k)), 256)), detail::range(256));

  // The layout the method reads, through a transposed copy where the input has the other one.
  const bool wants_columns = info(method).reads_transposed;
  const detail::Buffer* desc_buffer = descriptors.buffer().get();
  int desc_offset = static_cast<int>(descriptors.offset_elements());
  if (wants_columns != options.transposed_input) {
    const detail::ScratchLease t = detail::scratch(queue, "bow_assign.transposed", descriptors.bytes());
    const int rows = options.transposed_input ? dim : ni, cols = options.transposed_input ? ni : dim;
    detail::Launch transpose(queue, program, "bow_transpose");
    transpose.arg(rows).arg(cols).array(descriptors).buffer(*t.buffer).arg(0);
    transpose.run(detail::range(detail::round_up(static_cast<std::size_t>(cols), 32), detail::round_up(static_cast<std::size_t>(rows), 32) / 4),
                  detail::range(32, 8));
    desc_buffer = t.buffer;
    desc_offset = 0;
  }

  const std::string kernel = "bow_" + std::string(to_string(method));
  detail::Launch assign(queue, program, kernel);
  assign.arg(ni).arg(ki).buffer(*desc_buffer).arg(desc_offset).array(vocabulary);
  if (fused) assign.buffer(*norms.buffer).arg(0);
  assign.array(image_starts).arg(imgs).array(out.counts);
  if (out.labels != nullptr) assign.array(*out.labels).arg(1);
  else assign.array(out.counts).arg(0);
  if (n > 0) {
    if (fused) {
      const std::size_t threads = 16 * static_cast<std::size_t>(p.row_threads);
      const std::size_t groups = (static_cast<std::size_t>(n) + 8 * p.row_threads - 1) / (8 * p.row_threads);
      assign.run(detail::range(groups * threads), detail::range(threads));
    } else {
      assign.run(detail::range(detail::round_up(static_cast<std::size_t>(n), p.group)), detail::range(p.group));
    }
  }

  detail::Launch normalize(queue, program, "bow_normalize");
  normalize.arg(ki).arg(imgs).array(image_starts).array(out.counts).array(out.histograms);
  const auto last = normalize.run(detail::range(detail::round_up(static_cast<std::size_t>(images * k), 256)), detail::range(256));
  return Event(first, last);
}

BowResult bow_assign(Queue& queue, std::span<const float> descriptors, std::span<const std::int32_t> image_starts,
                     std::span<const float> vocabulary, int dim, const BowOptions& options) {
  if (dim < 4 || dim > bow_max_dim || dim % 4 != 0) {
    throw Error(ErrorCode::invalid_argument, kOp, "dim",
                std::to_string(dim) + " is not a multiple of 4 from 4 to " + std::to_string(bow_max_dim));
  }
  if (vocabulary.empty() || vocabulary.size() % static_cast<std::size_t>(dim) != 0) {
    throw Error(ErrorCode::invalid_argument, kOp, "vocabulary", "must hold k >= 1 words of dim " + std::to_string(dim) + " values");
  }
  if (descriptors.size() % static_cast<std::size_t>(dim) != 0) {
    throw Error(ErrorCode::invalid_argument, kOp, "descriptors", "do not hold whole descriptors of dim " + std::to_string(dim));
  }
  const auto n = static_cast<std::int64_t>(descriptors.size() / static_cast<std::size_t>(dim));
  if (image_starts.size() < 2 || image_starts.front() != 0 || image_starts.back() != n ||
      !std::is_sorted(image_starts.begin(), image_starts.end())) {
    throw Error(ErrorCode::invalid_argument, kOp, "image_starts",
                "must rise from 0 to the descriptor count " + std::to_string(n) + " (one offset per image, plus the end)");
  }
  const auto finite = [](float v) { return std::isfinite(v); };
  if (!std::all_of(descriptors.begin(), descriptors.end(), finite)) {
    throw Error(ErrorCode::invalid_argument, kOp, "descriptors", "hold NaN or infinite values");
  }
  if (!std::all_of(vocabulary.begin(), vocabulary.end(), finite)) {
    throw Error(ErrorCode::invalid_argument, kOp, "vocabulary", "holds NaN or infinite values");
  }
  const std::size_t images = image_starts.size() - 1;
  const std::size_t k = vocabulary.size() / static_cast<std::size_t>(dim);
  BowResult result;
  result.histograms.resize(images);
  if (n == 0) return result;  // every image empty: empty histograms, as OpenCV's without keypoints

  const DeviceArray desc = upload_array(queue, descriptors);
  const DeviceArray vocab = upload_array(queue, vocabulary);
  const DeviceArray starts = upload_array(queue, image_starts);
  DeviceArray labels;
  BowOutputs out;
  out.labels = &labels;
  bow_assign(queue, desc, vocab, starts, dim, out, options);
  const std::vector<float> h = download_array<float>(queue, out.histograms);
  result.labels = download_array<std::int32_t>(queue, labels);
  for (std::size_t i = 0; i < images; ++i) {
    if (image_starts[i + 1] == image_starts[i]) continue;
    result.histograms[i].assign(h.begin() + static_cast<std::ptrdiff_t>(i * k), h.begin() + static_cast<std::ptrdiff_t>((i + 1) * k));
  }
  return result;
}

}  // namespace plinth
