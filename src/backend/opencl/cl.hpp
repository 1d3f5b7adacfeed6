#pragma once
// The one place that includes the OpenCL headers (Khronos' C++ bindings over the C API).
// plinth targets OpenCL 1.2 so that the same calls work on every driver, NVIDIA's included.

#define CL_TARGET_OPENCL_VERSION 120
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wpedantic"
#include <CL/opencl.hpp>
#pragma GCC diagnostic pop

#include <string_view>

namespace plinth::opencl {

// Throws plinth::Error for a failed call: out_of_memory for allocation failures, device for the rest.
void check(cl_int status, std::string_view call);
std::string_view status_name(cl_int status);
// For a command that uses a buffer of `bytes`: drivers allocate device memory at a buffer's first
// use, so CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES or CL_OUT_OF_HOST_MEMORY here is
// the device refusing that allocation, an Error(out_of_memory) naming the size; else as check().
void check_use(cl_int status, std::string_view call, std::size_t bytes);

// Registers NVIDIA's OpenCL driver with the ICD loader when it is installed but not listed
// (as on machines with the CUDA driver but no /etc/OpenCL/vendors/nvidia.icd). Runs once,
// before the first platform query; PLINTH_NO_ICD_FIXUP=1 or a user-set OCL_ICD_VENDORS skips it.
void register_unlisted_drivers();

}  // namespace plinth::opencl
