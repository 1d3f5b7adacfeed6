/* Gaussian pyramids, method `strips`: the shapes that host code (src/ops/pyramid.cpp) and the
 * kernels (kernels/pyramid.cl, STRIPS) both know. Plain #defines, read by C++ and OpenCL C. */
#ifndef PLINTH_PYRAMID_STRIPS_H
#define PLINTH_PYRAMID_STRIPS_H

/* Bytes across a work-item owns: pyrDown's outputs (an 8-byte store, a 16-byte source load),
 * pyrUp's source bytes (an 8-byte load, two 16-byte stores); 8 pixels of one channel, 2 of four. */
#define STRIP_COLS 8
/* Rows a work-item owns (pyrDown: output rows, pyrUp: source rows) and strips per work-group
 * (STRIP_GX work-items side by side: a warp covers 512 source bytes of a row in pyrDown, 512
 * output bytes in pyrUp). pyrDown: 3 rows (9 source-row loads in flight per work-item, 3 of them
 * halo rows that the strip above reads too), 4 strips; pyrUp: 2 rows (4 loads), 2 strips. Chosen
 * on the H100 from a sweep of rows 2, 3, 4, 6 and strips 1, 2, 4, 8 (2026-11-25 16:20 UTC, CUDA,
 * u8; docs/filters.md): pyrDown 22.35 / 9.70 us at 7680x4320 / 3840x2160 against 23.52 / 9.81
 * with 4 rows and 4 strips, pyrUp to those sizes 20.29 / 8.48 against 21.92 / 9.33. */
#define DOWN_STRIP_ROWS 3
#define DOWN_STRIP_GY 4
#define UP_STRIP_ROWS 2
#define UP_STRIP_GY 2
#define STRIP_GX 32
/* Bits of the kernels' `vec` argument: the source's rows start on a boundary of its load word
 * (16 bytes for pyrDown, 8 for pyrUp); the destination's rows on one of its store word (8 for
 * pyrDown, 16 for pyrUp). Without them the kernels gather and store byte by byte. */
#define VEC_SRC 1
#define VEC_DST 2

#endif
