#pragma once
// Argument parsing and file handling shared by the `plinth filter box|sep|conv|gaussian` commands.

#include <string>
#include <vector>

#include "command.hpp"

namespace plinth::cli {

// "X,Y" -> Anchor; throws Error(invalid_argument) naming `what`.
Anchor parse_anchor(const std::string& text, const char* what);
// "a,b,c" (commas and/or spaces) -> numbers; throws Error(invalid_argument) naming `what`.
std::vector<float> parse_numbers(const std::string& text, const char* what);
// A 2-D kernel: rows separated by ';' or newlines, numbers by commas or spaces, either inline or
// in the text file named by `text`. Its size comes from the rows; a single row of n * n numbers
// is read as an n x n kernel.
std::vector<float> parse_kernel_2d(const std::string& text, Size& ksize);



}  // namespace plinth::cli
