/* Box filter, method `tiled`: u8 sources with integer sums and small windows, the GPUs' choice.
 * Host side: src/ops/box_filter.cpp; rules in docs/filters.md.
 *
 * A work-group of 256 work-items owns an output tile of 32 words of 4 elements (128 elements) by
 * TILE_H = 8 * RPT rows. It loads the border-extended source region that the tile's windows read
 * into local memory, one 32-bit word per load (aligned loads where the region's columns lie
 * inside the image, else element by element through the border); every load is issued before
 * any is used. Then work-item (i, g) computes the 4 output elements of word i in rows
 * [g * RPT, g * RPT + RPT) from the NQ words per row its windows reach: vertical sums of the
 * word columns, two 16-bit sums to a 32-bit word, first over KH rows and then slid down a row at
 * a time (entering row added, leaving row subtracted); horizontal sums slid along the 4 elements;
 * one 4-element store per row. Sums are exact (at most 255 rows of 255 per 16-bit half).
 *
 * Options: SRC_T (uchar), DST_T/DST_DEPTH, CN, ACC_INT (1), OUT_MODE, HAS_FP64 as in box_filter.cl;
 *   KW, KH, AX   window and anchor column
 *   RPT          output rows per work-item (TILE_H = 8 * RPT)
 *   SRC_WORDS    1 when source rows start on 4-byte boundaries (word loads allowed)
 *   DST_VEC      1 when destination rows start on 4-element boundaries (vector stores allowed) */
#include "box_filter_convert.h"

#define GROUP_ITEMS 256
#define TW_WORDS 32                       /* output words per tile row */
#define ROW_GROUPS (GROUP_ITEMS / TW_WORDS)
#define TILE_H (ROW_GROUPS * RPT)
#define HL (AX * CN)                      /* elements a window reaches on the left */
#define HR ((KW - 1 - AX) * CN)           /* and on the right */
#define LHW ((HL + 3) / 4)                /* halo words */
#define RHW ((HR + 3) / 4)
#define NQ (LHW + 1 + RHW)                /* words a work-item reads per row */
#define EXT_W (TW_WORDS + LHW + RHW)      /* words per local row */
#define EXT_H (TILE_H + KH - 1)           /* local rows */
#define EXT_WORDS (EXT_H * EXT_W)
#define LOAD_ITEMS ((EXT_WORDS + GROUP_ITEMS - 1) / GROUP_ITEMS)
#define FIRST (LHW * 4 - HL)              /* first held column a window of the word reads */
#define LAST (LHW * 4 + 4 + HR)           /* one past the last */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define DST_T4 CAT(DST_T, 4)

/* The 4 source elements [e, e + 4) of row `row` (0: a BORDER_CONSTANT row outside the image),
 * as one little-endian word, through the border. */
INLINE uint tiled_word(GLOBAL const uchar* row, int e, int width, int border, bool direct) {
  if (row == 0) return 0u;
#if SRC_WORDS && PLINTH_LITTLE_ENDIAN
  if (direct) return *(GLOBAL const uint*)(row + e);
#else
  (void)direct;
#endif
  uint w = 0u;
#pragma unroll
  for (int t = 0; t < 4; ++t) {
    const int ee = e + t;
    const int px = (ee >= 0 ? ee : ee - (CN - 1)) / CN; /* floor division */
    const int xi = border_index(px, width, border);
    if (xi >= 0) w |= (uint)row[xi * CN + (ee - px * CN)] << (8 * t);
  }
  return w;
}

#define EVEN(w) ((w) & 0x00FF00FFu)
#define ODD(w) (((w) >> 8) & 0x00FF00FFu)

KERNEL REQD_GROUP_SIZE(GROUP_ITEMS, 1, 1) void box_filter_tiled(int width, int height, int ay, int border,
                                                                CONVERT_PARAMS, CONST_IMAGE_PARAM(uchar, src),
                                                                IMAGE_PARAM(DST_T, dst)) {
  LOCAL_MEM uint tile[EXT_WORDS];
  const int lid = LOCAL_ID(0);
  const int row_e = width * CN;
  const int w0 = GROUP_ID(0) * TW_WORDS;  /* the tile's first output word */
  const int y0 = GROUP_ID(1) * TILE_H;    /* and first output row */
  const int e_first = (w0 - LHW) * 4;     /* element of local column 0 */
  const bool direct = e_first >= 0 && e_first + EXT_W * 4 <= row_e;

  /* Load the region: all loads first, then the local stores. */
  uint words[LOAD_ITEMS];
#pragma unroll
  for (int k = 0; k < LOAD_ITEMS; ++k) {
    const int idx = lid + k * GROUP_ITEMS;
    words[k] = 0u;
    if (idx < EXT_WORDS) {
      const int r = idx / EXT_W;
      const int q = idx - r * EXT_W;
      const int yi = border_index(y0 - ay + r, height, border);
      GLOBAL const uchar* row = yi < 0 ? 0 : src + src_offset + yi * src_step;
      words[k] = tiled_word(row, e_first + 4 * q, width, border, direct);
    }
  }
#pragma unroll
  for (int k = 0; k < LOAD_ITEMS; ++k) {
    const int idx = lid + k * GROUP_ITEMS;
    if (idx < EXT_WORDS) tile[idx] = words[k];
  }
  BARRIER_LOCAL();

  const int i = lid % TW_WORDS;
  const int r0 = (lid / TW_WORDS) * RPT;
  const int e0 = (w0 + i) * 4;            /* first output element */
  if (e0 >= row_e || y0 + r0 >= height) return;
  LOCAL const uint* col = tile + i;

  /* Vertical sums of the first output row: pe[q] holds columns 4q and 4q + 2 of the held words,
   * po[q] columns 4q + 1 and 4q + 3. */
  uint pe[NQ], po[NQ];
#pragma unroll
  for (int q = 0; q < NQ; ++q) pe[q] = po[q] = 0u;
#pragma unroll
  for (int r = 0; r < KH; ++r) {
#pragma unroll
    for (int q = 0; q < NQ; ++q) {
      const uint w = col[(r0 + r) * EXT_W + q];
      pe[q] += EVEN(w);
      po[q] += ODD(w);
    }
  }

#pragma unroll
  for (int j = 0; j < RPT; ++j) {
    const int y = y0 + r0 + j;
    if (y >= height) break;
    if (j > 0) {
#pragma unroll
      for (int q = 0; q < NQ; ++q) {
        const uint wi = col[(r0 + j + KH - 1) * EXT_W + q];
        const uint wo = col[(r0 + j - 1) * EXT_W + q];
        pe[q] += EVEN(wi) - EVEN(wo);
        po[q] += ODD(wi) - ODD(wo);
      }
    }
    uint v[4 * NQ];
#pragma unroll
    for (int c = FIRST; c < LAST; ++c) {
      const uint w = (c % 2 == 0) ? pe[c / 4] : po[c / 4];
      v[c] = (w >> (16 * ((c % 4) / 2))) & 0xFFFFu;
    }
    uint s[4];
    DST_T out[4];
#pragma unroll
    for (int j4 = 0; j4 < 4; ++j4) {
      if (j4 < CN) {
        uint t = 0u;
#pragma unroll
        for (int k = 0; k < KW; ++k) t += v[FIRST + j4 + k * CN];
        s[j4] = t;
      } else {
        s[j4] = s[j4 - CN] + v[FIRST + j4 + (KW - 1) * CN] - v[FIRST + j4 - CN];
      }
      out[j4] = box_convert(s[j4], e0 + j4, CONVERT_ARGS);
    }
    GLOBAL DST_T* drow = dst + dst_offset + y * dst_step + e0;
#if DST_VEC
    if (e0 + 4 <= row_e) {
      *(GLOBAL DST_T4*)drow = VEC4(DST_T4, out[0], out[1], out[2], out[3]);
      continue;
    }
#endif
#pragma unroll
    for (int j4 = 0; j4 < 4; ++j4) {
      if (e0 + j4 < row_e) drow[j4] = out[j4];
    }
  }
}
