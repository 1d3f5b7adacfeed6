#pragma once
// OpenCV's Gaussian kernels, bit for bit: getGaussianKernelBitExact (softdouble arithmetic,
// reproduced in IEEE double with OpenCV's own exp algorithm) and the fixed-point kernels of its
// bit-exact GaussianBlur (getGaussianKernelFixedPoint_ED).

#include <cstdint>
#include <vector>

namespace plinth::detail {

// n >= 1 coefficients for sigma (<= 0: derived from n, or the fixed tables of n = 1, 3, 5, 7, 9).
std::vector<double> gaussian_kernel_bit_exact(int n, double sigma);

// The kernel in fixed point with `bits` fraction bits (8 or 16), rounded with error diffusion
// from the outside in; the centre takes what makes the sum exactly 1 << bits. n odd.
std::vector<std::uint32_t> gaussian_kernel_fixed_point(const std::vector<double>& kernel, int bits);

}  // namespace plinth::detail
