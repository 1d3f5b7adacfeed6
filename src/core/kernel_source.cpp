#include "core/kernel_source.hpp"

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "plinth/error.hpp"

namespace plinth::detail {
namespace {

std::string read_kernel_file(std::string_view path) {
  if (const char* dir = std::getenv("PLINTH_KERNEL_DIR"); dir != nullptr && *dir != '\0') {
    std::ifstream in(std::string(dir) + "/" + std::string(path), std::ios::binary);
    if (!in) {
      throw Error(ErrorCode::io, "kernel source", std::string(path),
                  "cannot read it from PLINTH_KERNEL_DIR=" + std::string(dir));
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  for (const auto& file : embedded_kernel_files()) {
    if (file.path == path) return std::string(file.text);
  }
  throw Error(ErrorCode::internal, "kernel source", std::string(path), "no such kernel file is embedded");
}

// Returns the quoted name of an `#include "name"` line, or an empty view.
std::string_view include_target(std::string_view line) {
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos || line[i] != '#') return {};
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string_view::npos || line.substr(i, 7) != "include") return {};
  std::size_t open = line.find('"', i + 7);
  if (open == std::string_view::npos) return {};
  std::size_t close = line.find('"', open + 1);
  if (close == std::string_view::npos) return {};
  return line.substr(open + 1, close - open - 1);
}

void append_resolved(std::string_view path, std::set<std::string, std::less<>>& seen, std::string& out, int depth) {
  if (depth > 16) throw Error(ErrorCode::internal, "kernel source", std::string(path), "includes nest too deeply");
  if (!seen.insert(std::string(path)).second) return;
  const std::string text = read_kernel_file(path);
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  out += "#line 1 \"" + std::string(path) + "\"\n";
  while (std::getline(lines, line)) {
    ++number;
    std::string_view target = include_target(line);
    if (target.empty()) {
      out += line;
      out += '\n';
      continue;
    }
    append_resolved(target, seen, out, depth + 1);
    out += "#line " + std::to_string(number + 1) + " \"" + std::string(path) + "\"\n";
  }
}

}  // namespace

std::string resolved_kernel_source(std::string_view file) {
  std::set<std::string, std::less<>> seen;
  std::string out;
  append_resolved(file, seen, out, 0);
  return out;
}

}  // namespace plinth::detail
