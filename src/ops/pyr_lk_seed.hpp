#pragma once
// Method seed of calc_optical_flow_pyr_lk: the case study's translation KLT (pyr_lk_seed.cpp).
#include "plinth/klt.hpp"

namespace plinth::detail {

// Tracks from prev.levels[0] to next.levels[0] (u8 or f32, one channel, equal sizes) on
// subsampled pyramids (built into seed_levels) of params.max_level + 1 levels at most, fewer where
// a level would be no larger than the window.
Event seed_track(Queue& queue, const OpticalFlowPyramid& prev, const OpticalFlowPyramid& next, const DeviceArray& prev_pts,
                 const DeviceArray& next_pts, const DeviceArray& status, const DeviceArray& err, const PyrLkParams& params);

}  // namespace plinth::detail
