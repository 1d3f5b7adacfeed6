#pragma once
// Devices, contexts, queues and events.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "plinth/types.hpp"

namespace plinth {

namespace detail {
struct ContextState;
struct QueueState;
class EventImpl;
}  // namespace detail

enum class DeviceType { gpu, cpu, accelerator, other };
std::string_view to_string(DeviceType type) noexcept;

struct DeviceInfo {
  std::string backend;          // "cuda" or "opencl"
  int index = 0;                // position among the devices of its backend
  std::string name;             // e.g. "NVIDIA H100 80GB HBM3"
  std::string vendor;
  std::string platform;         // platform name, e.g. "NVIDIA CUDA", "Portable Computing Language"
  std::string platform_version;
  std::string driver_version;
  std::string device_version;   // "OpenCL 3.0 CUDA"
  std::string c_version;        // "OpenCL C 1.2 ..."
  DeviceType type = DeviceType::other;
  unsigned compute_units = 0;
  unsigned clock_mhz = 0;
  std::uint64_t global_memory = 0;       // bytes
  std::uint64_t max_allocation = 0;      // bytes, largest single buffer
  std::uint64_t local_memory = 0;        // bytes per work-group
  std::size_t max_work_group_size = 0;
  bool local_memory_is_global = false;   // CPU devices emulate local memory in global memory
  bool has_fp64 = false;
  bool has_int64_atomics = false;
  int nvidia_arch = 0;                   // NVIDIA GPUs: compute capability major * 10 + minor (90
                                         // for Hopper), on both backends; 0 elsewhere or unknown
};

// Every CUDA device (where the driver and NVRTC load), then every OpenCL device of every
// platform, in a stable order (platform, then device).
std::vector<DeviceInfo> list_devices();

// Picks a device. The selector is a comma-separated list of criteria that must all hold:
//   gpu | cpu | accelerator   device type
//   cuda | opencl             backend
//   cuda:N | opencl:N         device N of that backend
//   N                         OpenCL device N
//   platform:TEXT             platform name contains TEXT (case-insensitive)
//   TEXT                      device or platform name contains TEXT (case-insensitive)
// An empty selector reads the environment variable PLINTH_DEVICE; if that is empty too, the
// first GPU is chosen (a CUDA one where CUDA works), else the first CPU, else the first device.
// No match is an Error(device). A Context on a CUDA device chosen by default that cannot
// start (NVRTC missing, an old driver) falls back to OpenCL and says so on stderr; one asked
// for by name ("cuda", "cuda:0") throws instead.
DeviceInfo select_device(std::string_view selector = {});
// Why backend "cuda" or "opencl" lists no device on this machine; empty if it lists some.
std::string backend_unavailable(std::string_view backend);

class Context {
 public:
  // Opens the device chosen by select_device(selector).
  explicit Context(std::string_view selector = {});
  // Adopts a user's cl_context and cl_device_id (retained; released when the last copy goes).
  static Context from_native(void* cl_context, void* cl_device_id);
  // Adopts a user's CUcontext (for example the primary context a CUDA runtime program uses) on
  // CUDA device `cuda_device`; the caller keeps it alive while plinth uses it.
  static Context from_cuda(void* cu_context, int cuda_device);

  const DeviceInfo& device() const;
  void* native_context() const;  // cl_context, or CUcontext on CUDA
  void* native_device() const;   // cl_device_id, or the CUdevice (an int) on CUDA

  // When on, every operation waits for each of its launches and checks for errors, so that an
  // asynchronous failure is reported by the launch that caused it. Also on when the environment
  // variable PLINTH_DEBUG_SYNC is set to a non-empty value other than 0.
  void set_debug_sync(bool on);
  bool debug_sync() const;

  const std::shared_ptr<detail::ContextState>& state() const noexcept { return state_; }

 private:
  explicit Context(std::shared_ptr<detail::ContextState> state) : state_(std::move(state)) {}
  std::shared_ptr<detail::ContextState> state_;
};

// Where a context's kernel programs came from so far: the on-disk program cache, the CUDA
// backend's cubin store (shipped compiled code, docs/backends.md), or compiled. A store entry that
// was rejected (damaged, or for a newer driver) counts in store_rejected and in compiled.
struct ProgramCounts {
  std::size_t disk_cache = 0, store = 0, compiled = 0, store_rejected = 0;
  std::string last_rejection;  // why the last rejected store entry was rejected
};
ProgramCounts program_counts(const Context& context);

// Builds the kernel programs the ops use (kernels/programs.list: every program the test suite
// and the benchmarks built, recorded per backend) for the context's device into the program
// caches, in memory and on disk, so that later first calls skip compilation. `progress` sees
// each kernel file and its options once it is ready. Returns how many were built.
std::size_t warm_program_cache(const Context& context,
                               const std::function<void(const std::string& file, const std::string& options)>& progress = {});

// The completion and device-side timing of enqueued work. An operation of several launches
// returns an Event spanning its first launch's start to its last launch's end.
class Event {
 public:
  Event() = default;
  Event(std::shared_ptr<detail::EventImpl> first, std::shared_ptr<detail::EventImpl> last);
  explicit Event(std::shared_ptr<detail::EventImpl> only) : Event(only, only) {}

  bool valid() const noexcept { return last_ != nullptr; }
  void wait() const;
  // Device timestamps in nanoseconds (waits for completion first).
  std::uint64_t start_ns() const;
  std::uint64_t end_ns() const;
  double elapsed_us() const;

  const std::shared_ptr<detail::EventImpl>& first() const noexcept { return first_; }
  const std::shared_ptr<detail::EventImpl>& last() const noexcept { return last_; }

 private:
  std::shared_ptr<detail::EventImpl> first_;
  std::shared_ptr<detail::EventImpl> last_;
};

class HostImage;
class DeviceImage;

// An in-order command queue with profiling. Work on one queue runs in submission order.
class Queue {
 public:
  explicit Queue(const Context& context);
  // Adopts a user's cl_command_queue (retained), or on CUDA a user's CUstream / cudaStream_t (not
  // owned). It must belong to context and be in-order; OpenCL timing needs
  // CL_QUEUE_PROFILING_ENABLE.
  static Queue from_native(const Context& context, void* cl_command_queue);

  const Context& context() const;
  void* native() const;  // cl_command_queue, or CUstream on CUDA

  void finish();  // waits for everything enqueued so far
  void flush();   // submits without waiting

  // Device timestamps of each command (Event::start_ns, end_ns, elapsed_us) cost a device event
  // per command, a good part of a small call's host cost: they are made only while timing is on
  // (off for a new queue). Without them an Event still waits (on a marker made when asked) and
  // gives a native handle, but asking its timestamps is an error.
  void set_timing(bool on);
  bool timing() const;

  // Host memory given to the asynchronous transfers must stay valid until their event completes.
  Event upload(const HostImage& src, const DeviceImage& dst);
  Event download(const DeviceImage& src, const HostImage& dst);
  Event copy(const DeviceImage& src, const DeviceImage& dst);
  // Sets every byte of the image's pixels (not its padding) to value; tests use it to poison.
  Event fill_bytes(const DeviceImage& dst, std::uint8_t value);

  // Synchronous conveniences.
  DeviceImage upload(const HostImage& src);
  HostImage download(const DeviceImage& src);

  const std::shared_ptr<detail::QueueState>& state() const noexcept { return state_; }

 private:
  Queue(const Context& context, std::shared_ptr<detail::QueueState> state);
  Context context_;
  std::shared_ptr<detail::QueueState> state_;
};

}  // namespace plinth
