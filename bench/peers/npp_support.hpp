#pragma once
// What the NPP peers share: checked CUDA / NPP calls, pitched device images, the stream context
// of NPP's _Ctx functions, and the timing of one call by CUDA events.
//
// Timing: before the start event the stream is given a large memset to chew on, so that the start
// event fires only once the host has already queued NPP's launches behind it. The measured span is
// then the device's time for NPP's kernels (and the gaps between them), not the host's launch
// latency, which matches plinth's OpenCL profiling events (first kernel start to last kernel end).

#include <cuda_runtime.h>
#include <npp.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench_support.hpp"

namespace plinth::bench::npp {

// Throw Error(device, "npp", what, ...) unless the call succeeded. Any NPP status other than
// NPP_SUCCESS, warnings included, counts as a failure: a warning can mean nothing was computed.
void check(cudaError_t status, const char* what);
void check(NppStatus status, const char* what);

// Device, stream, events and the stream context; one per process while any case uses it.
class Runtime {
 public:
  static std::shared_ptr<Runtime> get();
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const NppStreamContext& context() const { return context_; }
  cudaStream_t stream() const { return stream_; }
  // "NPP 13.0.1, CUDA runtime 13.0, device 0: NVIDIA H100 80GB HBM3; ..." for the table's notes.
  const std::string& description() const { return description_; }

  // Device time of `work` (which enqueues on stream()) in µs, by events around it.
  double time_us(const std::function<void()>& work);
  void synchronize();

 private:
  Runtime();
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void* filler_ = nullptr;
  std::size_t filler_bytes_ = 0;
  NppStreamContext context_{};
  std::string description_;
};

// A pitched 2-D image in CUDA device memory (cudaMallocPitch), freed on destruction.
class Image {
 public:
  Image(int width, int height, Format format);
  ~Image();
  Image(Image&& other) noexcept;
  Image& operator=(Image&&) = delete;
  Image(const Image&) = delete;

  int width() const { return width_; }
  int height() const { return height_; }
  int step() const { return static_cast<int>(pitch_); }  // bytes per row, as NPP takes it
  template <class T>
  T* at(int x = 0, int y = 0) const {
    return reinterpret_cast<T*>(static_cast<unsigned char*>(data_) + static_cast<std::size_t>(y) * pitch_ +
                                static_cast<std::size_t>(x) * format_.pixel_size());
  }

  void upload(const HostImage& src, cudaStream_t stream);
  HostImage download(cudaStream_t stream) const;  // waits for the stream
  void fill(unsigned char value, cudaStream_t stream);

 private:
  void* data_ = nullptr;
  std::size_t pitch_ = 0;
  int width_ = 0, height_ = 0;
  Format format_{};
};

// Plain device memory (cudaMalloc), freed on destruction.
class Buffer {
 public:
  explicit Buffer(std::size_t bytes);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
};

// Random host images (bench_support's random_image) uploaded as `count` sets.
std::vector<Image> random_sets(Runtime& runtime, Size size, Format format, int count, std::uint64_t seed);
std::vector<Image> output_sets(Runtime& runtime, Size size, Format format, int count);

// Rows at which the filter peers compare NPP's output with a CPU reference: the first and last
// few and evenly spaced ones between (a full reference of large filters would take too long).
std::vector<int> sample_rows(int height, int margin);

// The case fields every NPP case has; the caller sets config, bytes and run_peer.
Case make_case(const std::string& op, const std::string& config, Size size, const Runtime& runtime);

// A case for a config whose setup failed (an NPP status, a CUDA error): each of its runs throws
// the setup's error, so the table shows an error row for this config alone.
Case failed_case(const std::string& op, const std::string& config, Size size, const std::string& error);

// Builds one config's case with `make`; a failure becomes failed_case.
Case guarded(const std::string& op, const std::string& config, Size size, const std::function<Case()>& make);

// Appends the verification result to the case's note: nothing when `mismatch` is empty,
// else a loud "OUTPUT CHECK FAILED" (the case is still timed, so that one device run yields
// both the problem and the number).
void record_check(Case& c, const std::string& mismatch);

}  // namespace plinth::bench::npp
