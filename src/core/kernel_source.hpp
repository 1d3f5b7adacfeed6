#pragma once
// Kernel files: embedded into the library at build time (kernels/CMakeLists.txt), or read from
// the directory named by PLINTH_KERNEL_DIR while developing.

#include <span>
#include <string>
#include <string_view>

namespace plinth::detail {

struct EmbeddedKernelFile {
  std::string_view path;    // relative to kernels/, e.g. "integral.cl", "common/dialect.h"
  std::string_view text;
  std::string_view sha256;  // of the file as embedded
};

// Generated: build/kernels/embedded_kernels.cpp.
const std::span<const EmbeddedKernelFile> embedded_kernel_files();

// The text of `file` with every `#include "..."` of another kernel file replaced by that file's
// text (each file once), with #line markers so build logs point at the original files.
std::string resolved_kernel_source(std::string_view file);

}  // namespace plinth::detail
