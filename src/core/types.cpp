#include "plinth/types.hpp"

#include <string>

#include "plinth/error.hpp"

namespace plinth {

std::size_t depth_size(Depth depth) noexcept {
  switch (depth) {
    case Depth::u8:
    case Depth::s8: return 1;
    case Depth::u16:
    case Depth::s16: return 2;
    case Depth::u32:
    case Depth::s32:
    case Depth::f32: return 4;
    case Depth::u64:
    case Depth::s64:
    case Depth::f64: return 8;
  }
  return 0;
}

bool is_float(Depth depth) noexcept { return depth == Depth::f32 || depth == Depth::f64; }

bool is_signed(Depth depth) noexcept {
  return depth == Depth::s8 || depth == Depth::s16 || depth == Depth::s32 || depth == Depth::s64 || is_float(depth);
}

std::string_view to_string(Depth depth) noexcept {
  switch (depth) {
    case Depth::u8: return "u8";
    case Depth::s8: return "s8";
    case Depth::u16: return "u16";
    case Depth::s16: return "s16";
    case Depth::u32: return "u32";
    case Depth::s32: return "s32";
    case Depth::u64: return "u64";
    case Depth::s64: return "s64";
    case Depth::f32: return "f32";
    case Depth::f64: return "f64";
  }
  return "?";
}

Depth parse_depth(std::string_view text) {
  for (Depth d : {Depth::u8, Depth::s8, Depth::u16, Depth::s16, Depth::u32, Depth::s32, Depth::u64, Depth::s64,
                  Depth::f32, Depth::f64}) {
    if (text == to_string(d)) return d;
  }
  throw Error(ErrorCode::invalid_argument, "parse_depth", "depth",
              "unknown depth '" + std::string(text) + "' (expected u8, s8, u16, s16, u32, s32, u64, s64, f32 or f64)");
}

}  // namespace plinth
