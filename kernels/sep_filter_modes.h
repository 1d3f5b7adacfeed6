/* The separable filter's arithmetic modes: the values of plinth::detail::SepMode
 * (src/ops/sep_filter_plan.hpp), which the host passes to kernels/sep_filter.cl and
 * kernels/sep_filter_tiled.cl as -DMODE. Plain #defines, read by the C++ host and by OpenCL C alike. */
#ifndef PLINTH_SEP_FILTER_MODES_H
#define PLINTH_SEP_FILTER_MODES_H

#define SEP_MODE_FLOAT 0    /* float rows (fma chain), float columns */
#define SEP_MODE_BITEXACT 1 /* sepFilter2D u8 -> u8 with 8-bit fixed-point smoothing kernels */
#define SEP_MODE_INT 2      /* integer kernels, exact int sums (u8 -> s16) */
#define SEP_MODE_GAUSS8 3   /* GaussianBlur u8: 8.8 fixed point */
#define SEP_MODE_GAUSS16 4  /* GaussianBlur u16: 16.16 fixed point */

#endif
