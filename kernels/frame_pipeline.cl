/* The frame pipeline's fused first pass (host side: src/ops/frame_pipeline.cpp; docs/frame_pipeline.md):
 * one launch reads the grey plane (an NV12 frame's Y plane, which is OpenCV's NV12 -> grey) once and
 * writes its copy (level 0) with the pyrDown levels 1 and 2 (grey_down2), or level 1 alone
 * (grey_down). The pyrDown arithmetic is pyramid.cl's, on u8 in int: the 5-tap kernel [1 4 6 4 1]
 * in each direction around (2x, 2y), rounded as (sum + 128) >> 8, exact in any order; so the levels
 * equal build_pyramid's (and cv::pyrDown's) bit for bit. Options:
 *   BORDER   border code of common/border.h (never constant)
 *   GX, GY   work-group shape */
#include "common/dialect.h"
#include "common/types.h"
#include "common/border.h"

/* u8 sources summed in int: pyramid_down_taps.h's taps5, source_at and down_sum as pyramid.cl's u8 builds. */
#define SRC_T uchar
#define WT int
#define WPIX int
#define TO_W(p) ((int)(p))
#define LOAD_PIX(row, x) ((row)[x])
#include "pyramid_down_taps.h"

INLINE uchar down_round(int s) { return (uchar)((s + 128) >> 8); }

/* The five source values around (sx, sy) along x (border mapped), filtered; the values at sx and
 * sx + 1 are the grey pixels a work-item copies when the row and columns are its work-group's own. */
INLINE int row_taps(GLOBAL const uchar* src, int src_offset, int src_step, int sx, int sy, int width, int height,
                    bool copy, GLOBAL uchar* grey, int grey_offset, int grey_step) {
  const int a = source_at(src, src_offset, src_step, sx - 2, sy, width, height);
  const int b = source_at(src, src_offset, src_step, sx - 1, sy, width, height);
  const int c = source_at(src, src_offset, src_step, sx, sy, width, height);
  const int d = source_at(src, src_offset, src_step, sx + 1, sy, width, height);
  const int e = source_at(src, src_offset, src_step, sx + 2, sy, width, height);
  if (copy && sy >= 0 && sy < height) {
    GLOBAL uchar* row = grey + grey_offset + sy * grey_step;
    if (sx >= 0 && sx < width) row[sx] = (uchar)c;
    if (sx + 1 >= 0 && sx + 1 < width) row[sx + 1] = (uchar)d;
  }
  return taps5(a, b, c, d, e);
}

/* ---- grey_down: grey and level 1; a tile of GX x 2GY level-1 outputs ------------------------
 * The work-group filters source rows 2 oy0 - 2 ... at its output columns into local memory, as
 * pyramid.cl's pyr_down, and copies the source pixels of its own 2GX x 4GY region on the way. */
#define OUT_H (2 * GY)
#define HROWS (2 * OUT_H + 3)

KERNEL REQD_GROUP_SIZE(GX, GY, 1) void grey_down(int w0, int h0, int w1, int h1, CONST_IMAGE_PARAM(uchar, src),
                                                 IMAGE_PARAM(uchar, grey), IMAGE_PARAM(uchar, level1)) {
  LOCAL_MEM int rows[HROWS * GX];
  const int lx = LOCAL_ID(0), ly = LOCAL_ID(1);
  const int ox0 = GROUP_ID(0) * GX, oy0 = GROUP_ID(1) * OUT_H;
  const int x = ox0 + lx;
  for (int i = ly; i < HROWS; i += GY) {
    const bool own = i >= 2 && i < 2 + 2 * OUT_H;
    rows[i * GX + lx] = row_taps(src, src_offset, src_step, 2 * x, 2 * oy0 - 2 + i, w0, h0, own, grey, grey_offset, grey_step);
  }
  BARRIER_LOCAL();
  if (x >= w1) return;
  UNROLL
  for (int k = 0; k < 2; ++k) {
    const int t = ly + k * GY;
    const int y = oy0 + t;
    if (y < h1) {
      LOCAL const int* c = rows + 2 * t * GX + lx;
      IMAGE_AT(level1, x, y) = down_round(taps5(c[0], c[GX], c[2 * GX], c[3 * GX], c[4 * GX]));
    }
  }
}

/* ---- grey_down2: grey, level 1 and level 2 -------------------------------------------------
 * pyramid.cl's pyr_down2 with the grey copy folded into its first step: a work-group owns a GX x GY
 * tile of level 2, the 2GX x 2GY level-1 tile and the 4GX x 4GY grey region under it. Level-1 values
 * over the tile and a 2-pixel frame are filtered from the source separably in local memory (frame
 * positions outside level 1 take the value at their border-mapped position, computed directly);
 * the work-group stores its own grey pixels and level-1 tile, then filters level 2. */
#define L1W (2 * GX + 3)
#define L1H (2 * GY + 3)
#define L0H (2 * L1H + 3)

KERNEL REQD_GROUP_SIZE(GX, GY, 1) void grey_down2(int w0, int h0, int w1, int h1, int w2, int h2,
                                                  CONST_IMAGE_PARAM(uchar, src), IMAGE_PARAM(uchar, grey),
                                                  IMAGE_PARAM(uchar, level1), IMAGE_PARAM(uchar, level2)) {
  LOCAL_MEM int rows[L0H * L1W];
  LOCAL_MEM int frame1[L1H * L1W];
  const int lid = LOCAL_ID(1) * GX + LOCAL_ID(0);
  const int ox0 = GROUP_ID(0) * GX, oy0 = GROUP_ID(1) * GY;
  const int px0 = 2 * ox0 - 2, py0 = 2 * oy0 - 2; /* level-1 origin of the frame */
  for (int i = lid; i < L0H * L1W; i += GX * GY) {
    const int r = i / L1W, c = i - r * L1W;
    /* Source row 4 oy0 - 6 + r, column 4 ox0 - 4 + 2c: the own region is r in [6, 6 + 4GY), c in [2, 2 + 2GX). */
    const bool own = r >= 6 && r < 6 + 4 * GY && c >= 2 && c < 2 + 2 * GX;
    rows[i] = row_taps(src, src_offset, src_step, 2 * (px0 + c), 2 * py0 - 2 + r, w0, h0, own, grey, grey_offset, grey_step);
  }
  BARRIER_LOCAL();
  for (int i = lid; i < L1H * L1W; i += GX * GY) {
    const int ty = i / L1W, tx = i - ty * L1W;
    const int px = px0 + tx, py = py0 + ty;
    int v;
    if (px >= 0 && px < w1 && py >= 0 && py < h1) {
      LOCAL const int* c = rows + 2 * ty * L1W + tx;
      v = down_round(taps5(c[0], c[L1W], c[2 * L1W], c[3 * L1W], c[4 * L1W]));
      const bool own = tx >= 2 && tx < 2 + 2 * GX && ty >= 2 && ty < 2 + 2 * GY;
      if (own) IMAGE_AT(level1, px, py) = (uchar)v;
    } else {
      v = down_round(down_sum(src, src_offset, src_step, border_index(px, w1, BORDER), border_index(py, h1, BORDER), w0, h0));
    }
    frame1[i] = v;
  }
  BARRIER_LOCAL();
  const int x = ox0 + LOCAL_ID(0), y = oy0 + LOCAL_ID(1);
  if (x >= w2 || y >= h2) return;
  int r[5];
  UNROLL
  for (int j = 0; j < 5; ++j) {
    LOCAL const int* c = frame1 + (2 * LOCAL_ID(1) + j) * L1W + 2 * LOCAL_ID(0);
    r[j] = taps5(c[0], c[1], c[2], c[3], c[4]);
  }
  IMAGE_AT(level2, x, y) = down_round(taps5(r[0], r[1], r[2], r[3], r[4]));
}
