/* Separable linear filters (cv::sepFilter2D) and the fixed-point Gaussian blur
 * (cv::GaussianBlur on u8 / u16). Host side: src/ops/sep_filter*.cpp, src/ops/gaussian_blur.cpp;
 * the arithmetic each mode reproduces is written up in docs/filters.md. Options:
 *   SRC_T/SRC_DEPTH, DST_T/DST_DEPTH, CN   types and channels
 *   KW, KH                                 taps along rows and columns (1 to 64)
 *   MODE                                   SEP_MODE_FLOAT     float rows (fma chain), float columns
 *                                          SEP_MODE_BITEXACT  u8 -> u8 smoothing kernels in 8-bit fixed point
 *                                          SEP_MODE_INT       integer kernels, exact int sums (u8 -> s16)
 *                                          SEP_MODE_GAUSS8    GaussianBlur u8: 8.8 fixed point
 *                                          SEP_MODE_GAUSS16   GaussianBlur u16: 16.16 fixed point
 *   COL_KIND                               FLOAT columns: 0 general, 1 symmetric, 2 antisymmetric
 *   fused kernel: GX, GY (work-group), TWP, TH (output tile), PXP, PYP (outputs per work-item)
 *   fused_direct kernel: FD_GS (work-group), FD_TW, FD_TH (output tile), FD_PX (pixels per row
 *     task), FD_PY (rows per column task), FD_VE (elements per vector load), AX (anchor column),
 *     FD_ALIGNED (source rows start on FD_VE-element boundaries)
 * Coefficients travel as 64 + 64 uint kernel arguments (float bits or integers), so that a launch
 * needs no buffer. */
#include "common/dialect.h"
#include "common/types.h"
#include "common/border.h"
#include "common/filter_tile.h"
#include "common/vector_words.h"
#include "sep_filter_modes.h"

#if MODE == SEP_MODE_FLOAT
#define RB_T float
#elif MODE == SEP_MODE_BITEXACT || MODE == SEP_MODE_INT
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
#if MODE == SEP_MODE_FLOAT
#define ROW_TAP(acc, v, k) acc = fma((float)(v), as_float(kxb[k]), acc)
#elif MODE == SEP_MODE_BITEXACT || MODE == SEP_MODE_INT
#define ROW_TAP(acc, v, k) acc += as_int(kxb[k]) * (int)(v)
#else
#define ROW_TAP(acc, v, k) acc += kxb[k] * (uint)(v)
#endif

/* Column filter of the KH row results r[0..KH-1] (r[j] from row y - ay + j) of element e. */
INLINE DST_T column_finish(const RB_T* r, int e, const uint* kyb, int tail, float delta_f, int delta_i) {
#if MODE == SEP_MODE_FLOAT
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

#elif MODE == SEP_MODE_BITEXACT
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

#elif MODE == SEP_MODE_INT
  (void)e;
  (void)tail;
  (void)delta_f;
  int s = delta_i;
#pragma unroll
  for (int k = 0; k < KH; ++k) s += as_int(kyb[k]) * r[k];
  return convert_short_sat(s);

#elif MODE == SEP_MODE_GAUSS8
  (void)e;
  (void)tail;
  (void)delta_f;
  (void)delta_i;
  uint s = 0;
#pragma unroll
  for (int k = 0; k < KH; ++k) s += kyb[k] * r[k];
  return (uchar)min((s + (1u << 15)) >> 16, 255u);

#else /* SEP_MODE_GAUSS16 */
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
                                                         int tile_pitch, int rows_pitch, LOCAL_PARAM(SRC_T, tile),
                                                         LOCAL_PARAM(RB_T, rows)) {
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

/* ---- fused_direct: rows straight from device memory, one launch per image ---------------------
 * A work-group of FD_GS work-items owns an output tile of FD_TW x FD_TH pixels. Row pass: each task
 * filters FD_PX neighbouring pixels (all channels) of one of the FD_TH + KH - 1 source rows the tile
 * needs, reading its FD_PX + KW - 1 source pixels straight from device memory (aligned vector loads
 * where the row lies inside the image; neighbouring work-items read neighbouring vectors, so a
 * warp reads whole segments, and the overlap comes from the cache) and every loaded value feeds all
 * FD_PX outputs it touches; the results go to local memory, the only tile there. Column pass: each
 * task filters FD_PY neighbouring rows of one element column from local memory and stores them.
 * The arithmetic (tap order, fma chains) is that of the other variants, so results are equal. */
#ifdef FD_TW
#define FD_NR (FD_TH + KH - 1)           /* row-pass rows */
#define FD_NB (FD_TW / FD_PX)            /* row tasks per row */
#define FD_NE (FD_PX * CN)               /* outputs per row task */
#define FD_NIN ((FD_PX + KW - 1) * CN)   /* source elements per row task */
#define FD_LEFT (((AX * CN) + FD_VE - 1) / FD_VE * FD_VE) /* elements loaded left of the task's own */
#define FD_SKIP (FD_LEFT - AX * CN)      /* loaded elements before the first one used */
#define FD_NV ((FD_SKIP + FD_NIN + FD_VE - 1) / FD_VE) /* vectors per row task */
#if SRC_DEPTH == DEPTH_U8
#define FD_EPW 4
#elif SRC_DEPTH == DEPTH_U16
#define FD_EPW 2
#else
#define FD_EPW 1
#endif
#define FD_WPV (FD_VE / FD_EPW)          /* 32-bit words per vector */
#define FD_CAT_(a, b) a##b
#define FD_CAT(a, b) FD_CAT_(a, b)
#define FD_NW (FD_NV * FD_WPV)

/* Float rows: SEP_MODE_FLOAT, and (FD_FLOAT_ROWS) the fixed-point smoothing modes, whose row and
 * column sums are integers below 2^24 (non-negative 8-bit kernels summing to 256 over u8 values),
 * so float arithmetic computes them exactly, in any order, at twice the rate of integer
 * multiply-adds; the host then passes those kernels' integers as float bits. */
#if MODE == SEP_MODE_FLOAT || (defined(FD_FLOAT_ROWS) && (MODE == SEP_MODE_GAUSS8 || MODE == SEP_MODE_BITEXACT))
#define FD_FLOAT 1
#define FD_IN_T float
#define FD_RB_T float
#define FD_TAP(acc, v, k) acc = fma(v, as_float(kxb[k]), acc)
#else
#define FD_FLOAT 0
#define FD_IN_T SRC_T
#define FD_RB_T RB_T
#define FD_TAP(acc, v, k) ROW_TAP(acc, v, k)
#endif
#define FD_RB4 FD_CAT(FD_RB_T, 4)

/* A source element as a row-pass input. Integers below 2^23 become floats through their bits
 * (2^23 + v, minus 2^23: exact), sparing the slow integer-to-float conversion unit. */
INLINE FD_IN_T fd_in(SRC_T v) {
#if FD_FLOAT && SRC_DEPTH != DEPTH_F32
  return as_float(0x4B000000u | (uint)v) - 8388608.0f;
#else
  return (FD_IN_T)v;
#endif
}

/* Element i (compile-time after unrolling) of the words loaded for a row task. */
INLINE FD_IN_T fd_elem(const uint* w, int i) {
  const uint word = w[(FD_SKIP + i) / FD_EPW];
#if SRC_DEPTH == DEPTH_U8
  return fd_in((SRC_T)((word >> (8 * ((FD_SKIP + i) % 4))) & 0xFFu));
#elif SRC_DEPTH == DEPTH_U16
  return fd_in((SRC_T)((word >> (16 * ((FD_SKIP + i) % 2))) & 0xFFFFu));
#else
  return as_float(word);
#endif
}

#if FD_FLOAT && MODE != SEP_MODE_FLOAT
/* The columns of the fixed-point modes from exact float row sums (coefficients as float bits). */
INLINE DST_T fd_column_finish(const float* r, int e, const uint* kyb, int tail, float delta_f, int delta_i) {
#if MODE == SEP_MODE_GAUSS8
  (void)e;
  (void)tail;
  (void)delta_f;
  (void)delta_i;
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < KH; ++k) s = fma(as_float(kyb[k]), r[k], s);
  return (uchar)min(((uint)s + (1u << 15)) >> 16, 255u);
#else /* SEP_MODE_BITEXACT: as column_finish, with the int row sums held as exact floats */
  const int c = KH / 2;
  if (e < tail) {
    const float scale = 1.0f / 65536.0f;
    float s = fma(r[c], as_float(kyb[c]) * scale, delta_f);
#pragma unroll
    for (int k = 1; k <= KH / 2; ++k) s = fma(r[c + k] + r[c - k], as_float(kyb[c + k]) * scale, s);
    return convert_uchar_sat_rte(s);
  }
  int s = delta_i;
#pragma unroll
  for (int k = 0; k < KH; ++k) s += (int)as_float(kyb[k]) * (int)r[k];
  return convert_uchar_sat((s + (1 << 15)) >> 16);
#endif
}
#define FD_COLUMN_FINISH fd_column_finish
#else
#define FD_COLUMN_FINISH column_finish
#endif

/* Groups a compute unit should hold, where asked (CUDA: registers at most 65536 / (FD_GS x groups);
 * OpenCL: the group size only). f32, one channel, 31 taps each way: 4, which NVRTC 13 fits in 64
 * registers without spilling (90 unasked: 2 groups); on the H200, 3840x2160, 86.8 -> 72.9 us
 * (NVIDIA OpenCL 71.6). Not asked elsewhere: at 64 registers 17 to 29 and 33 to 41 taps, and u8
 * rows of 31, spill (docs/backends.md). */
#if SRC_DEPTH == DEPTH_F32 && CN == 1 && KW == 31 && KH == 31 && FD_GS == 256
#define FD_KERNEL_GROUPS REQD_GROUP_SIZE_RESIDENT(FD_GS, 4)
#else
#define FD_KERNEL_GROUPS REQD_GROUP_SIZE(FD_GS, 1, 1)
#endif

KERNEL FD_KERNEL_GROUPS void sep_filter_fused_direct(SEP_PARAMS, COEF_PARAMS(kx), COEF_PARAMS(ky),
                                                                  CONST_IMAGE_PARAM(SRC_T, src),
                                                                  IMAGE_PARAM(DST_T, dst), LOCAL_PARAM(FD_RB_T, rows)) {
  (void)ax;
  const uint kxb[64] = {COEF_LIST(kx)};
  const uint kyb[64] = {COEF_LIST(ky)};
  const int lid = LOCAL_ID(0);
  const int x0 = GROUP_ID(0) * FD_TW;
  const int y0 = GROUP_ID(1) * FD_TH;
  const int row_e = width * CN;

  for (int t = lid; t < FD_NR * FD_NB; t += FD_GS) {
    const int r = t / FD_NB;
    const int b = t - r * FD_NB;
    const int yi = border_index(y0 - ay + r, height, border);
    const int p0 = x0 + b * FD_PX - AX; /* first source pixel */
    FD_RB_T acc[FD_NE];
#pragma unroll
    for (int i = 0; i < FD_NE; ++i) acc[i] = (FD_RB_T)0;
    if (yi >= 0) {
      GLOBAL const SRC_T* row = src + src_offset + yi * src_step;
      const int e_load = (x0 + b * FD_PX) * CN - FD_LEFT; /* first loaded element */
      const bool inside = p0 >= 0 && p0 + FD_PX + KW - 1 <= width;
      FD_IN_T in[FD_NIN];
#if FD_ALIGNED && PLINTH_LITTLE_ENDIAN
      if (e_load >= 0 && e_load + FD_NV * FD_VE <= row_e) {
        uint w[FD_NW];
        LOAD_VECTOR_WORDS(w, row + e_load, FD_NV, FD_WPV);
#pragma unroll
        for (int i = 0; i < FD_NIN; ++i) in[i] = fd_elem(w, i);
      } else
#else
      (void)e_load;
#endif
      if (inside) {
#pragma unroll
        for (int i = 0; i < FD_NIN; ++i) in[i] = fd_in(row[p0 * CN + i]);
      } else {
#pragma unroll
        for (int i = 0; i < FD_NIN; ++i) {
          const int xi = border_index(p0 + i / CN, width, border);
          in[i] = fd_in(xi < 0 ? (SRC_T)0 : row[xi * CN + i % CN]);
        }
      }
      /* Each source value into every output it touches, taps in OpenCV's order per output. */
#pragma unroll
      for (int j = 0; j < FD_PX + KW - 1; ++j) {
#pragma unroll
        for (int c = 0; c < CN; ++c) {
          const FD_IN_T v = in[j * CN + c];
#pragma unroll
          for (int p = 0; p < FD_PX; ++p) {
            const int k = j - p;
            if (k >= 0 && k < KW) FD_TAP(acc[p * CN + c], v, k);
          }
        }
      }
    }
    LOCAL FD_RB_T* out = rows + r * (FD_TW * CN) + b * FD_NE;
#if FD_NE % 4 == 0
    /* 4-wide stores (vstore4: local arguments promise only element alignment). */
#pragma unroll
    for (int i = 0; i < FD_NE; i += 4) vstore4(VEC4(FD_RB4, acc[i], acc[i + 1], acc[i + 2], acc[i + 3]), 0, out + i);
#else
#pragma unroll
    for (int i = 0; i < FD_NE; ++i) out[i] = acc[i];
#endif
  }
  BARRIER_LOCAL();

  const int cols = FD_TW * CN;
  for (int t = lid; t < cols * (FD_TH / FD_PY); t += FD_GS) {
    const int col = t % cols;
    const int yb = (t / cols) * FD_PY;
    const int e = x0 * CN + col;
    if (e >= row_e || y0 + yb >= height) continue;
    FD_RB_T v[FD_PY + KH - 1];
#pragma unroll
    for (int j = 0; j < FD_PY + KH - 1; ++j) v[j] = rows[(yb + j) * cols + col];
#pragma unroll
    for (int p = 0; p < FD_PY; ++p) {
      const int y = y0 + yb + p;
      if (y < height) IMAGE_AT(dst, e, y) = FD_COLUMN_FINISH(v + p, e, kyb, SEP_ARGS);
    }
  }
}
#endif
