/* Scale and convert between depths: cv::Mat::convertTo(dst, depth, alpha, beta). Host side:
 * src/ops/convert.cpp. Options:
 *   SRC_T / SRC_DEPTH, DST_T / DST_DEPTH   element types
 *   WT                 working type: float, or double where OpenCV computes in double
 *   VEC                elements per work-item in convert_vector
 * Arguments (uniform branches, so that one program per pair of depths serves every call):
 *   scale              1: w = fma(src, alpha, beta) in WT (OpenCV's fused multiply-add);
 *                      0: alpha = 1 and beta = 0, a plain conversion as OpenCV's (which keeps -0.0)
 *   aligned            as in arithm.cl
 * Floating values become integers as OpenCV does on x86: rounded half to even, and values at or
 * beyond 2^31 in magnitude (or NaN) become INT_MIN before the saturation to the destination. */
#include "common/dialect.h"
#include "common/types.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#define SRC_IS_FLOAT DEPTH_IS_FLOAT(SRC_DEPTH)
#define DST_IS_FLOAT DEPTH_IS_FLOAT(DST_DEPTH)

/* One body for scalars (N empty) and vectors (N = VEC): the macros below take the type suffix. */
#define WT_N(N) CAT(WT, N)
#define INT_N(N) CAT(int, N)
#define DST_N(N) CAT(DST_T, N)
#define SRC_N(N) CAT(SRC_T, N)

#define SCALED(x, N) fma(CAT(convert_, WT_N(N))(x), SPLAT(WT_N(N), alpha), SPLAT(WT_N(N), beta))
#define UNSCALED(x, N) CAT(convert_, WT_N(N))(x)

/* cvRound on x86 then saturate_cast: integers out of int range and NaN read as INT_MIN. */
#define CV_ROUND(w, N)                                                                                \
  select(SPLAT(INT_N(N), INT_MIN), CAT(CAT(convert_, INT_N(N)), _sat_rte)(w),                            \
         CAT(convert_, INT_N(N))(isless(fabs(w), SPLAT(WT_N(N), 2147483648.0))))

/* From the working type to the destination. */
#if DST_IS_FLOAT
#define FROM_WT(w, N) CAT(convert_, DST_N(N))(w)
#elif DST_DEPTH == DEPTH_S32
#define FROM_WT(w, N) CV_ROUND(w, N)
#else
#define FROM_WT(w, N) CAT(CAT(convert_, DST_N(N)), _sat)(CV_ROUND(w, N))
#endif

/* Without scaling, integers saturate straight into integers (exact for every value). */
#if DST_IS_FLOAT || SRC_IS_FLOAT
#define PLAIN(x, N) FROM_WT(UNSCALED(x, N), N)
#else
#define PLAIN(x, N) CAT(CAT(convert_, DST_N(N)), _sat)(x)
#endif

#define TO_DST(x, N) (scale ? FROM_WT(SCALED(x, N), N) : PLAIN(x, N))

/* Scalars have no select() (and isless on a scalar returns 1, not -1), so they round apart. */
INLINE int cv_round_scalar(WT w) { return isless(fabs(w), (WT)2147483648.0) ? convert_int_sat_rte(w) : INT_MIN; }

#if DST_IS_FLOAT
#define FROM_WT_S(w) ((DST_T)(w))
#elif DST_DEPTH == DEPTH_S32
#define FROM_WT_S(w) cv_round_scalar(w)
#else
#define FROM_WT_S(w) CAT(CAT(convert_, DST_T), _sat)(cv_round_scalar(w))
#endif

#if DST_IS_FLOAT || SRC_IS_FLOAT
#define PLAIN_S(x) FROM_WT_S((WT)(x))
#else
#define PLAIN_S(x) CAT(CAT(convert_, DST_T), _sat)(x)
#endif

#define TO_DST_S(x) (scale ? FROM_WT_S(fma((WT)(x), alpha, beta)) : PLAIN_S(x))

KERNEL void convert_plain(int scale, int elements, int rows, WT alpha, WT beta, CONST_IMAGE_PARAM(SRC_T, src),
                          IMAGE_PARAM(DST_T, dst)) {
  const int i = GLOBAL_ID(0);
  const int y = GLOBAL_ID(1);
  if (i >= elements || y >= rows) return;
  IMAGE_AT(dst, i, y) = TO_DST_S(IMAGE_AT(src, i, y));
}

KERNEL void convert_vector(int scale, int aligned, int elements, int rows, WT alpha, WT beta, CONST_IMAGE_PARAM(SRC_T, src),
                           IMAGE_PARAM(DST_T, dst)) {
  const int i = GLOBAL_ID(0) * VEC;
  const int y = GLOBAL_ID(1);
  if (i >= elements || y >= rows) return;
  GLOBAL const SRC_T* ps = src + IMAGE_INDEX(src, i, y);
  GLOBAL DST_T* pd = dst + IMAGE_INDEX(dst, i, y);
  if (i + VEC <= elements) {
    if (aligned) {
      *(GLOBAL DST_N(VEC)*)pd = TO_DST(*(GLOBAL const SRC_N(VEC)*)ps, VEC);
    } else {
      CAT(vstore, VEC)(TO_DST(CAT(vload, VEC)(0, ps), VEC), 0, pd);
    }
  } else {
    for (int k = 0; k < elements - i; ++k) pd[k] = TO_DST_S(ps[k]);
  }
}
