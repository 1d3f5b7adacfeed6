#pragma once
// The CUDA implementations of the backend interface's objects (driver API, primary contexts).

#include <array>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/cuda/api.hpp"
#include "backend/cuda/cubin_store.hpp"
#include "core/backend.hpp"

namespace plinth::cuda {

class CuDevice;

// Makes `context` current on the calling thread (a no-op when it already is).
void make_current(const Driver& api, CUcontext context);

class CuBuffer final : public detail::Buffer {
 public:
  CuBuffer(CUdeviceptr ptr, std::size_t size, const CuDevice* device, bool owned)
      : ptr_(ptr), size_(size), device_(device), owned_(owned) {}
  ~CuBuffer() override;
  std::size_t size() const override { return size_; }
  void* native() const override { return reinterpret_cast<void*>(ptr_); }
  const detail::Device* device() const override;
  CUdeviceptr ptr() const { return ptr_; }

 private:
  CUdeviceptr ptr_;
  std::size_t size_;
  const CuDevice* device_;
  bool owned_;
};

class CuKernel final : public detail::Kernel {
 public:
  CuKernel(CUfunction function, std::string name, std::size_t max_group, int static_shared)
      : function_(function), name_(std::move(name)), max_group_(max_group), static_shared_(static_shared) {}
  const std::string& name() const override { return name_; }
  std::size_t max_work_group_size() const override { return max_group_; }
  CUfunction function() const { return function_; }
  int static_shared() const { return static_shared_; }
  // Raises the kernel's dynamic shared memory limit to `bytes` once (above 48 KiB CUDA asks).
  std::mutex mutex;
  int dynamic_limit = 48 * 1024;

 private:
  CUfunction function_;
  std::string name_;
  std::size_t max_group_;
  int static_shared_;
};

class CuProgram final : public detail::Program {
 public:
  CuProgram(CUmodule module, std::string cubin, const CuDevice* device,
            detail::ProgramOrigin origin = detail::ProgramOrigin::compiled, std::string note = {})
      : module_(module), cubin_(std::move(cubin)), device_(device), origin_(origin), note_(std::move(note)) {}
  ~CuProgram() override;
  std::shared_ptr<detail::Kernel> kernel(std::string_view name) override;
  std::vector<std::byte> binary() const override;
  detail::ProgramOrigin origin() const override { return origin_; }
  std::string origin_note() const override { return note_; }

 private:
  CUmodule module_;
  std::string cubin_;
  const CuDevice* device_;
  detail::ProgramOrigin origin_;
  std::string note_;
  std::mutex mutex_;
  std::vector<std::shared_ptr<CuKernel>> kernels_;
};

// Timing events are reused: creating a CUevent costs more than recording one.
class EventPool {
 public:
  explicit EventPool(CUcontext context) : context_(context) {}
  ~EventPool();
  CUevent take();
  void give(CUevent event);

 private:
  CUcontext context_;
  std::mutex mutex_;
  std::vector<CUevent> free_;
};

class CuEvent final : public detail::EventImpl {
 public:
  CuEvent(std::shared_ptr<EventPool> pool, CUcontext context, CUevent start, CUevent end, CUevent origin)
      : pool_(std::move(pool)), context_(context), start_(start), end_(end), origin_(origin) {}
  ~CuEvent() override;
  void wait() override;
  // Nanoseconds since the queue's origin event (recorded when the queue was made), from CUDA's
  // millisecond floats: exact to about 0.5 us for the first seconds of a queue. Differences
  // between events are better taken by elapsed_ns_since.
  std::uint64_t start_ns() override;
  std::uint64_t end_ns() override;
  void* native() const override { return end_; }
  double elapsed_ns_since(detail::EventImpl& first) override;
  CUevent start_event() const { return start_; }

 private:
  std::shared_ptr<EventPool> pool_;
  CUcontext context_;
  CUevent start_;
  CUevent end_;
  CUevent origin_;
};

// The event of a command recorded without events (timing off): waiting, or a native handle,
// records one event behind everything enqueued so far and uses that. Once its queue is gone (its
// destructor waited for the stream) there is nothing left to wait for, and no stream to record
// on: `alive` tells.
class CuPendingEvent final : public detail::EventImpl {
 public:
  CuPendingEvent(std::shared_ptr<EventPool> pool, CUcontext context, CUstream stream, std::weak_ptr<void> alive)
      : pool_(std::move(pool)), context_(context), stream_(stream), alive_(std::move(alive)) {}
  ~CuPendingEvent() override;
  void wait() override;
  std::uint64_t start_ns() override { detail::throw_no_timestamps(); }
  std::uint64_t end_ns() override { detail::throw_no_timestamps(); }
  void* native() const override { return const_cast<CuPendingEvent*>(this)->marker(); }

 private:
  CUevent marker();
  std::shared_ptr<EventPool> pool_;
  CUcontext context_;
  CUstream stream_;
  std::weak_ptr<void> alive_;
  std::once_flag once_;
  CUevent marker_ = nullptr;
};

class CuQueue final : public detail::QueueImpl {
 public:
  CuQueue(CuDevice& device, CUstream stream, bool owned);
  ~CuQueue() override;
  std::shared_ptr<detail::EventImpl> launch(detail::Kernel& kernel, std::span<const detail::KernelArg> args,
                                            const detail::NDRange& global, const detail::NDRange* local) override;
  std::shared_ptr<detail::EventImpl> write_rect(const detail::Buffer& dst, detail::BufferRect dst_rect, const void* src,
                                                std::size_t src_pitch, std::size_t row_bytes, std::size_t rows,
                                                bool blocking) override;
  std::shared_ptr<detail::EventImpl> read_rect(const detail::Buffer& src, detail::BufferRect src_rect, void* dst,
                                               std::size_t dst_pitch, std::size_t row_bytes, std::size_t rows,
                                               bool blocking) override;
  std::shared_ptr<detail::EventImpl> copy_rect(const detail::Buffer& src, detail::BufferRect src_rect,
                                               const detail::Buffer& dst, detail::BufferRect dst_rect,
                                               std::size_t row_bytes, std::size_t rows) override;
  std::shared_ptr<detail::EventImpl> fill(const detail::Buffer& dst, std::size_t offset, std::size_t bytes,
                                          std::uint32_t pattern, std::size_t pattern_size) override;
  void finish() override;
  void flush() override {}
  void* native() const override { return stream_; }

 private:
  CUevent begin();
  std::shared_ptr<detail::EventImpl> end(CUevent start);
  // Transfers with pageable host memory through the page-locked staging buffers (queue.cpp says
  // which ones take them).
  std::shared_ptr<detail::EventImpl> read_staged(CUdeviceptr src, std::size_t src_pitch, void* dst, std::size_t dst_pitch,
                                                 std::size_t row_bytes, std::size_t rows);
  std::shared_ptr<detail::EventImpl> write_staged(CUdeviceptr dst, std::size_t dst_pitch, const void* src,
                                                  std::size_t src_pitch, std::size_t row_bytes, std::size_t rows,
                                                  bool blocking);
  void copy_with_host(bool to_host, CUdeviceptr device, std::size_t device_pitch, const void* host,
                      std::size_t host_pitch, std::size_t row_bytes, std::size_t rows);
  std::byte* staging(int half);  // makes the buffers and their events on first use

  CuDevice& device_;
  const Driver& api_;
  CUstream stream_;
  bool owned_;
  std::shared_ptr<EventPool> pool_;
  CUevent origin_ = nullptr;
  std::shared_ptr<void> alive_ = std::make_shared<char>(0);  // expires with the queue (CuPendingEvent)
  std::mutex staging_mutex_;
  std::shared_ptr<void> staging_;           // page-locked, two halves of a chunk each, made on first use
  std::array<CUevent, 2> staging_done_{};  // per half: the end of the last transfer through it
};

class CuDevice final : public detail::Device {
 public:
  CuDevice(CUdevice device, CUcontext context, bool primary, DeviceInfo info, int arch);
  ~CuDevice() override;
  const DeviceInfo& info() const override { return info_; }
  std::shared_ptr<detail::Buffer> allocate(std::size_t bytes) override;
  std::shared_ptr<void> allocate_host(std::size_t bytes) override;
  std::shared_ptr<detail::Buffer> wrap_buffer(void* native) override;
  std::shared_ptr<detail::Program> build(std::string_view source, std::string_view options,
                                         std::string_view label) override;
  std::shared_ptr<detail::Program> load_binary(std::span<const std::byte> binary, std::string_view options) override;
  std::string register_limit_option(int registers) const override;
  const std::string& base_build_options() const override { return base_options_; }
  std::unique_ptr<detail::QueueImpl> create_queue() override;
  std::unique_ptr<detail::QueueImpl> wrap_queue(void* native) override;
  void* native_context() const override { return context_; }
  void* native_device() const override { return reinterpret_cast<void*>(static_cast<std::intptr_t>(device_)); }

  const Driver& api() const { return api_; }
  CUcontext context() const { return context_; }
  int arch() const { return arch_; }

 private:
  const Driver& api_;
  CUdevice device_;
  CUcontext context_;
  bool primary_;
  DeviceInfo info_;
  int arch_;
  std::string base_options_;
  // The cubin store of this device's architecture, opened at the first build.
  const CubinStore& store();
  std::once_flag store_once_;
  CubinStore store_;
};

// Describes CUDA device `ordinal` (its index among CUDA devices).
DeviceInfo describe_device(const Driver& api, CUdevice device, int ordinal, int* arch);

}  // namespace plinth::cuda
