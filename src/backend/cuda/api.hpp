#pragma once
// The CUDA driver API and NVRTC, loaded at run time with dlopen: plinth builds and runs without
// CUDA (on OpenCL), and a machine with the NVIDIA driver but no toolkit still gets a clear error
// naming what is missing. Only the types and entry points the backend uses are declared here,
// with the ABI of cuda.h and nvrtc.h (the _v2 entry points where cuda.h maps onto them).

#include <cstddef>
#include <cstdint>
#include <string>

namespace plinth::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8;
constexpr int CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
constexpr int CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH = 11;
constexpr int CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT = 12;
constexpr int CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH = 13;
constexpr int CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14;
constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
constexpr unsigned CU_EVENT_DEFAULT = 0;
constexpr int CU_MEMORYTYPE_HOST = 1;
constexpr int CU_MEMORYTYPE_DEVICE = 2;
constexpr int CU_POINTER_ATTRIBUTE_CONTEXT = 1;

struct CUDA_MEMCPY2D {
  std::size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void* srcHost;
  CUdeviceptr srcDevice;
  void* srcArray;
  std::size_t srcPitch;
  std::size_t dstXInBytes, dstY;
  int dstMemoryType;
  void* dstHost;
  CUdeviceptr dstDevice;
  void* dstArray;
  std::size_t dstPitch;
  std::size_t WidthInBytes, Height;
};

struct Driver {
  int version = 0;  // cuDriverGetVersion: 1000 * major + 10 * minor
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int*);
  CUresult (*cuGetErrorName)(CUresult, const char**);
  CUresult (*cuGetErrorString)(CUresult, const char**);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDeviceTotalMem)(std::size_t*, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxGetCurrent)(CUcontext*);
  CUresult (*cuCtxGetDevice)(CUdevice*);
  CUresult (*cuCtxPushCurrent)(CUcontext);
  CUresult (*cuCtxPopCurrent)(CUcontext*);
  CUresult (*cuMemAlloc)(CUdeviceptr*, std::size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemHostAlloc)(void**, std::size_t, unsigned);
  CUresult (*cuMemFreeHost)(void*);
  CUresult (*cuMemGetAddressRange)(CUdeviceptr*, std::size_t*, CUdeviceptr);
  CUresult (*cuPointerGetAttribute)(void*, int, CUdeviceptr);
  CUresult (*cuMemcpy2DAsync)(const CUDA_MEMCPY2D*, CUstream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, std::size_t, CUstream);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void*, std::size_t, CUstream);
  CUresult (*cuMemcpyDtoHAsync)(void*, CUdeviceptr, std::size_t, CUstream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, std::size_t, CUstream);
  CUresult (*cuMemsetD16Async)(CUdeviceptr, unsigned short, std::size_t, CUstream);
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, std::size_t, CUstream);
  CUresult (*cuStreamCreate)(CUstream*, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamGetCtx)(CUstream, CUcontext*);
  CUresult (*cuEventCreate)(CUevent*, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent);
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuFuncGetAttribute)(int*, int, CUfunction);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void**, void**);
};

using nvrtcResult = int;
using nvrtcProgram = struct _nvrtcProgram*;

struct Nvrtc {
  int major = 0, minor = 0;
  std::string path;
  const char* (*nvrtcGetErrorString)(nvrtcResult);
  nvrtcResult (*nvrtcVersion)(int*, int*);
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                                    const char* const*);
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram*);
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char* const*);
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, std::size_t*);
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char*);
  nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, std::size_t*);
  nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char*);
  nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram, std::size_t*);
  nvrtcResult (*nvrtcGetPTX)(nvrtcProgram, char*);
};

// The loaded driver (cuInit done), or nullptr with `why` saying what is missing.
const Driver* driver(std::string* why = nullptr);
// The loaded NVRTC, or nullptr with `why`. PLINTH_NVRTC names the library file to use.
const Nvrtc* nvrtc(std::string* why = nullptr);
// Like driver()/nvrtc(), but throws Error(device) naming what is missing.
const Driver& require_driver();
const Nvrtc& require_nvrtc();

// Throws plinth::Error for a failed driver call (out_of_memory for allocations, device otherwise).
void check(CUresult status, const char* call);
std::string error_name(CUresult status);

// NVRTC's options for a device of compute capability `arch` (e.g. 90), before an op's own options.
std::string base_options(int arch);

// Compiles CUDA C++ `source` with NVRTC; returns the cubin (or PTX with `ptx`), and the log in
// `log`. Throws Error(kernel_build) with the log when compilation fails.
std::string compile(const Nvrtc& rtc, const std::string& source, const std::string& options, const std::string& label,
                    bool ptx, std::string* log);

}  // namespace plinth::cuda
