#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/context_state.hpp"
#include "plinth/core.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool contains(std::string_view haystack, std::string_view needle) {
  return lower(haystack).find(lower(needle)) != std::string::npos;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

bool matches(const DeviceInfo& device, std::string_view criterion) {
  const std::string c = lower(criterion);
  // Backends: "cuda", "opencl", and "cuda:N" / "opencl:N" (N the index within the backend).
  for (std::string_view backend : {std::string_view("cuda"), std::string_view("opencl")}) {
    if (c == backend) return device.backend == backend;
    if (c.size() > backend.size() && c.compare(0, backend.size(), backend) == 0 && c[backend.size()] == ':') {
      int n = 0;
      const char* first = c.data() + backend.size() + 1;
      auto [end, ec] = std::from_chars(first, c.data() + c.size(), n);
      if (ec == std::errc() && end == c.data() + c.size()) return device.backend == backend && device.index == n;
    }
  }
  if (c == "gpu") return device.type == DeviceType::gpu;
  if (c == "cpu") return device.type == DeviceType::cpu;
  if (c == "accelerator") return device.type == DeviceType::accelerator;
  int index = 0;
  auto [end, ec] = std::from_chars(c.data(), c.data() + c.size(), index);
  // A bare index is an OpenCL device's, as before there were two backends.
  if (ec == std::errc() && end == c.data() + c.size()) return device.backend == "opencl" && device.index == index;
  if (c.rfind("platform:", 0) == 0) return contains(device.platform, c.substr(9));
  return contains(device.name, c) || contains(device.platform, c);
}

std::string describe(const std::vector<DeviceInfo>& devices) {
  std::string text;
  for (const DeviceInfo& d : devices) {
    text += (text.empty() ? "" : "; ") + d.backend + ":" + std::to_string(d.index) + ": " + d.name + " [" + d.platform + "]";
  }
  return text.empty() ? "none" : text;
}

}  // namespace

std::string_view to_string(DeviceType type) noexcept {
  switch (type) {
    case DeviceType::gpu: return "gpu";
    case DeviceType::cpu: return "cpu";
    case DeviceType::accelerator: return "accelerator";
    case DeviceType::other: return "other";
  }
  return "other";
}

std::vector<DeviceInfo> list_devices() { return detail::backend_list_devices(); }
std::string backend_unavailable(std::string_view backend) { return detail::backend_unavailable(backend); }

DeviceInfo select_device(std::string_view selector) {
  std::string chosen(trim(selector));
  std::string source = "selector";
  if (chosen.empty()) {
    if (const char* env = std::getenv("PLINTH_DEVICE"); env != nullptr) {
      chosen = trim(env);
      source = "PLINTH_DEVICE";
    }
  }
  const std::vector<DeviceInfo> devices = list_devices();
  if (devices.empty()) {
    throw Error(ErrorCode::device, "select_device", "",
                "no device found. CUDA: " + detail::backend_unavailable("cuda") +
                    ". OpenCL: " + detail::backend_unavailable("opencl"));
  }
  if (chosen.empty()) {
    // CUDA's GPUs come first in the list: the default prefers CUDA where it works.
    for (DeviceType preferred : {DeviceType::gpu, DeviceType::cpu}) {
      for (const DeviceInfo& d : devices) {
        if (d.type == preferred) return d;
      }
    }
    return devices.front();
  }
  for (const DeviceInfo& d : devices) {
    bool all = true;
    std::string_view rest = chosen;
    while (all && !rest.empty()) {
      std::size_t comma = rest.find(',');
      std::string_view criterion = trim(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      if (!criterion.empty() && !matches(d, criterion)) all = false;
    }
    if (all) return d;
  }
  std::string note;
  if (lower(chosen).find("cuda") != std::string::npos) {
    if (std::string why = detail::backend_unavailable("cuda"); !why.empty()) note = "; CUDA: " + why;
  }
  throw Error(ErrorCode::device, "select_device", source,
              "no device matches '" + chosen + "' (devices: " + describe(devices) + ")" + note);
}

namespace detail {

ContextState::ContextState(std::shared_ptr<Device> d) : device(std::move(d)) {
  const char* env = std::getenv("PLINTH_DEBUG_SYNC");
  debug_sync = env != nullptr && *env != '\0' && std::string_view(env) != "0";
}

const std::shared_ptr<ContextState>& context_state(const Context& context) {
  const auto& state = context.state();
  if (!state) throw Error(ErrorCode::invalid_argument, "", "context", "the context is empty (moved from?)");
  return state;
}

}  // namespace detail

Context::Context(std::string_view selector) {
  const DeviceInfo info = select_device(selector);
  std::shared_ptr<detail::Device> device;
  try {
    device = detail::backend_open_device(info);
  } catch (const Error& e) {
    // A CUDA device chosen by default (not asked for by name) that cannot start, for a reason
    // the error names (NVRTC missing, an old driver): say so and take OpenCL's first GPU.
    std::string asked(trim(selector));
    if (asked.empty()) {
      if (const char* env = std::getenv("PLINTH_DEVICE"); env != nullptr) asked = trim(env);
    }
    if (info.backend != "cuda" || lower(asked).find("cuda") != std::string::npos) throw;
    std::string fallback = asked.empty() ? "opencl" : "opencl," + asked;
    const DeviceInfo other = select_device(fallback);
    std::fprintf(stderr, "plinth: CUDA device %s cannot be used (%s); using OpenCL device %d (%s)\n",
                 info.name.c_str(), e.what(), other.index, other.name.c_str());
    device = detail::backend_open_device(other);
  }
  state_ = std::make_shared<detail::ContextState>(std::move(device));
}

Context Context::from_cuda(void* cu_context, int cuda_device) {
  if (cu_context == nullptr) throw Error(ErrorCode::invalid_argument, "Context::from_cuda", "CUcontext", "is null");
  return Context(std::make_shared<detail::ContextState>(detail::backend_adopt_cuda(cu_context, cuda_device)));
}

Context Context::from_native(void* cl_context, void* cl_device_id) {
  if (cl_context == nullptr || cl_device_id == nullptr) {
    throw Error(ErrorCode::invalid_argument, "Context::from_native", cl_context ? "cl_device_id" : "cl_context",
                "is null");
  }
  return Context(std::make_shared<detail::ContextState>(detail::backend_adopt_device(cl_context, cl_device_id)));
}

const DeviceInfo& Context::device() const { return detail::context_state(*this)->device->info(); }
void* Context::native_context() const { return detail::context_state(*this)->device->native_context(); }
void* Context::native_device() const { return detail::context_state(*this)->device->native_device(); }
void Context::set_debug_sync(bool on) { detail::context_state(*this)->debug_sync = on; }
bool Context::debug_sync() const { return detail::context_state(*this)->debug_sync; }

}  // namespace plinth
