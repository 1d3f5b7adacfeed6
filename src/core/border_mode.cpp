#include <string>

#include "plinth/error.hpp"
#include "plinth/filters.hpp"

namespace plinth {

std::string_view to_string(BorderMode mode) noexcept {
  switch (mode) {
    case BorderMode::constant: return "constant";
    case BorderMode::replicate: return "replicate";
    case BorderMode::reflect: return "reflect";
    case BorderMode::reflect_101: return "reflect_101";
    case BorderMode::wrap: return "wrap";
  }
  return "?";
}

BorderMode parse_border_mode(std::string_view text) {
  if (text == "default") return BorderMode::reflect_101;
  for (BorderMode m : {BorderMode::constant, BorderMode::replicate, BorderMode::reflect, BorderMode::reflect_101,
                       BorderMode::wrap}) {
    if (text == to_string(m)) return m;
  }
  throw Error(ErrorCode::invalid_argument, "parse_border_mode", "border",
              "unknown border mode '" + std::string(text) + "' (expected constant, replicate, reflect, reflect_101 or wrap)");
}

}  // namespace plinth
