/* Separable filter, method `wide_rows`: u8 -> u8 in OpenCV's 8-bit fixed point, the arithmetic of
 * sep_filter_tiled.cl (GaussianBlur u8, SEP_MODE_GAUSS8; sepFilter2D's smoothing kernels with
 * delta 0, SEP_MODE_BITEXACT), up to 9 taps each way, each kernel symmetric about its centre (so at
 * most 16 elements of halo each side).
 * Host side: src/ops/sep_filter_tiled.cpp; docs/filters.md.
 *
 * The memory order of common/wide_rows.h: a work-item owns a span of 16 elements (4 words) of RPT
 * consecutive output rows and holds the RPT + KH - 1 source rows of its span, loaded up front; on
 * NVIDIA no local memory and no barrier. Columns first, then rows, which in integers gives the
 * same sums as OpenCV's rows first (every product and sum below is exact):
 *   column pass, per output row and word: the even and odd bytes of each source word in 16-bit
 *     lanes (EVEN, ODD), v = sum_t ky[t] * lanes: one multiply-add serves two elements, and no lane
 *     overflows, as ky >= 0 sums to 256 (host-checked): a lane is at most 255 * 256 = 65280; the
 *     lanes of rows t and KH - 1 - t are added first (both kernels read the same backwards, as
 *     every kernel of these modes does; 2 * ky[t] <= 256, so (a + b) * ky[t] <= 65280 too): half
 *     the multiply-adds;
 *   the halo words' column sums from the work-items beside it (warp shuffles on NVIDIA, local
 *     memory elsewhere);
 *   row pass in 32-bit sums: s = 2^15 + sum_k kx[k] * v[x + k * CN] (< 2^24; the pairs of
 *     taps k and KW - 1 - k added first) and the output is s >> 16, byte 2 of s.
 * SEP_MODE_BITEXACT rounds half to even in OpenCV's vector lanes (elements below `tail`) and half up
 * in the scalar tail, as sep_filter_tiled.cl.
 *
 * Options: CN (1-4), KW, KH (1-9), AX (anchor column), MODE (sep_filter_modes.h: GAUSS8 or BITEXACT),
 *   RPT          output rows per work-item
 *   SRC_WORDS    1 when source rows start on 4-byte boundaries (word loads allowed)
 *   SRC_SPANS    1 when source rows start on 16-byte boundaries (span loads allowed)
 *   DST_WORDS    1 when destination rows start on 4-byte boundaries (word stores allowed)
 *   DST_SPANS    1 when they start on 16-byte boundaries (one store a span) */
#include "common/dialect.h"
#include "common/types.h"
#include "common/border.h"
#include "sep_filter_modes.h"
#include "sep_filter_fixed_point.h"

#define GROUP_ITEMS 128
#define HL (AX * CN)                      /* elements a window reaches on the left */
#define HR ((KW - 1 - AX) * CN)           /* and on the right */
#define LHW ((HL + 3) / 4)                /* halo words */
#define RHW ((HR + 3) / 4)
#define NR (RPT + KH - 1)                 /* source rows a work-item reads */
#define FIRST (LHW * 4 - HL)              /* held column that tap 0 of the span's element 0 reads */
#include "common/wide_rows.h"
/* Groups a compute unit should hold (CUDA: registers a work-item at most 65536 / (128 x groups)):
 * 7 for 3 rows (72 registers), 6 for more (80; NVRTC takes 96 unasked). H200, 7680x4320: 6 instead
 * of 5 groups made 5x5 38.6 against 40.6 us, 7x7 45.9 against 48.4, u8x4 5x5 107.5 against 113.3;
 * 8 for 3 rows (64 registers) gained 1% there and lost 6% at 3840x2160. The spills these caps
 * leave are in the edge spans' path only in the programs read with nvdisasm (one channel 3x3 to
 * 9x9, u8x3 7x7). */
#define RESIDENT_GROUPS (KH <= 3 ? 7 : 6)

/* Even and odd bytes of a word, each widened to a 16-bit lane. */
#define EVEN(w) byte_perm((w), 0u, 0x4240u)
#define ODD(w) byte_perm((w), 0u, 0x4341u)

/* Column pass of output row r: the packed column sums of the span's words, even elements in ve,
 * odd ones in vo (lanes as EVEN and ODD). */
INLINE void sw_columns(uint (*w)[SPAN_WORDS], int r, const uint* kyv, uint* ve, uint* vo) {
#pragma unroll
  for (int j = 0; j < SPAN_WORDS; ++j) {
    uint se = 0u, so = 0u;
#pragma unroll
    for (int t = 0; t < KH / 2; ++t) {
      const uint a = w[r + t][j], b = w[r + KH - 1 - t][j];
      se += kyv[t] * (EVEN(a) + EVEN(b));
      so += kyv[t] * (ODD(a) + ODD(b));
    }
#if KH % 2
    se += kyv[KH / 2] * EVEN(w[r + KH / 2][j]);
    so += kyv[KH / 2] * ODD(w[r + KH / 2][j]);
#endif
    ve[j] = se;
    vo[j] = so;
  }
}

/* Row pass of one output row: the span's 16 outputs, 4 to a word (out[j]: element 4j + c in byte
 * c), from the held packed column sums pe, po (NH words each, the span's own at LHW). Each held
 * value is taken out of its lane once: the high lane by a shift, the low one as p - (p >> 16) *
 * 2^16 by a multiply-add with the opaque m65536 = 0xFFFF0000 (imad_u32; on the FMA pipe, where the
 * shifts and the additions of paired taps take the integer ALU pipe). Each word's 4 sums
 * s = 2^15 + S (S < 2^24) are packed at once, the output being byte 2 of s. */
INLINE void sw_rows(const uint* pe, const uint* po, const uint* kxv, uint m65536, int e, int tail, uint* out) {
  uint v[4 * NH];
#pragma unroll
  for (int q = 0; q < NH; ++q) {
    const uint he = pe[q] >> 16, ho = po[q] >> 16;
    v[4 * q] = imad_u32(he, m65536, pe[q]);
    v[4 * q + 1] = imad_u32(ho, m65536, po[q]);
    v[4 * q + 2] = he;
    v[4 * q + 3] = ho;
  }
#pragma unroll
  for (int j = 0; j < SPAN_WORDS; ++j) {
    uint s[4];
#pragma unroll
    for (int c4 = 0; c4 < 4; ++c4) {
      const int c = 4 * j + c4;
      uint acc = 1u << 15;
#pragma unroll
      for (int k = 0; k < KW / 2; ++k) acc += kxv[k] * (v[FIRST + c + k * CN] + v[FIRST + c + (KW - 1 - k) * CN]);
#if KW % 2
      acc += kxv[KW / 2] * v[FIRST + c + (KW / 2) * CN];
#endif
      s[c4] = fixed_point_round(acc, e + c, tail);
    }
    /* bytes 2 of the four sums gathered into a word */
    out[j] = byte_perm(byte_perm(s[0], s[1], 0x0062u), byte_perm(s[2], s[3], 0x0062u), 0x5410u);
  }
}

KERNEL REQD_GROUP_SIZE_RESIDENT(GROUP_ITEMS, RESIDENT_GROUPS)
void sep_filter_wide_rows(int width, int height, int ay, int border, int tail, KPARAMS(kx), KPARAMS(ky),
                          CONST_IMAGE_PARAM(uchar, src), IMAGE_PARAM(uchar, dst)) {
  WIDE_ROWS_XCH_DECL
  const uint kxv[9] = {KLIST(kx)};
  const uint kyv[9] = {KLIST(ky)};
  const int lid = LOCAL_ID(0);
  const int lane = lid & 31;
  const int row_e = width * CN;
  const int e = wide_rows_span(GROUP_ID(0), lid); /* the span's first element */
  const int y0 = GROUP_ID(1) * RPT;                /* first output row */
  const int ys = y0 - ay;                          /* source row of the first window row */

  /* The span's words of source rows ys .. ys + NR - 1. */
  uint w[NR][SPAN_WORDS];
  wide_rows_load(src, src_offset, src_step, width, height, border, e, ys, lane, w);

  const bool stores = lane >= 1 && lane <= OUT_LANES && e < row_e;
  const uint m65536 = opaque_u32(0xFFFF0000u, src_step);
#pragma unroll
  for (int r = 0; r < RPT; ++r) {
    uint ve[SPAN_WORDS], vo[SPAN_WORDS];
    sw_columns(w, r, kyv, ve, vo);
    uint pe[NH], po[NH];
    wide_rows_held(ve, vo, pe, po, WIDE_ROWS_XCH, lid);
    const int y = y0 + r;
    if (!stores || y >= height) continue;
    uint out[SPAN_WORDS];
    sw_rows(pe, po, kxv, m65536, e, tail, out);
    GLOBAL uchar* drow = dst + (dst_offset + y * dst_step + e);
#if PLINTH_LITTLE_ENDIAN
#if DST_SPANS
    if (e + SPAN <= row_e) { /* the common case: one 16-byte store */
      *(GLOBAL uint4*)drow = VEC4(uint4, out[0], out[1], out[2], out[3]);
      continue;
    }
#endif
#if DST_WORDS
    if (e + SPAN <= row_e) {
#pragma unroll
      for (int j = 0; j < SPAN_WORDS; ++j) ((GLOBAL uint*)drow)[j] = out[j];
      continue;
    }
#endif
#endif
#pragma unroll
    for (int c = 0; c < SPAN; ++c) {
      if (e + c < row_e) drow[c] = (uchar)(out[c / 4] >> (8 * (c % 4)));
    }
  }
}
