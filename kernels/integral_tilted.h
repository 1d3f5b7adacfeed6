/* The tilted integral's stores and loads, shared by kernels/integral.cl (the ordered recurrence)
 * and kernels/integral_tilted_skewed.cl: TACC is the accumulator, uint for 32-bit integer outputs
 * (which then wrap as OpenCV's int does), the output type otherwise. */
#ifndef PLINTH_INTEGRAL_TILTED_H
#define PLINTH_INTEGRAL_TILTED_H

#if TILTED_DEPTH == DEPTH_S32
#define T_STORE(a) as_int(a)
#define T_LOAD(d) as_uint(d)
#else
#define T_STORE(a) ((TILTED_T)(a))
#define T_LOAD(d) ((TACC)(d))
#endif

#endif
