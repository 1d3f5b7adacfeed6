/* Gaussian pyramids, method `strips`: the shapes that host code (src/ops/pyramid.cpp) and the
 * kernels (kernels/pyramid.cl, STRIPS) both know. Plain #defines, read by C++ and OpenCL C. */
#ifndef PLINTH_PYRAMID_STRIPS_H
#define PLINTH_PYRAMID_STRIPS_H

/* Bytes across a work-item owns: pyrDown's outputs (an 8-byte store, a 16-byte source load),
 * pyrUp's source bytes (an 8-byte load, two 16-byte stores); 8 pixels of one channel, 2 of four. */
#define STRIP_COLS 8
/* Rows a work-item owns (pyrDown: output rows, pyrUp: source rows): 4 keeps 11 (pyrDown) or 6
 * (pyrUp) source-row loads in flight per work-item and the re-read halo rows at 3/8 and 2/4. */
#define STRIP_ROWS 4
/* Work-group: STRIP_GX work-items side by side (a warp covers 512 source bytes of a row in
 * pyrDown, 512 output bytes in pyrUp), STRIP_GY strips below each other. */
#define STRIP_GX 32
#define STRIP_GY 4
/* Bits of the kernels' `vec` argument: the source's rows start on a boundary of its load word
 * (16 bytes for pyrDown, 8 for pyrUp); the destination's rows on one of its store word (8 for
 * pyrDown, 16 for pyrUp). Without them the kernels gather and store byte by byte. */
#define VEC_SRC 1
#define VEC_DST 2

#endif
