/* cv::buildOpticalFlowPyramid's padding and derivatives (the levels themselves are pyr_down's).
 * Host side: src/ops/optical_flow_pyramid.cpp. docs/tracking.md has the formulas. No options. */
#include "common/dialect.h"
#include "common/border.h"

/* dst is a width x height level inside an allocation padded by pad_x, pad_y on every side (dst
 * is written at coordinates -pad .. size + pad - 1); every pixel takes src's pixel at the
 * BORDER_REFLECT_101 position. With interior_done the interior is left alone (src is then dst
 * itself and only the padding is written). */
KERNEL void pad_reflect(int width, int height, int pad_x, int pad_y, int interior_done, CONST_IMAGE_PARAM(uchar, src),
                        IMAGE_PARAM(uchar, dst)) {
  const int x = GLOBAL_ID(0), y = GLOBAL_ID(1);
  if (x >= width + 2 * pad_x || y >= height + 2 * pad_y) return;
  const int ix = x - pad_x, iy = y - pad_y;
  const bool inside = ix >= 0 && ix < width && iy >= 0 && iy < height;
  if (inside && interior_done) return;
  const int sx = border_index(ix, width, BORDER_REFLECT_101), sy = border_index(iy, height, BORDER_REFLECT_101);
  IMAGE_AT(dst, ix, iy) = IMAGE_AT(src, sx, sy);
}

/* The Scharr derivatives of OpenCV's optical flow: Ix = d/dx of [3 10 3]^T-smoothed columns,
 * Iy = [3 10 3]-smoothed d/dy, as s16, rows and columns mapped by BORDER_REFLECT_101 (OpenCV's
 * calcScharrDeriv uses row 1 above row 0 and column 1 left of column 0). dst (two channels) is the
 * level's view inside an allocation padded by pad_x, pad_y; the padding is 0 (BORDER_CONSTANT). */
INLINE int scharr_col_smooth(CONST_IMAGE_PARAM(uchar, src), int x, int y0, int y1, int y2) {
  return (IMAGE_AT(src, x, y0) + IMAGE_AT(src, x, y2)) * 3 + IMAGE_AT(src, x, y1) * 10;
}
INLINE int scharr_col_diff(CONST_IMAGE_PARAM(uchar, src), int x, int y0, int y2) {
  return IMAGE_AT(src, x, y2) - IMAGE_AT(src, x, y0);
}

KERNEL void scharr_deriv(int width, int height, int pad_x, int pad_y, CONST_IMAGE_PARAM(uchar, src),
                         IMAGE_PARAM(short, dst)) {
  const int x = GLOBAL_ID(0), y = GLOBAL_ID(1);
  if (x >= width + 2 * pad_x || y >= height + 2 * pad_y) return;
  const int ix = x - pad_x, iy = y - pad_y;
  short gx = 0, gy = 0;
  if (ix >= 0 && ix < width && iy >= 0 && iy < height) {
    const int y0 = border_index(iy - 1, height, BORDER_REFLECT_101), y2 = border_index(iy + 1, height, BORDER_REFLECT_101);
    const int x0 = border_index(ix - 1, width, BORDER_REFLECT_101), x2 = border_index(ix + 1, width, BORDER_REFLECT_101);
    gx = (short)(scharr_col_smooth(src, src_offset, src_step, x2, y0, iy, y2) -
                 scharr_col_smooth(src, src_offset, src_step, x0, y0, iy, y2));
    gy = (short)((scharr_col_diff(src, src_offset, src_step, x2, y0, y2) + scharr_col_diff(src, src_offset, src_step, x0, y0, y2)) * 3 +
                 scharr_col_diff(src, src_offset, src_step, ix, y0, y2) * 10);
  }
  IMAGE_AT(dst, 2 * ix, iy) = gx;
  IMAGE_AT(dst, 2 * ix + 1, iy) = gy;
}

