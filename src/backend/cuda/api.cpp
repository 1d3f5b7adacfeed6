#include "backend/cuda/api.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "plinth/error.hpp"

namespace plinth::cuda {
namespace {

template <class F>
bool bind(void* lib, const char* name, F& fn, std::string& missing) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (fn == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(name);
  return fn != nullptr;
}

struct DriverLoad {
  Driver api;
  std::string why;  // empty when loaded
};

DriverLoad load_driver() {
  DriverLoad d;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    d.why = "the CUDA driver (libcuda.so.1) is not installed or not on the library path";
    return d;
  }
  Driver& a = d.api;
  std::string missing;
  bind(lib, "cuInit", a.cuInit, missing);
  bind(lib, "cuDriverGetVersion", a.cuDriverGetVersion, missing);
  bind(lib, "cuGetErrorName", a.cuGetErrorName, missing);
  bind(lib, "cuGetErrorString", a.cuGetErrorString, missing);
  bind(lib, "cuDeviceGetCount", a.cuDeviceGetCount, missing);
  bind(lib, "cuDeviceGet", a.cuDeviceGet, missing);
  bind(lib, "cuDeviceGetName", a.cuDeviceGetName, missing);
  bind(lib, "cuDeviceGetAttribute", a.cuDeviceGetAttribute, missing);
  bind(lib, "cuDeviceTotalMem_v2", a.cuDeviceTotalMem, missing);
  bind(lib, "cuDevicePrimaryCtxRetain", a.cuDevicePrimaryCtxRetain, missing);
  bind(lib, "cuDevicePrimaryCtxRelease_v2", a.cuDevicePrimaryCtxRelease, missing);
  bind(lib, "cuCtxSetCurrent", a.cuCtxSetCurrent, missing);
  bind(lib, "cuCtxGetCurrent", a.cuCtxGetCurrent, missing);
  bind(lib, "cuCtxGetDevice", a.cuCtxGetDevice, missing);
  bind(lib, "cuCtxPushCurrent_v2", a.cuCtxPushCurrent, missing);
  bind(lib, "cuCtxPopCurrent_v2", a.cuCtxPopCurrent, missing);
  bind(lib, "cuMemAlloc_v2", a.cuMemAlloc, missing);
  bind(lib, "cuMemFree_v2", a.cuMemFree, missing);
  bind(lib, "cuMemHostAlloc", a.cuMemHostAlloc, missing);
  bind(lib, "cuMemFreeHost", a.cuMemFreeHost, missing);
  bind(lib, "cuMemGetAddressRange_v2", a.cuMemGetAddressRange, missing);
  bind(lib, "cuPointerGetAttribute", a.cuPointerGetAttribute, missing);
  bind(lib, "cuMemcpy2DAsync_v2", a.cuMemcpy2DAsync, missing);
  bind(lib, "cuMemcpyDtoDAsync_v2", a.cuMemcpyDtoDAsync, missing);
  bind(lib, "cuMemcpyHtoDAsync_v2", a.cuMemcpyHtoDAsync, missing);
  bind(lib, "cuMemcpyDtoHAsync_v2", a.cuMemcpyDtoHAsync, missing);
  bind(lib, "cuMemsetD8Async", a.cuMemsetD8Async, missing);
  bind(lib, "cuMemsetD16Async", a.cuMemsetD16Async, missing);
  bind(lib, "cuMemsetD32Async", a.cuMemsetD32Async, missing);
  bind(lib, "cuStreamCreate", a.cuStreamCreate, missing);
  bind(lib, "cuStreamDestroy_v2", a.cuStreamDestroy, missing);
  bind(lib, "cuStreamSynchronize", a.cuStreamSynchronize, missing);
  bind(lib, "cuStreamGetCtx", a.cuStreamGetCtx, missing);
  bind(lib, "cuEventCreate", a.cuEventCreate, missing);
  bind(lib, "cuEventDestroy_v2", a.cuEventDestroy, missing);
  bind(lib, "cuEventRecord", a.cuEventRecord, missing);
  bind(lib, "cuEventSynchronize", a.cuEventSynchronize, missing);
  bind(lib, "cuEventElapsedTime", a.cuEventElapsedTime, missing);
  bind(lib, "cuModuleLoadData", a.cuModuleLoadData, missing);
  bind(lib, "cuModuleUnload", a.cuModuleUnload, missing);
  bind(lib, "cuModuleGetFunction", a.cuModuleGetFunction, missing);
  bind(lib, "cuFuncGetAttribute", a.cuFuncGetAttribute, missing);
  bind(lib, "cuFuncSetAttribute", a.cuFuncSetAttribute, missing);
  bind(lib, "cuLaunchKernel", a.cuLaunchKernel, missing);
  if (!missing.empty()) {
    d.why = "the CUDA driver is too old: libcuda.so.1 lacks " + missing;
    return d;
  }
  const CUresult init = a.cuInit(0);
  if (init != CUDA_SUCCESS) {
    const char* name = nullptr;
    a.cuGetErrorName(init, &name);
    d.why = std::string("the CUDA driver did not initialise (cuInit: ") + (name ? name : "unknown error") +
            (init == 100 ? "; no CUDA-capable GPU" : init == 35 ? "; the driver is older than the kernel module or too old" : "") +
            ")";
    return d;
  }
  a.cuDriverGetVersion(&a.version);
  return d;
}

struct NvrtcLoad {
  Nvrtc api;
  std::string why;
};

NvrtcLoad load_nvrtc() {
  NvrtcLoad n;
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("PLINTH_NVRTC"); env != nullptr && *env != '\0') {
    candidates.push_back(env);
  } else {
    for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) candidates.push_back(name);
    for (const char* dir : {"/usr/local/cuda/lib64/", "/usr/local/cuda/targets/x86_64-linux/lib/"}) {
      for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) candidates.push_back(std::string(dir) + name);
    }
  }
  void* lib = nullptr;
  for (const std::string& c : candidates) {
    lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) {
      n.api.path = c;
      break;
    }
  }
  if (lib == nullptr) {
    n.why = "NVRTC (libnvrtc.so, from the CUDA toolkit or the nvidia-cuda-nvrtc package) was not found; "
            "set PLINTH_NVRTC to its path";
    return n;
  }
  Nvrtc& a = n.api;
  std::string missing;
  bind(lib, "nvrtcGetErrorString", a.nvrtcGetErrorString, missing);
  bind(lib, "nvrtcVersion", a.nvrtcVersion, missing);
  bind(lib, "nvrtcCreateProgram", a.nvrtcCreateProgram, missing);
  bind(lib, "nvrtcDestroyProgram", a.nvrtcDestroyProgram, missing);
  bind(lib, "nvrtcCompileProgram", a.nvrtcCompileProgram, missing);
  bind(lib, "nvrtcGetProgramLogSize", a.nvrtcGetProgramLogSize, missing);
  bind(lib, "nvrtcGetProgramLog", a.nvrtcGetProgramLog, missing);
  bind(lib, "nvrtcGetCUBINSize", a.nvrtcGetCUBINSize, missing);
  bind(lib, "nvrtcGetCUBIN", a.nvrtcGetCUBIN, missing);
  bind(lib, "nvrtcGetPTXSize", a.nvrtcGetPTXSize, missing);
  bind(lib, "nvrtcGetPTX", a.nvrtcGetPTX, missing);
  if (!missing.empty()) {
    n.why = "NVRTC at " + a.path + " is too old (it lacks " + missing + "; plinth needs CUDA 11.1 or later)";
    return n;
  }
  a.nvrtcVersion(&a.major, &a.minor);
  return n;
}

}  // namespace

const Driver* driver(std::string* why) {
  static const DriverLoad loaded = load_driver();
  if (!loaded.why.empty()) {
    if (why) *why = loaded.why;
    return nullptr;
  }
  return &loaded.api;
}

const Nvrtc* nvrtc(std::string* why) {
  static const NvrtcLoad loaded = load_nvrtc();
  if (!loaded.why.empty()) {
    if (why) *why = loaded.why;
    return nullptr;
  }
  return &loaded.api;
}

const Driver& require_driver() {
  std::string why;
  const Driver* d = driver(&why);
  if (d == nullptr) throw Error(ErrorCode::device, "CUDA", "", why);
  return *d;
}

const Nvrtc& require_nvrtc() {
  std::string why;
  const Nvrtc* n = nvrtc(&why);
  if (n == nullptr) throw Error(ErrorCode::device, "CUDA", "", why);
  return *n;
}

std::string error_name(CUresult status) {
  const Driver* d = driver();
  const char* name = nullptr;
  if (d != nullptr) d->cuGetErrorName(status, &name);
  return name ? name : "CUDA error " + std::to_string(status);
}

void check(CUresult status, const char* call) {
  if (status == CUDA_SUCCESS) return;
  const bool memory = status == 2;  // CUDA_ERROR_OUT_OF_MEMORY
  throw Error(memory ? ErrorCode::out_of_memory : ErrorCode::device, "CUDA", call,
              "failed with " + error_name(status) +
                  (status == 700 || status == 719 ? " (a kernel failed on the device; the context is lost)" : ""));
}

std::string base_options(int arch) {
  // -default-device: functions without qualifiers are device functions, as in OpenCL C.
  // -fmad=false: no contraction of a*b+c (the kernels' FP_CONTRACT OFF); division and square
  // roots correctly rounded; denormals kept.
  return "-arch=sm_" + std::to_string(arch) +
         " -std=c++17 -default-device -fmad=false -prec-div=true -prec-sqrt=true -ftz=false"
         " -DPLINTH_NVIDIA -DPLINTH_CUDA";
}

std::string compile(const Nvrtc& rtc, const std::string& source, const std::string& options, const std::string& label,
                    bool ptx, std::string* log_out) {
  nvrtcProgram program = nullptr;
  const std::string name = label.empty() ? std::string("kernel.cu") : label;
  nvrtcResult status = rtc.nvrtcCreateProgram(&program, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  if (status != 0) {
    throw Error(ErrorCode::device, "NVRTC", "nvrtcCreateProgram", rtc.nvrtcGetErrorString(status));
  }
  std::vector<std::string> words;
  std::size_t at = 0;
  while (at < options.size()) {
    const std::size_t start = options.find_first_not_of(' ', at);
    if (start == std::string::npos) break;
    const std::size_t end = options.find(' ', start);
    words.push_back(options.substr(start, end == std::string::npos ? std::string::npos : end - start));
    at = end == std::string::npos ? options.size() : end;
  }
  std::vector<const char*> argv;
  for (const std::string& w : words) argv.push_back(w.c_str());
  status = rtc.nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());
  std::size_t log_size = 0;
  rtc.nvrtcGetProgramLogSize(program, &log_size);
  std::string log(log_size, '\0');
  if (log_size > 0) rtc.nvrtcGetProgramLog(program, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (log_out) *log_out = log;
  if (status != 0) {
    rtc.nvrtcDestroyProgram(&program);
    throw Error(ErrorCode::kernel_build, "build", label,
                std::string(rtc.nvrtcGetErrorString(status)) + " with NVRTC " + std::to_string(rtc.major) + "." +
                    std::to_string(rtc.minor) + " and options '" + options + "':\n" + log);
  }
  std::size_t size = 0;
  std::string binary;
  if (ptx) {
    rtc.nvrtcGetPTXSize(program, &size);
    binary.resize(size);
    rtc.nvrtcGetPTX(program, binary.data());
  } else {
    rtc.nvrtcGetCUBINSize(program, &size);
    binary.resize(size);
    rtc.nvrtcGetCUBIN(program, binary.data());
  }
  rtc.nvrtcDestroyProgram(&program);
  return binary;
}

}  // namespace plinth::cuda
