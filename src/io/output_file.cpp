// OutputFile: every file plinth writes goes to a temporary file beside its target and is renamed
// into place when complete (plinth/io.hpp). open_input: the readers' side, regular files only.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <random>

#include "io/io_detail.hpp"
#include "plinth/error.hpp"
#include "plinth/io.hpp"

namespace plinth {
namespace {

constexpr std::size_t kBufferBytes = std::size_t{1} << 16;

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A name unlikely to be taken; O_EXCL makes sure it is not.
std::string random_suffix() {
  static thread_local std::mt19937_64 engine{std::random_device{}() ^ (static_cast<std::uint64_t>(::getpid()) << 32)};
  static const char digits[] = "0123456789abcdef";
  std::uint64_t value = engine();
  std::string text(8, '0');
  for (char& c : text) {
    c = digits[value & 15u];
    value >>= 4;
  }
  return text;
}

}  // namespace

OutputFile::OutputFile(std::string path, std::string operation) : path_(std::move(path)), operation_(std::move(operation)) {
  if (path_.empty()) throw Error(ErrorCode::invalid_argument, operation_, "path", "the output path is empty");
  target_ = path_;
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw Error(ErrorCode::io, operation_, path_, "is a directory");
    if (!S_ISREG(st.st_mode)) {
      // A device or FIFO: written in place (renaming a file over /dev/full would replace the
      // device). O_NONBLOCK so that a FIFO without a reader fails instead of waiting forever.
      fd_ = detail::open_without_waiting(path_, O_WRONLY);
      if (fd_ < 0) throw Error(ErrorCode::io, operation_, path_, errno_text("cannot open for writing"));
      buffer_.reserve(kBufferBytes);
      return;
    }
    struct stat link {};
    if (::lstat(path_.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
      // Replace the file the link points to, not the link.
      char resolved[PATH_MAX];
      if (::realpath(path_.c_str(), resolved) == nullptr) {
        throw Error(ErrorCode::io, operation_, path_, errno_text("cannot resolve the link"));
      }
      target_ = resolved;
    }
  }
  std::string name = name_of(target_);
  if (name.size() > 200) name.resize(200);  // room for the decoration within NAME_MAX
  const std::string dir = directory_of(target_);
  for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
    temp_ = dir + "/." + name + "." + random_suffix() + ".tmp";
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0 && errno != EEXIST) {
      const std::string reason = errno_text(("cannot create a file in " + dir).c_str());
      temp_.clear();
      throw Error(ErrorCode::io, operation_, path_, reason);
    }
  }
  if (fd_ < 0) {
    temp_.clear();
    throw Error(ErrorCode::io, operation_, path_, "cannot find a free temporary name in " + dir);
  }
  // A replaced file keeps its permissions.
  if (st.st_mode != 0 && S_ISREG(st.st_mode)) ::fchmod(fd_, st.st_mode & 07777);
  buffer_.reserve(kBufferBytes);
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)),
      operation_(std::move(other.operation_)),
      temp_(std::move(other.temp_)),
      target_(std::move(other.target_)),
      fd_(other.fd_),
      committed_(other.committed_),
      buffer_(std::move(other.buffer_)) {
  other.fd_ = -1;
  other.temp_.clear();
  other.committed_ = true;
}

OutputFile::~OutputFile() {
  if (!committed_) discard();
}

void OutputFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
  committed_ = true;  // nothing left to do
}

void OutputFile::write(const void* data, std::size_t size) {
  if (fd_ < 0) throw Error(ErrorCode::internal, operation_, path_, "write after the file was completed or failed");
  const char* bytes = static_cast<const char*>(data);
  if (buffer_.size() + size <= kBufferBytes) {
    buffer_.append(bytes, size);
    return;
  }
  flush_buffer();
  if (size < kBufferBytes) {
    buffer_.append(bytes, size);
    return;
  }
  buffer_.assign(bytes, size);
  flush_buffer();
}

void OutputFile::flush_buffer() {
  std::size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string reason = n < 0 ? errno_text("write failed") : std::string("write failed: nothing written");
      discard();
      throw Error(ErrorCode::io, operation_, path_, reason);
    }
    done += static_cast<std::size_t>(n);
  }
  buffer_.clear();
}

void OutputFile::commit() {
  if (committed_ || fd_ < 0) throw Error(ErrorCode::internal, operation_, path_, "commit of a completed or failed file");
  flush_buffer();
  // fsync before the rename, so that after a crash the path holds the old file or the new one.
  if (!temp_.empty() && ::fsync(fd_) != 0) {
    const std::string reason = errno_text("cannot sync");
    discard();
    throw Error(ErrorCode::io, operation_, path_, reason);
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const std::string reason = errno_text("cannot close");
    discard();
    throw Error(ErrorCode::io, operation_, path_, reason);
  }
  if (!temp_.empty() && ::rename(temp_.c_str(), target_.c_str()) != 0) {
    const std::string reason = errno_text("cannot rename the finished file into place");
    discard();
    throw Error(ErrorCode::io, operation_, path_, reason);
  }
  temp_.clear();
  committed_ = true;
}

namespace detail {

int open_without_waiting(const std::string& path, int flags, unsigned mode) {
  const int fd = ::open(path.c_str(), flags | O_NONBLOCK | O_CLOEXEC, static_cast<mode_t>(mode));
  if (fd < 0) return fd;
  const int now = ::fcntl(fd, F_GETFL);
  if (now >= 0) ::fcntl(fd, F_SETFL, now & ~O_NONBLOCK);
  return fd;
}

InputFile open_input(const std::string& path, const char* operation) {
  // Opening a FIFO must not wait for a writer; fstat then refuses it.
  const int fd = open_without_waiting(path, O_RDONLY);
  if (fd < 0) throw Error(ErrorCode::io, operation, path, errno_text("cannot open"));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const std::string reason = errno_text("cannot examine");
    ::close(fd);
    throw Error(ErrorCode::io, operation, path, reason);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(ErrorCode::io, operation, path, S_ISDIR(st.st_mode) ? "is a directory, not a file" : "is not a regular file");
  }
  std::FILE* file = ::fdopen(fd, "rb");
  if (file == nullptr) {
    const std::string reason = errno_text("cannot open");
    ::close(fd);
    throw Error(ErrorCode::io, operation, path, reason);
  }
  return InputFile{File(file), static_cast<std::uint64_t>(st.st_size)};
}

}  // namespace detail
}  // namespace plinth
