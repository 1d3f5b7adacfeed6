#pragma once
// The cubin store: cubins compiled ahead of time (at build or install time, by
// `plinth_cuda_check --store`) for the programs of kernels/programs.list, one folder per
// architecture: <root>/sm_90/index.tsv and <root>/sm_90/<name>.cubin. The CUDA backend looks a
// program up here after the in-memory and on-disk program caches miss and before it compiles, so
// that the first calls on a fresh machine need no NVRTC compilation (docs/backends.md).
//
// An entry is found by what decides the cubin's code: a hash of the resolved kernel source and the
// full NVRTC options, which hold the architecture (-arch=sm_90). It is valid on a driver at least
// as new as the NVRTC that built it (same CUDA major version: minor version compatibility needs no
// PTX JIT for a cubin). The NVRTC installed at run time plays no part in a cubin's validity, and
// the driver's exact version plays none beyond that. A damaged or mismatching entry (size,
// checksum, ELF header, NVRTC newer than the driver) is rejected with a reason and the backend
// compiles instead.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace plinth::cuda {

// 16 hex digits of the FNV-1a hash of a resolved kernel source.
std::string source_hash(std::string_view resolved_source);

class CubinStore {
 public:
  struct Entry {
    int nvrtc_major = 0, nvrtc_minor = 0;
    std::uint64_t size = 0;
    std::uint64_t checksum = 0;  // FNV-1a of the cubin
    std::string file;            // name inside the architecture's folder
  };
  struct Lookup {
    std::string cubin;   // empty unless found and valid
    bool had_entry = false;  // an entry matched the key (a miss otherwise)
    std::string why;     // why a matching entry was rejected
  };

  CubinStore() = default;
  // Reads <root>/sm_<arch>/index.tsv. A missing store is empty; an unreadable or malformed index
  // is empty too, with problem() saying why.
  static CubinStore open(const std::filesystem::path& root, int arch);

  // The cubin for a kernel source and NVRTC options (base options included) on a driver of CUDA
  // version `driver_version` (1000 * major + 10 * minor).
  Lookup find(std::string_view resolved_source, std::string_view options, int driver_version) const;

  std::size_t size() const { return entries_.size(); }
  const std::string& problem() const { return problem_; }
  const std::filesystem::path& folder() const { return folder_; }

 private:
  std::filesystem::path folder_;
  std::map<std::pair<std::string, std::string>, Entry, std::less<>> entries_;  // by (source hash, options)
  std::string problem_;
};

// Where the store is: $PLINTH_CUBIN_DIR ("off": none), else share/plinth/cubins beside the bin/ or
// lib/ folder of the executable or shared library holding plinth, else the install prefix's
// datadir. Empty if none of those exists.
std::filesystem::path locate_cubin_store();

// One compiled program for write_cubin_store.
struct StoreItem {
  std::string resolved_source;
  std::string options;  // the full NVRTC options, as the backend passes them
  std::string cubin;
};

// Writes <root>/sm_<arch>/ from scratch (index and cubins; a folder there before is replaced, the
// new one renamed into place when complete). The output depends only on the items (sorted), so a
// rebuild from the same sources and NVRTC gives the same bytes.
void write_cubin_store(const std::filesystem::path& root, int arch, int nvrtc_major, int nvrtc_minor,
                       std::vector<StoreItem> items);

}  // namespace plinth::cuda
