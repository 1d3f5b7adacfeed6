#include <string>

#include "backend/opencl/cl.hpp"
#include "plinth/error.hpp"

namespace plinth::opencl {

std::string_view status_name(cl_int status) {
  switch (status) {
#define PLINTH_CL_STATUS(name) \
  case name: return #name;
    PLINTH_CL_STATUS(CL_SUCCESS)
    PLINTH_CL_STATUS(CL_DEVICE_NOT_FOUND)
    PLINTH_CL_STATUS(CL_DEVICE_NOT_AVAILABLE)
    PLINTH_CL_STATUS(CL_COMPILER_NOT_AVAILABLE)
    PLINTH_CL_STATUS(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    PLINTH_CL_STATUS(CL_OUT_OF_RESOURCES)
    PLINTH_CL_STATUS(CL_OUT_OF_HOST_MEMORY)
    PLINTH_CL_STATUS(CL_PROFILING_INFO_NOT_AVAILABLE)
    PLINTH_CL_STATUS(CL_MEM_COPY_OVERLAP)
    PLINTH_CL_STATUS(CL_BUILD_PROGRAM_FAILURE)
    PLINTH_CL_STATUS(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    PLINTH_CL_STATUS(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    PLINTH_CL_STATUS(CL_INVALID_VALUE)
    PLINTH_CL_STATUS(CL_INVALID_DEVICE)
    PLINTH_CL_STATUS(CL_INVALID_CONTEXT)
    PLINTH_CL_STATUS(CL_INVALID_COMMAND_QUEUE)
    PLINTH_CL_STATUS(CL_INVALID_MEM_OBJECT)
    PLINTH_CL_STATUS(CL_INVALID_BINARY)
    PLINTH_CL_STATUS(CL_INVALID_BUILD_OPTIONS)
    PLINTH_CL_STATUS(CL_INVALID_PROGRAM)
    PLINTH_CL_STATUS(CL_INVALID_PROGRAM_EXECUTABLE)
    PLINTH_CL_STATUS(CL_INVALID_KERNEL_NAME)
    PLINTH_CL_STATUS(CL_INVALID_KERNEL)
    PLINTH_CL_STATUS(CL_INVALID_ARG_INDEX)
    PLINTH_CL_STATUS(CL_INVALID_ARG_VALUE)
    PLINTH_CL_STATUS(CL_INVALID_ARG_SIZE)
    PLINTH_CL_STATUS(CL_INVALID_KERNEL_ARGS)
    PLINTH_CL_STATUS(CL_INVALID_WORK_DIMENSION)
    PLINTH_CL_STATUS(CL_INVALID_WORK_GROUP_SIZE)
    PLINTH_CL_STATUS(CL_INVALID_WORK_ITEM_SIZE)
    PLINTH_CL_STATUS(CL_INVALID_GLOBAL_OFFSET)
    PLINTH_CL_STATUS(CL_INVALID_EVENT_WAIT_LIST)
    PLINTH_CL_STATUS(CL_INVALID_EVENT)
    PLINTH_CL_STATUS(CL_INVALID_OPERATION)
    PLINTH_CL_STATUS(CL_INVALID_BUFFER_SIZE)
    PLINTH_CL_STATUS(CL_INVALID_GLOBAL_WORK_SIZE)
    PLINTH_CL_STATUS(CL_INVALID_PROPERTY)
    PLINTH_CL_STATUS(CL_PLATFORM_NOT_FOUND_KHR)
#undef PLINTH_CL_STATUS
    default: return "unknown OpenCL status";
  }
}

void check(cl_int status, std::string_view call) {
  if (status == CL_SUCCESS) return;
  const std::string text = std::string(call) + " failed with " + std::string(status_name(status)) + " (" +
                           std::to_string(status) + ")";
  const bool memory = status == CL_MEM_OBJECT_ALLOCATION_FAILURE || status == CL_OUT_OF_HOST_MEMORY;
  throw Error(memory ? ErrorCode::out_of_memory : ErrorCode::device, "OpenCL", "", text);
}

void check_use(cl_int status, std::string_view call, std::size_t bytes) {
  if (status == CL_MEM_OBJECT_ALLOCATION_FAILURE || status == CL_OUT_OF_RESOURCES || status == CL_OUT_OF_HOST_MEMORY) {
    throw Error(ErrorCode::out_of_memory, "OpenCL", std::string(call),
                "the device could not provide memory for a buffer of " + std::to_string(bytes) + " bytes (" +
                    std::string(status_name(status)) + ")");
  }
  check(status, call);
}

}  // namespace plinth::opencl
