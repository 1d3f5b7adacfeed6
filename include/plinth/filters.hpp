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

// ==== median and epsilon filters (filters-b) ====================================================

#include "plinth/nv12.hpp"

namespace plinth {

enum class MedianMethod {
  automatic,       // the fastest exact method for the depth and size (see docs/filters_b.md)
  plain,           // each output sorts (u8: counts) its whole window: the obviously correct reference
  network,         // per output, a min/max exchange network: the case study's 22 exchanges for 3x3,
                   // forgetful selection for 5x5 and 7x7
  sorted_columns,  // 3x3: each column of 3 sorted once and shared by neighbouring outputs, then
                   // median(max of minima, median of medians, min of maxima)
  histogram,       // u8, any size: a running histogram per column walking down (Huang), about
                   // 2 * ksize updates per output
};

std::string_view to_string(MedianMethod method) noexcept;
// Parses "auto", "plain", "network", "sorted_columns" or "histogram".
MedianMethod parse_median_method(std::string_view text);

struct MedianOptions {
  // Odd window side. u8: 1 to 255; u16, s16, f32: 1, 3 or 5 (cv::medianBlur's limits). 1 copies.
  int ksize = 3;
  // cv::medianBlur always replicates; the other modes are offered as plinth extensions.
  BorderMode border = BorderMode::replicate;
  double border_value = 0.0;  // for BorderMode::constant, saturated to the depth
  MedianMethod method = MedianMethod::automatic;
};

// cv::medianBlur: dst(x, y) is the median of the ksize x ksize window around (x, y), channels
// independent, 1-4 channels. dst may be empty (allocated) or an image of src's shape; it must
// not overlap src.
Event median_blur(Queue& queue, const DeviceImage& src, DeviceImage& dst, const MedianOptions& options = {});
HostImage median_blur(Queue& queue, const HostImage& src, const MedianOptions& options = {});

enum class EpsilonMethod {
  automatic,  // tiled
  plain,      // one output per work-item straight from global memory: the reference
  tiled,      // work-group tiles in local memory, several outputs per work-item, no division
};

std::string_view to_string(EpsilonMethod method) noexcept;
// Parses "auto", "plain" or "tiled".
EpsilonMethod parse_epsilon_method(std::string_view text);

// The epsilon filter of the Adreno case study (docs/epsilon_filter.md has the exact formula):
//   out(x, y) = round_half_up(sum of S / |S|),  S = { v in the window : |v - centre| <= threshold }
// over the window x window neighbourhood (the centre always belongs to S).
struct EpsilonOptions {
  int window = 5;      // odd, 1 to 31
  int threshold = 20;  // 0 to 255
  BorderMode border = BorderMode::reflect_101;
  int border_value = 0;  // for BorderMode::constant, 0 to 255
  EpsilonMethod method = EpsilonMethod::automatic;
};

// On one u8C1 plane. dst may be empty (allocated) or a u8C1 image of src's size, not overlapping it.
Event epsilon_filter(Queue& queue, const DeviceImage& src, DeviceImage& dst, const EpsilonOptions& options = {});
// On an NV12 frame: Y filtered, UV copied unchanged. dst's planes may be empty (allocated).
Event epsilon_filter(Queue& queue, const DeviceNv12Frame& src, DeviceNv12Frame& dst, const EpsilonOptions& options = {});
Nv12Frame epsilon_filter(Queue& queue, const Nv12Frame& src, const EpsilonOptions& options = {});

}  // namespace plinth

// ==== end of median and epsilon filters (filters-b) =============================================
