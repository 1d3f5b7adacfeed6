/* Box filter: what every variant shares (box_filter.cl, box_filter_tiled.cl). The including file
 * defines SRC_T/SRC_DEPTH, DST_T/DST_DEPTH, CN, ACC_INT (and ACC_T where 0), OUT_MODE, HAS_FP64;
 * box_filter.cl lists them. */
#ifndef PLINTH_BOX_FILTER_CONVERT_H
#define PLINTH_BOX_FILTER_CONVERT_H

#include "common/dialect.h"
#include "common/types.h"
#include "common/border.h"

#define OUT_FIXED 0
#define OUT_SAT 1
#define OUT_SCALE 2
#define OUT_DOUBLE 3

#if ACC_INT
#define ACC_T uint
#endif

#if HAS_FP64
#define SCALE_D_PARAM , double scale_d
#else
#define SCALE_D_PARAM
#endif

/* Conversion parameters, the same for every variant. */
#define CONVERT_PARAMS int dd, int ds, int simd_end, float scale_f SCALE_D_PARAM
#define CONVERT_ARGS dd, ds, simd_end, scale_f SCALE_D_ARG
#if HAS_FP64
#define SCALE_D_ARG , scale_d
#else
#define SCALE_D_ARG
#endif

/* Saturating round-half-even stores of a float / double value, and saturation of an int. */
#if DST_DEPTH == DEPTH_U8
#define STORE_F(v) convert_uchar_sat_rte(v)
#define STORE_I(v) convert_uchar_sat(v)
#elif DST_DEPTH == DEPTH_U16
#define STORE_F(v) convert_ushort_sat_rte(v)
#define STORE_I(v) convert_ushort_sat(v)
#elif DST_DEPTH == DEPTH_S16
#define STORE_F(v) convert_short_sat_rte(v)
#define STORE_I(v) convert_short_sat(v)
#elif DST_DEPTH == DEPTH_S32
#define STORE_F(v) convert_int_sat_rte(v)
#define STORE_I(v) (v)
#elif DST_DEPTH == DEPTH_F32
#define STORE_F(v) ((float)(v))
#define STORE_I(v) ((float)(v))
#elif DST_DEPTH == DEPTH_F64
#define STORE_F(v) ((double)(v))
#define STORE_I(v) ((double)(v))
#endif

#if ACC_INT
INLINE DST_T box_convert(uint s, int e, CONVERT_PARAMS) {
#if OUT_MODE == OUT_FIXED
  return (DST_T)(((s + (uint)dd) * (uint)ds) >> 23);
#elif OUT_MODE == OUT_SAT
  return STORE_I(as_int(s));
#elif OUT_MODE == OUT_SCALE
#if DST_DEPTH == DEPTH_F64
  return (double)as_int(s) * scale_d;
#else
  /* OpenCV's vector lanes: cvt_f32(int) * (float)scale, rounded half to even. */
  if (e < simd_end) return STORE_F((float)as_int(s) * scale_f);
#if HAS_FP64
  return STORE_F((double)as_int(s) * scale_d);
#else
  return STORE_F((float)as_int(s) * scale_f);
#endif
#endif
#elif OUT_MODE == OUT_DOUBLE
  /* The exact integer sum in double, as OpenCV's double sums hold it. */
#if HAS_FP64
  return STORE_F((double)s * scale_d);
#else
  return STORE_F((float)s * scale_f);
#endif
#endif
}
#else
INLINE DST_T box_convert(ACC_T s, int e, CONVERT_PARAMS) {
  (void)e;
#if HAS_FP64
  return STORE_F(s * scale_d);
#else
  return STORE_F(s * scale_f);
#endif
}
#endif

/* Source element (pixel px, channel c) of row y, border-mapped; 0 outside for BORDER_CONSTANT. */
INLINE ACC_T load_src(GLOBAL const SRC_T* src, int src_offset, int src_step, int px, int c, int y, int width,
                      int height, int border) {
  const int xi = border_index(px, width, border);
  const int yi = border_index(y, height, border);
  if (xi < 0 || yi < 0) return (ACC_T)0;
  return (ACC_T)src[src_offset + yi * src_step + xi * CN + c];
}
#endif
