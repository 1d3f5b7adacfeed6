#pragma once
// Helpers shared by the file readers and writers in src/io.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "plinth/image.hpp"
#include "plinth/io.hpp"

namespace plinth {
class OutputFile;
}

namespace plinth::detail {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// A regular file opened for reading and its size in bytes. Directories, FIFOs and devices are
// refused with Error(io) naming the path, without waiting (a FIFO without a writer would block).
struct InputFile {
  File file;
  std::uint64_t size = 0;
};
InputFile open_input(const std::string& path, const char* operation);

// ::open with O_NONBLOCK | O_CLOEXEC added, so that a FIFO without a reader (or writer) fails or
// returns at once instead of waiting for ever; O_NONBLOCK is cleared again on the opened descriptor,
// so reads and writes block as usual. Returns the descriptor, or -1 with errno set.
int open_without_waiting(const std::string& path, int flags, unsigned mode = 0);

// Lower-case extension with the dot (".png"), or empty.
std::string extension_of(const std::string& path);
// JPEG through libjpeg-turbo as cv::imread decodes it: one channel for a grey file or in `gray`
// mode (libjpeg's luma output, as IMREAD_GRAYSCALE), else RGB; turned to the EXIF orientation
// but in `unchanged` mode (as IMREAD_UNCHANGED). Reads `file` from where it stands.
HostImage read_jpeg(std::FILE* file, const std::string& path, ReadMode mode);
// PGM / PPM (P2, P3, P5, P6).
HostImage read_pnm(const std::string& path);
void write_pnm(OutputFile& out, const HostImage& image);
void write_npy_to(OutputFile& out, const HostImage& image);
// Refuses a header's size before anything is decoded: zero, beyond the library's image limits, or
// more than max_decoded_pixels (plinth/io.hpp). `what` names the format ("PNG").
void check_decoded_size(long long width, long long height, int channels, const char* what, const std::string& path);

}  // namespace plinth::detail
