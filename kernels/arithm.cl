/* Elementwise add, subtract and absolute difference with cv::add / cv::subtract / cv::absdiff
 * semantics, on rows of width * channels elements. Host side: src/ops/arithm.cpp. Options:
 *   SRC_T / SRC_DEPTH   element type of a, b and dst
 *   VEC                 elements per work-item in arithm_vector (16 bytes' worth)
 * Arguments op (0: a + b, 1: a - b, 2: |a - b|) and aligned are uniform branches rather than
 * build options, so that one program per depth serves every op and path. aligned = 1 when every
 * row of a, b and dst starts on a VEC-element boundary: whole vectors then move through vector
 * pointers (the case study's float4 matrix add); otherwise vloadN / vstoreN, which need element
 * alignment only.
 * Saturation: 8- and 16-bit integers saturate; s32 wraps (OpenCV's 32-bit add and subtract do) and
 * its absdiff is |a - b| modulo 2^32 read as s32; floats follow IEEE. */
#include "common/dialect.h"
#include "common/types.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define VT CAT(SRC_T, VEC)
#define VLOAD CAT(vload, VEC)
#define VSTORE CAT(vstore, VEC)

#if SRC_DEPTH == DEPTH_U8 || SRC_DEPTH == DEPTH_U16
/* abs_diff of unsigned values is exact in the same type. */
#define ADD(a, b) add_sat(a, b)
#define SUB(a, b) sub_sat(a, b)
#define ABSDIFF_S(a, b) abs_diff(a, b)
#define ABSDIFF_V(a, b) abs_diff(a, b)
#elif SRC_DEPTH == DEPTH_S8 || SRC_DEPTH == DEPTH_S16
/* abs_diff returns the unsigned type, exact; saturate it back into the signed range. */
#define ADD(a, b) add_sat(a, b)
#define SUB(a, b) sub_sat(a, b)
#define ABSDIFF_S(a, b) CAT(CAT(convert_, SRC_T), _sat)(abs_diff(a, b))
#define ABSDIFF_V(a, b) CAT(CAT(convert_, VT), _sat)(abs_diff(a, b))
#elif SRC_DEPTH == DEPTH_S32
/* Unsigned arithmetic wraps without undefined behaviour. */
#define UVT CAT(uint, VEC)
#define ADD_S(a, b) as_int(as_uint(a) + as_uint(b))
#define SUB_S(a, b) as_int(as_uint(a) - as_uint(b))
#define ADD_V(a, b) CAT(as_, VT)(CAT(as_, UVT)(a) + CAT(as_, UVT)(b))
#define SUB_V(a, b) CAT(as_, VT)(CAT(as_, UVT)(a) - CAT(as_, UVT)(b))
#define ABSDIFF_S(a, b) as_int(abs_diff(a, b))
#define ABSDIFF_V(a, b) CAT(as_, VT)(abs_diff(a, b))
#else
#define ADD(a, b) ((a) + (b))
#define SUB(a, b) ((a) - (b))
#define ABSDIFF_S(a, b) fabs((a) - (b))
#define ABSDIFF_V(a, b) fabs((a) - (b))
#endif

#ifndef ADD_S
#define ADD_S ADD
#define SUB_S SUB
#define ADD_V ADD
#define SUB_V SUB
#endif

INLINE SRC_T op_scalar(int op, SRC_T a, SRC_T b) {
  return op == 0 ? ADD_S(a, b) : op == 1 ? SUB_S(a, b) : ABSDIFF_S(a, b);
}

INLINE VT op_vector(int op, VT a, VT b) { return op == 0 ? ADD_V(a, b) : op == 1 ? SUB_V(a, b) : ABSDIFF_V(a, b); }

/* One element per work-item: the reference path. */
KERNEL void arithm_plain(int op, int elements, int rows, CONST_IMAGE_PARAM(SRC_T, a), CONST_IMAGE_PARAM(SRC_T, b),
                         IMAGE_PARAM(SRC_T, dst)) {
  const int i = GLOBAL_ID(0);
  const int y = GLOBAL_ID(1);
  if (i >= elements || y >= rows) return;
  IMAGE_AT(dst, i, y) = op_scalar(op, IMAGE_AT(a, i, y), IMAGE_AT(b, i, y));
}

/* VEC consecutive elements per work-item; the last vector of a row may be partial. */
KERNEL void arithm_vector(int op, int aligned, int elements, int rows, CONST_IMAGE_PARAM(SRC_T, a), CONST_IMAGE_PARAM(SRC_T, b),
                          IMAGE_PARAM(SRC_T, dst)) {
  const int i = GLOBAL_ID(0) * VEC;
  const int y = GLOBAL_ID(1);
  if (i >= elements || y >= rows) return;
  GLOBAL const SRC_T* pa = a + IMAGE_INDEX(a, i, y);
  GLOBAL const SRC_T* pb = b + IMAGE_INDEX(b, i, y);
  GLOBAL SRC_T* pd = dst + IMAGE_INDEX(dst, i, y);
  if (i + VEC <= elements) {
    if (aligned) {
      *(GLOBAL VT*)pd = op_vector(op, *(GLOBAL const VT*)pa, *(GLOBAL const VT*)pb);
    } else {
      VSTORE(op_vector(op, VLOAD(0, pa), VLOAD(0, pb)), 0, pd);
    }
  } else {
    for (int k = 0; k < elements - i; ++k) pd[k] = op_scalar(op, pa[k], pb[k]);
  }
}
