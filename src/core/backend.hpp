#pragma once
// The backend interface: everything an operation needs from a compute API, with no API types.
// Two implementations: OpenCL (src/backend/opencl) and CUDA (src/backend/cuda, the driver API
// and NVRTC loaded at run time). Ops talk to it only through launch.hpp and program_cache.hpp.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "plinth/core.hpp"

namespace plinth::detail {

class Device;

class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual std::size_t size() const = 0;
  virtual void* native() const = 0;
  virtual const Device* device() const = 0;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual const std::string& name() const = 0;
  // Largest work-group this kernel can be launched with on its device.
  virtual std::size_t max_work_group_size() const = 0;
};

// Where Device::build got a program's code: compiled, or from the CUDA backend's cubin store
// (src/backend/cuda/cubin_store.hpp), or compiled after the store's entry was rejected.
enum class ProgramOrigin { compiled, store, store_rejected };

class Program {
 public:
  virtual ~Program() = default;
  virtual std::shared_ptr<Kernel> kernel(std::string_view name) = 0;
  // The device binary, for the on-disk cache; empty if the backend cannot provide one.
  virtual std::vector<std::byte> binary() const = 0;
  virtual ProgramOrigin origin() const { return ProgramOrigin::compiled; }
  // Why a store entry was rejected (origin store_rejected); empty otherwise.
  virtual std::string origin_note() const { return {}; }
};

class EventImpl {
 public:
  virtual ~EventImpl() = default;
  virtual void wait() = 0;
  virtual std::uint64_t start_ns() = 0;
  virtual std::uint64_t end_ns() = 0;
  virtual void* native() const = 0;
  // Device time from `first`'s start to this event's end (CUDA measures pairs of events).
  virtual double elapsed_ns_since(EventImpl& first) {
    return static_cast<double>(end_ns()) - static_cast<double>(first.start_ns());
  }
};

struct KernelArg {
  enum class Kind { buffer, scalar, local };
  Kind kind = Kind::scalar;
  const Buffer* buffer = nullptr;
  std::size_t size = 0;                 // scalar bytes or local-memory bytes
  std::array<std::byte, 16> bytes{};   // scalar value
};

struct NDRange {
  std::array<std::size_t, 3> size{1, 1, 1};
  int dims = 1;
};

// 2-D or 3-D box of bytes for rectangular transfers: origin {x bytes, y rows, z slices}.
struct BufferRect {
  std::size_t offset = 0;  // byte offset of the region's first pixel
  std::size_t pitch = 0;   // bytes between rows
};

class QueueImpl {
 public:
  virtual ~QueueImpl() = default;
  virtual std::shared_ptr<EventImpl> launch(Kernel& kernel, std::span<const KernelArg> args,
                                            const NDRange& global, const NDRange* local) = 0;
  // Rectangular copies of `rows` rows of `row_bytes` bytes each.
  virtual std::shared_ptr<EventImpl> write_rect(const Buffer& dst, BufferRect dst_rect, const void* src,
                                                std::size_t src_pitch, std::size_t row_bytes,
                                                std::size_t rows, bool blocking) = 0;
  virtual std::shared_ptr<EventImpl> read_rect(const Buffer& src, BufferRect src_rect, void* dst,
                                               std::size_t dst_pitch, std::size_t row_bytes,
                                               std::size_t rows, bool blocking) = 0;
  virtual std::shared_ptr<EventImpl> copy_rect(const Buffer& src, BufferRect src_rect, const Buffer& dst,
                                               BufferRect dst_rect, std::size_t row_bytes,
                                               std::size_t rows) = 0;
  virtual std::shared_ptr<EventImpl> fill(const Buffer& dst, std::size_t offset, std::size_t bytes,
                                          std::uint32_t pattern, std::size_t pattern_size) = 0;
  virtual void finish() = 0;
  virtual void flush() = 0;
  virtual void* native() const = 0;
  // Whether commands get device events with timestamps (Queue::set_timing); without them the
  // backends return pending events that wait on a marker made when asked.
  void set_timing(bool on) { timing_ = on; }
  bool timing() const { return timing_; }

 protected:
  bool timing_ = false;
};

// What a pending event says when asked for timestamps.
[[noreturn]] void throw_no_timestamps();

class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceInfo& info() const = 0;
  virtual std::shared_ptr<Buffer> allocate(std::size_t bytes) = 0;
  // Host memory for results read back on every call and for HostImage::page_locked: page-locked
  // where the backend has it (a transfer with pageable memory goes through the driver's staging
  // buffer on CUDA), else plain; 64-byte aligned. Error(out_of_memory) where there is none.
  virtual std::shared_ptr<void> allocate_host(std::size_t bytes);
  virtual std::shared_ptr<Buffer> wrap_buffer(void* native) = 0;
  // Compiles source; throws Error(kernel_build) with the build log on failure.
  virtual std::shared_ptr<Program> build(std::string_view source, std::string_view options,
                                         std::string_view label) = 0;
  // Loads a binary from the on-disk cache; nullptr if the device rejects it.
  virtual std::shared_ptr<Program> load_binary(std::span<const std::byte> binary, std::string_view options) = 0;
  // The compiler option that holds a kernel to `registers` registers per work-item, where the
  // device's compiler has one (NVIDIA's); "" elsewhere.
  virtual std::string register_limit_option(int registers) const = 0;
  // The options every program is built with before an op's own (language, vendor macro, rounding);
  // part of the program cache's key.
  virtual const std::string& base_build_options() const = 0;
  virtual std::unique_ptr<QueueImpl> create_queue() = 0;
  virtual std::unique_ptr<QueueImpl> wrap_queue(void* native) = 0;
  virtual void* native_context() const = 0;
  virtual void* native_device() const = 0;
};

// Entry points of the backends (src/core/backends.cpp dispatches on DeviceInfo::backend).
// Every device of every backend that works here: CUDA's first, then OpenCL's.
std::vector<DeviceInfo> backend_list_devices();
std::shared_ptr<Device> backend_open_device(const DeviceInfo& info);
std::shared_ptr<Device> backend_adopt_device(void* native_context, void* native_device);  // OpenCL
std::shared_ptr<Device> backend_adopt_cuda(void* cu_context, int cuda_device);
// Why a backend ("cuda", "opencl") lists no device here; empty if it has some.
std::string backend_unavailable(std::string_view backend);

}  // namespace plinth::detail
