// The CUDA backend's cubin store (src/backend/cuda/cubin_store.hpp) on its own, without a GPU:
// its index written and parsed, lookups by source and options, every damaged or mismatching
// entry rejected with a reason (never a crash), and NVRTC's store build reproducible.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "backend/cuda/api.hpp"
#include "backend/cuda/cubin_store.hpp"
#include "core/kernel_source.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

namespace fs = std::filesystem;
using cuda::CubinStore;

class StoreDir {
 public:
  StoreDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() / ("plinth_cubin_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~StoreDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream all;
  all << in.rdbuf();
  return all.str();
}

void write_all(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// Every file of a folder (relative name -> bytes), to compare two stores.
std::map<std::string, std::string> tree(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) files[fs::relative(e.path(), root).string()] = read_all(e.path());
  }
  return files;
}

// Stand-ins for cubins: what the lookup checks is the ELF magic, the size and the checksum.
std::string fake_cubin(char fill, std::size_t size) { return std::string("\x7f" "ELF", 4) + std::string(size, fill); }

const std::string kSourceA = "extern \"C\" __global__ void a(int* p) { p[0] = 1; }";
const std::string kSourceB = "extern \"C\" __global__ void b(int* p) { p[0] = 2; }";
const std::string kOptions90 = cuda::base_options(90) + " -DX=1";
constexpr int kDriver13 = 13000;

fs::path write_two(const fs::path& root) {
  cuda::write_cubin_store(root, 90, 13, 0,
                          {{kSourceA, kOptions90, fake_cubin('a', 100)}, {kSourceB, kOptions90, fake_cubin('b', 200)}});
  return root / "sm_90";
}

TEST(CubinStore, IndexParsesAndEveryEntryIsFound) {
  StoreDir dir;
  const fs::path folder = write_two(dir.path());
  const CubinStore store = CubinStore::open(dir.path(), 90);
  EXPECT_TRUE(store.problem().empty()) << store.problem();
  EXPECT_EQ(store.size(), 2u);
  const CubinStore::Lookup a = store.find(kSourceA, kOptions90, kDriver13);
  EXPECT_EQ(a.cubin, fake_cubin('a', 100));
  EXPECT_TRUE(a.why.empty()) << a.why;
  EXPECT_EQ(store.find(kSourceB, kOptions90, kDriver13).cubin, fake_cubin('b', 200));
  // Index, two cubins, and no temporary folder left beside sm_90.
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(folder)) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 3u);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
  // A folder with no store, or another architecture's, is empty without a problem.
  EXPECT_EQ(CubinStore::open(dir.path() / "none", 90).size(), 0u);
  EXPECT_EQ(CubinStore::open(dir.path(), 80).size(), 0u);
  EXPECT_TRUE(CubinStore::open(dir.path(), 80).problem().empty());
}

TEST(CubinStore, EntriesUnderAnotherKeyAreIgnored) {
  StoreDir dir;
  const fs::path folder = write_two(dir.path());
  const CubinStore store = CubinStore::open(dir.path(), 90);
  // Another source (a kernel edited since the store was built), other options, another architecture:
  // misses, which the backend compiles.
  for (const auto& [source, options] :
       std::vector<std::pair<std::string, std::string>>{{kSourceA + " ", kOptions90},
                                                        {kSourceA, kOptions90 + " -DY=1"},
                                                        {kSourceA, cuda::base_options(80) + " -DX=1"}}) {
    const CubinStore::Lookup miss = store.find(source, options, kDriver13);
    EXPECT_TRUE(miss.cubin.empty());
    EXPECT_FALSE(miss.had_entry) << options;
  }
  // An entry whose file holds another entry's cubin: rejected, with a reason.
  // Index lines: source hash, NVRTC, bytes, checksum, file, options.
  std::map<std::string, std::string> file_by_size;
  std::istringstream lines(read_all(folder / "index.tsv"));
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, '\t');) f.push_back(field);
    if (f.size() == 6) file_by_size[f[2]] = f[4];
  }
  const std::string file_a = file_by_size["104"], file_b = file_by_size["204"];
  ASSERT_FALSE(file_a.empty());
  ASSERT_FALSE(file_b.empty());
  fs::copy_file(folder / file_b, folder / file_a, fs::copy_options::overwrite_existing);
  const CubinStore::Lookup swapped = CubinStore::open(dir.path(), 90).find(kSourceA, kOptions90, kDriver13);
  EXPECT_TRUE(swapped.cubin.empty());
  EXPECT_TRUE(swapped.had_entry);
  EXPECT_FALSE(swapped.why.empty());
  // Same size, other bytes: the checksum.
  write_all(folder / file_a, fake_cubin('z', 100));
  const CubinStore::Lookup damaged = CubinStore::open(dir.path(), 90).find(kSourceA, kOptions90, kDriver13);
  EXPECT_TRUE(damaged.cubin.empty());
  EXPECT_NE(damaged.why.find("checksum"), std::string::npos) << damaged.why;
}

TEST(CubinStore, ATruncatedCubinIsRejectedCleanly) {
  StoreDir dir;
  const fs::path folder = write_two(dir.path());
  const CubinStore store = CubinStore::open(dir.path(), 90);
  for (const auto& e : fs::directory_iterator(folder)) {
    if (e.path().extension() != ".cubin") continue;
    const std::string bytes = read_all(e.path());
    write_all(e.path(), bytes.substr(0, bytes.size() / 2));
  }
  for (const std::string& source : {kSourceA, kSourceB}) {
    const CubinStore::Lookup l = store.find(source, kOptions90, kDriver13);
    EXPECT_TRUE(l.cubin.empty());
    EXPECT_TRUE(l.had_entry);
    EXPECT_NE(l.why.find("truncated"), std::string::npos) << l.why;
  }
  // Removed, or a folder in its place: rejected too.
  for (const auto& e : fs::directory_iterator(folder)) {
    if (e.path().extension() == ".cubin") {
      fs::remove(e.path());
      fs::create_directory(e.path());
    }
  }
  EXPECT_FALSE(store.find(kSourceA, kOptions90, kDriver13).why.empty());
}

TEST(CubinStore, NotAnElfOrForANewerDriverIsRejected) {
  StoreDir dir;
  cuda::write_cubin_store(dir.path(), 90, 13, 0, {{kSourceA, kOptions90, std::string(64, 'x')}});
  const CubinStore store = CubinStore::open(dir.path(), 90);
  EXPECT_NE(store.find(kSourceA, kOptions90, kDriver13).why.find("ELF"), std::string::npos);
  write_two(dir.path());
  const CubinStore::Lookup old_driver = CubinStore::open(dir.path(), 90).find(kSourceA, kOptions90, 12080);
  EXPECT_TRUE(old_driver.cubin.empty());
  EXPECT_NE(old_driver.why.find("newer than the driver"), std::string::npos) << old_driver.why;
  EXPECT_FALSE(CubinStore::open(dir.path(), 90).find(kSourceA, kOptions90, 13020).cubin.empty()) << "a newer minor";
}

TEST(CubinStore, AMalformedIndexIsReportedOnEveryLookup) {
  StoreDir dir;
  const fs::path folder = write_two(dir.path());
  const std::string good = read_all(folder / "index.tsv");
  for (const std::string& bad : {good.substr(0, good.find('\n')) + "\nsm_80\n",       // another architecture's
                                 std::string("garbage\n"),                               // not an index
                                 good + "0123\t13.0\t10\tff\tx.cubin\t-arch=sm_90\n",   // short hash
                                 good + "0123456789abcdef\t13.0\t99999999999999999999\tff\tx.cubin\to\n",
                                 good + "0123456789abcdef\t13.0\t10\tff\t../escape.cubin\to\n",
                                 good + "0123456789abcdef\t13\t10\tff\tx.cubin\to\n"}) {
    write_all(folder / "index.tsv", bad);
    const CubinStore store = CubinStore::open(dir.path(), 90);
    EXPECT_FALSE(store.problem().empty()) << bad;
    EXPECT_EQ(store.size(), 0u);
    const CubinStore::Lookup l = store.find(kSourceA, kOptions90, kDriver13);
    EXPECT_TRUE(l.cubin.empty());
    EXPECT_TRUE(l.had_entry);
    EXPECT_EQ(l.why, store.problem());
  }
}

TEST(CubinStore, PlinthCubinDirNamesTheStoreOrTurnsItOff) {
  {
    const ScopedEnv dir("PLINTH_CUBIN_DIR", "/some/store");
    EXPECT_EQ(cuda::locate_cubin_store(), fs::path("/some/store"));
  }
  const ScopedEnv off("PLINTH_CUBIN_DIR", "off");
  EXPECT_TRUE(cuda::locate_cubin_store().empty());
}

// NVRTC (where installed; no GPU needed): two programs of kernels/programs.list compiled as the
// backend compiles them, twice, into two stores: the same bytes, an index that parses, and every
// entry found.
TEST(CubinStore, NvrtcBuildIsReproducible) {
  std::string why;
  const cuda::Nvrtc* rtc = cuda::nvrtc(&why);
  if (rtc == nullptr) GTEST_SKIP() << why;
  const std::vector<std::pair<std::string, std::string>> programs = {{"resize.cl", ""},
                                                                     {"arithm.cl", " -DSRC_T=uchar -DSRC_DEPTH=0 -DVEC=16"}};
  StoreDir first, second;
  for (const fs::path& root : {first.path(), second.path()}) {
    std::vector<cuda::StoreItem> items;
    for (const auto& [file, options] : programs) {
      const std::string source = detail::resolved_kernel_source(file);
      const std::string all = cuda::base_options(90) + options;
      items.push_back({source, all, cuda::compile(*rtc, source, all, file, false, nullptr)});
    }
    cuda::write_cubin_store(root, 90, rtc->major, rtc->minor, std::move(items));
  }
  const auto a = tree(first.path()), b = tree(second.path());
  EXPECT_EQ(a.size(), 3u);
  EXPECT_TRUE(a == b) << "two NVRTC builds of the same programs differ";
  const CubinStore store = CubinStore::open(first.path(), 90);
  EXPECT_EQ(store.size(), 2u);
  for (const auto& [file, options] : programs) {
    const CubinStore::Lookup l =
        store.find(detail::resolved_kernel_source(file), cuda::base_options(90) + options, rtc->major * 1000);
    EXPECT_FALSE(l.cubin.empty()) << file << ": " << l.why;
  }
}

}  // namespace
}  // namespace plinth::test
