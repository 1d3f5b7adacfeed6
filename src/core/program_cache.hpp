#pragma once
// Programs built once per (source, options, device, driver) and kept in memory and on disk.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "core/backend.hpp"

namespace plinth::detail {

// -D options assembled from typed values, so that no op writes option strings by hand.
class BuildOptions {
 public:
  BuildOptions() { text_.reserve(192); }  // most ops' options fit: one allocation per call
  BuildOptions& define(std::string_view name);
  BuildOptions& define(std::string_view name, std::string_view value);
  BuildOptions& define(std::string_view name, long long value);
  BuildOptions& define(std::string_view name, Depth depth);  // the OpenCL C type name
  // NAME_T=<type name> and NAME_DEPTH=<code of kernels/common/types.h>, e.g. SRC_T=uchar SRC_DEPTH=0.
  BuildOptions& define_depth(std::string_view name, Depth depth);
  // A compiler option as it is, e.g. Device::register_limit_option's; nothing if empty.
  BuildOptions& raw(std::string_view option);
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

// OpenCL C spelling of a depth: uchar, char, ushort, short, uint, int, ulong, long, float, double.
std::string_view kernel_type_name(Depth depth);

// A disk cache entry: magic, key, size and checksum, then the binary. load_cache_entry returns
// an empty vector for a miss (missing, not a regular file, another key, damaged);
// store_cache_entry writes through a temporary file and fails quietly.
std::vector<std::byte> load_cache_entry(const std::filesystem::path& file, std::uint64_t key);
void store_cache_entry(const std::filesystem::path& file, std::uint64_t key, std::span<const std::byte> binary);

class ProgramCache {
 public:
  // Returns the program of kernel file `file` (e.g. "integral.cl") built with `options`.
  std::shared_ptr<Program> get(Device& device, std::string_view file, const BuildOptions& options);
  // Where the programs made so far came from (not counting requests answered from memory).
  ProgramCounts counts();

 private:
  ProgramCounts counts_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Program>, std::less<>> programs_;  // by source, options and device
  // By file and options: the embedded sources never change, so a repeated request skips
  // resolving and hashing its source (a launch's host cost, which gaps multi-kernel methods).
  std::map<std::string, std::shared_ptr<Program>, std::less<>> requests_;
};

}  // namespace plinth::detail
