#pragma once
// plinth::Error: the one exception type of the library.

#include <stdexcept>
#include <string>
#include <string_view>

namespace plinth {

// User mistakes (invalid_argument .. format) are distinct from faults of the device, the
// driver or plinth itself (device .. internal).
enum class ErrorCode {
  invalid_argument,  // a parameter has a value the operation does not accept
  unsupported_type,  // the depth / channel combination is not implemented for this operation
  out_of_range,      // a size, index or region lies outside what is allowed
  io,                // a file cannot be opened, read or written
  format,            // a file or text is malformed (image, .npy, cascade XML, ...)
  device,            // no usable device, or an OpenCL call failed
  kernel_build,      // a kernel program failed to compile; the message carries the build log
  out_of_memory,     // host or device allocation failed
  internal,          // a broken invariant inside plinth: a bug, please report it
};

std::string_view to_string(ErrorCode code) noexcept;

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string operation, std::string argument, const std::string& message);

  ErrorCode code() const noexcept { return code_; }
  // The operation that failed, e.g. "integral" or "read_image".
  const std::string& operation() const noexcept { return operation_; }
  // The argument at fault, e.g. "src" or "sum_depth"; empty when none is.
  const std::string& argument() const noexcept { return argument_; }
  // The message without the operation/argument prefix that what() carries.
  const std::string& message() const noexcept { return message_; }

 private:
  ErrorCode code_;
  std::string operation_;
  std::string argument_;
  std::string message_;
};

}  // namespace plinth
