#pragma once
// How an op gets a program and launches one of its kernels. An image argument expands to three
// kernel parameters (base pointer, offset and pitch in elements), matching IMAGE_PARAM in
// kernels/common/dialect.h.

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/backend.hpp"
#include "core/context_state.hpp"
#include "core/program_cache.hpp"
#include "plinth/array.hpp"
#include "plinth/image.hpp"

namespace plinth::detail {

std::shared_ptr<Program> get_program(const Queue& queue, std::string_view file, const BuildOptions& options);

inline NDRange range(std::size_t x) { return NDRange{{x, 1, 1}, 1}; }
inline NDRange range(std::size_t x, std::size_t y) { return NDRange{{x, y, 1}, 2}; }
inline NDRange range(std::size_t x, std::size_t y, std::size_t z) { return NDRange{{x, y, z}, 3}; }
// `count` rounded up to a multiple of `group`.
inline std::size_t round_up(std::size_t count, std::size_t group) { return (count + group - 1) / group * group; }

// A launch's arguments: the first kInline in the object itself, so that a launch of most kernels
// allocates nothing (an image counts three), all of them in a vector past that.
class KernelArgs {
 public:
  static constexpr std::size_t kInline = 32;
  static_assert(std::is_trivially_copyable_v<KernelArg> && std::is_trivially_destructible_v<KernelArg>);
  KernelArgs() = default;
  KernelArgs(const KernelArgs&) = delete;
  KernelArgs& operator=(const KernelArgs&) = delete;

  void push_back(const KernelArg& a) {
    if (size_ < kInline) {
      new (inline_data() + size_) KernelArg(a);
    } else {
      if (size_ == kInline) spill_.assign(inline_data(), inline_data() + kInline);
      spill_.push_back(a);
    }
    ++size_;
  }
  std::span<const KernelArg> view() const {
    return {size_ <= kInline ? inline_data() : spill_.data(), size_};
  }

 private:
  KernelArg* inline_data() { return reinterpret_cast<KernelArg*>(storage_); }
  const KernelArg* inline_data() const { return reinterpret_cast<const KernelArg*>(storage_); }

  alignas(KernelArg) std::byte storage_[kInline * sizeof(KernelArg)];  // KernelArg is trivially destructible
  std::size_t size_ = 0;
  std::vector<KernelArg> spill_;
};

class Launch {
 public:
  Launch(const Queue& queue, const std::shared_ptr<Program>& program, std::string_view kernel);

  Launch& image(const DeviceImage& image);
  // Base pointer and offset in elements (ARRAY_PARAM in kernels/common/dialect.h).
  Launch& array(const DeviceArray& array);
  Launch& buffer(const Buffer& buffer);
  Launch& local(std::size_t bytes);
  template <class T>
  Launch& arg(T value) {
    static_assert(std::is_arithmetic_v<T> && sizeof(T) <= 16, "kernel scalars are numbers");
    KernelArg a;
    a.kind = KernelArg::Kind::scalar;
    a.size = sizeof(T);
    std::memcpy(a.bytes.data(), &value, sizeof(T));
    args_.push_back(a);
    return *this;
  }

  // Enqueues the kernel; with the context's debug switch on, waits and checks it too.
  std::shared_ptr<EventImpl> run(const NDRange& global, std::optional<NDRange> local = std::nullopt);
  std::size_t max_work_group_size() const { return kernel_->max_work_group_size(); }

 private:
  QueueState& queue_;
  std::shared_ptr<Kernel> kernel_;
  KernelArgs args_;
};

// Scratch memory kept per queue under `key`, grown to at least `bytes`, for kernels whose
// work-groups talk through global status words (single-pass scans). Each call advances the
// epoch, so that a kernel tells this launch's status words from older ones without clearing
// them, and reserves `tickets` values of the ticket counter kept in the buffer's first word
// (work-groups draw tickets with an atomic increment and subtract ticket_base). Launches on
// one queue run in order, so consecutive leases never overlap on the device.
struct ScratchLease {
  const Buffer* buffer;
  std::uint32_t epoch;        // 1 .. 2^30 - 1
  std::uint32_t ticket_base;  // the counter's value when this launch starts
  bool fresh;                 // newly allocated or recycled: the caller must zero it first
};
ScratchLease scratch(const Queue& queue, std::string_view key, std::size_t bytes, std::uint32_t tickets = 0);

// The device compiler's option that holds a kernel to `registers` registers (NVIDIA's); "" elsewhere.
std::string register_limit_option(const Queue& queue, int registers);

// Plain device memory for an op's own tables and results, and its transfers, in bytes: an op
// reaches the device through these and Launch, never through the backend's queue or device.
std::shared_ptr<Buffer> allocate_buffer(const Queue& queue, std::size_t bytes);
// Host memory that small per-call results are read into (Device::allocate_host: page-locked on
// CUDA, where a read into pageable memory costs about 17 us more).
std::shared_ptr<void> allocate_host(const Queue& queue, std::size_t bytes);
// Sets `bytes` bytes from `offset` to a 1-, 2- or 4-byte pattern.
std::shared_ptr<EventImpl> fill_buffer(const Queue& queue, const Buffer& dst, std::size_t offset, std::size_t bytes,
                                       std::uint32_t pattern, std::size_t pattern_size);
std::shared_ptr<EventImpl> write_buffer(const Queue& queue, const Buffer& dst, const void* src, std::size_t bytes, bool blocking);
std::shared_ptr<EventImpl> read_buffer(const Queue& queue, const Buffer& src, void* dst, std::size_t bytes, bool blocking);
// From byte `offset` of src, for state that keeps its queue's QueueState rather than the Queue.
std::shared_ptr<EventImpl> read_buffer(QueueState& queue, const Buffer& src, std::size_t offset, void* dst, std::size_t bytes,
                                       bool blocking);

}  // namespace plinth::detail
