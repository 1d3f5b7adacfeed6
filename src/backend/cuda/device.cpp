#include <string>
#include <vector>

#include "backend/cuda/objects.hpp"
#include "plinth/error.hpp"

namespace plinth::cuda {

void make_current(const Driver& api, CUcontext context) {
  // Asked each time (a thread-local read in the driver): the user's own code may switch contexts.
  CUcontext current = nullptr;
  if (api.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == context) return;
  check(api.cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

namespace {

int attribute(const Driver& api, int which, CUdevice device) {
  int value = 0;
  check(api.cuDeviceGetAttribute(&value, which, device), "cuDeviceGetAttribute");
  return value;
}

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

}  // namespace

DeviceInfo describe_device(const Driver& api, CUdevice device, int ordinal, int* arch) {
  DeviceInfo info;
  info.backend = "cuda";
  info.index = ordinal;
  char name[256] = {};
  check(api.cuDeviceGetName(name, sizeof name - 1, device), "cuDeviceGetName");
  info.name = name;
  info.vendor = "NVIDIA Corporation";
  info.platform = "CUDA";
  const int major = attribute(api, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  const int minor = attribute(api, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  *arch = major * 10 + minor;
  info.nvidia_arch = *arch;
  std::string why;
  const Nvrtc* rtc = nvrtc(&why);
  // The program cache keys on these: NVRTC's version, the driver's and the architecture.
  info.platform_version = rtc ? "NVRTC " + std::to_string(rtc->major) + "." + std::to_string(rtc->minor) : "no NVRTC";
  info.driver_version = "CUDA driver " + version_text(api.version) + " (" + std::to_string(api.version) + ")";
  info.device_version = "sm_" + std::to_string(*arch);
  info.c_version = "CUDA C++ through NVRTC (the OpenCL C dialect of kernels/common/dialect.h)";
  info.type = DeviceType::gpu;
  info.compute_units = static_cast<unsigned>(attribute(api, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
  info.clock_mhz = static_cast<unsigned>(attribute(api, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, device) / 1000);
  std::size_t memory = 0;
  check(api.cuDeviceTotalMem(&memory, device), "cuDeviceTotalMem");
  info.global_memory = memory;
  info.max_allocation = memory;
  // What a work-group may declare statically, as NVIDIA's OpenCL reports it (48 KiB): ops then
  // plan the same tiles on both backends.
  info.local_memory = static_cast<std::uint64_t>(attribute(api, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, device));
  info.local_memory_is_global = false;
  info.max_work_group_size = static_cast<std::size_t>(attribute(api, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, device));
  info.has_fp64 = true;
  info.has_int64_atomics = true;
  return info;
}

CuDevice::CuDevice(CUdevice device, CUcontext context, bool primary, DeviceInfo info, int arch)
    : api_(require_driver()), device_(device), context_(context), primary_(primary), info_(std::move(info)), arch_(arch),
      base_options_(base_options(arch)) {}

CuDevice::~CuDevice() {
  if (primary_) api_.cuDevicePrimaryCtxRelease(device_);
}

const detail::Device* CuBuffer::device() const { return device_; }

CuBuffer::~CuBuffer() {
  if (owned_ && ptr_ != 0) {
    make_current(device_->api(), device_->context());
    device_->api().cuMemFree(ptr_);
  }
}

std::shared_ptr<detail::Buffer> CuDevice::allocate(std::size_t bytes) {
  if (bytes == 0) throw Error(ErrorCode::invalid_argument, "allocate", "bytes", "cannot allocate 0 bytes");
  make_current(api_, context_);
  CUdeviceptr ptr = 0;
  const CUresult status = api_.cuMemAlloc(&ptr, bytes);
  if (status != CUDA_SUCCESS) {
    throw Error(ErrorCode::out_of_memory, "allocate", "bytes",
                "the device could not allocate " + std::to_string(bytes) + " bytes (" + error_name(status) + ")");
  }
  return std::make_shared<CuBuffer>(ptr, bytes, this, true);
}

std::shared_ptr<void> CuDevice::allocate_host(std::size_t bytes) {
  if (bytes == 0) throw Error(ErrorCode::invalid_argument, "allocate_host", "bytes", "cannot allocate 0 bytes");
  make_current(api_, context_);
  void* p = nullptr;
  const CUresult status = api_.cuMemHostAlloc(&p, bytes, 0);
  if (status != CUDA_SUCCESS) {
    throw Error(ErrorCode::out_of_memory, "allocate_host", "bytes",
                "could not allocate " + std::to_string(bytes) + " bytes of page-locked host memory (" + error_name(status) + ")");
  }
  const Driver* api = &api_;
  return std::shared_ptr<void>(p, [api](void* q) { api->cuMemFreeHost(q); });
}

std::shared_ptr<detail::Buffer> CuDevice::wrap_buffer(void* native) {
  make_current(api_, context_);
  const CUdeviceptr ptr = reinterpret_cast<CUdeviceptr>(native);
  CUcontext owner = nullptr;
  if (api_.cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, ptr) != CUDA_SUCCESS) {
    throw Error(ErrorCode::invalid_argument, "DeviceImage::wrap", "device pointer", "is not CUDA device memory");
  }
  if (owner != context_) {
    throw Error(ErrorCode::invalid_argument, "DeviceImage::wrap", "device pointer", "belongs to another CUDA context");
  }
  CUdeviceptr base = 0;
  std::size_t size = 0;
  check(api_.cuMemGetAddressRange(&base, &size, ptr), "cuMemGetAddressRange");
  // The buffer runs from the pointer to the end of its allocation; the user keeps ownership.
  return std::make_shared<CuBuffer>(ptr, static_cast<std::size_t>(base + size - ptr), this, false);
}

std::string CuDevice::register_limit_option(int registers) const { return "-maxrregcount=" + std::to_string(registers); }

std::unique_ptr<detail::QueueImpl> CuDevice::create_queue() {
  make_current(api_, context_);
  CUstream stream = nullptr;
  check(api_.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  return std::make_unique<CuQueue>(*this, stream, true);
}

std::unique_ptr<detail::QueueImpl> CuDevice::wrap_queue(void* native) {
  make_current(api_, context_);
  auto stream = static_cast<CUstream>(native);
  CUcontext owner = nullptr;
  check(api_.cuStreamGetCtx(stream, &owner), "cuStreamGetCtx");
  if (owner != context_) {
    throw Error(ErrorCode::invalid_argument, "Queue::from_native", "CUstream", "belongs to another CUDA context");
  }
  return std::make_unique<CuQueue>(*this, stream, false);
}

std::vector<DeviceInfo> list_devices(std::string* why) {
  const Driver* api = driver(why);
  if (api == nullptr) return {};
  int count = 0;
  if (api->cuDeviceGetCount(&count) != CUDA_SUCCESS) return {};
  std::vector<DeviceInfo> infos;
  for (int i = 0; i < count; ++i) {
    CUdevice device = 0;
    check(api->cuDeviceGet(&device, i), "cuDeviceGet");
    int arch = 0;
    infos.push_back(describe_device(*api, device, i, &arch));
  }
  return infos;
}

namespace {

// The lowest driver that runs what this NVRTC compiles: the same major CUDA version.
void check_versions(const Driver& api, const Nvrtc& rtc) {
  if (api.version / 1000 < rtc.major) {
    throw Error(ErrorCode::device, "CUDA", "",
                "the CUDA driver supports CUDA " + version_text(api.version) + ", older than NVRTC " +
                    std::to_string(rtc.major) + "." + std::to_string(rtc.minor) + " at " + rtc.path +
                    ": update the NVIDIA driver, or point PLINTH_NVRTC at an NVRTC of CUDA " +
                    std::to_string(api.version / 1000) + "." + std::to_string(api.version % 1000 / 10) +
                    " or older");
  }
}

}  // namespace

std::shared_ptr<detail::Device> open_device(int ordinal) {
  const Driver& api = require_driver();
  const Nvrtc& rtc = require_nvrtc();
  check_versions(api, rtc);
  int count = 0;
  check(api.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (ordinal < 0 || ordinal >= count) {
    throw Error(ErrorCode::device, "Context", "device", "no CUDA device has index " + std::to_string(ordinal));
  }
  CUdevice device = 0;
  check(api.cuDeviceGet(&device, ordinal), "cuDeviceGet");
  CUcontext context = nullptr;
  check(api.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  int arch = 0;
  DeviceInfo info = describe_device(api, device, ordinal, &arch);
  return std::make_shared<CuDevice>(device, context, true, std::move(info), arch);
}

std::shared_ptr<detail::Device> adopt_device(void* native_context, int ordinal) {
  const Driver& api = require_driver();
  const Nvrtc& rtc = require_nvrtc();
  check_versions(api, rtc);
  auto context = static_cast<CUcontext>(native_context);
  check(api.cuCtxPushCurrent(context), "cuCtxPushCurrent");
  CUdevice device = 0;
  const CUresult status = api.cuCtxGetDevice(&device);
  CUcontext popped = nullptr;
  api.cuCtxPopCurrent(&popped);
  check(status, "cuCtxGetDevice");
  CUdevice expected = 0;
  check(api.cuDeviceGet(&expected, ordinal), "cuDeviceGet");
  if (expected != device) {
    throw Error(ErrorCode::invalid_argument, "Context::from_cuda", "device",
                "the CUcontext belongs to another device than " + std::to_string(ordinal));
  }
  int arch = 0;
  DeviceInfo info = describe_device(api, device, ordinal, &arch);
  return std::make_shared<CuDevice>(device, context, false, std::move(info), arch);
}

}  // namespace plinth::cuda
