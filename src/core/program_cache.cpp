#include "core/program_cache.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string_view>
#include <system_error>

#include "core/kernel_source.hpp"
#include "io/io_detail.hpp"
#include "plinth/error.hpp"
#include "plinth/io.hpp"

namespace plinth::detail {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'P', 'L', 'N', 'T', 'H', 'B', 'I', 'N'};

std::uint64_t fnv1a(std::string_view data, std::uint64_t hash = 14695981039346656037ull) {
  for (unsigned char c : data) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::uint64_t fnv1a(std::span<const std::byte> data) {
  return fnv1a(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
}

// $PLINTH_CACHE_DIR, else $XDG_CACHE_HOME/plinth, else ~/.cache/plinth; empty if none is known.
// PLINTH_CACHE_DIR=off disables the disk cache.
fs::path cache_directory() {
  if (const char* dir = std::getenv("PLINTH_CACHE_DIR"); dir != nullptr && *dir != '\0') {
    if (std::string_view(dir) == "off") return {};
    return dir;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') return fs::path(xdg) / "plinth";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') return fs::path(home) / ".cache" / "plinth";
  return {};
}

std::string hex(std::uint64_t value) {
  static const char digits[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4) text[static_cast<std::size_t>(i)] = digits[value & 15u];
  return text;
}

template <class T>
void put(OutputFile& out, T value) {
  out.write(&value, sizeof value);
}

constexpr std::uint64_t kHeaderBytes = sizeof kMagic + 3 * sizeof(std::uint64_t);

}  // namespace

// Only a regular file is read (a FIFO at the path would block; open_input refuses it without
// waiting), and the size field must match the file's real size, so that a damaged entry cannot
// make us allocate more than the file holds. Any inconsistency is a miss.
std::vector<std::byte> load_cache_entry(const fs::path& file, std::uint64_t key) {
  InputFile input;
  try {
    input = open_input(file.string(), "program_cache");
  } catch (const Error&) {
    return {};
  }
  std::FILE* in = input.file.get();
  char magic[8];
  std::uint64_t stored_key = 0, size = 0, checksum = 0;
  const bool header = input.size >= kHeaderBytes && std::fread(magic, sizeof magic, 1, in) == 1 &&
                      std::fread(&stored_key, sizeof stored_key, 1, in) == 1 && std::fread(&size, sizeof size, 1, in) == 1 &&
                      std::fread(&checksum, sizeof checksum, 1, in) == 1;
  if (!header || std::memcmp(magic, kMagic, sizeof magic) != 0 || stored_key != key || size != input.size - kHeaderBytes ||
      size > (std::uint64_t{1} << 30)) {
    return {};
  }
  std::vector<std::byte> binary(static_cast<std::size_t>(size));
  if (std::fread(binary.data(), 1, binary.size(), in) != binary.size() || fnv1a(binary) != checksum) return {};
  return binary;
}

// Through OutputFile (a temporary file and a rename), so that readers never see a partial file.
// Failures are quiet: the cache is an optimisation.
void store_cache_entry(const fs::path& file, std::uint64_t key, std::span<const std::byte> binary) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec) return;
  try {
    OutputFile out(file.string(), "program_cache");
    out.write(kMagic, sizeof kMagic);
    put(out, key);
    put(out, static_cast<std::uint64_t>(binary.size()));
    put(out, fnv1a(binary));
    out.write(binary.data(), binary.size());
    out.commit();
  } catch (const Error&) {
  }
}

namespace {

// With PLINTH_RECORD_PROGRAMS=<file>, appends each program's first request as
// "backend<TAB>file<TAB>options": kernels/programs.list is such a record of the test suite and
// the benchmarks, which tools/cuda_check compiles with NVRTC and `plinth cache warm` builds.
void record_request(std::string_view backend, std::string_view file, const std::string& options) {
  const char* path = std::getenv("PLINTH_RECORD_PROGRAMS");
  if (path == nullptr || *path == '\0') return;
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  std::ofstream out(path, std::ios::app);
  out << backend << '\t' << file << '\t' << options << '\n';
}

}  // namespace

BuildOptions& BuildOptions::raw(std::string_view option) {
  if (option.empty()) return *this;
  text_ += ' ';
  text_ += option;
  return *this;
}

BuildOptions& BuildOptions::define(std::string_view name) {
  text_ += " -D";
  text_ += name;
  return *this;
}

BuildOptions& BuildOptions::define(std::string_view name, std::string_view value) {
  text_ += " -D";
  text_ += name;
  text_ += '=';
  text_ += value;
  return *this;
}

BuildOptions& BuildOptions::define(std::string_view name, long long value) {
  return define(name, std::string_view(std::to_string(value)));
}

BuildOptions& BuildOptions::define(std::string_view name, Depth depth) { return define(name, kernel_type_name(depth)); }

BuildOptions& BuildOptions::define_depth(std::string_view name, Depth depth) {
  // Appended piece by piece: ops build their options on every call (a launch's host cost).
  text_.append(" -D").append(name).append("_T=").append(kernel_type_name(depth));
  // The codes of kernels/common/types.h follow the order of enum class Depth.
  text_.append(" -D").append(name).append("_DEPTH=").append(std::to_string(static_cast<int>(depth)));
  return *this;
}

std::string_view kernel_type_name(Depth depth) {
  switch (depth) {
    case Depth::u8: return "uchar";
    case Depth::s8: return "char";
    case Depth::u16: return "ushort";
    case Depth::s16: return "short";
    case Depth::u32: return "uint";
    case Depth::s32: return "int";
    case Depth::u64: return "ulong";
    case Depth::s64: return "long";
    case Depth::f32: return "float";
    case Depth::f64: return "double";
  }
  throw Error(ErrorCode::internal, "kernel_type_name", "depth", "unknown depth");
}

std::shared_ptr<Program> ProgramCache::get(Device& device, std::string_view file, const BuildOptions& options) {
  // The request key is built in a buffer of the thread's, so that a repeated request allocates
  // nothing (it runs on every call of every op).
  thread_local std::string lookup;
  lookup.assign(file).append("\x1f").append(options.str());
  {
    std::lock_guard lock(mutex_);
    if (auto it = requests_.find(std::string_view(lookup)); it != requests_.end()) return it->second;
  }
  std::string request = lookup;
  record_request(device.info().backend, file, options.str());
  const std::string source = resolved_kernel_source(file);
  const DeviceInfo& info = device.info();
  std::uint64_t key = fnv1a(source);
  for (std::string_view part : {std::string_view(device.base_build_options()), std::string_view(options.str()),
                                std::string_view(info.name),
                                std::string_view(info.platform_version), std::string_view(info.driver_version),
                                std::string_view(info.device_version)}) {
    key = fnv1a(part, fnv1a("\x1f", key));
  }
  // PoCL adds POCL_EXTRA_BUILD_FLAGS to every build it makes (scripts/test.sh sets -cl-opt-disable
  // for the C++ tests): a binary built with them is another binary.
  if (info.platform == "Portable Computing Language") {
    if (const char* flags = std::getenv("POCL_EXTRA_BUILD_FLAGS"); flags != nullptr && *flags != '\0') {
      key = fnv1a(flags, fnv1a("\x1f", key));
    }
  }
  const std::string name = hex(key);

  std::lock_guard lock(mutex_);
  if (auto it = programs_.find(name); it != programs_.end()) {
    requests_.emplace(std::move(request), it->second);
    return it->second;
  }

  const fs::path dir = cache_directory();
  const fs::path file_path = dir.empty() ? fs::path() : dir / (name + ".bin");
  std::shared_ptr<Program> program;
  if (!file_path.empty()) {
    std::vector<std::byte> binary = load_cache_entry(file_path, key);
    if (!binary.empty()) program = device.load_binary(binary, options.str());
    if (program) ++counts_.disk_cache;
  }
  if (!program) {
    program = device.build(source, options.str(), file);
    switch (program->origin()) {
      case ProgramOrigin::compiled: ++counts_.compiled; break;
      case ProgramOrigin::store: ++counts_.store; break;
      case ProgramOrigin::store_rejected:
        ++counts_.compiled;
        ++counts_.store_rejected;
        counts_.last_rejection = program->origin_note();
        break;
    }
    if (!file_path.empty()) {
      std::vector<std::byte> binary = program->binary();
      if (!binary.empty()) store_cache_entry(file_path, key, binary);
    }
  }
  programs_.emplace(name, program);
  requests_.emplace(std::move(request), program);
  return program;
}

ProgramCounts ProgramCache::counts() {
  std::lock_guard lock(mutex_);
  return counts_;
}

}  // namespace plinth::detail
