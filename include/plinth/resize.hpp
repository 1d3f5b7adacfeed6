#pragma once
// Image resizing with OpenCV's definition. Bilinear resizing of 8-bit images reproduces
// cv::resize(INTER_LINEAR) and cv::resize(INTER_LINEAR_EXACT) of OpenCV 4.6 bit for bit. Linear: the same source coordinates
// ((x + 0.5) * scale - 0.5, computed in double and rounded to float), the same 11-bit
// fixed-point weights, the same vertical arithmetic ((weight * (row >> 4)) >> 16 per row, then
// (sum + 2) >> 2), the same edge clamping, the copy when the size does not change and the 2x2
// box average OpenCV substitutes when both axes shrink by exactly two. docs/resize.md has the
// rules.

#include "plinth/core.hpp"
#include "plinth/image.hpp"

namespace plinth {

enum class Interpolation {
  linear,        // cv::INTER_LINEAR (11-bit weights, OpenCV's vertical arithmetic)
  linear_exact,  // cv::INTER_LINEAR_EXACT (8-bit weights from double coordinates, rounded sums);
                 // what CascadeClassifier uses for its pyramid
};

// Resizes src (u8, 1-4 channels) to dst's size; dst must be allocated with src's format and
// must not overlap src. Views with pitch are fine.
Event resize(Queue& queue, const DeviceImage& src, DeviceImage& dst, Interpolation interpolation = Interpolation::linear);
// Allocates dst when it is empty (of `size`); otherwise dst's size must equal `size`.
Event resize(Queue& queue, const DeviceImage& src, DeviceImage& dst, Size size,
             Interpolation interpolation = Interpolation::linear);

// Synchronous convenience: upload, resize, download.
HostImage resize(Queue& queue, const HostImage& src, Size size, Interpolation interpolation = Interpolation::linear);

}  // namespace plinth
