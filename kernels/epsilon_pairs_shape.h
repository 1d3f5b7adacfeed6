/* Epsilon filter, method `pairs`: the shapes that host code (src/ops/epsilon.cpp) and the kernel
 * (kernels/epsilon_pairs.cl) both know. Plain #defines, read by the C++ host and by OpenCL C. */
#ifndef PLINTH_EPSILON_PAIRS_SHAPE_H
#define PLINTH_EPSILON_PAIRS_SHAPE_H

/* Work-items of a work-group: TW_WORDS work-items side by side, each owning the 4 outputs of one
 * 32-bit word of a row (128 outputs), and EPS_PAIRS_GROUP / EPS_PAIRS_TW_WORDS strips of RPT rows
 * below each other. */
#define EPS_PAIRS_GROUP 256
#define EPS_PAIRS_TW_WORDS 32
/* The widest window: a window's count n and sum S share one float, 2^23 + n U + S with U the
 * power of two above 255 * area, which must stay below 2^24 (11x11: U = 2^15, 121 U + 30855 < 2^23;
 * 13x13 would need U = 2^16 and 169 U > 2^23). */
#define EPS_PAIRS_MAX_WINDOW 11

#endif
