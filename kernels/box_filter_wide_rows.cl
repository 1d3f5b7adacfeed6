/* Box filter, method `wide_rows`: u8 sources with window sums that fit 16 bits and a halo of at
 * most 16 elements each side; on NVIDIA sm_90 `automatic`'s choice for four channels and for large
 * one-channel images (rules in docs/filters.md).
 * Host side: src/ops/box_filter.cpp.
 *
 * The memory order of common/wide_rows.h: a work-item owns a span of 16 elements (4 words) of RPT
 * consecutive output rows and holds the RPT + KH - 1 source rows of its span, loaded up front; on
 * NVIDIA no local memory and no barrier. Per output row it slides the packed vertical sums of its 4
 * words (even and odd bytes in 16-bit lanes, as `tiled`) down a row, takes the halo words' sums from
 * the work-items beside it (warp shuffles on NVIDIA, local memory elsewhere) and forms each word's 4
 * outputs with box_filter_word_sums.h.
 *
 * Options: SRC_T (uchar), DST_T/DST_DEPTH, CN, ACC_INT (1), OUT_MODE, HAS_FP64 as in box_filter.cl;
 *   KW, KH, AX   window and anchor column
 *   RPT          output rows per work-item
 *   SRC_WORDS    1 when source rows start on 4-byte boundaries (word loads allowed)
 *   SRC_SPANS    1 when source rows start on 16-byte boundaries (span loads allowed)
 *   DST_VEC      1 when destination rows start on 4-element boundaries (4-element stores)
 *   DST_SPANS    1 when they start on 16-element boundaries (u8 outputs: one store a span) */
#include "box_filter_word_sums.h"

#define GROUP_ITEMS 128
#define NR (RPT + KH - 1) /* source rows a work-item reads */
#include "common/wide_rows.h"
/* Groups a compute unit should hold (CUDA: registers a work-item at most 65536 / (128 x groups)):
 * for 3 rows 7 (72 registers; NVRTC's build spills at 64 and 80), for more 5 (96; they take 90-92
 * unasked, without spilling). */
#define RESIDENT_GROUPS (KH <= 3 ? 7 : 5)

KERNEL REQD_GROUP_SIZE_RESIDENT(GROUP_ITEMS, RESIDENT_GROUPS)
void box_filter_wide_rows(int width, int height, int ay, int border, CONVERT_PARAMS, CONST_IMAGE_PARAM(uchar, src),
                          IMAGE_PARAM(DST_T, dst)) {
  WIDE_ROWS_XCH_DECL
  const int lid = LOCAL_ID(0);
  const int lane = lid & 31;
  const int row_e = width * CN;
  const int e = wide_rows_span(GROUP_ID(0), lid); /* the span's first element */
  const int y0 = GROUP_ID(1) * RPT;                /* first output row */
  const int ys = y0 - ay;                          /* source row of the first sum row */

  /* The span's words of source rows ys .. ys + NR - 1. */
  uint w[NR][SPAN_WORDS];
  wide_rows_load(src, src_offset, src_step, width, height, border, e, ys, lane, w);

  const bool stores = lane >= 1 && lane <= OUT_LANES && e < row_e;
  const uint ds2 = 2u * (uint)ds, c2 = 2u * (uint)dd * (uint)ds;
  const uint nds2h = 0u - (ds2 << 16);
  uint ve[SPAN_WORDS], vo[SPAN_WORDS];
#pragma unroll
  for (int j = 0; j < SPAN_WORDS; ++j) {
    uint se = 0u, so = 0u;
#pragma unroll
    for (int t = 0; t < KH; ++t) {
      se += EVEN(w[t][j]);
      so += ODD(w[t][j]);
    }
    ve[j] = se;
    vo[j] = so;
  }
#pragma unroll
  for (int r = 0; r < RPT; ++r) {
    if (r > 0) {
#pragma unroll
      for (int j = 0; j < SPAN_WORDS; ++j) {
        ve[j] = ve[j] + EVEN(w[r + KH - 1][j]) - EVEN(w[r - 1][j]);
        vo[j] = vo[j] + ODD(w[r + KH - 1][j]) - ODD(w[r - 1][j]);
      }
    }
    uint pe[NH], po[NH];
    wide_rows_held(ve, vo, pe, po, WIDE_ROWS_XCH, lid);
    const int y = y0 + r;
    if (!stores || y >= height) continue;
    GLOBAL DST_T* drow = dst + (dst_offset + y * dst_step + e);
#if FAST_U8 && DST_SPANS && PLINTH_LITTLE_ENDIAN
    if (e + SPAN <= row_e) { /* the common case: one 16-byte store */
      uint out[SPAN_WORDS];
#pragma unroll
      for (int j = 0; j < SPAN_WORDS; ++j) {
        uint se, so;
        word_sums(pe + j, po + j, &se, &so);
        out[j] = word_mean_u8(se, so, ds2, nds2h, c2);
      }
      *(GLOBAL uint4*)drow = VEC4(uint4, out[0], out[1], out[2], out[3]);
      continue;
    }
#endif
#pragma unroll
    for (int j = 0; j < SPAN_WORDS; ++j) {
      const int nin = row_e - (e + 4 * j);
      if (nin > 0) word_outputs(pe + j, po + j, drow + 4 * j, e + 4 * j, nin, ds2, nds2h, c2, CONVERT_ARGS);
    }
  }
}
