#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>

#include "backend/opencl/cl.hpp"

namespace plinth::opencl {
namespace {

namespace fs = std::filesystem;

constexpr const char* kVendorDir = "/etc/OpenCL/vendors";
constexpr const char* kNvidiaLibrary = "libnvidia-opencl.so.1";

bool vendor_dir_lists(std::string_view needle) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(kVendorDir, ec)) {
    std::ifstream in(entry.path());
    std::ostringstream text;
    text << in.rdbuf();
    std::string content = text.str();
    std::transform(content.begin(), content.end(), content.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (content.find(needle) != std::string::npos) return true;
  }
  return false;
}

bool library_loads(const char* name) {
  void* handle = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) return false;
  dlclose(handle);
  return true;
}

void fixup() {
  const char* skip = std::getenv("PLINTH_NO_ICD_FIXUP");
  if (skip != nullptr && *skip != '\0' && std::string_view(skip) != "0") return;
  if (std::getenv("OCL_ICD_VENDORS") != nullptr) return;  // the user chose the vendors already
  if (vendor_dir_lists("nvidia") || !library_loads(kNvidiaLibrary)) return;

  // A private vendors directory: everything already registered, plus NVIDIA's driver.
  std::error_code ec;
  const fs::path dir = fs::temp_directory_path(ec) / ("plinth-icd-" + std::to_string(getuid()));
  if (ec) return;
  fs::create_directories(dir, ec);
  if (ec) return;
  for (const auto& entry : fs::directory_iterator(kVendorDir, ec)) {
    if (entry.path().extension() == ".icd") {
      fs::copy_file(entry.path(), dir / entry.path().filename(), fs::copy_options::overwrite_existing, ec);
    }
  }
  std::ofstream(dir / "nvidia.icd", std::ios::trunc) << kNvidiaLibrary << '\n';
  setenv("OCL_ICD_VENDORS", dir.c_str(), 0);
}

}  // namespace

void register_unlisted_drivers() {
  static std::once_flag once;
  std::call_once(once, fixup);
}

}  // namespace plinth::opencl
