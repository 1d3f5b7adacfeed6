/* Separable filter, method `tiled`: u8 -> u8 in OpenCV's 8-bit fixed point (GaussianBlur u8,
 * SEP_MODE_GAUSS8; sepFilter2D's smoothing kernels with delta 0, SEP_MODE_BITEXACT), up to 9 taps
 * each way, the GPUs' choice for them. Host side: src/ops/sep_filter_tiled.cpp; docs/filters.md.
 *
 * A work-group of 256 work-items owns an output tile of 32 words of 4 elements (128 elements) by
 * TILE_H = 8 * RPT rows. It loads the border-extended source region of the tile into local
 * memory once, one 32-bit word per load (plain word loads where the region lies inside the image
 * and rows start on word boundaries, else element by element through the border), every load
 * issued before any is used.
 * Work-item (i, g) then computes the 4 output elements of word i in rows [g * RPT, g * RPT + RPT):
 * it walks the RPT + KH - 1 source rows its column windows need, top to bottom, and for each:
 *   row pass: NQ word loads from local memory; neighbouring source elements j, j + 1 share one
 *     32-bit "pair" word (two 16-bit lanes), so one integer multiply-add per tap serves two
 *     outputs: H01 = sum_k kx[k] * pair(e0 - HL + k * CN), H23 the same from e0 + 2; no lane
 *     overflows, as kx >= 0 sums to 256 (host-checked): a lane is at most 255 * 256 = 65280;
 *   column pass in registers: the last KH row results stay in registers (nothing is read twice
 *     through local memory or the cache); output row y's sums s = 2^15 + sum_j ky[j] * h[y + j]
 *     (at most 2^15 + 256 * 65280 < 2^24), and the result is s >> 16, byte 2 of s.
 * This is the arithmetic of OpenCV's fixed point exactly: rows h = sum kx * src (ufixedpoint16),
 * columns (sum ky * h + 2^15) >> 16 (ufixedpoint32), integer sums, so any order gives the same.
 * SEP_MODE_BITEXACT rounds half to even in OpenCV's vector lanes (elements below `tail`; its float
 * chain is exact when delta is 0, the only case sent here) and half up in the scalar tail.
 *
 * Options: CN (1-4), KW, KH (1-9), AX (anchor column), MODE (sep_filter_modes.h: GAUSS8 or BITEXACT),
 *   RPT          output rows per work-item (TILE_H = 8 * RPT)
 *   SRC_WORDS    1 when source rows start on 4-byte boundaries (word loads allowed)
 *   DST_WORDS    1 when destination rows start on 4-byte boundaries (word stores allowed) */
#include "common/dialect.h"
#include "common/types.h"
#include "common/border.h"
#include "sep_filter_modes.h"
#include "sep_filter_fixed_point.h"

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
#define LOAD_ROWS (GROUP_ITEMS / EXT_W)    /* local rows loaded per pass of the group */
#define LOAD_PASSES ((EXT_H + LOAD_ROWS - 1) / LOAD_ROWS)
#define FIRST (LHW * 4 - HL)              /* held element that tap 0 of output element 0 reads */
#define ST_LOW_FMA (KW <= 3)              /* row sums' low lanes by multiply-add (see st_row) */

/* Held elements j and j + 1 (j compile-time after unrolling) in the low bytes of the two 16-bit
 * lanes of a word: one byte permutation within a word, two across words (j % 4 == 3; element
 * j + 1 is one the windows read, so word j / 4 + 1 is held then). */
INLINE uint st_pair(const uint* w, int j) {
  const uint a = w[j / 4];
  switch (j % 4) {
    case 0: return byte_perm(a, 0u, 0x4140u);
    case 1: return byte_perm(a, 0u, 0x4241u);
    case 2: return byte_perm(a, 0u, 0x4342u);
    default: return byte_perm(a, w[j / 4 + 1], 0x0403u) & 0x00FF00FFu; /* bytes 3 of a, 0 of the next */
  }
}

/* Row pass of one source row: the row sums of the 4 output elements, h[c] (c = 0..3), from the
 * NQ words at p. The low lanes are taken as h01 - (h01 >> 16) * 2^16 with a multiply-add by the
 * opaque m65536 = 0xFFFF0000 (imad_u32): on the FMA pipe, not a mask on the integer ALU pipe. */
INLINE void st_row(LOCAL const uint* p, const uint* kxv, uint m65536, uint* h) {
  uint w[NQ];
#pragma unroll
  for (int q = 0; q < NQ; ++q) w[q] = p[q];
  uint h01 = 0u, h23 = 0u;
#pragma unroll
  for (int k = 0; k < KW; ++k) {
    h01 += kxv[k] * st_pair(w, FIRST + k * CN);
    h23 += kxv[k] * st_pair(w, FIRST + 2 + k * CN);
  }
  h[1] = h01 >> 16;
  h[3] = h23 >> 16;
#if ST_LOW_FMA
  h[0] = imad_u32(h[1], m65536, h01);
  h[2] = imad_u32(h[3], m65536, h23);
#else
  (void)m65536;
  h[0] = h01 & 0xFFFFu;
  h[2] = h23 & 0xFFFFu;
#endif
}

/* Column pass of output row j: the 4 column sums (results in byte 2) gathered into a word. */
INLINE uint st_column(uint (*h)[4], int j, const uint* kyv, int e0, int tail, uint* s) {
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    uint acc = 1u << 15;
#pragma unroll
    for (int t = 0; t < KH; ++t) acc += kyv[t] * h[(j + t) % KH][c];
    s[c] = fixed_point_round(acc, e0 + c, tail);
  }
  return byte_perm(byte_perm(s[0], s[1], 0x0062u), byte_perm(s[2], s[3], 0x0062u), 0x5410u);
}

KERNEL REQD_GROUP_SIZE(GROUP_ITEMS, 1, 1) void sep_filter_tiled(int width, int height, int ay, int border, int tail,
                                                                KPARAMS(kx), KPARAMS(ky),
                                                                CONST_IMAGE_PARAM(uchar, src),
                                                                IMAGE_PARAM(uchar, dst)) {
  LOCAL_MEM uint tile[EXT_WORDS];
  const uint kxv[9] = {KLIST(kx)};
  const uint kyv[9] = {KLIST(ky)};
  const int lid = LOCAL_ID(0);
  const int row_e = width * CN;
  const int w0 = GROUP_ID(0) * TW_WORDS;  /* the tile's first output word */
  const int y0 = GROUP_ID(1) * TILE_H;    /* and first output row */
  const int e_first = (w0 - LHW) * 4;     /* element of local column 0 */
  const bool direct = SRC_WORDS && PLINTH_LITTLE_ENDIAN && e_first >= 0 && e_first + EXT_W * 4 <= row_e;

  /* Load the region: all loads first, then the local stores. Work-item (lr, q) loads word q of
   * local rows lr, lr + LOAD_ROWS, ...; tiles whose rows lie inside the image and whose columns
   * need no border (nearly all) take plain word loads, stepping a pointer down the rows. */
  const int lq = lid % EXT_W;
  const int lr = lid / EXT_W;
  const int ys = y0 - ay;                 /* source row of local row 0 */
  uint words[LOAD_PASSES];
#if SRC_WORDS && PLINTH_LITTLE_ENDIAN
  if (direct && ys >= 0 && ys + EXT_H <= height) {
    GLOBAL const uint* p = (GLOBAL const uint*)(src + src_offset + (ys + lr) * src_step + e_first) + lq;
    const int pass_words = LOAD_ROWS * (src_step / 4);
#pragma unroll
    for (int k = 0; k < LOAD_PASSES; ++k) {
      words[k] = 0u;
      if (lr < LOAD_ROWS && lr + k * LOAD_ROWS < EXT_H) words[k] = *p;
      p += pass_words;
    }
  } else
#endif
  {
#pragma unroll
    for (int k = 0; k < LOAD_PASSES; ++k) {
      words[k] = 0u;
      const int r = lr + k * LOAD_ROWS;
      if (lr < LOAD_ROWS && r < EXT_H) {
        const int yi = border_index(ys + r, height, border);
        const int e = e_first + 4 * lq;
        words[k] = yi < 0 ? 0u : border_word(src + src_offset + yi * src_step, e, width, CN, border, direct);
      }
    }
  }
#pragma unroll
  for (int k = 0; k < LOAD_PASSES; ++k) {
    if (lr < LOAD_ROWS && lr + k * LOAD_ROWS < EXT_H) tile[lid + k * LOAD_ROWS * EXT_W] = words[k];
  }
  BARRIER_LOCAL();

  const int i = lid % TW_WORDS;
  const int r0 = (lid / TW_WORDS) * RPT;
  const int e0 = (w0 + i) * 4;            /* first output element */
  if (e0 >= row_e || y0 + r0 >= height) return;
  LOCAL const uint* col = tile + r0 * EXT_W + i;
  GLOBAL uchar* drow = dst + dst_offset + (y0 + r0) * dst_step + e0;

  const uint m65536 = opaque_u32(0xFFFF0000u, src_step);
  /* h[r % KH][c]: row results of source row r0 + r for output element c; the column pass reads
   * the last KH of them. */
  uint h[KH][4];
#pragma unroll
  for (int r = 0; r < RPT + KH - 1; ++r) {
    if (r >= KH && y0 + r0 + r - (KH - 1) >= height) break;
    st_row(col + r * EXT_W, kxv, m65536, h[r % KH]);
    if (r < KH - 1) continue;

    const int j = r - (KH - 1);           /* output row r0 + j of the tile */
    uint s[4]; /* results in byte 2 */
    const uint packed = st_column(h, j, kyv, e0, tail, s);
#if DST_WORDS && PLINTH_LITTLE_ENDIAN
    if (e0 + 4 <= row_e) {
      *(GLOBAL uint*)drow = packed;
      drow += dst_step;
      continue;
    }
#endif
    (void)packed;
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      if (e0 + c < row_e) drow[c] = (uchar)(s[c] >> 16);
    }
    drow += dst_step;
  }
}
