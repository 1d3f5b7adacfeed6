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

// Work-group size of corners_max (kernels/corners.cl's GROUP).
inline constexpr int corners_group = 256;
// kernels/corners.cl, built once for every aperture, window, border and response.
std::shared_ptr<Program> corners_program(Queue& queue);

void check_corner_args(Queue& queue, const DeviceImage& src, int block_size, int ksize, BorderMode border,
                       std::string_view op);
Event corner_response(Queue& queue, const DeviceImage& src, DeviceImage& dst, const CornerResponse& r);

}  // namespace plinth::detail
