#include "plinth/error.hpp"

namespace plinth {

std::string_view to_string(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::invalid_argument: return "invalid argument";
    case ErrorCode::unsupported_type: return "unsupported type";
    case ErrorCode::out_of_range: return "out of range";
    case ErrorCode::io: return "I/O error";
    case ErrorCode::format: return "format error";
    case ErrorCode::device: return "device error";
    case ErrorCode::kernel_build: return "kernel build error";
    case ErrorCode::out_of_memory: return "out of memory";
    case ErrorCode::internal: return "internal error";
  }
  return "unknown error";
}

namespace {

// User text reaches messages (an unknown method name, a path, a token from a file); each part is
// kept to about 1000 characters, its middle left out, so that an error stays a readable line.
// Build logs (kernel_build) are kept whole.
std::string bounded(std::string text, ErrorCode code) {
  constexpr std::size_t limit = 1000, head = 700, tail = 200;
  if (code == ErrorCode::kernel_build || text.size() <= limit) return text;
  return text.substr(0, head) + " ... (" + std::to_string(text.size() - head - tail) + " characters left out) ... " +
         text.substr(text.size() - tail);
}

std::string compose(std::string_view operation, std::string_view argument, const std::string& message) {
  std::string text(operation);
  if (!argument.empty()) {
    text += text.empty() ? "" : ": ";
    text += argument;
  }
  if (!text.empty()) text += ": ";
  return text + message;
}
}  // namespace

Error::Error(ErrorCode code, std::string operation, std::string argument, const std::string& message)
    : std::runtime_error(compose(operation, bounded(argument, code), bounded(message, code))),
      code_(code),
      operation_(std::move(operation)),
      argument_(bounded(std::move(argument), code)),
      message_(bounded(message, code)) {}

}  // namespace plinth
