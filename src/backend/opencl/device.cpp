#include <string>
#include <vector>

#include "backend/opencl/objects.hpp"
#include "plinth/error.hpp"

namespace plinth::opencl {
namespace {

template <cl_int Name, class Object>
auto info_of(const Object& object, std::string_view what) {
  cl_int status = CL_SUCCESS;
  auto value = object.template getInfo<Name>(&status);
  check(status, what);
  return value;
}

// Strings from drivers may carry trailing NULs or spaces.
std::string clean(std::string text) {
  while (!text.empty() && (text.back() == '\0' || text.back() == ' ')) text.pop_back();
  return text;
}

std::vector<std::pair<cl::Platform, cl::Device>> all_devices() {
  register_unlisted_drivers();
  std::vector<cl::Platform> platforms;
  cl_int status = cl::Platform::get(&platforms);
  if (status == CL_PLATFORM_NOT_FOUND_KHR) return {};
  check(status, "clGetPlatformIDs");
  std::vector<std::pair<cl::Platform, cl::Device>> devices;
  for (const cl::Platform& platform : platforms) {
    std::vector<cl::Device> list;
    status = platform.getDevices(CL_DEVICE_TYPE_ALL, &list);
    if (status == CL_DEVICE_NOT_FOUND) continue;
    check(status, "clGetDeviceIDs");
    for (cl::Device& d : list) devices.emplace_back(platform, std::move(d));
  }
  return devices;
}

}  // namespace

DeviceInfo describe_device(const cl::Platform& platform, const cl::Device& device, int index) {
  DeviceInfo info;
  info.backend = "opencl";
  info.index = index;
  info.name = clean(info_of<CL_DEVICE_NAME>(device, "clGetDeviceInfo(NAME)"));
  info.vendor = clean(info_of<CL_DEVICE_VENDOR>(device, "clGetDeviceInfo(VENDOR)"));
  info.platform = clean(info_of<CL_PLATFORM_NAME>(platform, "clGetPlatformInfo(NAME)"));
  info.platform_version = clean(info_of<CL_PLATFORM_VERSION>(platform, "clGetPlatformInfo(VERSION)"));
  info.driver_version = clean(info_of<CL_DRIVER_VERSION>(device, "clGetDeviceInfo(DRIVER_VERSION)"));
  info.device_version = clean(info_of<CL_DEVICE_VERSION>(device, "clGetDeviceInfo(VERSION)"));
  info.c_version = clean(info_of<CL_DEVICE_OPENCL_C_VERSION>(device, "clGetDeviceInfo(OPENCL_C_VERSION)"));
  const cl_device_type type = info_of<CL_DEVICE_TYPE>(device, "clGetDeviceInfo(TYPE)");
  info.type = (type & CL_DEVICE_TYPE_GPU)           ? DeviceType::gpu
              : (type & CL_DEVICE_TYPE_CPU)         ? DeviceType::cpu
              : (type & CL_DEVICE_TYPE_ACCELERATOR) ? DeviceType::accelerator
                                                    : DeviceType::other;
  info.compute_units = info_of<CL_DEVICE_MAX_COMPUTE_UNITS>(device, "clGetDeviceInfo(MAX_COMPUTE_UNITS)");
  info.clock_mhz = info_of<CL_DEVICE_MAX_CLOCK_FREQUENCY>(device, "clGetDeviceInfo(MAX_CLOCK_FREQUENCY)");
  info.global_memory = info_of<CL_DEVICE_GLOBAL_MEM_SIZE>(device, "clGetDeviceInfo(GLOBAL_MEM_SIZE)");
  info.max_allocation = info_of<CL_DEVICE_MAX_MEM_ALLOC_SIZE>(device, "clGetDeviceInfo(MAX_MEM_ALLOC_SIZE)");
  info.local_memory = info_of<CL_DEVICE_LOCAL_MEM_SIZE>(device, "clGetDeviceInfo(LOCAL_MEM_SIZE)");
  info.local_memory_is_global = info_of<CL_DEVICE_LOCAL_MEM_TYPE>(device, "clGetDeviceInfo(LOCAL_MEM_TYPE)") != CL_LOCAL;
  info.max_work_group_size = info_of<CL_DEVICE_MAX_WORK_GROUP_SIZE>(device, "clGetDeviceInfo(MAX_WORK_GROUP_SIZE)");
  const std::string extensions = info_of<CL_DEVICE_EXTENSIONS>(device, "clGetDeviceInfo(EXTENSIONS)");
  info.has_fp64 = extensions.find("cl_khr_fp64") != std::string::npos;
  info.has_int64_atomics = extensions.find("cl_khr_int64_base_atomics") != std::string::npos;
  // NVIDIA's compute capability (cl_nv_device_attribute_query): CL_DEVICE_COMPUTE_CAPABILITY_
  // MAJOR_NV and MINOR_NV, 0x4000 and 0x4001. Kernels learn it as PLINTH_NVIDIA_ARCH.
  if (extensions.find("cl_nv_device_attribute_query") != std::string::npos) {
    cl_uint major = 0, minor = 0;
    if (clGetDeviceInfo(device(), 0x4000, sizeof major, &major, nullptr) == CL_SUCCESS &&
        clGetDeviceInfo(device(), 0x4001, sizeof minor, &minor, nullptr) == CL_SUCCESS) {
      info.nvidia_arch = static_cast<int>(major * 10 + minor);
    }
  }
  return info;
}

namespace {
bool is_nvidia(const DeviceInfo& info) { return info.platform.find("NVIDIA") != std::string::npos; }
}  // namespace

std::string base_build_options(const DeviceInfo& info, const cl::Device& device) {
  std::string options = "-cl-std=CL1.2";
  if (is_nvidia(info)) options += " -D PLINTH_NVIDIA";
  if (is_nvidia(info) && info.nvidia_arch > 0) options += " -D PLINTH_NVIDIA_ARCH=" + std::to_string(info.nvidia_arch);
  // OpenCL lets a float a / b or sqrt be off by up to 2.5 / 3 ulp unless asked; OpenCV's CPU
  // results (and CUDA's defaults) are correctly rounded. NVIDIA's compiler also narrows
  // (float)((double)a / b) to a float division, so doubles alone do not avoid it.
  cl_device_fp_config fp = 0;
  if (device.getInfo(CL_DEVICE_SINGLE_FP_CONFIG, &fp) == CL_SUCCESS && (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0) {
    options += " -cl-fp32-correctly-rounded-divide-sqrt";
  }
  return options;
}

std::string ClDevice::register_limit_option(int registers) const {
  return is_nvidia(info_) ? "-cl-nv-maxrregcount=" + std::to_string(registers) : std::string();
}

const detail::Device* ClBuffer::device() const { return device_; }

std::shared_ptr<detail::Buffer> ClDevice::allocate(std::size_t bytes) {
  if (bytes == 0) throw Error(ErrorCode::invalid_argument, "allocate", "bytes", "cannot allocate 0 bytes");
  // Above CL_DEVICE_MAX_MEM_ALLOC_SIZE a buffer is invalid in OpenCL, though NVIDIA's driver
  // hands one out (an H100 allowed 21254377472 bytes against a stated 21254373376).
  if (bytes > info_.max_allocation) {
    throw Error(ErrorCode::out_of_memory, "allocate", "bytes",
                "the device could not allocate " + std::to_string(bytes) + " bytes: its largest buffer is " +
                    std::to_string(info_.max_allocation) + " bytes");
  }
  cl_int status = CL_SUCCESS;
  cl::Buffer buffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, &status);
  if (status != CL_SUCCESS) {
    throw Error(ErrorCode::out_of_memory, "allocate", "bytes",
                "the device could not allocate " + std::to_string(bytes) + " bytes (" +
                    std::string(status_name(status)) + ")");
  }
  return std::make_shared<ClBuffer>(std::move(buffer), bytes, this);
}

std::shared_ptr<detail::Buffer> ClDevice::wrap_buffer(void* native) {
  cl::Buffer buffer(static_cast<cl_mem>(native), true);
  const cl_context owner = info_of<CL_MEM_CONTEXT>(buffer, "clGetMemObjectInfo(CONTEXT)")();
  if (owner != context_()) {
    throw Error(ErrorCode::invalid_argument, "DeviceImage::wrap", "cl_mem", "belongs to another cl_context");
  }
  const std::size_t size = info_of<CL_MEM_SIZE>(buffer, "clGetMemObjectInfo(SIZE)");
  return std::make_shared<ClBuffer>(std::move(buffer), size, this);
}

std::unique_ptr<detail::QueueImpl> ClDevice::create_queue() {
  cl_int status = CL_SUCCESS;
  cl::CommandQueue queue(context_, device_, CL_QUEUE_PROFILING_ENABLE, &status);
  check(status, "clCreateCommandQueue");
  return std::make_unique<ClQueue>(std::move(queue));
}

std::unique_ptr<detail::QueueImpl> ClDevice::wrap_queue(void* native) {
  cl::CommandQueue queue(static_cast<cl_command_queue>(native), true);
  if (info_of<CL_QUEUE_CONTEXT>(queue, "clGetCommandQueueInfo(CONTEXT)")() != context_()) {
    throw Error(ErrorCode::invalid_argument, "Queue::from_native", "cl_command_queue", "belongs to another cl_context");
  }
  const cl_command_queue_properties props = info_of<CL_QUEUE_PROPERTIES>(queue, "clGetCommandQueueInfo(PROPERTIES)");
  if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
    throw Error(ErrorCode::invalid_argument, "Queue::from_native", "cl_command_queue",
                "is out-of-order; plinth needs an in-order queue");
  }
  return std::make_unique<ClQueue>(std::move(queue));
}

std::vector<DeviceInfo> list_devices() {
  std::vector<DeviceInfo> infos;
  int index = 0;
  for (const auto& [platform, device] : all_devices()) infos.push_back(describe_device(platform, device, index++));
  return infos;
}

std::shared_ptr<detail::Device> open_device(int index) {
  auto devices = all_devices();
  if (index < 0 || index >= static_cast<int>(devices.size())) {
    throw Error(ErrorCode::device, "Context", "device", "no OpenCL device has index " + std::to_string(index));
  }
  auto& [platform, device] = devices[static_cast<std::size_t>(index)];
  cl_int status = CL_SUCCESS;
  cl::Context context(device, nullptr, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  return std::make_shared<ClDevice>(std::move(context), device, describe_device(platform, device, index));
}

std::shared_ptr<detail::Device> adopt_device(void* native_context, void* native_device) {
  cl::Context context(static_cast<cl_context>(native_context), true);
  cl::Device device(static_cast<cl_device_id>(native_device), true);
  cl_int status = CL_SUCCESS;
  // Through the C API: the C++ bindings' return type for CL_DEVICE_PLATFORM differs by version.
  cl_platform_id platform_id = nullptr;
  check(::clGetDeviceInfo(device(), CL_DEVICE_PLATFORM, sizeof platform_id, &platform_id, nullptr),
                "clGetDeviceInfo(PLATFORM)");
  cl::Platform platform(platform_id, true);
  std::vector<cl::Device> members = context.getInfo<CL_CONTEXT_DEVICES>(&status);
  check(status, "clGetContextInfo(DEVICES)");
  bool member = false;
  for (const cl::Device& d : members) member = member || d() == device();
  if (!member) throw Error(ErrorCode::invalid_argument, "Context::from_native", "cl_device_id", "is not in the cl_context");
  int index = -1;
  int i = 0;
  for (const auto& [p, d] : all_devices()) {
    if (d() == device()) index = i;
    ++i;
  }
  return std::make_shared<ClDevice>(std::move(context), device, describe_device(platform, device, index));
}

}  // namespace plinth::opencl
