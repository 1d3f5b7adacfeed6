// Dispatch from the backend-neutral entry points of core/backend.hpp to the two backends.
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "plinth/error.hpp"

namespace plinth::opencl {
std::vector<DeviceInfo> list_devices();
std::shared_ptr<detail::Device> open_device(int index);
std::shared_ptr<detail::Device> adopt_device(void* native_context, void* native_device);
}  // namespace plinth::opencl

namespace plinth::cuda {
std::vector<DeviceInfo> list_devices(std::string* why);
std::shared_ptr<detail::Device> open_device(int ordinal);
std::shared_ptr<detail::Device> adopt_device(void* native_context, int ordinal);
}  // namespace plinth::cuda

namespace plinth::detail {

std::vector<DeviceInfo> backend_list_devices() {
  std::vector<DeviceInfo> devices = cuda::list_devices(nullptr);
  for (DeviceInfo& d : opencl::list_devices()) devices.push_back(std::move(d));
  return devices;
}

std::shared_ptr<Device> backend_open_device(const DeviceInfo& info) {
  if (info.backend == "cuda") return cuda::open_device(info.index);
  return opencl::open_device(info.index);
}

std::shared_ptr<Device> backend_adopt_device(void* native_context, void* native_device) {
  return opencl::adopt_device(native_context, native_device);
}

std::shared_ptr<Device> backend_adopt_cuda(void* cu_context, int cuda_device) {
  return cuda::adopt_device(cu_context, cuda_device);
}

std::string backend_unavailable(std::string_view backend) {
  if (backend == "cuda") {
    std::string why;
    if (!cuda::list_devices(&why).empty()) return {};
    return why.empty() ? "the CUDA driver lists no device" : why;
  }
  if (!opencl::list_devices().empty()) return {};
  return "no OpenCL device found: install a GPU driver with OpenCL support or the CPU device (Debian: pocl-opencl-icd)";
}

}  // namespace plinth::detail
