#include <cstring>
#include <string>

#include "backend/opencl/objects.hpp"
#include "plinth/error.hpp"

namespace plinth::opencl {
namespace {

std::string build_log(const cl::Program& program, const cl::Device& device) {
  cl_int status = CL_SUCCESS;
  std::string log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device, &status);
  if (status != CL_SUCCESS) return "(no build log: " + std::string(status_name(status)) + ")";
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

std::shared_ptr<detail::Kernel> ClProgram::kernel(std::string_view name) {
  std::lock_guard lock(mutex_);
  for (const auto& k : kernels_) {
    if (k->name() == name) return k;
  }
  cl_int status = CL_SUCCESS;
  const std::string kernel_name(name);
  cl::Kernel kernel(program_, kernel_name.c_str(), &status);
  if (status != CL_SUCCESS) {
    throw Error(ErrorCode::internal, "kernel", kernel_name,
                "cannot create the kernel: " + std::string(status_name(status)));
  }
  const std::size_t max_group = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_, &status);
  check(status, "clGetKernelWorkGroupInfo(WORK_GROUP_SIZE)");
  kernels_.push_back(std::make_shared<ClKernel>(std::move(kernel), kernel_name, max_group));
  return kernels_.back();
}

std::vector<std::byte> ClProgram::binary() const {
  cl_int status = CL_SUCCESS;
  std::vector<std::vector<unsigned char>> binaries = program_.getInfo<CL_PROGRAM_BINARIES>(&status);
  if (status != CL_SUCCESS || binaries.size() != 1) return {};
  const auto& b = binaries.front();
  std::vector<std::byte> out(b.size());
  std::memcpy(out.data(), b.data(), b.size());
  return out;
}

std::shared_ptr<detail::Program> ClDevice::build(std::string_view source, std::string_view options,
                                                 std::string_view label) {
  cl_int status = CL_SUCCESS;
  cl::Program program(context_, std::string(source), false, &status);
  check(status, "clCreateProgramWithSource");
  const std::string all_options = base_options_ + std::string(options);
  status = program.build(std::vector<cl::Device>{device_}, all_options.c_str());
  if (status != CL_SUCCESS) {
    throw Error(ErrorCode::kernel_build, "build", std::string(label),
                std::string(status_name(status)) + " with options '" + all_options + "' on " + info_.name +
                    ":\n" + build_log(program, device_));
  }
  return std::make_shared<ClProgram>(std::move(program), device_);
}

std::shared_ptr<detail::Program> ClDevice::load_binary(std::span<const std::byte> binary, std::string_view options) {
  cl::Program::Binaries binaries{std::vector<unsigned char>(reinterpret_cast<const unsigned char*>(binary.data()),
                                                            reinterpret_cast<const unsigned char*>(binary.data()) + binary.size())};
  std::vector<cl_int> binary_status;
  cl_int status = CL_SUCCESS;
  cl::Program program(context_, std::vector<cl::Device>{device_}, binaries, &binary_status, &status);
  if (status != CL_SUCCESS) return nullptr;
  const std::string all_options = base_options_ + std::string(options);
  if (program.build(std::vector<cl::Device>{device_}, all_options.c_str()) != CL_SUCCESS) return nullptr;
  return std::make_shared<ClProgram>(std::move(program), device_);
}

}  // namespace plinth::opencl
