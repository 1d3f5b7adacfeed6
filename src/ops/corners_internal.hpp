#pragma once
// Shared by src/ops/corners*.cpp: the response launcher and its argument checks.

#include <memory>
#include <string_view>

#include "core/launch.hpp"
#include "plinth/corners.hpp"

namespace plinth::detail {

struct CornerResponse {
  int block_size;
  int ksize;
  BorderMode border;
  bool harris;
  double k;
};

// Work-group size of corners_max and corners_distance_finish (kernels/corners.cl's GROUP).
inline constexpr int corners_group = 256;
// The tile of corners_sobel (its work-group; kernels/corners.cl's SOBEL_TW x SOBEL_TH).
inline constexpr int corners_sobel_tile_w = 32;
inline constexpr int corners_sobel_tile_h = 8;

// The running sums' work-groups (kernels/corners.cl, "The running sums"; build options there):
// their size, and the columns (column pass) or rows (row pass) each takes.
inline constexpr int corners_walk_threads = 128;
inline constexpr int corners_walk_cols = 8;
inline constexpr int corners_row_strip = 4;

// The minDistance rounds launched before the finish (kernels/corners.cl); results never depend on
// it. Tests lower it to reach the finish on small images.
struct CornersTuning {
  int distance_rounds = 16;
};
CornersTuning& corners_tuning();
// kernels/corners.cl, built once for every aperture, window, border and response.
std::shared_ptr<Program> corners_program(Queue& queue);

void check_corner_args(Queue& queue, const DeviceImage& src, int block_size, int ksize, BorderMode border,
                       std::string_view op);
Event corner_response(Queue& queue, const DeviceImage& src, DeviceImage& dst, const CornerResponse& r);

}  // namespace plinth::detail
