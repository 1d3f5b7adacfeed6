#pragma once
// A fuzz input as a file that plinth's readers open by path, as the CLI does: an anonymous
// in-memory file (memfd) named through /proc/self/fd, so nothing touches the disk or is left
// behind, and every reader's own open/seek/size code runs.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace plinth::fuzz {

class MemoryFile {
 public:
  MemoryFile(const std::uint8_t* data, std::size_t size) : fd_(memfd_create("plinth-fuzz", MFD_CLOEXEC)) {
    if (fd_ < 0) std::abort();
    while (size > 0) {
      const ssize_t n = write(fd_, data, size);
      if (n <= 0) std::abort();
      data += n;
      size -= static_cast<std::size_t>(n);
    }
  }
  ~MemoryFile() { close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

}  // namespace plinth::fuzz
