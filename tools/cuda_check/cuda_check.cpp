// plinth_cuda_check: compiles every kernel program that the ops build on the CUDA backend
// (kernels/programs.list's `cuda` lines, a record of the test suite and the benchmarks) with
// NVRTC for one architecture (sm_90 unless --arch says otherwise), as the backend would, and
// prints each kernel's registers and spills from ptxas. Needs NVRTC only, no GPU or driver. Exit
// status: 0 if all compiled, 1 if any failed (each failure printed with NVRTC's log), 77 if
// NVRTC is missing (ctest: skipped).
//
// With --store DIR it builds the cubin store instead (src/backend/cuda/cubin_store.hpp): the
// same programs, compiled exactly as the backend compiles them (same options, same
// program name, no ptxas report), into DIR/sm_<arch>/ with its index.
//
//   plinth_cuda_check [--arch 90] [--list FILE] [--quiet] [--store DIR]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backend/cuda/api.hpp"
#include "backend/cuda/cubin_store.hpp"
#include "core/kernel_source.hpp"
#include "plinth/error.hpp"

namespace {

struct Entry {
  std::string backend, file, options;
};

std::vector<Entry> parse(const std::string& text) {
  std::vector<Entry> entries;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t a = line.find('\t');
    const std::size_t b = a == std::string::npos ? a : line.find('\t', a + 1);
    if (b == std::string::npos) continue;
    entries.push_back({line.substr(0, a), line.substr(a + 1, b - a - 1), line.substr(b + 1)});
  }
  return entries;
}

struct Usage {
  std::string kernel;
  int registers = -1, spill_stores = 0, spill_loads = 0, stack = 0;
};

// ptxas -v's lines, per entry function.
std::vector<Usage> usage_of(const std::string& log) {
  std::vector<Usage> out;
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex regs(R"(Used (\d+) registers)");
  std::istringstream in(log);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, entry)) {
      out.push_back({m[1].str()});
    } else if (!out.empty() && std::regex_search(line, m, frame)) {
      out.back().stack = std::stoi(m[1].str());
      out.back().spill_stores = std::stoi(m[2].str());
      out.back().spill_loads = std::stoi(m[3].str());
    } else if (!out.empty() && std::regex_search(line, m, regs)) {
      out.back().registers = std::stoi(m[1].str());
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int arch = 90;
  std::string list_path;
  bool quiet = false;
  std::string store;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--arch" && i + 1 < argc) {
      arch = std::atoi(argv[++i]);
    } else if (a == "--list" && i + 1 < argc) {
      list_path = argv[++i];
    } else if (a == "--store" && i + 1 < argc) {
      store = argv[++i];
    } else if (a == "--quiet") {
      quiet = true;
    } else {
      std::cerr << "usage: plinth_cuda_check [--arch 90] [--list FILE] [--quiet] [--store DIR]\n";
      return 2;
    }
  }
  std::string why;
  const plinth::cuda::Nvrtc* rtc = plinth::cuda::nvrtc(&why);
  if (rtc == nullptr) {
    std::cout << "plinth_cuda_check: skipped: " << why << '\n';
    return 77;
  }
  std::string text;
  if (list_path.empty()) {
    for (const auto& f : plinth::detail::embedded_kernel_files()) {
      if (f.path == "programs.list") text = std::string(f.text);
    }
  } else {
    std::ifstream in(list_path);
    if (!in) {
      std::cerr << "Error: cannot read " << list_path << '\n';
      return 2;
    }
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  // What the CUDA backend requests, as it requests it: the list's `cuda` records, one compilation
  // per distinct (file, options). (The `opencl` records' option sets are NVIDIA OpenCL's own,
  // which the CUDA backend never builds.)
  std::map<std::pair<std::string, std::string>, int> programs;
  for (const Entry& e : parse(text)) {
    if (e.backend == "cuda") programs.emplace(std::make_pair(e.file, e.options), 0);
  }
  if (programs.empty()) {
    std::cerr << "Error: the program list is empty\n";
    return 1;
  }
  std::printf("NVRTC %d.%d (%s), sm_%d, %zu programs\n", rtc->major, rtc->minor, rtc->path.c_str(), arch, programs.size());
  if (store.empty()) std::printf("%-28s %-40s %5s %6s %6s %6s  options\n", "file", "kernel", "regs", "stack", "st", "ld");
  int failures = 0, kernels = 0, spilling = 0;
  const auto start = std::chrono::steady_clock::now();
  // NVRTC is thread-safe: compile on every core, report in the list's order.
  std::vector<std::pair<std::string, std::string>> work;
  for (const auto& [key, unused] : programs) work.push_back(key);
  std::vector<std::string> logs(work.size()), errors(work.size()), sources(work.size()), cubins(work.size());
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t) {
    threads.emplace_back([&] {
      for (std::size_t i; (i = next++) < work.size();) {
        const auto& [file, options] = work[i];
        try {
          sources[i] = plinth::detail::resolved_kernel_source(file);
          // CuDevice::build's call: base options, the op's options, the file as the program name.
          const std::string report = store.empty() ? " -Xptxas=-v" : "";
          cubins[i] = plinth::cuda::compile(*rtc, sources[i], plinth::cuda::base_options(arch) + options + report, file,
                                            false, &logs[i]);
        } catch (const std::exception& e) {
          errors[i] = e.what();
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (std::size_t i = 0; i < work.size(); ++i) {
    const auto& [file, options] = work[i];
    const std::string& log = logs[i];
    if (!errors[i].empty()) {
      ++failures;
      std::printf("FAILED %s with%s\n%s\n", file.c_str(), options.c_str(), errors[i].c_str());
      continue;
    }
    for (const Usage& u : usage_of(log)) {
      ++kernels;
      if (u.spill_stores > 0 || u.spill_loads > 0) ++spilling;
      if (!quiet || u.spill_stores > 0 || u.spill_loads > 0) {
        std::printf("%-28s %-40s %5d %6d %6d %6d %s\n", file.c_str(), u.kernel.c_str(), u.registers, u.stack,
                    u.spill_stores, u.spill_loads, options.c_str());
      }
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!store.empty()) {
    if (failures > 0) {
      std::printf("%d programs failed to compile: no store written\n", failures);
      return 1;
    }
    std::vector<plinth::cuda::StoreItem> items;
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i < work.size(); ++i) {
      bytes += cubins[i].size();
      items.push_back({std::move(sources[i]), plinth::cuda::base_options(arch) + work[i].second, std::move(cubins[i])});
    }
    try {
      plinth::cuda::write_cubin_store(store, arch, rtc->major, rtc->minor, std::move(items));
    } catch (const std::exception& e) {
      std::cerr << "Error: " << e.what() << '\n';
      return 1;
    }
    std::printf("cubin store %s/sm_%d: %zu programs, %llu bytes of cubins (%.1f s)\n", store.c_str(), arch,
                programs.size(), static_cast<unsigned long long>(bytes), seconds);
    return 0;
  }
  std::printf("%zu programs, %d kernels, %d with spills, %d failed to compile (%.1f s)\n", programs.size(), kernels,
              spilling, failures, seconds);
  return failures == 0 ? 0 : 1;
}
