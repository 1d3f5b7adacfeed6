#include "backend/cuda/cubin_store.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>
#include <tuple>
#include <unistd.h>

#include "io/io_detail.hpp"
#include "plinth/error.hpp"
#include "plinth/io.hpp"

namespace plinth::cuda {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kHeader =
    "# plinth cubin store, format 1: source hash, NVRTC, bytes, FNV-1a of the cubin, file, NVRTC options";
constexpr std::uint64_t kMaxCubin = std::uint64_t{1} << 30;

std::uint64_t fnv1a(std::string_view data, std::uint64_t hash = 14695981039346656037ull) {
  for (unsigned char c : data) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string hex(std::uint64_t value) {
  static const char digits[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4) text[static_cast<std::size_t>(i)] = digits[value & 15u];
  return text;
}

bool parse_hex(std::string_view text, std::uint64_t& out) {
  if (text.empty() || text.size() > 16) return false;
  out = 0;
  for (char c : text) {
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return false;
    out = out << 4 | static_cast<unsigned>(d);
  }
  return true;
}

bool parse_decimal(std::string_view text, std::uint64_t& out) {
  if (text.empty() || text.size() > 18) return false;
  out = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<unsigned>(c - '0');
  }
  return true;
}

std::string arch_folder(int arch) { return "sm_" + std::to_string(arch); }

std::string entry_file(const std::string& hash, std::string_view options) {
  return hex(fnv1a(options, fnv1a("\x1f", fnv1a(hash)))) + ".cubin";
}

// Splits "a\tb\t...": the last field keeps any further text (options never hold a tab).
std::vector<std::string_view> split_tabs(std::string_view line, std::size_t fields) {
  std::vector<std::string_view> out;
  while (out.size() + 1 < fields) {
    const std::size_t tab = line.find('\t');
    if (tab == std::string_view::npos) return {};
    out.push_back(line.substr(0, tab));
    line.remove_prefix(tab + 1);
  }
  out.push_back(line);
  return out;
}

}  // namespace

std::string source_hash(std::string_view resolved_source) { return hex(fnv1a(resolved_source)); }

CubinStore CubinStore::open(const fs::path& root, int arch) {
  CubinStore store;
  store.folder_ = root / arch_folder(arch);
  const fs::path index = store.folder_ / "index.tsv";
  std::error_code ec;
  if (!fs::exists(index, ec)) return store;
  std::ifstream in(index, std::ios::binary);
  if (!in) {
    store.problem_ = "cannot read " + index.string();
    return store;
  }
  std::string line;
  int number = 0;
  const auto fail = [&](const std::string& why) {
    store.entries_.clear();
    store.problem_ = index.string() + ":" + std::to_string(number) + ": " + why;
    return store;
  };
  ++number;
  if (!std::getline(in, line) || line != kHeader) return fail("not a plinth cubin store index (format 1)");
  ++number;
  if (!std::getline(in, line) || line != arch_folder(arch)) return fail("not the index of " + arch_folder(arch));
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    const std::vector<std::string_view> f = split_tabs(line, 6);
    Entry e;
    std::uint64_t hash = 0;
    const std::size_t dot = f.size() == 6 ? f[1].find('.') : std::string_view::npos;
    std::uint64_t major = 0, minor = 0;
    if (f.size() != 6 || f[0].size() != 16 || !parse_hex(f[0], hash) || dot == std::string_view::npos ||
        !parse_decimal(f[1].substr(0, dot), major) || !parse_decimal(f[1].substr(dot + 1), minor) || major > 1000 ||
        minor > 1000 || !parse_decimal(f[2], e.size) || e.size > kMaxCubin || !parse_hex(f[3], e.checksum) ||
        f[4].empty() || f[4].find('/') != std::string_view::npos || f[4].front() == '.') {
      return fail("malformed entry");
    }
    e.nvrtc_major = static_cast<int>(major);
    e.nvrtc_minor = static_cast<int>(minor);
    e.file = std::string(f[4]);
    store.entries_.insert_or_assign(std::make_pair(std::string(f[0]), std::string(f[5])), std::move(e));
  }
  return store;
}

CubinStore::Lookup CubinStore::find(std::string_view resolved_source, std::string_view options,
                                    int driver_version) const {
  Lookup result;
  if (!problem_.empty()) {  // every program then compiles, and says why
    result.had_entry = true;
    result.why = problem_;
    return result;
  }
  if (entries_.empty()) return result;
  const auto it = entries_.find(std::make_pair(source_hash(resolved_source), std::string(options)));
  if (it == entries_.end()) return result;
  result.had_entry = true;
  const Entry& e = it->second;
  const fs::path path = folder_ / e.file;
  if (driver_version / 1000 < e.nvrtc_major) {
    result.why = path.string() + ": built by NVRTC " + std::to_string(e.nvrtc_major) + "." +
                 std::to_string(e.nvrtc_minor) + ", newer than the driver's CUDA " + std::to_string(driver_version / 1000);
    return result;
  }
  detail::InputFile input;
  try {
    input = detail::open_input(path.string(), "cubin store");
  } catch (const Error& error) {
    result.why = error.what();
    return result;
  }
  if (input.size != e.size) {
    result.why = path.string() + ": " + std::to_string(input.size) + " bytes where the index says " +
                 std::to_string(e.size) + " (truncated or replaced)";
    return result;
  }
  std::string cubin(static_cast<std::size_t>(e.size), '\0');
  if (std::fread(cubin.data(), 1, cubin.size(), input.file.get()) != cubin.size()) {
    result.why = path.string() + ": read failed";
    return result;
  }
  if (fnv1a(cubin) != e.checksum) {
    result.why = path.string() + ": checksum differs from the index (damaged or replaced)";
    return result;
  }
  if (cubin.size() < 4 || std::memcmp(cubin.data(), "\x7f" "ELF", 4) != 0) {
    result.why = path.string() + ": not an ELF cubin";
    return result;
  }
  result.cubin = std::move(cubin);
  return result;
}

fs::path locate_cubin_store() {
  std::error_code ec;
  if (const char* env = std::getenv("PLINTH_CUBIN_DIR"); env != nullptr && *env != '\0') {
    if (std::string_view(env) == "off") return {};
    return env;
  }
  // The object holding this code: the executable when plinth is linked statically, else the
  // shared library (the Python module); and the executable itself.
  std::vector<fs::path> objects;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&locate_cubin_store), &info) != 0 && info.dli_fname != nullptr &&
      *info.dli_fname != '\0') {
    objects.push_back(fs::weakly_canonical(info.dli_fname, ec));
  }
  objects.push_back(fs::read_symlink("/proc/self/exe", ec));
  for (const fs::path& object : objects) {
    if (object.empty()) continue;
    const fs::path candidate = object.parent_path().parent_path() / "share" / "plinth" / "cubins";
    if (fs::is_directory(candidate, ec)) return candidate;
  }
#ifdef PLINTH_INSTALL_CUBIN_DIR
  if (fs::is_directory(PLINTH_INSTALL_CUBIN_DIR, ec)) return PLINTH_INSTALL_CUBIN_DIR;
#endif
  return {};
}

void write_cubin_store(const fs::path& root, int arch, int nvrtc_major, int nvrtc_minor, std::vector<StoreItem> items) {
  struct Row {
    std::string hash, options, file;
    const std::string* cubin;
  };
  std::vector<Row> rows;
  for (const StoreItem& item : items) {
    const std::string hash = source_hash(item.resolved_source);
    rows.push_back({hash, item.options, entry_file(hash, item.options), &item.cubin});
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a.hash, a.options) < std::tie(b.hash, b.options);
  });
  rows.erase(std::unique(rows.begin(), rows.end(),
                         [](const Row& a, const Row& b) { return a.hash == b.hash && a.options == b.options; }),
             rows.end());
  const fs::path target = root / arch_folder(arch);
  const fs::path temp = root / (arch_folder(arch) + ".tmp" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(temp, ec);
  fs::create_directories(temp, ec);
  if (ec) throw Error(ErrorCode::io, "cubin store", temp.string(), "cannot create it: " + ec.message());
  std::ostringstream index;
  index << kHeader << '\n' << arch_folder(arch) << '\n';
  std::vector<std::string> files;
  for (const Row& r : rows) {
    if (r.options.find_first_of("\t\n") != std::string::npos) {
      throw Error(ErrorCode::invalid_argument, "cubin store", "options", "hold a tab or a newline: " + r.options);
    }
    files.push_back(r.file);
    OutputFile out((temp / r.file).string(), "cubin store");
    out.write(r.cubin->data(), r.cubin->size());
    out.commit();
    index << r.hash << '\t' << nvrtc_major << '.' << nvrtc_minor << '\t' << r.cubin->size() << '\t'
          << hex(fnv1a(*r.cubin)) << '\t' << r.file << '\t' << r.options << '\n';
  }
  std::sort(files.begin(), files.end());
  if (std::adjacent_find(files.begin(), files.end()) != files.end()) {
    throw Error(ErrorCode::internal, "cubin store", "file", "two entries hash to the same file name");
  }
  OutputFile out((temp / "index.tsv").string(), "cubin store");
  out.write(index.str());
  out.commit();
  fs::remove_all(target, ec);
  fs::rename(temp, target, ec);
  if (ec) throw Error(ErrorCode::io, "cubin store", target.string(), "cannot rename the new store into place: " + ec.message());
}

}  // namespace plinth::cuda
