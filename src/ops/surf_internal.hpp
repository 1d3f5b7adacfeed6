#pragma once
// What the SURF CPU reference (surf_reference.cpp) and the device op (surf.cpp) share: the layers of
// the scale space with their box filters, the Gaussian weight tables, the keypoint order and the
// steps of the description that both run per keypoint on the host side of the comparison.
#include <array>
#include <vector>

#include "plinth/features.hpp"

#include "../../kernels/surf_shape.h"

namespace plinth::detail {

// A box of a Haar pattern, corners relative to the pattern's top-left sample in the integral
// image: the sum over x1 <= x < x2, y1 <= y < y2.
struct SurfBox {
  int x1 = 0, y1 = 0, x2 = 0, y2 = 0;
};

// One layer of the scale space (OpenCV's dets[index]): filter size, sampling step, its grid (rows x
// cols samples, image size / step) and where it is filled: sample (i, j) of the grid lies at
// (i + fill_margin, j + fill_margin) and reads the integral image from (i * step, j * step), for
// i < fill_rows, j < fill_cols (0 when the filter does not fit the image).
struct SurfLayer {
  int octave = 0, layer = 0, size = 0, step = 1;
  int rows = 0, cols = 0;
  int fill_margin = 0, fill_rows = 0, fill_cols = 0;
  // Dxx: boxes weighted +1, -2, +1; Dyy likewise; Dxy: +1, -1, -1, +1; each box's weight is its
  // sign times w (the boxes of one pattern have equal areas), w = 1 / area as a float.
  std::array<SurfBox, 3> dxx{}, dyy{};
  std::array<SurfBox, 4> dxy{};
  float wxx = 0, wyy = 0, wxy = 0;
};

// Every layer, octave by octave (n_octave_layers + 2 per octave), as OpenCV allocates them.
std::vector<SurfLayer> surf_layers(int width, int height, const SurfParams& params);

// The orientation samples' offsets (x, y in units of s) in OpenCV's order and the weights table
// (SURF_TABLE_SIZE floats: orientation weights, then the 20 x 20 patch weights).
const std::array<std::array<int, 2>, SURF_ORI_SAMPLES>& surf_orientation_offsets();
const std::vector<float>& surf_weights();

// OpenCV's KeypointGreater: response, size, octave descending; then y descending, x ascending.
bool surf_keypoint_before(const KeyPoint& a, const KeyPoint& b);

// The sum of box b of a pattern whose top-left sample is (x, y) in an integral image of row pitch
// `pitch` ints.
inline int surf_box_sum(const int* sum, int pitch, int x, int y, const SurfBox& b) {
  return sum[(y + b.y1) * pitch + x + b.x1] + sum[(y + b.y2) * pitch + x + b.x2] - sum[(y + b.y2) * pitch + x + b.x1] -
         sum[(y + b.y1) * pitch + x + b.x2];
}

}  // namespace plinth::detail
