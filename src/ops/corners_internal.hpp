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

// Sizes of the parallel passes whose results never depend on them (kernels/corners.cl): the
// running sums' speculative segments (steps per segment, steps each segment's chain starts before
// it) and the minDistance rounds launched before the one-work-item finish. Tests shrink them to
// reach the check passes and the finish on small images.
struct CornersTuning {
  int chain_segment = 64;
  int chain_warm = 16;
  int distance_rounds = 16;
};
CornersTuning& corners_tuning();
// kernels/corners.cl, built once for every aperture, window, border and response.
std::shared_ptr<Program> corners_program(Queue& queue);

void check_corner_args(Queue& queue, const DeviceImage& src, int block_size, int ksize, BorderMode border,
                       std::string_view op);
Event corner_response(Queue& queue, const DeviceImage& src, DeviceImage& dst, const CornerResponse& r);

}  // namespace plinth::detail
