// The floor under `plinth calls` on the CUDA backend: back-to-back cuLaunchKernel of an empty
// kernel with the parameters of plinth's 1x1 conversion (12: six scalars, two images of three), on one stream, finished once, timed by the host clock as `plinth calls` times. What a
// plinth call costs above this is plinth's own host work. Built and run on the GPU machine:
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include scripts/device/launch_floor.cpp -lcuda -o launch_floor
//   ./launch_floor [calls]
#include <cuda.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry empty(.param .u32 a, .param .u32 b, .param .u32 c, .param .u32 d, .param .u32 e, .param .u32 f,
                      .param .u64 src,
                      .param .u32 src_offset, .param .u32 src_pitch, .param .u64 dst, .param .u32 dst_offset,
                      .param .u32 dst_pitch)
{
  ret;
}
)";

void check(CUresult status, const char* what) {
  if (status != CUDA_SUCCESS) {
    const char* name = nullptr;
    cuGetErrorName(status, &name);
    std::fprintf(stderr, "launch_floor: %s failed: %s\n", what, name != nullptr ? name : "?");
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 1000;
  check(cuInit(0), "cuInit");
  CUdevice device = 0;
  check(cuDeviceGet(&device, 0), "cuDeviceGet");
  CUcontext context = nullptr;
  check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
  CUmodule module = nullptr;
  check(cuModuleLoadData(&module, kPtx), "cuModuleLoadData");
  CUfunction function = nullptr;
  check(cuModuleGetFunction(&function, module, "empty"), "cuModuleGetFunction");
  CUstream stream = nullptr;
  check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  CUdeviceptr buffer = 0;
  check(cuMemAlloc(&buffer, 256), "cuMemAlloc");
  unsigned scalars[10] = {0, 1, 1, 1, 0, 0, 0, 1, 0, 1};
  void* args[12] = {&scalars[0], &scalars[1], &scalars[2], &scalars[3], &scalars[4], &scalars[5],
                    &buffer,     &scalars[6], &scalars[7], &buffer,     &scalars[8], &scalars[9]};
  const auto run = [&](int n) {
    for (int i = 0; i < n; ++i) check(cuLaunchKernel(function, 1, 1, 1, 256, 1, 1, 0, stream, args, nullptr), "cuLaunchKernel");
    check(cuStreamSynchronize(stream), "cuStreamSynchronize");
  };
  run(20);
  for (int round = 0; round < 5; ++round) {
    const auto start = std::chrono::steady_clock::now();
    run(calls);
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    std::printf("launch_floor: %d back-to-back cuLaunchKernel of an empty 12-parameter kernel: %.2f us/call\n", calls,
                us / calls);
  }
  return 0;
}
