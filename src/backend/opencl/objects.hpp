#pragma once
// The OpenCL implementations of the backend interface's objects.

#include <array>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backend/opencl/cl.hpp"
#include "core/backend.hpp"

namespace plinth::opencl {

class ClDevice;

// Options every program is built with, before the op's own -D options: the language version, a
// vendor macro for the dialect's vendor-specific paths (PLINTH_NVIDIA) and, where the device
// offers it, correctly rounded single-precision division and square root.
std::string base_build_options(const DeviceInfo& info, const cl::Device& device);

class ClBuffer final : public detail::Buffer {
 public:
  ClBuffer(cl::Buffer buffer, std::size_t size, const ClDevice* device)
      : buffer_(std::move(buffer)), size_(size), device_(device) {}
  std::size_t size() const override { return size_; }
  void* native() const override { return buffer_(); }
  const detail::Device* device() const override;
  const cl::Buffer& get() const { return buffer_; }

 private:
  cl::Buffer buffer_;
  std::size_t size_;
  const ClDevice* device_;
};

class ClKernel final : public detail::Kernel {
 public:
  ClKernel(cl::Kernel kernel, std::string name, std::size_t max_group)
      : kernel_(std::move(kernel)), name_(std::move(name)), max_group_(max_group) {}
  const std::string& name() const override { return name_; }
  std::size_t max_work_group_size() const override { return max_group_; }
  cl::Kernel& get() { return kernel_; }
  // Setting arguments and enqueueing must not interleave between threads.
  std::mutex& mutex() { return mutex_; }
  // Sets argument `index` unless it already holds this value (arguments stay set on the kernel
  // between launches; a call repeated with the same images sets none). Under mutex().
  cl_int set_arg(cl_uint index, const detail::KernelArg& arg);

 private:
  cl::Kernel kernel_;
  std::string name_;
  std::size_t max_group_;
  struct SetArg {
    detail::KernelArg::Kind kind;
    std::size_t size;
    std::array<std::byte, 16> bytes;  // the scalar, or the cl_mem handle
  };
  std::vector<std::optional<SetArg>> set_;
  std::mutex mutex_;
};

class ClProgram final : public detail::Program {
 public:
  ClProgram(cl::Program program, cl::Device device) : program_(std::move(program)), device_(std::move(device)) {}
  std::shared_ptr<detail::Kernel> kernel(std::string_view name) override;
  std::vector<std::byte> binary() const override;

 private:
  cl::Program program_;
  cl::Device device_;
  std::mutex mutex_;
  std::vector<std::shared_ptr<ClKernel>> kernels_;
};

class ClEvent final : public detail::EventImpl {
 public:
  explicit ClEvent(cl::Event event) : event_(std::move(event)) {}
  void wait() override;
  std::uint64_t start_ns() override;
  std::uint64_t end_ns() override;
  void* native() const override { return event_(); }

 private:
  cl::Event event_;
};

// The event of a command enqueued without one (timing off): waiting, or a native handle, puts a
// marker behind everything enqueued so far and uses that.
class ClPendingEvent final : public detail::EventImpl {
 public:
  // The queue is shared with its ClQueue: a reference count, not a clRetainCommandQueue per command.
  explicit ClPendingEvent(std::shared_ptr<const cl::CommandQueue> queue) : queue_(std::move(queue)) {}
  void wait() override { marker().wait(); }
  std::uint64_t start_ns() override { detail::throw_no_timestamps(); }
  std::uint64_t end_ns() override { detail::throw_no_timestamps(); }
  void* native() const override { return const_cast<ClPendingEvent*>(this)->marker().native(); }

 private:
  ClEvent& marker();
  std::shared_ptr<const cl::CommandQueue> queue_;
  std::once_flag once_;
  std::unique_ptr<ClEvent> marker_;
};

class ClQueue final : public detail::QueueImpl {
 public:
  explicit ClQueue(cl::CommandQueue queue)
      : queue_(std::move(queue)), shared_queue_(std::make_shared<const cl::CommandQueue>(queue_)) {}
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
  void flush() override;
  void* native() const override { return queue_(); }

 private:
  // Where a command's event goes: a device event while timing is on, none otherwise.
  cl::Event* event_slot(cl::Event& event) const { return timing_ ? &event : nullptr; }
  std::shared_ptr<detail::EventImpl> result(cl::Event event) const;

  cl::CommandQueue queue_;
  std::shared_ptr<const cl::CommandQueue> shared_queue_;  // the same queue, for pending events
};

class ClDevice final : public detail::Device {
 public:
  ClDevice(cl::Context context, cl::Device device, DeviceInfo info)
      : context_(std::move(context)),
        device_(std::move(device)),
        info_(std::move(info)),
        base_options_(opencl::base_build_options(info_, device_)) {}
  const DeviceInfo& info() const override { return info_; }
  std::shared_ptr<detail::Buffer> allocate(std::size_t bytes) override;
  std::shared_ptr<detail::Buffer> wrap_buffer(void* native) override;
  std::shared_ptr<detail::Program> build(std::string_view source, std::string_view options,
                                         std::string_view label) override;
  std::shared_ptr<detail::Program> load_binary(std::span<const std::byte> binary, std::string_view options) override;
  std::string register_limit_option(int registers) const override;
  const std::string& base_build_options() const override { return base_options_; }
  std::unique_ptr<detail::QueueImpl> create_queue() override;
  std::unique_ptr<detail::QueueImpl> wrap_queue(void* native) override;
  void* native_context() const override { return context_(); }
  void* native_device() const override { return device_(); }

 private:
  cl::Context context_;
  cl::Device device_;
  DeviceInfo info_;
  std::string base_options_;
};

// Reads a device's properties into a DeviceInfo.
DeviceInfo describe_device(const cl::Platform& platform, const cl::Device& device, int index);

}  // namespace plinth::opencl
