#pragma once
// Neighbourhood filters. Border handling follows OpenCV's border types exactly.

#include <string_view>

#include "plinth/core.hpp"
#include "plinth/image.hpp"

namespace plinth {

// How pixels outside the image are made up (OpenCV's BORDER_*), for a row "abcdefgh":
enum class BorderMode {
  constant,     // iiiiii|abcdefgh|iiiiiii   with a given value i (BORDER_CONSTANT)
  replicate,    // aaaaaa|abcdefgh|hhhhhhh   (BORDER_REPLICATE)
  reflect,      // fedcba|abcdefgh|hgfedcb   (BORDER_REFLECT)
  reflect_101,  // gfedcb|abcdefgh|gfedcba   (BORDER_REFLECT_101 = BORDER_DEFAULT)
  wrap,         // cdefgh|abcdefgh|abcdefg   (BORDER_WRAP)
};

std::string_view to_string(BorderMode mode) noexcept;
// Parses "constant", "replicate", "reflect", "reflect_101" (or "default") and "wrap".
BorderMode parse_border_mode(std::string_view text);

}  // namespace plinth
