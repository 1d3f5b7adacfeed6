/* Separable linear filters (cv::sepFilter2D) and the fixed-point Gaussian blur
 * (cv::GaussianBlur on u8 / u16). Host side: src/ops/sep_filter*.cpp, src/ops/gaussian_blur.cpp;
 * the arithmetic each mode reproduces is written up in docs/filters.md. Options:
 *   SRC_T/SRC_DEPTH, DST_T/DST_DEPTH, CN   types and channels
 *   KW, KH                                 taps along rows and columns (1 to 64)
 *   MODE                                   MODE_FLOAT     float rows (fma chain), float columns
 *                                          MODE_BITEXACT  u8 -> u8 smoothing kernels in 8-bit fixed point
 *                                          MODE_INT       integer kernels, exact int sums (u8 -> s16)
 *                                          MODE_GAUSS8    GaussianBlur u8: 8.8 fixed point
 *                                          MODE_GAUSS16   GaussianBlur u16: 16.16 fixed point
 *   COL_KIND                               FLOAT columns: 0 general, 1 symmetric, 2 antisymmetric
 *   fused kernel: GX, GY (work-group), TWP, TH (output tile), PXP, PYP (outputs per work-item)
 * Coefficients travel as 64 + 64 uint kernel arguments (float bits or integers), so that a launch
 * needs no buffer. */
#include "common/dialect.h"
#include "common/types.h"
#include "common/border.h"
#include "common/filter_tile.h"

#define MODE_FLOAT 0
#define MODE_BITEXACT 1
#define MODE_INT 2
#define MODE_GAUSS8 3
#define MODE_GAUSS16 4

#if MODE == MODE_FLOAT
#define RB_T float
#elif MODE == MODE_BITEXACT || MODE == MODE_INT
#define RB_T int
#else
#define RB_T uint
#endif

#define P8(p, n) uint p##n##0, uint p##n##1, uint p##n##2, uint p##n##3, uint p##n##4, uint p##n##5, uint p##n##6, uint p##n##7
#define COEF_PARAMS(p) P8(p, 0), P8(p, 1), P8(p, 2), P8(p, 3), P8(p, 4), P8(p, 5), P8(p, 6), P8(p, 7)
#define L8(p, n) p##n##0, p##n##1, p##n##2, p##n##3, p##n##4, p##n##5, p##n##6, p##n##7
#define COEF_LIST(p) L8(p, 0), L8(p, 1), L8(p, 2), L8(p, 3), L8(p, 4), L8(p, 5), L8(p, 6), L8(p, 7)

/* The common scalar parameters of every kernel of this file. */
#define SEP_PARAMS int width, int height, int ax, int ay, int border, int tail, float delta_f, int delta_i
#define SEP_ARGS tail, delta_f, delta_i

/* One tap of the row filter, in the order OpenCV's row filters add: k = 0, 1, ..., KW - 1. */
#if MODE == MODE_FLOAT
#define ROW_TAP(acc, v, k) acc = fma((float)(v), as_float(kxb[k]), acc)
#elif MODE == MODE_BITEXACT || MODE == MODE_INT
#define ROW_TAP(acc, v, k) acc += as_int(kxb[k]) * (int)(v)
#else
#define ROW_TAP(acc, v, k) acc += kxb[k] * (uint)(v)
#endif

/* Column filter of the KH row results r[0..KH-1] (r[j] from row y - ay + j) of element e. */
INLINE DST_T column_finish(const RB_T* r, int e, const uint* kyb, int tail, float delta_f, int delta_i) {
#if MODE == MODE_FLOAT
  (void)e;
  (void)tail;
  (void)delta_i;
  float s;
#if COL_KIND == 1
  /* SymmColumnFilter: centre first, then the pairs around it. */
  const int c = KH / 2;
  s = fma(as_float(kyb[c]), r[c], delta_f);
#pragma unroll
  for (int k = 1; k <= KH / 2; ++k) s = fma(as_float(kyb[c + k]), r[c + k] + r[c - k], s);
#elif COL_KIND == 2
  const int c = KH / 2;
  s = delta_f;
#pragma unroll
  for (int k = 1; k <= KH / 2; ++k) s = fma(as_float(kyb[c + k]), r[c + k] - r[c - k], s);
#else
  s = fma(as_float(kyb[0]), r[0], delta_f);
#pragma unroll
  for (int k = 1; k < KH; ++k) s = fma(as_float(kyb[k]), r[k], s);
#endif
#if DST_DEPTH == DEPTH_U8
  return convert_uchar_sat_rte(s);
#elif DST_DEPTH == DEPTH_S16
  return convert_short_sat_rte(s);
#else
  return s;
#endif

#elif MODE == MODE_BITEXACT
  const int c = KH / 2;
  if (e < tail) {
    /* OpenCV's vector lanes: int row sums to float, kernel / 2^16, fma, round half to even. */
    const float scale = 1.0f / 65536.0f;
    float s = fma((float)r[c], (float)as_int(kyb[c]) * scale, delta_f);
#pragma unroll
    for (int k = 1; k <= KH / 2; ++k) s = fma((float)(r[c + k] + r[c - k]), (float)as_int(kyb[c + k]) * scale, s);
    return convert_uchar_sat_rte(s);
  }
  /* Its scalar tail: exact int, rounded half up. */
  int s = delta_i;
#pragma unroll
  for (int k = 0; k < KH; ++k) s += as_int(kyb[k]) * r[k];
  return convert_uchar_sat((s + (1 << 15)) >> 16);

#elif MODE == MODE_INT
  (void)e;
  (void)tail;
  (void)delta_f;
  int s = delta_i;
#pragma unroll
  for (int k = 0; k < KH; ++k) s += as_int(kyb[k]) * r[k];
  return convert_short_sat(s);

#elif MODE == MODE_GAUSS8
  (void)e;
  (void)tail;
  (void)delta_f;
  (void)delta_i;
  uint s = 0;
#pragma unroll
  for (int k = 0; k < KH; ++k) s += kyb[k] * r[k];
  return (uchar)min((s + (1u << 15)) >> 16, 255u);

#else /* MODE_GAUSS16 */
  (void)e;
  (void)tail;
  (void)delta_f;
  (void)delta_i;
  ulong s = 0;
#pragma unroll
  for (int k = 0; k < KH; ++k) s += (ulong)kyb[k] * r[k];
  return (ushort)min((s + (1ul << 31)) >> 32, (ulong)65535);
#endif
}

/* ---- two_pass: rows into an intermediate, then columns ------------------------------------- */
#ifndef TWP
KERNEL void sep_filter_rows(SEP_PARAMS, COEF_PARAMS(kx), CONST_IMAGE_PARAM(SRC_T, src), GLOBAL RB_T* rows,
                            int rows_step) {
  (void)tail;
  (void)delta_f;
  (void)delta_i;
  (void)ay;
  const uint kxb[64] = {COEF_LIST(kx)};
  const int e = GLOBAL_ID(0);
  const int y = GLOBAL_ID(1);
  if (e >= width * CN || y >= height) return;
  const int x = e / CN;
  const int c = e - x * CN;
  GLOBAL const SRC_T* row = src + src_offset + y * src_step;
  RB_T acc = (RB_T)0;
#pragma unroll
  for (int k = 0; k < KW; ++k) {
    const int xi = border_index(x - ax + k, width, border);
    const SRC_T v = xi < 0 ? (SRC_T)0 : row[xi * CN + c];
    ROW_TAP(acc, v, k);
  }
  rows[y * rows_step + e] = acc;
}

KERNEL void sep_filter_columns(SEP_PARAMS, COEF_PARAMS(ky), GLOBAL const RB_T* rows, int rows_step,
                               IMAGE_PARAM(DST_T, dst)) {
  (void)ax;
  const uint kyb[64] = {COEF_LIST(ky)};
  const int e = GLOBAL_ID(0);
  const int y = GLOBAL_ID(1);
  if (e >= width * CN || y >= height) return;
  RB_T r[KH];
#pragma unroll
  for (int j = 0; j < KH; ++j) {
    const int yi = border_index(y - ay + j, height, border);
    r[j] = yi < 0 ? (RB_T)0 : rows[yi * rows_step + e];
  }
  IMAGE_AT(dst, e, y) = column_finish(r, e, kyb, SEP_ARGS);
}
#endif

/* ---- fused: one launch per image ------------------------------------------------------------
 * A work-group loads its output tile's source region (TWP + KW - 1) x (TH + KH - 1) pixels into
 * local memory, filters its rows there (each work-item PXP neighbouring pixels of one row, every
 * loaded value reused across them), then its columns (each work-item PYP neighbouring rows of
 * one element column) and writes the tile once. */
#ifdef TWP
KERNEL REQD_GROUP_SIZE(GX, GY, 1) void sep_filter_fused(SEP_PARAMS, COEF_PARAMS(kx), COEF_PARAMS(ky),
                                                         CONST_IMAGE_PARAM(SRC_T, src), IMAGE_PARAM(DST_T, dst),
                                                         int tile_pitch, int rows_pitch, LOCAL SRC_T* tile,
                                                         LOCAL RB_T* rows) {
  const uint kxb[64] = {COEF_LIST(kx)};
  const uint kyb[64] = {COEF_LIST(ky)};
  const int lx = LOCAL_ID(0);
  const int ly = LOCAL_ID(1);
  const int lid = ly * GX + lx;
  const int x0 = GROUP_ID(0) * TWP;
  const int y0 = GROUP_ID(1) * TH;
  const int nr = TH + KH - 1; /* rows of the tile */

  load_tile(tile, tile_pitch, TWP + KW - 1, nr, x0 - ax, y0 - ay, width, height, border, src, src_offset, src_step,
            lx, ly, GX, GY);
  BARRIER_LOCAL();

  /* Rows: task t = (row t % nr, block t / nr); neighbouring work-items take neighbouring rows. */
  const int row_tasks = nr * (TWP / PXP);
  for (int t = lid; t < row_tasks; t += GX * GY) {
    const int r = t % nr;
    const int xb = (t / nr) * PXP;
    LOCAL const SRC_T* in = tile + r * tile_pitch + xb * CN;
    RB_T acc[PXP * CN];
#pragma unroll
    for (int i = 0; i < PXP * CN; ++i) acc[i] = (RB_T)0;
#pragma unroll
    for (int j = 0; j < PXP + KW - 1; ++j) {
#pragma unroll
      for (int c = 0; c < CN; ++c) {
        const SRC_T v = in[j * CN + c];
#pragma unroll
        for (int p = 0; p < PXP; ++p) {
          const int k = j - p;
          if (k >= 0 && k < KW) ROW_TAP(acc[p * CN + c], v, k);
        }
      }
    }
    LOCAL RB_T* out = rows + r * rows_pitch + xb * CN;
#pragma unroll
    for (int i = 0; i < PXP * CN; ++i) out[i] = acc[i];
  }
  BARRIER_LOCAL();

  /* Columns: task t = (element column t % (TWP * CN), block t / (TWP * CN)). */
  const int cols = TWP * CN;
  const int col_tasks = cols * (TH / PYP);
  for (int t = lid; t < col_tasks; t += GX * GY) {
    const int col = t % cols;
    const int yb = (t / cols) * PYP;
    const int x = x0 + col / CN;
    if (x >= width) continue;
    RB_T v[PYP + KH - 1];
#pragma unroll
    for (int j = 0; j < PYP + KH - 1; ++j) v[j] = rows[(yb + j) * rows_pitch + col];
    const int e = x0 * CN + col;
#pragma unroll
    for (int p = 0; p < PYP; ++p) {
      const int y = y0 + yb + p;
      if (y < height) IMAGE_AT(dst, e, y) = column_finish(v + p, e, kyb, SEP_ARGS);
    }
  }
}
#endif
