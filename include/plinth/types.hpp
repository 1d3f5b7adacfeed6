#pragma once
// Element depths, pixel formats and plain geometry shared by every area of plinth.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace plinth {

// The type of one channel value. Names follow OpenCV's depths (CV_8U is u8, CV_32S is s32, ...)
// plus the unsigned 32-bit and both 64-bit integer depths that exact integrals need.
enum class Depth : std::uint8_t { u8, s8, u16, s16, u32, s32, u64, s64, f32, f64 };

std::size_t depth_size(Depth depth) noexcept;
bool is_float(Depth depth) noexcept;
bool is_signed(Depth depth) noexcept;
std::string_view to_string(Depth depth) noexcept;  // "u8", "f32", ...
// Parses "u8", "s32", "f64", ...; throws Error(invalid_argument) for anything else.
Depth parse_depth(std::string_view text);

// Depth and channel count (1-4) of a pixel; OpenCV's "type" (CV_8UC3 is {Depth::u8, 3}).
struct Format {
  Depth depth = Depth::u8;
  int channels = 1;

  std::size_t pixel_size() const noexcept { return depth_size(depth) * static_cast<std::size_t>(channels); }
  friend bool operator==(const Format&, const Format&) = default;
};

struct Size {
  int width = 0;
  int height = 0;
  friend bool operator==(const Size&, const Size&) = default;
};

// A sub-pixel position (x right, y down, pixel centres at integers), as OpenCV's Point2f.
struct Point2f {
  float x = 0.0f;
  float y = 0.0f;
  friend bool operator==(const Point2f&, const Point2f&) = default;
};

struct Rect {
  int x = 0;
  int y = 0;
  int width = 0;
  int height = 0;
  friend bool operator==(const Rect&, const Rect&) = default;
};

// Largest width or height plinth accepts for an image, and the largest element count
// (so that every element index fits the kernels' 32-bit arithmetic).
inline constexpr int max_image_dimension = 1 << 17;
inline constexpr std::int64_t max_image_elements = (std::int64_t{1} << 31) - 1;

}  // namespace plinth
