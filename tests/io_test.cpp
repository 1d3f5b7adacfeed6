// Files under hostile conditions (issue 15): .npy headers, image headers that lie about their
// size, directories and FIFOs given as files, full devices and file-size limits while writing,
// outputs replaced only when complete, and the program cache's disk entries.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/program_cache.hpp"
#include "plinth/cascade.hpp"
#include "plinth/io.hpp"
#include "plinth/nv12.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

namespace fs = std::filesystem;

// A fresh directory for one test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("plinth_io_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  // The names in the directory, sorted: shows a temporary file left behind.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  fs::path path_;
};

void put_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  ASSERT_TRUE(out.good()) << path;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream all;
  all << in.rdbuf();
  return all.str();
}

// Runs `body` on a thread; a body that has not returned after `seconds` (a hang: a FIFO opened
// for reading blocks until a writer comes) fails the test and ends the process, since a blocked
// thread cannot be stopped.
void finishes_within(int seconds, const std::function<void()>& body, const char* what) {
  auto task = std::make_shared<std::packaged_task<void()>>(body);
  std::future<void> done = task->get_future();
  std::thread([task] { (*task)(); }).detach();
  if (done.wait_for(std::chrono::seconds(seconds)) != std::future_status::ready) {
    std::cerr << "FAILED: " << what << " did not return within " << seconds << " s (a hang)" << std::endl;
    std::_Exit(1);
  }
  done.get();  // rethrows a failure of the body
}

// The error `body` throws (a default Error when it throws none, which the checks then reject).
Error error_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    return e;
  }
  return Error(ErrorCode::internal, "(nothing thrown)", "", "");
}

// A .npy file: the magic, a version, the header's length field and the header as given.
std::string npy_bytes(const std::string& header, int version = 1, const std::string& data = "") {
  std::string out = "\x93NUMPY";
  out += static_cast<char>(version);
  out += '\0';
  const std::size_t n = header.size();
  out += static_cast<char>(n & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  if (version > 1) {
    out += static_cast<char>((n >> 16) & 0xff);
    out += static_cast<char>((n >> 24) & 0xff);
  }
  return out + header + data;
}

TEST(Npy, RoundTripsEveryDepthAndChannelCount) {
  TempDir dir;
  std::uint32_t seed = 1;
  for (Depth depth : {Depth::u8, Depth::s8, Depth::u16, Depth::s16, Depth::u32, Depth::s32, Depth::u64, Depth::s64,
                      Depth::f32, Depth::f64}) {
    for (int channels : {1, 3, 4}) {
      const HostImage image = random_image(7, 5, Format{depth, channels}, seed++);
      const std::string path = dir / "a.npy";
      write_npy(path, image);
      EXPECT_TRUE(images_equal(image, read_npy(path))) << to_string(depth) << " " << channels;
    }
  }
  EXPECT_EQ(dir.names(), std::vector<std::string>{"a.npy"});
}

// NumPy's spellings, and padding that made std::regex overflow its stack (issue 15).
TEST(Npy, ReadsHeaderVariantsAndLongPadding) {
  TempDir dir;
  const std::string data = "\x01\x02\x03\x04\x05\x06";
  const std::vector<std::pair<std::string, int>> headers = {
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }\n", 1},
      {"{\"descr\": \"<u1\", \"fortran_order\": False, \"shape\": (2, 3)}", 1},
      {"{'shape': (2L, 3L), 'fortran_order': False, 'descr': '|u1'}", 1},
      {"{'descr':'|u1','fortran_order':False,'shape':(2,3,),}", 1},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3, 1), }", 1},
      {"{'descr': '|u1',     'fortran_order': False, 'shape': (2, 3), }" + std::string(60000, ' ') + "\n", 2},
      {"{'descr': '|u1'," + std::string(60000, ' ') + "'fortran_order': False, 'shape': (2, 3), }", 2},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }", 3},
  };
  for (const auto& [header, version] : headers) {
    const std::string path = dir / "v.npy";
    put_file(path, npy_bytes(header, version, data));
    HostImage image;
    ASSERT_NO_THROW(image = read_npy(path)) << header.substr(0, 80);
    ASSERT_EQ(image.size(), (Size{3, 2}));
    EXPECT_EQ(image.at<std::uint8_t>(2, 1), 6);
  }
}

TEST(Npy, HostileHeadersGiveShortErrorsNamingTheFile) {
  TempDir dir;
  const std::string path = dir / "bad.npy";
  const auto check = [&](const std::string& bytes, ErrorCode code, const char* what) {
    put_file(path, bytes);
    Error e = Error(ErrorCode::internal, "", "", "");
    finishes_within(60, [&] { e = error_of([&] { read_npy(path); }); }, what);
    EXPECT_EQ(e.code(), code) << what << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << what << ": the message names no file: " << e.what();
    EXPECT_LT(std::string(e.what()).size(), 400u) << what << ": a long message";
  };
  // A 30,000-character dtype overflowed std::regex's stack, and was echoed in full.
  check(npy_bytes("{'descr': '" + std::string(30000, 'x') + "', 'fortran_order': False, 'shape': (2, 3), }", 1),
        ErrorCode::unsupported_type, "long dtype");
  check(npy_bytes("{'descr': '<c16', 'fortran_order': False, 'shape': (2, 3), }"), ErrorCode::unsupported_type, "complex");
  check(npy_bytes("{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3), }"), ErrorCode::unsupported_type, "fortran");
  check(npy_bytes(std::string(70000, ' '), 2), ErrorCode::format, "header longer than the limit");
  check(npy_bytes("{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }", 2).substr(0, 30), ErrorCode::format,
        "truncated header");
  check(npy_bytes("{'descr': '|u1, 'fortran_order': False, 'shape': (2, 3), }"), ErrorCode::format, "unterminated");
  check(npy_bytes("'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }"), ErrorCode::format, "no brace");
  check(npy_bytes("{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), "), ErrorCode::format, "no closing brace");
  check(npy_bytes("{'descr': '|u1', 'fortran_order': Maybe, 'shape': (2, 3), }"), ErrorCode::format, "bad bool");
  check(npy_bytes("{'descr': '|u1', 'fortran_order': False, 'shape': (6,), }"), ErrorCode::format, "1-D shape");
  check(npy_bytes("{'descr': '|u1', 'fortran_order': False, 'shape': (2, -3), }"), ErrorCode::format, "negative");
  check(npy_bytes("{'descr': '|u1', 'fortran_order': False, 'shape': (99999999999999999999, 3), }"), ErrorCode::format,
        "huge number");
  check(npy_bytes("{'descr': '|u1', 'fortran_order': False, 'shape': (" + std::string(50000, '(') + "), }"),
        ErrorCode::format, "nested parentheses");
  check(npy_bytes("{'fortran_order': False, 'shape': (2, 3), }"), ErrorCode::format, "no descr");
  check("\x93NUMPY\x09\x00", ErrorCode::format, "version 9");
  check("not numpy at all", ErrorCode::format, "no magic");
  // Size errors name the file (they came from HostImage before).
  check(npy_bytes("{'descr': '|u1', 'fortran_order': False, 'shape': (0, 3), }"), ErrorCode::out_of_range, "zero height");
  check(npy_bytes("{'descr': '|u1', 'fortran_order': False, 'shape': (200000, 3), }"), ErrorCode::out_of_range,
        "tall");
  check(npy_bytes("{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3, 5), }"), ErrorCode::unsupported_type,
        "5 channels");
  // A shape the data does not back is refused before anything is allocated for it.
  check(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (40000, 40000), }"), ErrorCode::format,
        "shape without data");
  check(npy_bytes("{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }", 1, "\x01\x02"), ErrorCode::format,
        "short data");
}

// A PNG of one IHDR chunk (stb does not check CRCs), a JPEG whose SOF0 states its size, a BMP
// header and a PGM header: sizes come from the headers and are refused before decoding.
std::string png_header(std::uint32_t width, std::uint32_t height) {
  std::string out = "\x89PNG\r\n\x1a\n";
  out += std::string("\0\0\0\x0d", 4) + "IHDR";
  for (std::uint32_t v : {width, height}) {
    for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xff);
  }
  out += std::string("\x08\x00\x00\x00\x00", 5) + std::string(4, '\0');  // 8-bit grey; CRC
  return out + std::string(64, '\0');
}

std::string jpeg_header(int width, int height) {
  std::string out = "\xff\xd8\xff\xc0";
  out += std::string("\x00\x0b\x08", 3);
  out += static_cast<char>(height >> 8);
  out += static_cast<char>(height & 0xff);
  out += static_cast<char>(width >> 8);
  out += static_cast<char>(width & 0xff);
  out += std::string("\x01\x01\x11\x00", 4);  // one component, 1x1 sampling, table 0
  return out + std::string(200, '\0');
}

std::string bmp_header(int width, int height) {
  std::string out = "BM" + std::string(12, '\0');
  const auto le32 = [&](std::uint32_t v) {
    for (int shift = 0; shift < 32; shift += 8) out += static_cast<char>((v >> shift) & 0xff);
  };
  le32(40);
  le32(static_cast<std::uint32_t>(width));
  le32(static_cast<std::uint32_t>(height));
  out += std::string("\x01\x00\x18\x00", 4);  // one plane, 24 bits
  return out + std::string(200, '\0');
}

TEST(ImageFiles, HeaderSizesAreCheckedBeforeDecoding) {
  TempDir dir;
  const auto check = [&](const std::string& name, const std::string& bytes, ErrorCode code, const std::string& text) {
    const std::string path = dir / name;
    put_file(path, bytes);
    const Error e = error_of([&] { read_image(path); });
    EXPECT_EQ(e.code(), code) << name << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << name << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << name << ": " << e.what();
  };
  // "unknown image type" before.
  check("zero.png", png_header(0, 0), ErrorCode::format, "0x0");
  check("huge.png", png_header(65535, 65535), ErrorCode::out_of_range, "65535x65535");
  check("wide.png", png_header(1u << 20, 1), ErrorCode::out_of_range, "1048576x1");
  // Decompression bombs: a few hundred bytes that claim 40000x40000 (1.6 G pixels, under the
  // element limit for one channel) were decoded in full before.
  check("bomb.jpg", jpeg_header(40000, 40000), ErrorCode::out_of_range, "40000x40000");
  check("bomb.bmp", bmp_header(40000, 40000), ErrorCode::out_of_range, "40000x40000");
  // Within the limits but without its rows (stb read the missing bytes as zeros before, for
  // seconds at this size).
  check("rowless.bmp", bmp_header(10000, 7000), ErrorCode::format, "truncated BMP file");
  check("bomb.pgm", "P5\n40000 40000\n255\n" + std::string(100, '\0'), ErrorCode::out_of_range, "40000x40000");
  check("zero.pgm", "P5\n0 0\n255\n", ErrorCode::format, "0x0");
  // Just within the limit the header passes and the missing data is what fails.
  check("edge.pgm", "P5\n16384 16384\n255\n" + std::string(100, '\0'), ErrorCode::format, "truncated");
}

TEST(ImageFiles, DirectoriesFifosAndEmptyFilesAreNamedForWhatTheyAre) {
  TempDir dir;
  // "the file is empty" before, for a directory.
  Error e = error_of([&] { read_image(dir / ""); });
  EXPECT_EQ(e.code(), ErrorCode::io) << e.what();
  EXPECT_NE(std::string(e.what()).find("directory"), std::string::npos) << e.what();
  e = error_of([&] { read_npy(dir / ""); });
  EXPECT_NE(std::string(e.what()).find("directory"), std::string::npos) << e.what();
  // A FIFO without a writer blocked the process in open().
  const std::string fifo = dir / "fifo.png";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const auto& read : std::vector<std::function<void()>>{[&] { read_image(fifo); }, [&] { read_npy(fifo); },
                                                               [&] { read_nv12(fifo, Size{4, 4}); },
                                                               [&] { Cascade::load(fifo); }}) {
    finishes_within(60, [&] { e = error_of(read); }, "reading a FIFO");
    EXPECT_EQ(e.code(), ErrorCode::io) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
  put_file(dir / "empty.png", "");
  e = error_of([&] { read_image(dir / "empty.png"); });
  EXPECT_EQ(e.code(), ErrorCode::format);
  EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
}

// A full device: every write, flush and close is checked (the PNG and .npy writers reported
// success before, their data still in a buffer when the unchecked close failed).
TEST(Writers, AFullDeviceFailsEveryFormat) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  TempDir dir;
  const HostImage gray = random_image(16, 16, Format{Depth::u8, 1}, 7);
  const HostImage rgb = random_image(16, 16, Format{Depth::u8, 3}, 8);
  for (const std::string ext : {".png", ".pgm", ".npy"}) {
    const std::string link = dir / ("full" + ext);
    fs::create_symlink("/dev/full", link);
    const Error e = error_of([&] { write_image(link, gray); });
    EXPECT_EQ(e.code(), ErrorCode::io) << ext << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find("No space left"), std::string::npos) << e.what();
    EXPECT_TRUE(fs::is_character_file("/dev/full")) << "the device was replaced";
  }
  EXPECT_EQ(error_of([&] { write_npy("/dev/full", gray); }).code(), ErrorCode::io);
  EXPECT_EQ(error_of([&] { write_nv12("/dev/full", nv12_from_rgb(rgb)); }).code(), ErrorCode::io);
  EXPECT_EQ(error_of([&] { write_nv12("/dev/full", nv12_from_rgb(rgb), true); }).code(), ErrorCode::io);
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

// A file-size limit makes writes fail part-way, as a full disk does: the file that was there
// must survive (with --force it was destroyed before) and nothing may be left behind.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    old_handler_ = ::signal(SIGXFSZ, SIG_IGN);  // else the kernel ends the process
    ::getrlimit(RLIMIT_FSIZE, &old_);
    rlimit limit = old_;
    limit.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    ::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_{};
  void (*old_handler_)(int) = nullptr;
};

TEST(Writers, AFailedWriteKeepsTheOldFileAndLeavesNothing) {
  TempDir dir;
  const HostImage big = random_image(256, 256, Format{Depth::u8, 1}, 9);  // 64 KiB, incompressible
  const HostImage rgb = random_image(256, 256, Format{Depth::u8, 3}, 10);
  for (const std::string name : {"old.npy", "old.pgm", "old.png", "old.nv12"}) {
    put_file(dir / name, "the precious old content");
    ::chmod((dir / name).c_str(), 0640);
    {
      FileSizeLimit limit(8192);
      const Error e = error_of([&] {
        if (name == "old.nv12") {
          write_nv12(dir / name, nv12_from_rgb(rgb));
        } else {
          write_image(dir / name, big);
        }
      });
      EXPECT_EQ(e.code(), ErrorCode::io) << name << ": " << e.what();
    }
    EXPECT_EQ(file_text(dir / name), "the precious old content") << name;
    EXPECT_EQ(dir.names(), std::vector<std::string>{name}) << name;
    // A complete write replaces it, keeping its permissions.
    if (name == "old.nv12") {
      write_nv12(dir / name, nv12_from_rgb(rgb));
    } else {
      write_image(dir / name, big);
      EXPECT_TRUE(images_equal(big, name == "old.npy" ? read_npy(dir / name) : read_image(dir / name)));
    }
    EXPECT_EQ(fs::status(dir / name).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    fs::remove(dir / name);
  }
  {
    FileSizeLimit limit(8192);
    EXPECT_EQ(error_of([&] { write_image(dir / "new.pgm", big); }).code(), ErrorCode::io);
  }
  EXPECT_TRUE(dir.names().empty());
}

TEST(OutputFiles, CompleteOnlyOnCommit) {
  TempDir dir;
  put_file(dir / "out.txt", "old");
  {
    OutputFile out(dir / "out.txt", "test");
    out.write("new ");
    out.write(std::string(200000, 'x'));
    EXPECT_EQ(file_text(dir / "out.txt"), "old") << "replaced before the commit";
    EXPECT_EQ(dir.names().size(), 2u) << "the data should be in a temporary file beside the target";
    out.commit();
  }
  EXPECT_EQ(file_text(dir / "out.txt"), "new " + std::string(200000, 'x'));
  {
    OutputFile abandoned(dir / "out.txt", "test");
    abandoned.write("never committed");
  }
  EXPECT_EQ(file_text(dir / "out.txt").substr(0, 4), "new ");
  EXPECT_EQ(dir.names(), std::vector<std::string>{"out.txt"});
  // A link is followed: the file it points to is replaced, the link stays a link.
  fs::create_symlink(dir / "out.txt", dir / "link.txt");
  {
    OutputFile out(dir / "link.txt", "test");
    out.write("through the link");
    out.commit();
  }
  EXPECT_TRUE(fs::is_symlink(dir / "link.txt"));
  EXPECT_EQ(file_text(dir / "out.txt"), "through the link");
  // A directory, a missing directory and a FIFO without a reader are errors, without waiting.
  fs::create_directory(dir / "sub");
  EXPECT_EQ(error_of([&] { OutputFile out(dir / "sub", "test"); }).code(), ErrorCode::io);
  EXPECT_EQ(error_of([&] { OutputFile out(dir / "missing/out.txt", "test"); }).code(), ErrorCode::io);
  const std::string fifo = dir / "fifo.npy";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Error e = Error(ErrorCode::internal, "", "", "");
  finishes_within(60, [&] { e = error_of([&] { write_npy(fifo, random_image(4, 4, Format{}, 1)); }); }, "writing a FIFO");
  EXPECT_EQ(e.code(), ErrorCode::io) << e.what();
}

// The program cache's disk entries (src/core/program_cache.cpp): a FIFO hung the process, and a
// size field of 1 GiB was allocated before the read found the file short.
long peak_rss_kib() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

std::string cache_entry(std::uint64_t key, std::uint64_t size_field, const std::string& body) {
  std::string out = "PLNTHBIN";
  for (std::uint64_t v : {key, size_field, std::uint64_t{0}}) out.append(reinterpret_cast<const char*>(&v), sizeof v);
  return out + body;
}

TEST(ProgramCacheFiles, EntriesRoundTripAndEveryInconsistencyIsAMiss) {
  TempDir dir;
  const std::string entry = dir / "0123456789abcdef.bin";
  std::vector<std::byte> binary(1000);
  for (std::size_t i = 0; i < binary.size(); ++i) binary[i] = static_cast<std::byte>(i * 7);
  detail::store_cache_entry(entry, 42, binary);
  EXPECT_EQ(detail::load_cache_entry(entry, 42), binary);
  EXPECT_TRUE(detail::load_cache_entry(entry, 43).empty()) << "another key";
  EXPECT_EQ(dir.names(), std::vector<std::string>{"0123456789abcdef.bin"});
  const std::string stored = file_text(entry);
  put_file(entry, stored.substr(0, stored.size() - 1));
  EXPECT_TRUE(detail::load_cache_entry(entry, 42).empty()) << "truncated";
  put_file(entry, stored + "x");
  EXPECT_TRUE(detail::load_cache_entry(entry, 42).empty()) << "longer than its size field";
  std::string damaged = stored;
  damaged[damaged.size() - 3] ^= 1;
  put_file(entry, damaged);
  EXPECT_TRUE(detail::load_cache_entry(entry, 42).empty()) << "checksum";
  put_file(entry, "PLNT");
  EXPECT_TRUE(detail::load_cache_entry(entry, 42).empty()) << "short header";
  EXPECT_TRUE(detail::load_cache_entry(dir / "missing.bin", 42).empty());
  fs::create_directory(dir / "dir.bin");
  EXPECT_TRUE(detail::load_cache_entry(dir / "dir.bin", 42).empty());
}

TEST(ProgramCacheFiles, ALyingSizeFieldIsNotAllocated) {
  TempDir dir;
  const std::string entry = dir / "lying.bin";
  put_file(entry, cache_entry(42, std::uint64_t{1} << 30, std::string(100, 'x')));
  const long before = peak_rss_kib();
  EXPECT_TRUE(detail::load_cache_entry(entry, 42).empty());
  // 1 GiB zero-filled raises the peak by about 1 GiB; a miss without allocating, by nothing.
  EXPECT_LT(peak_rss_kib() - before, 256 * 1024) << "the claimed size was allocated";
}

TEST(ProgramCacheFiles, AFifoAtAnEntryIsAMissWithoutWaiting) {
  TempDir dir;
  const std::string entry = dir / "fifo.bin";
  ASSERT_EQ(::mkfifo(entry.c_str(), 0600), 0);
  finishes_within(60, [&] { EXPECT_TRUE(detail::load_cache_entry(entry, 42).empty()); }, "loading a FIFO entry");
  finishes_within(60, [&] { detail::store_cache_entry(entry, 42, std::vector<std::byte>(10)); }, "storing at a FIFO");
  EXPECT_TRUE(fs::is_fifo(entry));
}

// PoCL adds POCL_EXTRA_BUILD_FLAGS to every build (scripts/test.sh runs the C++ tests with
// -cl-opt-disable): an entry built with them must not serve a process without them, or the reverse.
TEST(ProgramCacheFiles, PoclsExtraBuildFlagsKeyEntriesOfTheirOwn) {
  if (!on_pocl(context())) GTEST_SKIP() << "PoCL only";
  const HostImage a = random_image(5, 3, Format{Depth::u8, 1}, 1);
  const HostImage sum = add(queue(), a, a);
  TempDir dir;
  const ScopedEnv cache("PLINTH_CACHE_DIR", (dir / "cache").c_str());
  // A new context each time: its programs come from the disk cache or from a build.
  const auto add_in_a_new_context = [&] {
    Context c;
    Queue q(c);
    EXPECT_TRUE(images_equal(add(q, a, a), sum));
    return program_counts(c);
  };
  std::size_t programs = 0;
  {
    const ScopedEnv flags("POCL_EXTRA_BUILD_FLAGS", nullptr);
    const ProgramCounts first = add_in_a_new_context();
    programs = first.compiled;
    EXPECT_GE(programs, 1u);
    EXPECT_EQ(first.disk_cache, 0u);
    EXPECT_EQ(add_in_a_new_context().disk_cache, programs);
  }
  {
    const ScopedEnv flags("POCL_EXTRA_BUILD_FLAGS", "-cl-opt-disable");
    const ProgramCounts first = add_in_a_new_context();
    EXPECT_EQ(first.disk_cache, 0u) << "an entry built without the flags served a build with them";
    EXPECT_EQ(first.compiled, programs);
    EXPECT_EQ(add_in_a_new_context().disk_cache, programs);
  }
  const ScopedEnv flags("POCL_EXTRA_BUILD_FLAGS", "");
  EXPECT_EQ(add_in_a_new_context().disk_cache, programs) << "empty flags are no flags";
}

}  // namespace
}  // namespace plinth::test
