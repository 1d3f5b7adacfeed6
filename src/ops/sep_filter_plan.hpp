#pragma once
// The resolved form of a separable filtering request, shared by sep_filter and gaussian_blur,
// and the launcher of kernels/sep_filter.cl.

#include <array>
#include <cstdint>
#include <span>

#include "plinth/filters.hpp"
#include "../../kernels/sep_filter_modes.h"

namespace plinth::detail {

// Which arithmetic of OpenCV the separable kernels reproduce (their -DMODE).
enum class SepMode {  // values: kernels/sep_filter_modes.h, which the kernels read as -DMODE
  float_path = SEP_MODE_FLOAT,   // float rows and columns (fma chains in OpenCV's order)
  bit_exact = SEP_MODE_BITEXACT, // sepFilter2D u8 -> u8 with 8-bit fixed-point smoothing kernels
  integer = SEP_MODE_INT,        // integer kernels, exact int sums (u8 -> s16)
  gauss8 = SEP_MODE_GAUSS8,      // GaussianBlur u8 (8.8 fixed point)
  gauss16 = SEP_MODE_GAUSS16,    // GaussianBlur u16 (16.16 fixed point)
};

struct SepPlan {
  const DeviceImage* src = nullptr;
  DeviceImage* dst = nullptr;
  int kw = 1;
  int kh = 1;
  Anchor anchor;  // resolved
  BorderMode border = BorderMode::reflect_101;
  SepMode mode = SepMode::float_path;
  int col_kind = 0;  // float columns: 0 general, 1 symmetric, 2 antisymmetric
  std::array<std::uint32_t, 64> kx{};  // float bits or integers, per mode
  std::array<std::uint32_t, 64> ky{};
  float delta_f = 0.0f;
  int delta_i = 0;
  int tail = 0;  // bit_exact: elements of a row below it use OpenCV's vector arithmetic
  SepFilterMethod method = SepFilterMethod::automatic;
};

// OpenCV's getKernelType flags of a 1-D kernel anchored at `anchor`.
enum KernelTypeFlags : int {
  kernel_smooth = 1,
  kernel_symmetrical = 2,
  kernel_asymmetrical = 4,
  kernel_integer = 8,
};
int kernel_type(std::span<const float> kernel, int anchor);

std::uint32_t float_bits(float value);

Event launch_sep(Queue& queue, const SepPlan& plan);

// Method `tiled` (src/ops/sep_filter_tiled.cpp): u8 -> u8 fixed point (gauss8, or bit_exact with
// delta 0), non-negative integer taps summing to 256, at most sep_tiled_max_taps each way.
inline constexpr int sep_tiled_max_taps = 9;
// Output rows per work-item for this plan, or 0 where `tiled` does not apply.
int sep_tiled_rows(Queue& queue, const SepPlan& plan);
Event launch_sep_tiled(Queue& queue, const SepPlan& plan, int rpt);
// Method `wide_rows` (same file, kernels/sep_filter_wide_rows.cl): what `tiled` takes (whose
// kernels are all symmetric about their centre). Output rows per work-item for this plan, or 0
// where it does not apply.
int sep_wide_rows_rows(Queue& queue, const SepPlan& plan);
// Whether `automatic` takes wide_rows over tiled for this plan (both applying) on this device.
bool sep_wide_rows_preferred(Queue& queue, const SepPlan& plan);
Event launch_sep_wide_rows(Queue& queue, const SepPlan& plan, int rpt);

}  // namespace plinth::detail
