#pragma once
// Shared by src/ops/corners*.cpp: the response launcher and its argument checks.

#include <string_view>

#include "plinth/corners.hpp"

namespace plinth::detail {

struct CornerResponse {
  int block_size;
  int ksize;
  BorderMode border;
  bool harris;
  double k;
};

void check_corner_args(Queue& queue, const DeviceImage& src, int block_size, int ksize, BorderMode border,
                       std::string_view op);
Event corner_response(Queue& queue, const DeviceImage& src, DeviceImage& dst, const CornerResponse& r);

}  // namespace plinth::detail
