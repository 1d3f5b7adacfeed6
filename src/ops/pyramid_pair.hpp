#pragma once
// subsampled_pyramid of a tracker's two frames in one launch per level (pyramid.cpp).
#include <vector>

#include "plinth/pyramid.hpp"

namespace plinth::detail {

// The levels of `a` and of `b` (one size; two distinct vectors), the same bit for bit as two
// calls of subsampled_pyramid, with each level of both made by one launch: the seed tracker's
// small levels fill the GPU twice as well.
Event subsampled_pyramid_pair(Queue& queue, const DeviceImage& a, std::vector<DeviceImage>& a_levels, const DeviceImage& b,
                              std::vector<DeviceImage>& b_levels, const SubsampledPyramidOptions& options);

}  // namespace plinth::detail
