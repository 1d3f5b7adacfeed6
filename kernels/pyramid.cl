/* Gaussian pyramids: cv::pyrDown, cv::pyrUp, two pyrDown levels in one launch, and the KLT
 * pyramid of the case study (Gaussian smoothing sampled every S pixels). Host side:
 * src/ops/pyramid.cpp. Options:
 *   SRC_T / SRC_DEPTH   element type; CN channels (a pixel is a vector of CN values)
 *   WT                  accumulator: int for integer depths (exact), float or double otherwise
 *   BORDER              border code of common/border.h (never constant here)
 *   GX, GY              work-group shape
 * pyrDown: the 5-tap kernel [1 4 6 4 1] / 16 in each direction around (2x, 2y); integers round
 * as (sum + 128) >> 8, floats scale by 1/256. pyrUp: the same kernel on the image upsampled with
 * zeros between samples (so [1 6 1] / 8 and [4 4] / 8 by parity), integers (sum + 32) >> 6. */
#include "common/dialect.h"
#include "common/types.h"
#include "common/border.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* pyrDown / pyrUp builds define CN; subsampled builds define SUBSAMPLING. */
#ifdef CN
#if CN == 1
#define PIX SRC_T
#define WPIX WT
#define LOAD_PIX(row, x) ((row)[x])
#define STORE_PIX(v, row, x) ((row)[x] = (v))
#else
#define PIX CAT(SRC_T, CN)
#define WPIX CAT(WT, CN)
#define LOAD_PIX(row, x) CAT(vload, CN)(x, row)
#define STORE_PIX(v, row, x) CAT(vstore, CN)(v, x, row)
#endif
#define TO_W(p) CAT(convert_, WPIX)(p)

#if DEPTH_IS_FLOAT(SRC_DEPTH)
#define DOWN_RESULT(s) CAT(convert_, PIX)((s) * (WT)0.00390625f)
#define UP_RESULT(s) CAT(convert_, PIX)((s) * (WT)0.015625f)
#else
#define DOWN_RESULT(s) CAT(convert_, PIX)(((s) + 128) >> 8)
#define UP_RESULT(s) CAT(convert_, PIX)(((s) + 32) >> 6)
#endif

#include "pyramid_down_taps.h"

/* ---- pyr_down: one level; tile of GX x 2GY outputs, rows filtered into local memory -------- */
#define OUT_H (2 * GY)
#define HROWS (2 * OUT_H + 3)

KERNEL REQD_GROUP_SIZE(GX, GY, 1) void pyr_down(int src_width, int src_height, int dst_width, int dst_height,
                                                CONST_IMAGE_PARAM(SRC_T, src), IMAGE_PARAM(SRC_T, dst)) {
  LOCAL_MEM WPIX rows[HROWS * GX];
  const int lx = LOCAL_ID(0), ly = LOCAL_ID(1);
  const int ox0 = GROUP_ID(0) * GX, oy0 = GROUP_ID(1) * OUT_H;
  const int x = ox0 + lx;
  /* Horizontal pass: source rows 2 oy0 - 2 ... filtered at the tile's output columns. */
  for (int i = ly; i < HROWS; i += GY) {
    const int sy = 2 * oy0 - 2 + i;
    rows[i * GX + lx] = taps5(source_at(src, src_offset, src_step, 2 * x - 2, sy, src_width, src_height),
                              source_at(src, src_offset, src_step, 2 * x - 1, sy, src_width, src_height),
                              source_at(src, src_offset, src_step, 2 * x, sy, src_width, src_height),
                              source_at(src, src_offset, src_step, 2 * x + 1, sy, src_width, src_height),
                              source_at(src, src_offset, src_step, 2 * x + 2, sy, src_width, src_height));
  }
  BARRIER_LOCAL();
  if (x >= dst_width) return;
  GLOBAL SRC_T* out = dst + dst_offset;
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const int t = ly + k * GY;
    const int y = oy0 + t;
    if (y < dst_height) {
      LOCAL const WPIX* c = rows + 2 * t * GX + lx;
      STORE_PIX(DOWN_RESULT(taps5(c[0], c[GX], c[2 * GX], c[3 * GX], c[4 * GX])), out + y * dst_step, x);
    }
  }
}

/* ---- pyr_down2: two levels in one launch ---------------------------------------------------
 * A work-group owns a GX x GY tile of level 2 and the 2GX x 2GY tile of level 1 under it. Its
 * level-2 outputs read level 1 over that tile and a 2-pixel frame (L1W x L1H values), which it
 * computes from level 0 separably in local memory: level-0 rows filtered at the level-1 columns,
 * then columns, rounded as level 1 is stored. Frame positions outside level 1 take the value at
 * their border-mapped position, computed directly from level 0 (only tiles at the image edge have
 * them). The work-group writes its own level-1 tile, then filters level 2 from local memory. */
#define L1W (2 * GX + 3)
#define L1H (2 * GY + 3)
#define L0H (2 * L1H + 3)
/* Bytes of a WPIX (3 channels take the room of 4). CUDA refuses to compile a kernel that declares
 * more than 48 KiB, so there programs built for pyr_down's larger work-groups leave pyr_down2 out
 * (the host runs it only from programs whose tiles fit the device's local memory: 48 KiB there). */
#define WPIX_BYTES ((SRC_DEPTH == DEPTH_F64 ? 8 : 4) * (CN == 3 ? 4 : CN))
#if !defined(__CUDACC__) || (L0H * L1W + L1H * L1W) * WPIX_BYTES <= 48 * 1024

KERNEL REQD_GROUP_SIZE(GX, GY, 1) void pyr_down2(int w0, int h0, int w1, int h1, int w2, int h2,
                                                 CONST_IMAGE_PARAM(SRC_T, src), IMAGE_PARAM(SRC_T, mid),
                                                 IMAGE_PARAM(SRC_T, dst)) {
  LOCAL_MEM WPIX rows[L0H * L1W];
  LOCAL_MEM WPIX level1[L1H * L1W];
  const int lid = LOCAL_ID(1) * GX + LOCAL_ID(0);
  const int ox0 = GROUP_ID(0) * GX, oy0 = GROUP_ID(1) * GY;
  const int px0 = 2 * ox0 - 2, py0 = 2 * oy0 - 2; /* level-1 origin of the frame */
  for (int i = lid; i < L0H * L1W; i += GX * GY) {
    const int r = i / L1W, c = i - r * L1W;
    const int sy = 2 * py0 - 2 + r, sx = 2 * (px0 + c);
    rows[i] = taps5(source_at(src, src_offset, src_step, sx - 2, sy, w0, h0),
                    source_at(src, src_offset, src_step, sx - 1, sy, w0, h0),
                    source_at(src, src_offset, src_step, sx, sy, w0, h0),
                    source_at(src, src_offset, src_step, sx + 1, sy, w0, h0),
                    source_at(src, src_offset, src_step, sx + 2, sy, w0, h0));
  }
  BARRIER_LOCAL();
  for (int i = lid; i < L1H * L1W; i += GX * GY) {
    const int ty = i / L1W, tx = i - ty * L1W;
    const int px = px0 + tx, py = py0 + ty;
    PIX v;
    if (px >= 0 && px < w1 && py >= 0 && py < h1) {
      LOCAL const WPIX* c = rows + 2 * ty * L1W + tx;
      v = DOWN_RESULT(taps5(c[0], c[L1W], c[2 * L1W], c[3 * L1W], c[4 * L1W]));
      const bool own = tx >= 2 && tx < 2 + 2 * GX && ty >= 2 && ty < 2 + 2 * GY;
      if (own) STORE_PIX(v, mid + mid_offset + py * mid_step, px);
    } else {
      v = DOWN_RESULT(down_sum(src, src_offset, src_step, border_index(px, w1, BORDER), border_index(py, h1, BORDER), w0, h0));
    }
    level1[i] = TO_W(v);
  }
  BARRIER_LOCAL();
  const int x = ox0 + LOCAL_ID(0), y = oy0 + LOCAL_ID(1);
  if (x >= w2 || y >= h2) return;
  WPIX r[5];
#pragma unroll
  for (int j = 0; j < 5; ++j) {
    LOCAL const WPIX* c = level1 + (2 * LOCAL_ID(1) + j) * L1W + 2 * LOCAL_ID(0);
    r[j] = taps5(c[0], c[1], c[2], c[3], c[4]);
  }
  STORE_PIX(DOWN_RESULT(taps5(r[0], r[1], r[2], r[3], r[4])), dst + dst_offset + y * dst_step, x);
}
#endif

/* ---- pyr_up: one work-item per 2 x 2 block of outputs, from a 3 x 3 source neighbourhood -- */
KERNEL void pyr_up(int src_width, int src_height, CONST_IMAGE_PARAM(SRC_T, src), IMAGE_PARAM(SRC_T, dst)) {
  const int x = GLOBAL_ID(0), y = GLOBAL_ID(1);
  if (x >= src_width || y >= src_height) return;
  /* Neighbours on the zero-interleaved grid of twice the size, mapped back to the source. */
  const int xm = border_index(2 * x - 2, 2 * src_width, BORDER) / 2;
  const int xp = border_index(2 * x + 2, 2 * src_width, BORDER) / 2;
  const int ym = border_index(2 * y - 2, 2 * src_height, BORDER) / 2;
  const int yp = border_index(2 * y + 2, 2 * src_height, BORDER) / 2;
  WPIX even[3], odd[3];
  const int ys[3] = {ym, y, yp};
#pragma unroll
  for (int j = 0; j < 3; ++j) {
    GLOBAL const SRC_T* row = src + src_offset + ys[j] * src_step;
    const WPIX a = TO_W(LOAD_PIX(row, xm)), b = TO_W(LOAD_PIX(row, x)), c = TO_W(LOAD_PIX(row, xp));
    even[j] = a + b * (WT)6 + c;
    odd[j] = (b + c) * (WT)4;
  }
  GLOBAL SRC_T* row0 = dst + dst_offset + 2 * y * dst_step;
  GLOBAL SRC_T* row1 = row0 + dst_step;
  STORE_PIX(UP_RESULT(even[0] + even[1] * (WT)6 + even[2]), row0, 2 * x);
  STORE_PIX(UP_RESULT(odd[0] + odd[1] * (WT)6 + odd[2]), row0, 2 * x + 1);
  STORE_PIX(UP_RESULT((even[1] + even[2]) * (WT)4), row1, 2 * x);
  STORE_PIX(UP_RESULT((odd[1] + odd[2]) * (WT)4), row1, 2 * x + 1);
}
#endif /* CN */

/* ---- subsampled: KLT's level step, f32 in and out ------------------------------------------
 * out(x, y) = sum_j g[j] sum_i g[i] in(S x + S/2 + i - RADIUS, S y + S/2 + j - RADIUS), borders
 * mapped; each work-group filters the rows it needs at its output columns into local memory.
 * WEIGHTS is the list of the TAPS weights g[0..2 RADIUS] as exact hexadecimal floats. */
#ifdef SUBSAMPLING
#define S SUBSAMPLING
#define TAPS (2 * RADIUS + 1)
#define SROWS (S * (GY - 1) + TAPS)

CONSTANT_MEM float g[TAPS] = {WEIGHTS};

KERNEL REQD_GROUP_SIZE(GX, GY, 1) void subsample(int src_width, int src_height, int dst_width, int dst_height,
                                                 CONST_IMAGE_PARAM(float, src), IMAGE_PARAM(float, dst)) {
  LOCAL_MEM float rows[SROWS * GX];
  const int lx = LOCAL_ID(0), ly = LOCAL_ID(1);
  const int ox0 = GROUP_ID(0) * GX, oy0 = GROUP_ID(1) * GY;
  const int cx = S * (ox0 + lx) + S / 2;
  for (int i = ly; i < SROWS; i += GY) {
    const int yy = border_index(S * oy0 + S / 2 - RADIUS + i, src_height, BORDER);
    GLOBAL const float* row = src + src_offset + yy * src_step;
    float sum = 0.0f;
    for (int k = 0; k < TAPS; ++k) sum += g[k] * row[border_index(cx - RADIUS + k, src_width, BORDER)];
    rows[i * GX + lx] = sum;
  }
  BARRIER_LOCAL();
  const int x = ox0 + lx, y = oy0 + ly;
  if (x >= dst_width || y >= dst_height) return;
  float sum = 0.0f;
  for (int k = 0; k < TAPS; ++k) sum += g[k] * rows[(S * ly + k) * GX + lx];
  dst[dst_offset + y * dst_step + x] = sum;
}
#endif
