#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "backend/cuda/objects.hpp"
#include "plinth/error.hpp"

namespace plinth::cuda {
namespace {

CUdeviceptr device_ptr(const detail::Buffer& buffer) { return static_cast<const CuBuffer&>(buffer).ptr(); }

// The largest divisor of n not above limit: a work-group size that tiles n exactly, since
// kernels launched without one assume no work-item beyond the global size (OpenCL's rule).
std::size_t divisor_at_most(std::size_t n, std::size_t limit) {
  for (std::size_t d = std::min(n, limit); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

// Throws for a failed command: device errors found at synchronisation come from earlier kernels.
void check_sync(CUresult status, const char* call) {
  if (status == CUDA_SUCCESS) return;
  throw Error(ErrorCode::device, "CUDA", "", std::string("a command failed on the device (") + error_name(status) +
                                                 " at " + call + ")");
}

}  // namespace

EventPool::~EventPool() {
  const Driver* api = driver();
  if (api == nullptr) return;
  make_current(*api, context_);
  for (CUevent e : free_) api->cuEventDestroy(e);
}

CUevent EventPool::take() {
  {
    std::lock_guard lock(mutex_);
    if (!free_.empty()) {
      CUevent e = free_.back();
      free_.pop_back();
      return e;
    }
  }
  CUevent e = nullptr;
  check(require_driver().cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
  return e;
}

void EventPool::give(CUevent event) {
  if (event == nullptr) return;  // a command recorded without events
  std::lock_guard lock(mutex_);
  free_.push_back(event);
}

CuEvent::~CuEvent() {
  // Back to the pool without waiting: recording a pending event again is allowed (it takes the
  // new state), and nothing else holds these once this object goes.
  if (start_ != nullptr) pool_->give(start_);
  pool_->give(end_);
}

void CuEvent::wait() {
  const Driver& api = require_driver();
  make_current(api, context_);
  check_sync(api.cuEventSynchronize(end_), "cuEventSynchronize");
}

std::uint64_t CuEvent::start_ns() {
  wait();
  float ms = 0;
  check(require_driver().cuEventElapsedTime(&ms, origin_, start_ ? start_ : end_), "cuEventElapsedTime");
  return static_cast<std::uint64_t>(static_cast<double>(ms) * 1e6);
}

std::uint64_t CuEvent::end_ns() {
  wait();
  float ms = 0;
  check(require_driver().cuEventElapsedTime(&ms, origin_, end_), "cuEventElapsedTime");
  return static_cast<std::uint64_t>(static_cast<double>(ms) * 1e6);
}

double CuEvent::elapsed_ns_since(detail::EventImpl& first) {
  auto* f = dynamic_cast<CuEvent*>(&first);
  if (f == nullptr) return detail::EventImpl::elapsed_ns_since(first);
  wait();
  f->wait();
  float ms = 0;
  check(require_driver().cuEventElapsedTime(&ms, f->start_ ? f->start_ : f->end_, end_), "cuEventElapsedTime");
  return static_cast<double>(ms) * 1e6;
}

CuQueue::CuQueue(CuDevice& device, CUstream stream, bool owned)
    : device_(device), api_(device.api()), stream_(stream), owned_(owned),
      pool_(std::make_shared<EventPool>(device.context())) {
  origin_ = pool_->take();
  check(api_.cuEventRecord(origin_, stream_), "cuEventRecord");
}

CuQueue::~CuQueue() {
  make_current(api_, device_.context());
  api_.cuStreamSynchronize(stream_);
  pool_->give(origin_);
  for (CUevent e : staging_done_) {
    if (e != nullptr) api_.cuEventDestroy(e);
  }
  if (owned_) api_.cuStreamDestroy(stream_);
}

CuPendingEvent::~CuPendingEvent() { pool_->give(marker_); }

CUevent CuPendingEvent::marker() {
  std::call_once(once_, [this] {
    if (alive_.expired()) return;  // the queue and its stream are gone
    const Driver& api = require_driver();
    make_current(api, context_);
    CUevent e = pool_->take();
    const CUresult status = api.cuEventRecord(e, stream_);
    if (status != CUDA_SUCCESS) pool_->give(e);
    check(status, "cuEventRecord");
    marker_ = e;
  });
  return marker_;
}

void CuPendingEvent::wait() {
  CUevent e = marker();
  if (e == nullptr) return;  // the queue is gone: its destructor waited for everything
  const Driver& api = require_driver();
  make_current(api, context_);
  check_sync(api.cuEventSynchronize(e), "cuEventSynchronize");
}

// Without timing a command gets no events: begin gives none and end a pending event.
CUevent CuQueue::begin() {
  make_current(api_, device_.context());
  if (!timing_) return nullptr;
  CUevent start = pool_->take();
  check(api_.cuEventRecord(start, stream_), "cuEventRecord");
  return start;
}

std::shared_ptr<detail::EventImpl> CuQueue::end(CUevent start) {
  if (start == nullptr) return std::make_shared<CuPendingEvent>(pool_, device_.context(), stream_, alive_);
  CUevent stop = pool_->take();
  check(api_.cuEventRecord(stop, stream_), "cuEventRecord");
  return std::make_shared<CuEvent>(pool_, device_.context(), start, stop, origin_);
}

std::shared_ptr<detail::EventImpl> CuQueue::launch(detail::Kernel& kernel, std::span<const detail::KernelArg> args,
                                                   const detail::NDRange& global, const detail::NDRange* local) {
  auto& k = static_cast<CuKernel&>(kernel);
  // Argument values, then a pointer to each: buffers as device pointers, scalars as their bytes,
  // local-memory arguments as offsets into the launch's dynamic shared memory (LOCAL_PARAM).
  constexpr std::size_t kMaxArgs = 256;
  if (args.size() > kMaxArgs) throw Error(ErrorCode::internal, "launch", k.name(), "too many arguments");
  std::array<std::array<std::byte, 16>, kMaxArgs> values;
  std::array<void*, kMaxArgs> pointers;
  unsigned shared = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const detail::KernelArg& a = args[i];
    switch (a.kind) {
      case detail::KernelArg::Kind::buffer: {
        const CUdeviceptr p = device_ptr(*a.buffer);
        std::memcpy(values[i].data(), &p, sizeof p);
        break;
      }
      case detail::KernelArg::Kind::scalar: std::memcpy(values[i].data(), a.bytes.data(), a.size); break;
      case detail::KernelArg::Kind::local: {
        shared = (shared + 15u) & ~15u;
        const unsigned offset = shared;
        std::memcpy(values[i].data(), &offset, sizeof offset);
        shared += static_cast<unsigned>(a.size);
        break;
      }
    }
    pointers[i] = values[i].data();
  }
  std::array<unsigned, 3> block{1, 1, 1}, grid{1, 1, 1};
  if (local != nullptr) {
    for (int d = 0; d < global.dims; ++d) {
      const std::size_t g = global.size[static_cast<std::size_t>(d)], l = local->size[static_cast<std::size_t>(d)];
      if (l == 0 || g % l != 0) {
        throw Error(ErrorCode::internal, "launch", k.name(), "the global size is not a multiple of the work-group size");
      }
      block[static_cast<std::size_t>(d)] = static_cast<unsigned>(l);
      grid[static_cast<std::size_t>(d)] = static_cast<unsigned>(g / l);
    }
  } else {
    std::size_t room = std::min<std::size_t>(k.max_work_group_size(), 256);
    for (int d = 0; d < global.dims; ++d) {
      const std::size_t g = global.size[static_cast<std::size_t>(d)];
      const std::size_t l = divisor_at_most(g, room);
      room /= l;
      block[static_cast<std::size_t>(d)] = static_cast<unsigned>(l);
      grid[static_cast<std::size_t>(d)] = static_cast<unsigned>(g / l);
    }
  }
  if (shared > 48u * 1024u) {
    std::lock_guard lock(k.mutex);
    if (static_cast<int>(shared) > k.dynamic_limit) {
      check(api_.cuFuncSetAttribute(k.function(), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(shared)),
            "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
      k.dynamic_limit = static_cast<int>(shared);
    }
  }
  CUevent start = begin();
  const CUresult status = api_.cuLaunchKernel(k.function(), grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                              shared, stream_, pointers.data(), nullptr);
  if (status != CUDA_SUCCESS) {
    pool_->give(start);
    throw Error(status == 2 ? ErrorCode::out_of_memory : ErrorCode::device, "launch", k.name(),
                "cuLaunchKernel failed with " + error_name(status));
  }
  return end(start);
}

namespace {

// Both sides without gaps between rows: one plain copy, as for device-to-device copies (where a
// one-row 2-D copy ran at half the bandwidth). For small reads into pageable memory the form made
// no difference on the H100 (18-19 us either way): read_rect stages those.
bool contiguous(std::size_t a_pitch, std::size_t b_pitch, std::size_t row_bytes, std::size_t rows) {
  return rows == 1 || (a_pitch == row_bytes && b_pitch == row_bytes);
}

CUDA_MEMCPY2D rect_copy(std::size_t row_bytes, std::size_t rows) {
  CUDA_MEMCPY2D c{};
  c.WidthInBytes = row_bytes;
  c.Height = rows;
  return c;
}

// Transfers with pageable host memory that take the queue's own page-locked staging: two halves of
// kStagingChunk bytes, each with an event that marks the end of its last transfer
// (docs/backends.md, "Transfers with host memory (CUDA)"):
// - reads up to kSmallRead: on the H100 the driver's pageable read of 16 KB took 18-19 us between
//   its events, 6.6-7.6 us through the staging; larger reads stay with the driver, which was
//   faster than the staging's chunks (H200, host clock, 8.3 MB: 682 against 1,196 us);
// - writes from kLargeWrite, in chunks, the host filling one half while the copy engine drains the
//   other (H200, host clock): 8.3 MB 1,698 -> 1,137 us, 33 MB 6,615 -> 4,446 (1 MiB chunks:
//   4,796); at 307 KB the driver was faster (44 against 51 us).
constexpr std::size_t kStagingChunk = 256 * 1024;
constexpr std::size_t kSmallRead = 64 * 1024;
constexpr std::size_t kLargeWrite = 1024 * 1024;

// Whether the driver knows `p` as host memory it can reach directly (page-locked or registered).
bool page_locked(const Driver& api, const void* p) {
  unsigned type = 0;
  constexpr int kMemoryType = 2;  // CU_POINTER_ATTRIBUTE_MEMORY_TYPE
  return api.cuPointerGetAttribute(&type, kMemoryType, reinterpret_cast<CUdeviceptr>(p)) == CUDA_SUCCESS;
}

// Rows packed `from_pitch` apart to rows packed `to_pitch` apart, on the host.
void copy_rows(std::byte* to, std::size_t to_pitch, const std::byte* from, std::size_t from_pitch, std::size_t row_bytes,
               std::size_t rows) {
  if (to_pitch == row_bytes && from_pitch == row_bytes) {
    std::memcpy(to, from, row_bytes * rows);
    return;
  }
  for (std::size_t r = 0; r < rows; ++r) std::memcpy(to + r * to_pitch, from + r * from_pitch, row_bytes);
}

}  // namespace

std::byte* CuQueue::staging(int half) {
  if (!staging_) {
    // The events first: the buffers stand only once both events do, so a failure here leaves
    // the next call to try again.
    for (CUevent& e : staging_done_) {
      constexpr unsigned kDisableTiming = 2;  // CU_EVENT_DISABLE_TIMING
      if (e == nullptr) check(api_.cuEventCreate(&e, kDisableTiming), "cuEventCreate");
    }
    staging_ = device_.allocate_host(2 * kStagingChunk);
  }
  return static_cast<std::byte*>(staging_.get()) + static_cast<std::size_t>(half) * kStagingChunk;
}

// `rows` rows of `row_bytes` between device memory and host memory, each side's rows its pitch apart:
// one plain copy where both sides are contiguous, a 2-D copy otherwise. `host` is the destination
// when `to_host`.
void CuQueue::copy_with_host(bool to_host, CUdeviceptr device, std::size_t device_pitch, const void* host,
                             std::size_t host_pitch, std::size_t row_bytes, std::size_t rows) {
  if (contiguous(device_pitch, host_pitch, row_bytes, rows)) {
    if (to_host) {
      check(api_.cuMemcpyDtoHAsync(const_cast<void*>(host), device, row_bytes * rows, stream_), "cuMemcpyDtoHAsync");
    } else {
      check(api_.cuMemcpyHtoDAsync(device, host, row_bytes * rows, stream_), "cuMemcpyHtoDAsync");
    }
    return;
  }
  CUDA_MEMCPY2D c = rect_copy(row_bytes, rows);
  if (to_host) {
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = device;
    c.srcPitch = device_pitch;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = const_cast<void*>(host);
    c.dstPitch = host_pitch;
  } else {
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = host;
    c.srcPitch = host_pitch;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = device;
    c.dstPitch = device_pitch;
  }
  check(api_.cuMemcpy2DAsync(&c, stream_), "cuMemcpy2DAsync");
}

// A small read (at most kSmallRead bytes) through staging half 0.
std::shared_ptr<detail::EventImpl> CuQueue::read_staged(CUdeviceptr src, std::size_t src_pitch, void* dst,
                                                        std::size_t dst_pitch, std::size_t row_bytes, std::size_t rows) {
  std::lock_guard lock(staging_mutex_);
  std::byte* stage = staging(0);
  CUevent start = begin();
  copy_with_host(true, src, src_pitch, stage, row_bytes, row_bytes, rows);
  check(api_.cuEventRecord(staging_done_[0], stream_), "cuEventRecord");
  auto event = end(start);
  event->wait();
  copy_rows(static_cast<std::byte*>(dst), dst_pitch, stage, row_bytes, row_bytes, rows);
  return event;
}

std::shared_ptr<detail::EventImpl> CuQueue::write_staged(CUdeviceptr dst, std::size_t dst_pitch, const void* src,
                                                         std::size_t src_pitch, std::size_t row_bytes, std::size_t rows,
                                                         bool blocking) {
  std::lock_guard lock(staging_mutex_);
  const std::size_t per_chunk = kStagingChunk / row_bytes;
  const std::size_t chunks = (rows + per_chunk - 1) / per_chunk;
  const auto* from = static_cast<const std::byte*>(src);
  CUevent start = begin();
  for (std::size_t c = 0; c < chunks; ++c) {
    const int half = static_cast<int>(c % 2);
    std::byte* stage = staging(half);
    // The half's previous transfer (of this call or an earlier one) must be done with it.
    check_sync(api_.cuEventSynchronize(staging_done_[static_cast<std::size_t>(half)]), "cuEventSynchronize");
    const std::size_t r0 = c * per_chunk, n = std::min(per_chunk, rows - r0);
    copy_rows(stage, row_bytes, from + r0 * src_pitch, src_pitch, row_bytes, n);
    copy_with_host(false, dst + r0 * dst_pitch, dst_pitch, stage, row_bytes, row_bytes, n);
    check(api_.cuEventRecord(staging_done_[static_cast<std::size_t>(half)], stream_), "cuEventRecord");
  }
  auto event = end(start);
  if (blocking) event->wait();
  return event;
}

std::shared_ptr<detail::EventImpl> CuQueue::write_rect(const detail::Buffer& dst, detail::BufferRect dst_rect,
                                                       const void* src, std::size_t src_pitch, std::size_t row_bytes,
                                                       std::size_t rows, bool blocking) {
  const std::size_t bytes = row_bytes * rows;
  if (bytes >= kLargeWrite && row_bytes <= kStagingChunk && !page_locked(api_, src)) {
    make_current(api_, device_.context());
    return write_staged(device_ptr(dst) + dst_rect.offset, rows == 1 ? row_bytes : dst_rect.pitch, src, src_pitch,
                        row_bytes, rows, blocking);
  }
  CUevent start = begin();
  copy_with_host(false, device_ptr(dst) + dst_rect.offset, dst_rect.pitch, src, src_pitch, row_bytes, rows);
  auto event = end(start);
  if (blocking) event->wait();
  return event;
}

std::shared_ptr<detail::EventImpl> CuQueue::read_rect(const detail::Buffer& src, detail::BufferRect src_rect, void* dst,
                                                      std::size_t dst_pitch, std::size_t row_bytes, std::size_t rows,
                                                      bool blocking) {
  // A read into pageable memory is synchronous whatever `blocking` says (the driver copies
  // through its own staging buffer before it returns). Small ones take the queue's staging instead:
  // the same wait, without the driver's detour.
  const std::size_t bytes = row_bytes * rows;
  if (bytes > 0 && bytes <= kSmallRead && !page_locked(api_, dst)) {
    make_current(api_, device_.context());
    return read_staged(device_ptr(src) + src_rect.offset, rows == 1 ? row_bytes : src_rect.pitch, dst, dst_pitch,
                       row_bytes, rows);
  }
  CUevent start = begin();
  copy_with_host(true, device_ptr(src) + src_rect.offset, src_rect.pitch, dst, dst_pitch, row_bytes, rows);
  auto event = end(start);
  if (blocking) event->wait();
  return event;
}

std::shared_ptr<detail::EventImpl> CuQueue::copy_rect(const detail::Buffer& src, detail::BufferRect src_rect,
                                                      const detail::Buffer& dst, detail::BufferRect dst_rect,
                                                      std::size_t row_bytes, std::size_t rows) {
  CUevent start = begin();
  if ((src_rect.pitch == row_bytes && dst_rect.pitch == row_bytes) || rows == 1) {
    // Contiguous: a plain copy, which runs at the copy bandwidth; a 2-D copy of one long row
    // does not (docs/backends.md).
    check(api_.cuMemcpyDtoDAsync(device_ptr(dst) + dst_rect.offset, device_ptr(src) + src_rect.offset, row_bytes * rows,
                                 stream_),
          "cuMemcpyDtoDAsync");
    return end(start);
  }
  CUDA_MEMCPY2D c = rect_copy(row_bytes, rows);
  c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c.srcDevice = device_ptr(src) + src_rect.offset;
  c.srcPitch = rows == 1 ? row_bytes : src_rect.pitch;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = device_ptr(dst) + dst_rect.offset;
  c.dstPitch = rows == 1 ? row_bytes : dst_rect.pitch;
  check(api_.cuMemcpy2DAsync(&c, stream_), "cuMemcpy2DAsync");
  return end(start);
}

std::shared_ptr<detail::EventImpl> CuQueue::fill(const detail::Buffer& dst, std::size_t offset, std::size_t bytes,
                                                 std::uint32_t pattern, std::size_t pattern_size) {
  CUevent start = begin();
  const CUdeviceptr p = device_ptr(dst) + offset;
  switch (pattern_size) {
    case 1: check(api_.cuMemsetD8Async(p, static_cast<unsigned char>(pattern), bytes, stream_), "cuMemsetD8Async"); break;
    case 2:
      check(api_.cuMemsetD16Async(p, static_cast<unsigned short>(pattern), bytes / 2, stream_), "cuMemsetD16Async");
      break;
    case 4: check(api_.cuMemsetD32Async(p, pattern, bytes / 4, stream_), "cuMemsetD32Async"); break;
    default:
      pool_->give(start);
      throw Error(ErrorCode::internal, "fill", "pattern", "patterns of 1, 2 or 4 bytes only");
  }
  return end(start);
}

void CuQueue::finish() {
  make_current(api_, device_.context());
  check_sync(api_.cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

}  // namespace plinth::cuda
