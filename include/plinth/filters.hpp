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

// ---- Box filter, linear filters (separable and 2-D), Gaussian blur ----
// Semantics, exactness and limits: docs/filters.md. Outputs may be empty (then allocated with
// the source's size and the output depth) or allocated images of that size and format (views
// with pitch are fine). A view is filtered as a whole image: pixels outside it are never read
// (OpenCV's BORDER_ISOLATED).

#include <optional>
#include <span>
#include <vector>

namespace plinth {

// Position of the kernel's anchor inside the kernel; -1 means the centre (OpenCV's Point(-1,-1)).
struct Anchor {
  int x = -1;
  int y = -1;
  friend bool operator==(const Anchor&, const Anchor&) = default;
};

// ---- Box filter (cv::boxFilter, cv::blur) -----------------------------------------------------

enum class BoxFilterMethod {
  automatic,      // GPUs: wide_rows or tiled where they apply (docs/filters.md), else local_scan;
                  // CPUs: see docs/filters.md
  registers,      // running sums down columns and along rows, all in registers; narrow windows only
  local_scan,     // running sums down columns in registers, prefix sums along rows in local memory
  two_pass_8x8,   // the Adreno case study: 2x2 sums, then 16 of them; 8x8 normalized u8 only
  direct,         // every output sums its whole window: plain reference, cost grows with the size
  vector_strips,  // one vector of outputs per work-item down a strip of rows, its halo loaded by
                  // aligned vector loads, running sums in registers; small windows only
  tiled,          // a work-group's source tile in local memory, packed running sums per word of
                  // 4 outputs; u8 sources, windows of at most 64 rows, (width - 1) x channels <= 38
  wide_rows,      // a span of 16 elements of 2 or 4 rows per work-item, one 16-byte load a row,
                  // the halo from the work-items beside; u8 sources, windows of at most 9 rows
                  // whose sums fit 16 bits, at most 16 elements each side of the anchor
};
std::string_view to_string(BoxFilterMethod method) noexcept;
// Parses "auto", "wide_rows", "tiled", "registers", "local_scan", "two_pass_8x8", "direct" or "vector_strips".
BoxFilterMethod parse_box_filter_method(std::string_view text);

inline constexpr int box_filter_max_ksize = 255;

struct BoxFilterOptions {
  Size ksize{3, 3};                      // 1 to box_filter_max_ksize each way, odd or even
  Anchor anchor;                         // default: the centre (ksize / 2)
  bool normalize = true;                 // divide by the window area (cv::blur)
  BorderMode border = BorderMode::reflect_101;  // constant (value 0), replicate, reflect, reflect_101
  std::optional<Depth> ddepth;           // OpenCV's ddepth; empty: the source's depth
  BoxFilterMethod method = BoxFilterMethod::automatic;
};

// Sources u8, u16, f32 with 1-4 channels; ddepth u8, u16, s16, s32, f32 or f64.
Event box_filter(Queue& queue, const DeviceImage& src, DeviceImage& dst, const BoxFilterOptions& options = {});
HostImage box_filter(Queue& queue, const HostImage& src, const BoxFilterOptions& options = {});

// ---- Separable linear filter (cv::sepFilter2D) ------------------------------------------------

inline constexpr int sep_filter_max_taps = 63;

enum class SepFilterMethod {
  automatic,     // GPUs: wide_rows or tiled where they apply (NVIDIA sm_90: wide_rows where it
                 // measured faster, docs/filters.md), else fused_direct when its tile fits the
                 // device's local memory; CPUs: fused; else two_pass
  fused,         // one launch: a tile and its rows filtered in local memory, then its columns
  two_pass,      // rows into a device intermediate, then columns: any size up to the limit
  fused_direct,  // one launch: rows filtered straight from device memory (vector loads) into a
                 // local tile, then its columns; only the row results pass through local memory
  tiled,         // u8 -> u8 8-bit fixed point (GaussianBlur u8; sepFilter2D smoothing kernels with
                 // delta 0), up to 9 taps each way: the source tile in local memory once, rows
                 // two outputs per multiply-add, columns slid down in registers
  wide_rows,     // what tiled takes: a span of 16 elements of 2 or 4 rows per work-item, one
                 // 16-byte load a row, columns two outputs per multiply-add, the halo's column
                 // sums from the neighbouring work-items, rows in 32-bit sums
};
std::string_view to_string(SepFilterMethod method) noexcept;
// Parses "auto", "fused", "two_pass", "fused_direct", "tiled" or "wide_rows".
SepFilterMethod parse_sep_filter_method(std::string_view text);

struct LinearFilterOptions {
  Anchor anchor;                         // default: the kernel's centre
  double delta = 0.0;                    // added to every result before it is stored
  BorderMode border = BorderMode::reflect_101;  // constant (0), replicate, reflect, reflect_101
  std::optional<Depth> ddepth;           // empty: the source's depth
};

struct SepFilterOptions : LinearFilterOptions {
  SepFilterMethod method = SepFilterMethod::automatic;
};

// Correlation (no kernel flip) with kx along rows and ky along columns, 1 to
// sep_filter_max_taps each. Sources u8 (ddepth u8, s16 or f32) and f32 (ddepth f32), 1-4 channels.
Event sep_filter(Queue& queue, const DeviceImage& src, DeviceImage& dst, std::span<const float> kx,
                 std::span<const float> ky, const SepFilterOptions& options = {});
HostImage sep_filter(Queue& queue, const HostImage& src, std::span<const float> kx, std::span<const float> ky,
                     const SepFilterOptions& options = {});

// ---- Non-separable linear filter (cv::filter2D) -----------------------------------------------

inline constexpr int filter2d_max_ksize = 31;

enum class Filter2DMethod {
  automatic,   // GPUs: tiled_rows, else fused, when a tile fits the device's local memory; CPUs:
               // fused; else direct
  fused,       // the source tile in local memory, a block of outputs per work-item
  direct,      // every output reads its window from device memory: the plain reference
  tiled_rows,  // as fused, but each tile row is read once for all the block's output rows, with
               // vector loads, and the coefficients come from local memory
};
std::string_view to_string(Filter2DMethod method) noexcept;
// Parses "auto", "fused", "direct" or "tiled_rows".
Filter2DMethod parse_filter2d_method(std::string_view text);

struct Filter2DOptions : LinearFilterOptions {
  Filter2DMethod method = Filter2DMethod::automatic;
};

// Coefficients kept on the device, so that filter2d enqueues without waiting. Building one
// uploads the coefficients and waits for that upload.
class Filter2DKernel {
 public:
  Filter2DKernel() = default;
  // Row-major coefficients of a width x height kernel (1 to filter2d_max_ksize each way).
  Filter2DKernel(Queue& queue, Size ksize, std::span<const float> coefficients);

  bool empty() const noexcept { return coefficients_.empty(); }
  Size ksize() const noexcept { return ksize_; }
  const std::vector<float>& coefficients() const noexcept { return coefficients_; }
  const DeviceImage& device() const noexcept { return device_; }

 private:
  Size ksize_{};
  std::vector<float> coefficients_;
  DeviceImage device_;
};

// Sources u8 (ddepth u8, s16 or f32) and f32 (ddepth f32), 1-4 channels.
Event filter2d(Queue& queue, const DeviceImage& src, DeviceImage& dst, const Filter2DKernel& kernel,
               const Filter2DOptions& options = {});
// Convenience: builds the kernel (one upload, waited for), filters, downloads.
HostImage filter2d(Queue& queue, const HostImage& src, Size ksize, std::span<const float> coefficients,
                   const Filter2DOptions& options = {});

// ---- Gaussian blur (cv::GaussianBlur, cv::getGaussianKernel) ---------------------------------

struct GaussianBlurOptions {
  Size ksize{0, 0};         // odd, 1 to sep_filter_max_taps; 0: derived from the sigma
  double sigma_x = 0.0;     // <= 0: derived from ksize.width
  double sigma_y = 0.0;     // <= 0: equal to sigma_x
  BorderMode border = BorderMode::reflect_101;  // wrap only for u8 and u16, as OpenCV
  SepFilterMethod method = SepFilterMethod::automatic;
};

// Sources u8 and u16 (OpenCV's bit-exact fixed-point path) and f32; 1-4 channels; same depth out.
Event gaussian_blur(Queue& queue, const DeviceImage& src, DeviceImage& dst, const GaussianBlurOptions& options = {});
HostImage gaussian_blur(Queue& queue, const HostImage& src, const GaussianBlurOptions& options = {});

// cv::getGaussianKernel(n, sigma, CV_64F): n odd coefficients summing to 1.
std::vector<double> gaussian_kernel(int n, double sigma);

}  // namespace plinth

// ---- Median and epsilon filters ----

#include "plinth/nv12.hpp"

namespace plinth {

enum class MedianMethod {
  automatic,       // the fastest exact method for the depth and size (see docs/filters.md)
  plain,           // each output sorts (u8: counts) its whole window: the obviously correct reference
  network,         // per output, a min/max exchange network: the case study's 22 exchanges for 3x3,
                   // forgetful selection for 5x5 and 7x7
  sorted_columns,  // 3x3: each column of 3 sorted once and shared by neighbouring outputs, then
                   // median(max of minima, median of medians, min of maxima)
  histogram,       // u8, any size: a running histogram per column walking down (Huang), about
                   // 2 * ksize updates per output
  tiled,           // 3x3 to 9x9: a tile of outputs per work-item from one min/max network that sorts
                   // each column piece once, merges the windows' shared parts hierarchically and
                   // drops values that can no longer be a median (generated, see docs/filters.md)
  sorted_rows_packed,  // 3x3, u8, 1, 2 or 4 channels: each row of 3 sorted once and shared by the 3
                       // output rows that read it, two values per 32-bit register (16-bit lanes: one
                       // packed min/max orders both; native on NVIDIA sm_90 and newer)
  tiled_packed,  // tiled on two tiles at once (one above the other), one value of each in the
                 // 16-bit lanes of a register: one packed min/max orders both; u8 3x3 to 9x9, u16
                 // 3x3 and 5x5; native on NVIDIA sm_90 and newer
};

std::string_view to_string(MedianMethod method) noexcept;
// Parses "auto", "plain", "network", "sorted_columns", "histogram", "tiled" or "sorted_rows_packed".
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
  automatic,  // pairs for 3x3 and 5x5, blocked for 7x7 and 9x9, tiled for the others
  plain,      // one output per work-item straight from global memory: the reference
  tiled,      // work-group tiles in local memory, several outputs per work-item, no division
  blocked,    // tiled with a block of 4 x 4 outputs per work-item and sum and count packed in one word
  pairs,      // one test per unordered pair of window values, serving both ends; windows up to 11x11
};
// Every method, in the order of the enum (parsing and the bench loop over it).
inline constexpr EpsilonMethod epsilon_methods[] = {EpsilonMethod::automatic, EpsilonMethod::plain, EpsilonMethod::tiled,
                                                     EpsilonMethod::blocked, EpsilonMethod::pairs};

std::string_view to_string(EpsilonMethod method) noexcept;
// Parses "auto", "plain", "tiled", "blocked" or "pairs".
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

