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
    : std::runtime_error(compose(operation, argument, message)),
      code_(code),
      operation_(std::move(operation)),
      argument_(std::move(argument)),
      message_(message) {}

}  // namespace plinth
