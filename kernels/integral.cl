/* Integral images (sum, squared sum, tilted, count of non-zero) and their variants.
 * Host side: src/ops/integral*.cpp. Options:
 *   SRC_T/SRC_DEPTH              source element type
 *   HAS_SUM, HAS_SQ, HAS_TILTED  which outputs exist (0/1)
 *   SUM_T/SUM_DEPTH, SQ_T/SQ_DEPTH  output element types (tilted has the sum's)
 *   COUNT                        1: sum counts non-zero values instead of adding them
 * Kernels take their scalars first and images after, so that absent outputs drop out of the
 * parameter list (SUM_PARAM, SQ_PARAM) and the host passes only the images that exist.
 * Ordered variant (row_column): OpenCV's summation order, exact for every type:
 *   row prefix s accumulated left to right in the output type, then
 *   out(x, y) = out(x, y - 1) + s, top to bottom. */
#include "common/dialect.h"
#include "common/types.h"

#ifndef COUNT
#define COUNT 0
#endif
#ifndef HAS_SUM
#define HAS_SUM 0
#endif
#ifndef HAS_SQ
#define HAS_SQ 0
#endif
#ifndef HAS_TILTED
#define HAS_TILTED 0
#endif

/* Integer outputs accumulate in unsigned arithmetic of their width, which wraps modulo 2^n
 * (OpenCV's int sums wrap the same way), and are stored bit for bit. */
#if HAS_SUM || HAS_TILTED
#if SUM_DEPTH == DEPTH_S32 || SUM_DEPTH == DEPTH_U32
#define SUM_ACC uint
#define SUM_STORE(a) ((SUM_T)(a))
#if SUM_DEPTH == DEPTH_S32
#undef SUM_STORE
#define SUM_STORE(a) as_int(a)
#endif
#else
#define SUM_ACC SUM_T
#define SUM_STORE(a) (a)
#endif
#endif

#if HAS_SQ
#if SQ_DEPTH == DEPTH_S32
#define SQ_ACC uint
#define SQ_STORE(a) as_int(a)
#elif SQ_DEPTH == DEPTH_S64
#define SQ_ACC ulong
#define SQ_STORE(a) as_long(a)
#else
#define SQ_ACC SQ_T
#define SQ_STORE(a) (a)
#endif
#endif

#if COUNT
#define SUM_VALUE(v) ((SUM_ACC)((v) != (SRC_T)0))
#else
#define SUM_VALUE(v) ((SUM_ACC)(v))
#endif
/* OpenCV squares in the squared sum's type: (QT)v * v. */
#define SQ_VALUE(v) ((SQ_ACC)(v) * (SQ_ACC)(v))

#if HAS_SUM
#define SUM_PARAM , IMAGE_PARAM(SUM_T, sum)
#else
#define SUM_PARAM
#endif
#if HAS_SQ
#define SQ_PARAM , IMAGE_PARAM(SQ_T, sq)
#else
#define SQ_PARAM
#endif

/* ---- row_column: pass 1, one work-item per (source row, channel) -------------------------- */
KERNEL void integral_rows_ordered(int width, int height, int channels, int rows,
                                  CONST_IMAGE_PARAM(SRC_T, src) SUM_PARAM SQ_PARAM) {
  const int r = GLOBAL_ID(0);
  const int c = GLOBAL_ID(1);
  if (r >= rows || c >= channels) return;
  const int out_y = r + r / height + 1; /* image b's row y lands on output row b * (height + 1) + y + 1 */
#if HAS_SUM
  SUM_ACC s = 0;
  IMAGE_AT(sum, c, out_y) = SUM_STORE((SUM_ACC)0);
#endif
#if HAS_SQ
  SQ_ACC q = 0;
  IMAGE_AT(sq, c, out_y) = SQ_STORE((SQ_ACC)0);
#endif
  for (int x = 0; x < width; ++x) {
    const SRC_T v = IMAGE_AT(src, x * channels + c, r);
#if HAS_SUM
    s += SUM_VALUE(v);
    IMAGE_AT(sum, (x + 1) * channels + c, out_y) = SUM_STORE(s);
#endif
#if HAS_SQ
    q += SQ_VALUE(v);
    IMAGE_AT(sq, (x + 1) * channels + c, out_y) = SQ_STORE(q);
#endif
  }
}

/* ---- row_column: pass 2, one work-item per (output element column, image of the batch) ----- */
KERNEL void integral_columns_ordered(int row_elements, int height SUM_PARAM SQ_PARAM) {
  const int i = GLOBAL_ID(0);
  const int b = GLOBAL_ID(1);
  if (i >= row_elements) return;
  const int y0 = b * (height + 1);
#if HAS_SUM
  SUM_ACC s = 0;
  IMAGE_AT(sum, i, y0) = SUM_STORE(s);
#endif
#if HAS_SQ
  SQ_ACC q = 0;
  IMAGE_AT(sq, i, y0) = SQ_STORE(q);
#endif
  for (int y = y0 + 1; y <= y0 + height; ++y) {
#if HAS_SUM
    s = (SUM_ACC)IMAGE_AT(sum, i, y) + s;
    IMAGE_AT(sum, i, y) = SUM_STORE(s);
#endif
#if HAS_SQ
    q = (SQ_ACC)IMAGE_AT(sq, i, y) + q;
    IMAGE_AT(sq, i, y) = SQ_STORE(q);
#endif
  }
}
