#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>

#include "backend/cuda/objects.hpp"
#include "plinth/error.hpp"

namespace plinth::cuda {

CuProgram::~CuProgram() {
  make_current(device_->api(), device_->context());
  device_->api().cuModuleUnload(module_);
}

namespace {

// A kernel whose cluster shape is fixed at compile time (CLUSTER_DIMS in kernels/common/dialect.h)
// with more than 8 work-groups, CUDA's portable limit, launches only once it is allowed to.
// Kernels without clusters report 0 (older drivers: an error, taken as none).
void allow_large_clusters(const Driver& api, CUfunction function, const std::string& name) {
  int groups = 1;
  for (int attribute : {CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT,
                        CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH}) {
    int n = 0;
    if (api.cuFuncGetAttribute(&n, attribute, function) != CUDA_SUCCESS) return;
    groups *= std::max(n, 1);
  }
  if (groups <= 8) return;
  const CUresult status = api.cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
  if (status != CUDA_SUCCESS) {
    throw Error(ErrorCode::device, "kernel", name,
                "the device does not allow clusters of " + std::to_string(groups) + " work-groups (" +
                    error_name(status) + ")");
  }
}

}  // namespace

std::shared_ptr<detail::Kernel> CuProgram::kernel(std::string_view name) {
  std::lock_guard lock(mutex_);
  for (const auto& k : kernels_) {
    if (k->name() == name) return k;
  }
  const Driver& api = device_->api();
  make_current(api, device_->context());
  const std::string kernel_name(name);
  CUfunction function = nullptr;
  const CUresult status = api.cuModuleGetFunction(&function, module_, kernel_name.c_str());
  if (status != CUDA_SUCCESS) {
    throw Error(ErrorCode::internal, "kernel", kernel_name, "cannot find the kernel: " + error_name(status));
  }
  int max_threads = 0, shared = 0;
  check(api.cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function), "cuFuncGetAttribute");
  check(api.cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function), "cuFuncGetAttribute");
  allow_large_clusters(api, function, kernel_name);
  kernels_.push_back(std::make_shared<CuKernel>(function, kernel_name, static_cast<std::size_t>(max_threads), shared));
  return kernels_.back();
}

std::vector<std::byte> CuProgram::binary() const {
  std::vector<std::byte> out(cubin_.size());
  std::memcpy(out.data(), cubin_.data(), cubin_.size());
  return out;
}

const CubinStore& CuDevice::store() {
  std::call_once(store_once_, [this] {
    const std::filesystem::path root = locate_cubin_store();
    if (!root.empty()) store_ = CubinStore::open(root, arch_);
  });
  return store_;
}

// The program caches have missed: the cubin store next, then NVRTC. A store entry that the
// driver refuses, or that fails its checks, is compiled instead and the program says why.
std::shared_ptr<detail::Program> CuDevice::build(std::string_view source, std::string_view options,
                                                 std::string_view label) {
  const std::string all_options = base_options_ + std::string(options);
  const CubinStore::Lookup stored = store().find(source, all_options, api_.version);
  std::string rejected = stored.why;
  if (!stored.cubin.empty()) {
    make_current(api_, context_);
    CUmodule module = nullptr;
    const CUresult status = api_.cuModuleLoadData(&module, stored.cubin.data());
    if (status == CUDA_SUCCESS) {
      return std::make_shared<CuProgram>(module, stored.cubin, this, detail::ProgramOrigin::store);
    }
    rejected = "the driver refused the stored cubin (" + error_name(status) + ")";
  }
  const Nvrtc& rtc = require_nvrtc();
  std::string cubin = compile(rtc, std::string(source), all_options, std::string(label), false, nullptr);
  make_current(api_, context_);
  CUmodule module = nullptr;
  const CUresult status = api_.cuModuleLoadData(&module, cubin.data());
  if (status != CUDA_SUCCESS) {
    throw Error(ErrorCode::device, "build", std::string(label),
                "the driver rejected NVRTC's code for sm_" + std::to_string(arch_) + " (" + error_name(status) + ")");
  }
  if (stored.had_entry) {
    return std::make_shared<CuProgram>(module, std::move(cubin), this, detail::ProgramOrigin::store_rejected,
                                       std::move(rejected));
  }
  return std::make_shared<CuProgram>(module, std::move(cubin), this);
}

std::shared_ptr<detail::Program> CuDevice::load_binary(std::span<const std::byte> binary, std::string_view) {
  std::string cubin(reinterpret_cast<const char*>(binary.data()), binary.size());
  make_current(api_, context_);
  CUmodule module = nullptr;
  if (api_.cuModuleLoadData(&module, cubin.data()) != CUDA_SUCCESS) return nullptr;
  return std::make_shared<CuProgram>(module, std::move(cubin), this);
}

}  // namespace plinth::cuda
