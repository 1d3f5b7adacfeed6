#include "linear_filter_args.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace plinth::cli {
namespace {

bool parse_float(const std::string& token, float& out) {
  if (token.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(token.c_str(), &end);
  if (end != token.c_str() + token.size() || !std::isfinite(v)) return false;
  out = static_cast<float>(v);
  return true;
}

std::vector<float> parse_row(const std::string& row, const char* what) {
  std::vector<float> out;
  std::string token;
  auto flush = [&] {
    if (token.empty()) return;
    float v = 0;
    if (!parse_float(token, v)) {
      throw Error(ErrorCode::invalid_argument, "filter", what, "'" + token + "' is not a finite number");
    }
    out.push_back(v);
    token.clear();
  };
  for (char c : row) {
    if (c == ',' || c == ' ' || c == '\t' || c == '\r') {
      flush();
    } else {
      token += c;
    }
  }
  flush();
  return out;
}

}  // namespace

Anchor parse_anchor(const std::string& text, const char* what) {
  int x = 0, y = 0;
  char comma = 0, extra = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &x, &comma, &y, &extra) != 3 || comma != ',') {
    throw Error(ErrorCode::invalid_argument, "filter", what, "'" + text + "' is not an anchor X,Y");
  }
  return Anchor{x, y};
}

std::vector<float> parse_numbers(const std::string& text, const char* what) {
  std::vector<float> v = parse_row(text, what);
  if (v.empty()) throw Error(ErrorCode::invalid_argument, "filter", what, "has no numbers");
  return v;
}

std::vector<float> parse_kernel_2d(const std::string& text, Size& ksize) {
  std::string body = text;
  const bool inline_list = text.find_first_of(",;") != std::string::npos ||
                           text.find_first_not_of("0123456789.-+eE ") == std::string::npos;
  if (!inline_list) {
    // A regular file of sensible size only: opening a FIFO would wait for a writer forever.
    std::error_code ec;
    if (!std::filesystem::is_regular_file(text, ec)) {
      throw Error(ErrorCode::io, "filter", "--kernel", "'" + text + "' is not a list of numbers nor a regular file");
    }
    if (std::filesystem::file_size(text, ec) > (1u << 20)) {
      throw Error(ErrorCode::out_of_range, "filter", "--kernel", "'" + text + "' is larger than a kernel file can be (1 MiB)");
    }
    std::ifstream file(text);
    if (!file) throw Error(ErrorCode::io, "filter", "--kernel", "cannot open '" + text + "'");
    std::ostringstream all;
    all << file.rdbuf();
    body = all.str();
  }
  std::vector<std::vector<float>> rows;
  std::string row;
  for (char c : body + "\n") {
    if (c == ';' || c == '\n') {
      std::vector<float> r = parse_row(row, "--kernel");
      if (!r.empty()) rows.push_back(std::move(r));
      row.clear();
    } else {
      row += c;
    }
  }
  if (rows.empty()) throw Error(ErrorCode::invalid_argument, "filter", "--kernel", "has no coefficients");
  std::vector<float> flat;
  if (rows.size() == 1) {
    const std::size_t n = rows[0].size();
    const auto side = static_cast<std::size_t>(std::lround(std::sqrt(static_cast<double>(n))));
    if (side * side != n) {
      throw Error(ErrorCode::invalid_argument, "filter", "--kernel",
                  std::to_string(n) + " numbers in one row are not a square kernel; separate rows with ';'");
    }
    ksize = Size{static_cast<int>(side), static_cast<int>(side)};
    return rows[0];
  }
  for (const auto& r : rows) {
    if (r.size() != rows[0].size()) {
      throw Error(ErrorCode::invalid_argument, "filter", "--kernel", "rows have different lengths");
    }
    flat.insert(flat.end(), r.begin(), r.end());
  }
  ksize = Size{static_cast<int>(rows[0].size()), static_cast<int>(rows.size())};
  return flat;
}




}  // namespace plinth::cli
