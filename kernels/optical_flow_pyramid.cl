/* cv::buildOpticalFlowPyramid's levels, their padding and their derivatives. Host side:
 * src/ops/optical_flow_pyramid.cpp. docs/tracking.md has the formulas. No options.
 *
 * Two ways to build a pyramid (OpticalFlowPyramidMethod):
 *   fused      flow_pyramid_fused: one launch makes level 0 (padded, with derivatives) and level 1,
 *              then one launch per further level (4 launches for 4 levels, against 11);
 *   per_level  pad_reflect and scharr_deriv below with pyramid.cl's pyr_down, one launch per step. */
#include "common/dialect.h"
#include "common/border.h"
#include "optical_flow_pyramid_shape.h"

/* pyrDown on u8 in int, BORDER_REFLECT_101: pyramid_down_taps.h's taps5 and source_at, as
 * pyramid.cl's u8 builds (so the levels equal pyr_down's, and cv::pyrDown's, bit for bit). */
#define SRC_T uchar
#define WT int
#define WPIX int
#define TO_W(p) ((int)(p))
#define LOAD_PIX(row, x) ((row)[x])
#define BORDER BORDER_REFLECT_101
#include "pyramid_down_taps.h"

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
 * calcScharrDeriv uses row 1 above row 0 and column 1 left of column 0). The a, b, c arguments
 * are the pixels of the rows above, at and below: a0 b0 c0 in column x - 1, a1 b1 c1 in x, a2 b2 c2 in
 * x + 1. */
INLINE short scharr_x(int a0, int b0, int c0, int a2, int b2, int c2) {
  return (short)(((a2 + c2) * 3 + b2 * 10) - ((a0 + c0) * 3 + b0 * 10));
}
INLINE short scharr_y(int a0, int c0, int a1, int c1, int a2, int c2) {
  return (short)(((c2 - a2) + (c0 - a0)) * 3 + (c1 - a1) * 10);
}

/* The derivative of src (a width x height level) at interior pixel (ix, iy), neighbours read
 * through BORDER_REFLECT_101. */
INLINE void scharr_at(CONST_IMAGE_PARAM(uchar, src), int width, int height, int ix, int iy, short* gx, short* gy) {
  const int y0 = border_index(iy - 1, height, BORDER_REFLECT_101), y2 = border_index(iy + 1, height, BORDER_REFLECT_101);
  const int x0 = border_index(ix - 1, width, BORDER_REFLECT_101), x2 = border_index(ix + 1, width, BORDER_REFLECT_101);
  const int a0 = IMAGE_AT(src, x0, y0), a1 = IMAGE_AT(src, ix, y0), a2 = IMAGE_AT(src, x2, y0);
  const int b0 = IMAGE_AT(src, x0, iy), b2 = IMAGE_AT(src, x2, iy);
  const int c0 = IMAGE_AT(src, x0, y2), c1 = IMAGE_AT(src, ix, y2), c2 = IMAGE_AT(src, x2, y2);
  *gx = scharr_x(a0, b0, c0, a2, b2, c2);
  *gy = scharr_y(a0, c0, a1, c1, a2, c2);
}

/* dst (two channels) is the level's view inside an allocation padded by pad_x, pad_y; the
 * padding is 0 (BORDER_CONSTANT). */
KERNEL void scharr_deriv(int width, int height, int pad_x, int pad_y, CONST_IMAGE_PARAM(uchar, src),
                         IMAGE_PARAM(short, dst)) {
  const int x = GLOBAL_ID(0), y = GLOBAL_ID(1);
  if (x >= width + 2 * pad_x || y >= height + 2 * pad_y) return;
  const int ix = x - pad_x, iy = y - pad_y;
  short gx = 0, gy = 0;
  if (ix >= 0 && ix < width && iy >= 0 && iy < height) scharr_at(src, src_offset, src_step, width, height, ix, iy, &gx, &gy);
  IMAGE_AT(dst, 2 * ix, iy) = gx;
  IMAGE_AT(dst, 2 * ix + 1, iy) = gy;
}

/* ---- flow_pyramid_fused ---------------------------------------------------------------------
 * Up to two jobs in one launch, told apart by the work-group's index (a one-dimensional grid of
 * work-groups of OFP_GX x OFP_GY):
 *   groups [0, copy_groups): the copy job, level 0. Each work-item takes one position of the
 *     padded level 0 (w0 + 2 pad_x) x (h0 + 2 pad_y): the source pixel at its BORDER_REFLECT_101
 *     position, and (with_deriv) its Scharr derivatives read from the source (0 in the padding).
 *   the rest: the down job, level d = pyrDown(src) (src a w0 x h0 level: the source image in the
 *     first launch, the previous level after). A work-group computes its OFP_GX x OFP_GY tile of
 *     level d and a frame of one pixel around it into local memory; every frame position takes
 *     the pyrDown value at its BORDER_REFLECT_101 position in level d (a level's frame, as
 *     calcScharrDeriv reads it), so the derivatives of the tile come from local memory. Each
 *     work-item writes its pixel, its derivatives, and the padding positions whose border-mapped
 *     position is its pixel: the level's value there, 0 in the derivatives. Levels after the
 *     first are wider and higher than the padding (OpenCV's stop rule), so one reflection maps
 *     every padding position and each has exactly one owner.
 * Both jobs read only src, so one launch makes levels 0 and 1. */
#define OFP_FW (OFP_GX + 2)           /* tile and frame, columns */
#define OFP_FH (OFP_GY + 2)           /* tile and frame, rows */
#define OFP_HR (2 * OFP_FH + 3)       /* src rows that the tile and frame read */

INLINE void copy_job(int group, int w0, int h0, int pad_x, int pad_y, int with_deriv, CONST_IMAGE_PARAM(uchar, src),
                     IMAGE_PARAM(uchar, level0), IMAGE_PARAM(short, deriv0)) {
  const int groups_x = (w0 + 2 * pad_x + OFP_GX - 1) / OFP_GX;
  const int gy = group / groups_x, gx = group - gy * groups_x;
  const int ix = gx * OFP_GX + LOCAL_ID(0) - pad_x, iy = gy * OFP_GY + LOCAL_ID(1) - pad_y;
  if (ix >= w0 + pad_x || iy >= h0 + pad_y) return;
  const int sx = border_index(ix, w0, BORDER_REFLECT_101), sy = border_index(iy, h0, BORDER_REFLECT_101);
  IMAGE_AT(level0, ix, iy) = IMAGE_AT(src, sx, sy);
  if (with_deriv) {
    short gxv = 0, gyv = 0;
    if (ix >= 0 && ix < w0 && iy >= 0 && iy < h0) scharr_at(src, src_offset, src_step, w0, h0, ix, iy, &gxv, &gyv);
    IMAGE_AT(deriv0, 2 * ix, iy) = gxv;
    IMAGE_AT(deriv0, 2 * ix + 1, iy) = gyv;
  }
}

/* The padding positions along one axis whose BORDER_REFLECT_101 position is p (p in [0, len),
 * len > pad): p itself, its mirror before 0 and its mirror after len - 1, where they lie in the
 * padding; out[k] = a sentinel below -pad when absent. */
INLINE void mirrors(int p, int len, int pad, int* out) {
  out[0] = p;
  out[1] = p >= 1 && p <= pad ? -p : -pad - 1;
  out[2] = p <= len - 2 && p >= len - 1 - pad ? 2 * (len - 1) - p : -pad - 1;
}

INLINE void down_job(int group, int w0, int h0, int wd, int hd, int pad_x, int pad_y, int with_deriv,
                     CONST_IMAGE_PARAM(uchar, src), IMAGE_PARAM(uchar, down), IMAGE_PARAM(short, deriv),
                     LOCAL int* rows, LOCAL int* tile) {
  const int lx = LOCAL_ID(0), ly = LOCAL_ID(1), lid = ly * OFP_GX + lx;
  const int groups_x = (wd + OFP_GX - 1) / OFP_GX;
  const int gy = group / groups_x, gx = group - gy * groups_x;
  const int fx0 = gx * OFP_GX - 1, fy0 = gy * OFP_GY - 1; /* level-d position of the frame's corner */
  /* Horizontal taps: src rows 2 fy0 - 2 + r at the (border-mapped) frame columns. Frame columns
   * beyond wd + 1 are never read; their mapped position is still inside the level. */
  for (int i = lid; i < OFP_HR * OFP_FW; i += OFP_GX * OFP_GY) {
    const int r = i / OFP_FW, c = i - r * OFP_FW;
    const int sx = 2 * border_index(fx0 + c, wd, BORDER_REFLECT_101), sy = 2 * fy0 - 2 + r;
    rows[i] = taps5(source_at(src, src_offset, src_step, sx - 2, sy, w0, h0), source_at(src, src_offset, src_step, sx - 1, sy, w0, h0),
                    source_at(src, src_offset, src_step, sx, sy, w0, h0), source_at(src, src_offset, src_step, sx + 1, sy, w0, h0),
                    source_at(src, src_offset, src_step, sx + 2, sy, w0, h0));
  }
  BARRIER_LOCAL();
  /* Vertical taps at the (border-mapped) frame rows, rounded as pyrDown stores. Rows below hd
   * (a tile that overhangs the level) are never read and not computed: their mapped rows could
   * lie above the frame. */
  for (int i = lid; i < OFP_FH * OFP_FW; i += OFP_GX * OFP_GY) {
    const int r = i / OFP_FW, c = i - r * OFP_FW;
    const int py = fy0 + r;
    int v = 0;
    if (py <= hd) {
      LOCAL const int* t = rows + 2 * (border_index(py, hd, BORDER_REFLECT_101) - fy0) * OFP_FW + c;
      v = (taps5(t[0], t[OFP_FW], t[2 * OFP_FW], t[3 * OFP_FW], t[4 * OFP_FW]) + 128) >> 8;
    }
    tile[i] = v;
  }
  BARRIER_LOCAL();
  const int x = fx0 + 1 + lx, y = fy0 + 1 + ly;
  if (x >= wd || y >= hd) return;
  LOCAL const int* t = tile + (ly + 1) * OFP_FW + lx + 1; /* this pixel */
  const uchar v = (uchar)t[0];
  short gxv = 0, gyv = 0;
  if (with_deriv) {
    gxv = scharr_x(t[-OFP_FW - 1], t[-1], t[OFP_FW - 1], t[-OFP_FW + 1], t[1], t[OFP_FW + 1]);
    gyv = scharr_y(t[-OFP_FW - 1], t[OFP_FW - 1], t[-OFP_FW], t[OFP_FW], t[-OFP_FW + 1], t[OFP_FW + 1]);
  }
  int xs[3], ys[3];
  mirrors(x, wd, pad_x, xs);
  mirrors(y, hd, pad_y, ys);
  for (int j = 0; j < 3; ++j) {
    if (ys[j] < -pad_y) continue;
    for (int k = 0; k < 3; ++k) {
      if (xs[k] < -pad_x) continue;
      IMAGE_AT(down, xs[k], ys[j]) = v;
      if (with_deriv) {
        const bool own = j == 0 && k == 0;
        IMAGE_AT(deriv, 2 * xs[k], ys[j]) = own ? gxv : (short)0;
        IMAGE_AT(deriv, 2 * xs[k] + 1, ys[j]) = own ? gyv : (short)0;
      }
    }
  }
}

KERNEL REQD_GROUP_SIZE(OFP_GX, OFP_GY, 1) void flow_pyramid_fused(
    int copy_groups, int w0, int h0, int wd, int hd, int pad_x, int pad_y, int with_deriv, CONST_IMAGE_PARAM(uchar, src),
    IMAGE_PARAM(uchar, level0), IMAGE_PARAM(short, deriv0), IMAGE_PARAM(uchar, down), IMAGE_PARAM(short, deriv)) {
  LOCAL_MEM int rows[OFP_HR * OFP_FW];
  LOCAL_MEM int tile[OFP_FH * OFP_FW];
  const int group = GROUP_ID(0);
  if (group < copy_groups) {
    copy_job(group, w0, h0, pad_x, pad_y, with_deriv, src, src_offset, src_step, level0, level0_offset, level0_step, deriv0,
             deriv0_offset, deriv0_step);
  } else {
    down_job(group - copy_groups, w0, h0, wd, hd, pad_x, pad_y, with_deriv, src, src_offset, src_step, down, down_offset,
             down_step, deriv, deriv_offset, deriv_step, rows, tile);
  }
}
