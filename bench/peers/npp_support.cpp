// NPP peer support: checked calls, stream context, pitched images, event timing.
#include "npp_support.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace plinth::bench::npp {
namespace {

constexpr std::size_t kFillerBytes = std::size_t{128} << 20;  // ~50 µs of memset on an H100

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

}  // namespace

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw Error(ErrorCode::device, "npp", what, std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status));
  }
}

void check(NppStatus status, const char* what) {
  if (status != NPP_SUCCESS) {
    throw Error(ErrorCode::device, "npp", what, "returned NppStatus " + std::to_string(static_cast<int>(status)));
  }
}

std::shared_ptr<Runtime> Runtime::get() {
  static std::mutex mutex;
  static std::weak_ptr<Runtime> current;
  const std::lock_guard<std::mutex> lock(mutex);
  std::shared_ptr<Runtime> runtime = current.lock();
  if (!runtime) {
    runtime.reset(new Runtime());
    current = runtime;
  }
  return runtime;
}

Runtime::Runtime() {
  int devices = 0;
  check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  if (devices < 1) throw Error(ErrorCode::device, "npp", "cuda", "no CUDA device");
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp props{};
  check(cudaGetDeviceProperties(&props, device), "cudaGetDeviceProperties");
  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  check(cudaEventCreate(&start_), "cudaEventCreate");
  check(cudaEventCreate(&stop_), "cudaEventCreate");
  check(cudaMalloc(&filler_, kFillerBytes), "cudaMalloc(filler)");
  filler_bytes_ = kFillerBytes;

  // The fields NPP's documentation lists (nppdefs.h); the rest stays zero (no workspace).
  context_.hStream = stream_;
  context_.nCudaDeviceId = device;
  context_.nMultiProcessorCount = props.multiProcessorCount;
  context_.nMaxThreadsPerMultiProcessor = props.maxThreadsPerMultiProcessor;
  context_.nMaxThreadsPerBlock = props.maxThreadsPerBlock;
  context_.nSharedMemPerBlock = props.sharedMemPerBlock;
  check(cudaDeviceGetAttribute(&context_.nCudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMajor, device),
        "cudaDeviceGetAttribute");
  check(cudaDeviceGetAttribute(&context_.nCudaDevAttrComputeCapabilityMinor, cudaDevAttrComputeCapabilityMinor, device),
        "cudaDeviceGetAttribute");
  check(cudaStreamGetFlags(stream_, &context_.nStreamFlags), "cudaStreamGetFlags");

  int runtime_version = 0, driver_version = 0;
  check(cudaRuntimeGetVersion(&runtime_version), "cudaRuntimeGetVersion");
  check(cudaDriverGetVersion(&driver_version), "cudaDriverGetVersion");
  const NppLibraryVersion* v = nppGetLibVersion();
  description_ = "NPP " + (v ? std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->build) : "?") +
                 " (_Ctx API), CUDA runtime " + version_text(runtime_version) + ", driver " + version_text(driver_version) +
                 ", CUDA device " + std::to_string(device) + ": " + props.name +
                 "; timed by CUDA events with the stream kept busy before the start event (no host launch latency)";
}

Runtime::~Runtime() {
  // Errors are ignored here: a destructor has no one to tell, and the runs already reported.
  if (stream_) cudaStreamSynchronize(stream_);
  if (filler_) cudaFree(filler_);
  if (start_) cudaEventDestroy(start_);
  if (stop_) cudaEventDestroy(stop_);
  if (stream_) cudaStreamDestroy(stream_);
}

double Runtime::time_us(const std::function<void()>& work) {
  check(cudaMemsetAsync(filler_, 0x5a, filler_bytes_, stream_), "cudaMemsetAsync(filler)");
  check(cudaEventRecord(start_, stream_), "cudaEventRecord(start)");
  work();
  check(cudaEventRecord(stop_, stream_), "cudaEventRecord(stop)");
  check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
  check(cudaGetLastError(), "after the timed call");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  return static_cast<double>(ms) * 1e3;
}

void Runtime::synchronize() { check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

Image::Image(int width, int height, Format format) : width_(width), height_(height), format_(format) {
  check(cudaMallocPitch(&data_, &pitch_, static_cast<std::size_t>(width) * format.pixel_size(), static_cast<std::size_t>(height)),
        "cudaMallocPitch");
}

Image::~Image() {
  if (data_) cudaFree(data_);
}

Image::Image(Image&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      pitch_(other.pitch_),
      width_(other.width_),
      height_(other.height_),
      format_(other.format_) {}

void Image::upload(const HostImage& src, cudaStream_t stream) {
  if (src.width() != width_ || src.height() != height_ || !(src.format() == format_)) {
    throw Error(ErrorCode::internal, "npp", "upload", "host and device images differ in shape");
  }
  check(cudaMemcpy2DAsync(data_, pitch_, src.data(), src.pitch(), src.row_bytes(), static_cast<std::size_t>(height_),
                          cudaMemcpyHostToDevice, stream),
        "cudaMemcpy2DAsync(upload)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize(upload)");
}

HostImage Image::download(cudaStream_t stream) const {
  HostImage dst(width_, height_, format_);
  check(cudaMemcpy2DAsync(dst.data(), dst.pitch(), data_, pitch_, dst.row_bytes(), static_cast<std::size_t>(height_),
                          cudaMemcpyDeviceToHost, stream),
        "cudaMemcpy2DAsync(download)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize(download)");
  return dst;
}

void Image::fill(unsigned char value, cudaStream_t stream) {
  check(cudaMemset2DAsync(data_, pitch_, value, static_cast<std::size_t>(width_) * format_.pixel_size(),
                          static_cast<std::size_t>(height_), stream),
        "cudaMemset2DAsync");
}

Buffer::Buffer(std::size_t bytes) { check(cudaMalloc(&data_, std::max<std::size_t>(bytes, 1)), "cudaMalloc"); }

Buffer::~Buffer() {
  if (data_) cudaFree(data_);
}

std::vector<Image> random_sets(Runtime& runtime, Size size, Format format, int count, std::uint64_t seed) {
  std::vector<Image> images;
  images.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    images.emplace_back(size.width, size.height, format);
    images.back().upload(random_image(size, format, seed * 1000003ULL + static_cast<std::uint64_t>(i)), runtime.stream());
  }
  return images;
}

std::vector<Image> output_sets(Runtime& runtime, Size size, Format format, int count) {
  std::vector<Image> images;
  images.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    images.emplace_back(size.width, size.height, format);
    images.back().fill(0xa5, runtime.stream());  // first touch now, not in a timed run
  }
  runtime.synchronize();
  return images;
}

std::vector<int> sample_rows(int height, int margin) {
  std::vector<int> rows;
  for (int y = 0; y < std::min(height, margin + 2); ++y) rows.push_back(y);
  for (int y = std::max(0, height - margin - 2); y < height; ++y) rows.push_back(y);
  constexpr int kSpread = 24;
  for (int i = 1; i < kSpread; ++i) rows.push_back(static_cast<int>(static_cast<long long>(height) * i / kSpread));
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

Case make_case(const std::string& op, const std::string& config, Size size, const Runtime& runtime) {
  Case c;
  c.op = op;
  c.variant = "npp";
  c.config = config;
  c.size = size;
  c.note = runtime.description();
  return c;
}

Case failed_case(const std::string& op, const std::string& config, Size size, const std::string& error) {
  Case c;
  c.op = op;
  c.variant = "npp";
  c.config = config;
  c.size = size;
  c.run_peer = [error](int) -> double { throw std::runtime_error(error); };
  return c;
}

Case guarded(const std::string& op, const std::string& config, Size size, const std::function<Case()>& make) {
  try {
    return make();
  } catch (const std::exception& e) {
    return failed_case(op, config, size, e.what());
  }
}

void record_check(Case& c, const std::string& mismatch) {
  if (mismatch.empty()) {
    c.note += "; output checked against a CPU reference";
    return;
  }
  c.note += "; OUTPUT CHECK FAILED (" + mismatch + "), timed anyway";
}

}  // namespace plinth::bench::npp
