/* Box filter: the window sums of words of 4 u8 outputs from packed vertical sums, shared by the
 * methods that hold vertical sums per word (box_filter_tiled.cl, box_filter_wide_rows.cl). The
 * including file defines box_filter_convert.h's options and KW, KH, AX (window and anchor column),
 * and DST_VEC (1 when destination rows start on 4-element boundaries). A word's windows reach LHW
 * words to its left and RHW to its right: held words 0 .. NQ - 1, the word itself at LHW. */
#ifndef PLINTH_BOX_FILTER_WORD_SUMS_H
#define PLINTH_BOX_FILTER_WORD_SUMS_H

#include "box_filter_convert.h"

#define HL (AX * CN)                      /* elements a window reaches on the left */
#define HR ((KW - 1 - AX) * CN)           /* and on the right */
#define LHW ((HL + 3) / 4)                /* halo words */
#define RHW ((HR + 3) / 4)
#define NQ (LHW + 1 + RHW)                /* words a work-item's windows reach per row */
#define FIRST (LHW * 4 - HL)              /* first held column a window of the word reads */
#define LAST (LHW * 4 + 4 + HR)           /* one past the last */
#define HPACK (KW * KH * 255 < 65536)     /* window sums fit 16 bits: horizontal sums packed */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define DST_T4 CAT(DST_T, 4)

/* Even and odd bytes of a word, each widened to a 16-bit lane. */
#define EVEN(w) byte_perm((w), 0u, 0x4240u)
#define ODD(w) byte_perm((w), 0u, 0x4341u)
/* The vertical sums of held columns x and x + 2 as one word (x compile-time after unrolling). */
#define PAIR(x)                                                     \
  (((x) % 4 == 0)   ? pe[(x) / 4]                                   \
   : ((x) % 4 == 1) ? po[(x) / 4]                                   \
   : ((x) % 4 == 2) ? byte_perm(pe[(x) / 4], pe[(x) / 4 + 1], 0x5432u) \
                    : byte_perm(po[(x) / 4], po[(x) / 4 + 1], 0x5432u))

/* The packed window sums of a word's outputs 0 and 2 (*se) and 1 and 3 (*so), from the packed
 * vertical sums pe[q] (held columns 4q and 4q + 2) and po[q] (4q + 1, 4q + 3). One channel with a
 * window spanning two held words or more (HBLOCK): the words' two-column sums G[q] = pe[q] + po[q]
 * over the whole words [0, HB) in X, over [1, HB + 1) in X'; X + byte_perm(X, X', 0x5432) holds the
 * sums of columns [0, 4 HB) (lane 0) and [2, 4 HB + 2) (lane 1), and the columns the window leaves
 * out on the left (FIRST of them) are subtracted, those beyond 4 HB added: KW / 2 + 2 adds and one
 * byte_perm where a pair at a time takes KW - 1 adds and KW / 2 byte_perms. */
#if HPACK && CN == 1
#define HB ((FIRST + KW) / 4)
#define HBLOCK (HB >= 2)
#else
#define HBLOCK 0
#endif
INLINE void word_sums(const uint* pe, const uint* po, uint* se_out, uint* so_out) {
#if HBLOCK
  uint mid = 0u; /* G[1] + ... + G[HB - 1] */
#pragma unroll
  for (int q = 1; q < HB; ++q) mid += pe[q] + po[q];
  const uint x = mid + pe[0] + po[0];
  const uint x1 = mid + pe[HB] + po[HB];
  uint se = x + byte_perm(x, x1, 0x5432u);
#pragma unroll
  for (int c = 0; c < FIRST; ++c) se -= PAIR(c);
#pragma unroll
  for (int c = 4 * HB; c < FIRST + KW; ++c) se += PAIR(c);
#else
  uint se = 0u; /* outputs 0 and 2 */
#pragma unroll
  for (int k = 0; k < KW; ++k) se += PAIR(FIRST + k * CN);
#endif
#if CN == 1
  const uint so = se - PAIR(FIRST) + PAIR(FIRST + KW); /* 1 and 3: slid by a column */
#else
  uint so = 0u;
#pragma unroll
  for (int k = 0; k < KW; ++k) so += PAIR(FIRST + 1 + k * CN);
#endif
  *se_out = se;
  *so_out = so;
}

/* Normalized u8 -> u8: OpenCV's (uchar)(((s + dd) * ds) >> 23), the product below 2^32, is byte
 * 3 of s * 2ds + 2dd * ds (mod 2^32), for the four window sums in the 16-bit lanes of se and so,
 * gathered into one word (output j in byte j). The low lane's product is taken as
 * se * 2ds - (se >> 16) * 2ds * 2^16 (nds2h = -2ds * 2^16): multiply-adds, not masks. */
#define FAST_U8 (HPACK && OUT_MODE == OUT_FIXED && DST_DEPTH == DEPTH_U8)
INLINE uint word_mean_u8(uint se, uint so, uint ds2, uint nds2h, uint c2) {
  const uint he = se >> 16, ho = so >> 16;
  const uint t2 = imad_u32(he, ds2, c2), t3 = imad_u32(ho, ds2, c2);
  const uint t0 = imad_u32(se, ds2, imad_u32(he, nds2h, c2)), t1 = imad_u32(so, ds2, imad_u32(ho, nds2h, c2));
  return byte_perm(byte_perm(t0, t1, 0x0073u), byte_perm(t2, t3, 0x7300u), 0x7610u);
}

/* The window sums of the 4 outputs of a word, converted and stored at drow; nin: elements of the
 * word inside the row (4 or more: all). */
INLINE void word_outputs(const uint* pe, const uint* po, GLOBAL DST_T* drow, int e0, int nin, uint ds2, uint nds2h,
                          uint c2, CONVERT_PARAMS) {
  DST_T out[4];
#if HPACK
  uint se, so;
  word_sums(pe, po, &se, &so);
#if FAST_U8
  const uint packed = word_mean_u8(se, so, ds2, nds2h, c2);
#if DST_VEC && PLINTH_LITTLE_ENDIAN
  if (nin >= 4) {
    *(GLOBAL uint*)drow = packed;
    return;
  }
#endif
#pragma unroll
  for (int j4 = 0; j4 < 4; ++j4) out[j4] = (uchar)(packed >> (8 * j4));
#else
  (void)ds2;
  (void)nds2h;
  (void)c2;
  const uint s[4] = {se & 0xFFFFu, so & 0xFFFFu, se >> 16, so >> 16};
#pragma unroll
  for (int j4 = 0; j4 < 4; ++j4) out[j4] = box_convert(s[j4], e0 + j4, CONVERT_ARGS);
#endif
#else
  (void)ds2;
  (void)nds2h;
  (void)c2;
  uint v[4 * NQ];
#pragma unroll
  for (int c = FIRST; c < LAST; ++c) {
    const uint w = (c % 2 == 0) ? pe[c / 4] : po[c / 4];
    v[c] = (w >> (16 * ((c % 4) / 2))) & 0xFFFFu;
  }
  uint s[4];
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
#endif
#if DST_VEC
  if (nin >= 4) {
    *(GLOBAL DST_T4*)drow = VEC4(DST_T4, out[0], out[1], out[2], out[3]);
    return;
  }
#endif
#pragma unroll
  for (int j4 = 0; j4 < 4; ++j4) {
    if (j4 < nin) drow[j4] = out[j4];
  }
}

#endif
