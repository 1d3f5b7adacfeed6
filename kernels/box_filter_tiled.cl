/* Box filter, method `tiled`: u8 sources with integer sums and small windows, the GPUs' choice.
 * Host side: src/ops/box_filter.cpp; rules in docs/filters.md.
 *
 * A work-group of 256 work-items (8 warps of 32) owns an output tile of TW_WORDS = 32 - LHW - RHW
 * words of 4 elements by TILE_H = 8 * RPT rows, in two passes through local memory:
 *
 * 1. Vertical sums. Work-item (c, g) takes word column c of the 32 the tile's windows read (the
 *    tile's words and LHW / RHW halo words) and rows [g * RPT, g * RPT + RPT): it loads the
 *    RPT + KH - 1 source words of its column (word loads where the column lies inside the image,
 *    else element by element through the border; row arithmetic only for tiles at the top or
 *    bottom), all before any is used, splits each word once into its even and odd bytes, two
 *    16-bit lanes a word, and sums KH rows, then slides down a row at a time (entering row added,
 *    leaving row subtracted). Each column's sums are computed once per tile, not once per reader.
 * 2. Horizontal sums. Work-item (i, g), i < TW_WORDS, reads the packed vertical sums of the NQ
 *    words its 4 outputs' windows reach, per row. Where a window's sum fits 16 bits (HPACK:
 *    KW * KH * 255 < 2^16) the horizontal sums stay packed too: outputs 0 and 2 of the word in one
 *    32-bit word, 1 and 3 in another, each the sum of KW pairs of columns (x, x + 2); a pair that
 *    straddles two held words is one byte_perm (a funnel shift). One channel: the odd outputs'
 *    word is the even one slid by a column (one add). Normalized u8 -> u8: (s * 2ds + 2dd * ds)
 *    puts OpenCV's ((s + dd) * ds) >> 23 in the top byte, and three byte_perms gather the 4 bytes.
 *    Else the columns are unpacked and summed one by one (wide windows, sums beyond 16 bits).
 *
 * SASS (NVRTC 13.0, sm_90; counted, not measured; docs/filters.md "What limits each kernel"):
 * u8 -> u8 normalized, one channel, RPT 8, per output on an interior work-group's path, ALU-pipe
 * / FMA-pipe / all instructions: 3x3 4.4 / 3.3 / 10.4, 8x8 4.8 / 4.0 / 11.7, 15x15 6.9 / 4.3 / 15.0
 * (the one-pass version before it: 14.3 / 4.6 / 29.4, 22.8 / 4.6 / 42.9, 40.9 / 5.5 / 66.9).
 *
 * Options: SRC_T (uchar), DST_T/DST_DEPTH, CN, ACC_INT (1), OUT_MODE, HAS_FP64 as in box_filter.cl;
 *   KW, KH, AX   window and anchor column
 *   RPT          output rows per work-item (TILE_H = 8 * RPT)
 *   SRC_WORDS    1 when source rows start on 4-byte boundaries (word loads allowed)
 *   DST_VEC      1 when destination rows start on 4-element boundaries (vector stores allowed) */
#include "box_filter_word_sums.h"

#define GROUP_ITEMS 256
#define COLS 32                           /* word columns per tile row: one per lane */
#define ROW_GROUPS (GROUP_ITEMS / COLS)
#define TILE_H (ROW_GROUPS * RPT)
#define TW_WORDS (COLS - LHW - RHW)       /* output words per tile row */
#define NR (RPT + KH - 1)                 /* source rows a column of vertical sums reads */

/* One output row of the word: the packed vertical sums of its NQ words from local memory. */
INLINE void tiled_load(LOCAL const uint2* v, uint* pe, uint* po) {
#pragma unroll
  for (int q = 0; q < NQ; ++q) {
    const uint2 p = v[q];
    pe[q] = p.x;
    po[q] = p.y;
  }
}

INLINE void tiled_row(LOCAL const uint2* v, GLOBAL DST_T* drow, int e0, int nin, uint ds2, uint nds2h, uint c2,
                      CONVERT_PARAMS) {
  uint pe[NQ], po[NQ];
  tiled_load(v, pe, po);
  word_outputs(pe, po, drow, e0, nin, ds2, nds2h, c2, CONVERT_ARGS);
}

/* The vertical running sums move between the integer ALU pipe and the FMA pipe (NVIDIA): a
 * running sum's update a + b - c is one IADD3 on the ALU pipe, or two multiply-adds by an opaque
 * 1 and 0xFFFFFFFF (imad_u32, common/dialect.h) on the FMA pipe, which the byte_perm and add work
 * of both passes leaves about half idle; the odd columns' sums take the multiply-adds. */
#define VSLIDE_ALU(s, in, out) ((s) + (in) - (out))
#define VSLIDE_FMA(s, in, out) imad_u32((out), m1, imad_u32((in), one, (s)))

KERNEL REQD_GROUP_SIZE(GROUP_ITEMS, 1, 1) void box_filter_tiled(int width, int height, int ay, int border,
                                                                CONVERT_PARAMS, CONST_IMAGE_PARAM(uchar, src),
                                                                IMAGE_PARAM(DST_T, dst)) {
  LOCAL_MEM uint2 vsum[TILE_H * COLS]; /* packed vertical sums (even, odd) per row and column */
  const int lid = LOCAL_ID(0);
  const int lane = (int)((uint)lid % COLS);
  const int g = (int)((uint)lid / COLS);
  const int row_e = width * CN;
  const int w0 = GROUP_ID(0) * TW_WORDS; /* the tile's first output word */
  const int y0 = GROUP_ID(1) * TILE_H;   /* and first output row */
  const uint one = opaque_u32(1u, src_step), m1 = opaque_u32(0xFFFFFFFFu, src_step);

  /* 1. Vertical sums of column `lane` (source word w0 - LHW + lane), rows [g * RPT, + RPT). */
  {
    const int e = (w0 - LHW + lane) * 4;
    const bool direct = SRC_WORDS && PLINTH_LITTLE_ENDIAN && e >= 0 && e + 4 <= row_e;
    const int ys = y0 - ay + g * RPT; /* source row of the column's first sum row */
    uint w[NR];
    const bool rows_inside = ys >= 0 && ys + NR <= height;
#if SRC_WORDS && PLINTH_LITTLE_ENDIAN
    if (rows_inside && direct) { /* the common case: plain word loads, one add per row */
      GLOBAL const uint* p = (GLOBAL const uint*)(src + (src_offset + ys * src_step + e));
      const int step = src_step / 4;
#pragma unroll
      for (int t = 0; t < NR; ++t) w[t] = p[t * step];
    } else
#endif
    if (rows_inside) {
      GLOBAL const uchar* row = src + src_offset + ys * src_step;
#pragma unroll
      for (int t = 0; t < NR; ++t) w[t] = border_word(row + t * src_step, e, width, CN, border, direct);
    } else {
#pragma unroll
      for (int t = 0; t < NR; ++t) {
        const int yi = border_index(ys + t, height, border);
        w[t] = yi < 0 ? 0u : border_word(src + src_offset + yi * src_step, e, width, CN, border, direct);
      }
    }
    uint se = 0u, so = 0u;
#pragma unroll
    for (int t = 0; t < KH; ++t) {
      se += EVEN(w[t]);
      so += ODD(w[t]);
    }
    LOCAL uint2* v = vsum + g * RPT * COLS + lane;
    v[0] = VEC2(uint2, se, so);
#pragma unroll
    for (int j = 1; j < RPT; ++j) {
      se = VSLIDE_ALU(se, EVEN(w[j + KH - 1]), EVEN(w[j - 1]));
      so = VSLIDE_FMA(so, ODD(w[j + KH - 1]), ODD(w[j - 1]));
      v[j * COLS] = VEC2(uint2, se, so);
    }
  }
  BARRIER_LOCAL();

  /* 2. Horizontal sums: output word w0 + lane, rows [g * RPT, + RPT). */
  const int e0 = (w0 + lane) * 4;
  const int r0 = g * RPT;
  if (lane >= TW_WORDS || e0 >= row_e || y0 + r0 >= height) return;
  const int nin = row_e - e0;
  const uint ds2 = 2u * (uint)ds, c2 = 2u * (uint)dd * (uint)ds;
  const uint nds2h = 0u - (ds2 << 16);
  LOCAL const uint2* v = vsum + r0 * COLS + lane;
  GLOBAL DST_T* drow = dst + (dst_offset + (y0 + r0) * dst_step + e0);
  if (y0 + r0 + RPT <= height) {
#if FAST_U8 && DST_VEC && PLINTH_LITTLE_ENDIAN
    /* Interior words: RPT word stores down the rows, no per-row test. */
    if (nin >= 4) {
      GLOBAL uint* dw = (GLOBAL uint*)drow;
      const int step_w = dst_step >> 2; /* rows start on 4-byte boundaries (DST_VEC) */
#pragma unroll
      for (int j = 0; j < RPT; ++j) {
        uint pe[NQ], po[NQ], se, so;
        tiled_load(v + j * COLS, pe, po);
        word_sums(pe, po, &se, &so);
        dw[j * step_w] = word_mean_u8(se, so, ds2, nds2h, c2);
      }
      return;
    }
#endif
#pragma unroll
    for (int j = 0; j < RPT; ++j) tiled_row(v + j * COLS, drow + j * dst_step, e0, nin, ds2, nds2h, c2, CONVERT_ARGS);
  } else {
    for (int j = 0; j < RPT && y0 + r0 + j < height; ++j) {
      tiled_row(v + j * COLS, drow + j * dst_step, e0, nin, ds2, nds2h, c2, CONVERT_ARGS);
    }
  }
}
