/* Box filter, method `wide_rows`: u8 sources with window sums that fit 16 bits and a halo of at
 * most 16 elements each side; on NVIDIA sm_90 `automatic`'s choice for four channels and for large
 * one-channel images (rules in docs/filters.md).
 * Host side: src/ops/box_filter.cpp.
 *
 * A work-item owns a span of 16 elements (4 words) of RPT consecutive output rows. It loads the
 * RPT + KH - 1 source rows of its span, one 16-byte load a row where the span lies inside the
 * image, all before any is used; on NVIDIA no local memory and no barrier. Per output row it
 * slides the packed vertical sums of its 4 words (even and odd bytes in 16-bit lanes, as `tiled`)
 * down a row, takes the halo words' sums from the work-items beside it (warp shuffles on NVIDIA,
 * local memory elsewhere) and forms each word's 4 outputs with box_filter_word_sums.h. The spans
 * of a warp's 32 work-items are consecutive; the first and the last only lend their sums as halo
 * and store nothing, so a warp writes 30 spans (480 elements) of each row, and the halo costs no
 * load of its own. Why this order: a copy through `tiled`'s order (each work-item walking its word
 * down 8 rows) reached about 66% of the device copy, one through 16-byte spans of 4 rows 73-78%
 * (a standalone probe; docs/filters.md).
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
#define SPAN_WORDS 4
#define SPAN (4 * SPAN_WORDS) /* elements a work-item owns */
#define OUT_LANES 30          /* work-items of a warp that store */
#define NR (RPT + KH - 1)     /* source rows a work-item reads */
#define NH (LHW + SPAN_WORDS + RHW)
/* Groups a compute unit should hold (CUDA: registers a work-item at most 65536 / (128 x groups)):
 * for 3 rows 7 (72 registers; NVRTC's build spills at 64 and 80), for more 5 (96; they take 90-92
 * unasked, without spilling). */
#define RESIDENT_GROUPS (KH <= 3 ? 7 : 5)

/* The packed vertical sums of the NH held words of one output row: the span's own (ve, vo) and
 * the halo words', which are the last LHW of the work-item before and the first RHW of the one
 * after (LHW, RHW <= SPAN_WORDS). Every work-item of the group calls it. */
INLINE void held_sums(const uint* ve, const uint* vo, uint* pe, uint* po, LOCAL uint2* xch, int lid) {
#if HAS_WARP_SHUFFLE
  (void)xch;
  (void)lid;
#pragma unroll
  for (int q = 0; q < LHW; ++q) {
    pe[q] = warp_shuffle_up_u32(ve[SPAN_WORDS - LHW + q], 1);
    po[q] = warp_shuffle_up_u32(vo[SPAN_WORDS - LHW + q], 1);
  }
#pragma unroll
  for (int q = 0; q < RHW; ++q) {
    pe[LHW + SPAN_WORDS + q] = warp_shuffle_down_u32(ve[q], 1);
    po[LHW + SPAN_WORDS + q] = warp_shuffle_down_u32(vo[q], 1);
  }
#else
  BARRIER_LOCAL();
#pragma unroll
  for (int j = 0; j < SPAN_WORDS; ++j) xch[lid * SPAN_WORDS + j] = VEC2(uint2, ve[j], vo[j]);
  BARRIER_LOCAL();
  const int left = lid > 0 ? lid - 1 : 0;
  const int right = lid < GROUP_ITEMS - 1 ? lid + 1 : lid;
#pragma unroll
  for (int q = 0; q < LHW; ++q) {
    const uint2 v = xch[left * SPAN_WORDS + SPAN_WORDS - LHW + q];
    pe[q] = v.x;
    po[q] = v.y;
  }
#pragma unroll
  for (int q = 0; q < RHW; ++q) {
    const uint2 v = xch[right * SPAN_WORDS + q];
    pe[LHW + SPAN_WORDS + q] = v.x;
    po[LHW + SPAN_WORDS + q] = v.y;
  }
#endif
#pragma unroll
  for (int j = 0; j < SPAN_WORDS; ++j) {
    pe[LHW + j] = ve[j];
    po[LHW + j] = vo[j];
  }
}

KERNEL REQD_GROUP_SIZE_RESIDENT(GROUP_ITEMS, RESIDENT_GROUPS)
void box_filter_wide_rows(int width, int height, int ay, int border, CONVERT_PARAMS, CONST_IMAGE_PARAM(uchar, src),
                          IMAGE_PARAM(DST_T, dst)) {
#if HAS_WARP_SHUFFLE
#define XCH 0
#else
  LOCAL_MEM uint2 xch[GROUP_ITEMS * SPAN_WORDS];
#define XCH xch
#endif
  const int lid = LOCAL_ID(0);
  const int lane = lid & 31;
  const int warp = GROUP_ID(0) * (GROUP_ITEMS / 32) + (lid >> 5);
  const int row_e = width * CN;
  const int e = (warp * OUT_LANES + lane - 1) * SPAN; /* the span's first element */
  const int y0 = GROUP_ID(1) * RPT;                    /* first output row */
  const int ys = y0 - ay;                              /* source row of the first sum row */

  /* The span's words of source rows ys .. ys + NR - 1 (row indices through the border in the
   * first and last bands). */
  uint w[NR][SPAN_WORDS];
  const bool rows_inside = ys >= 0 && ys + NR <= height;
  const bool span_inside = e >= 0 && e + SPAN <= row_e;
#if SRC_SPANS && PLINTH_LITTLE_ENDIAN
  if (rows_inside && span_inside) { /* the common case: one 16-byte load a row */
    GLOBAL const uint4* p = (GLOBAL const uint4*)(src + (src_offset + ys * src_step + e));
    const int step = src_step / 16;
#pragma unroll
    for (int t = 0; t < NR; ++t) {
      const uint4 v = p[t * step];
      w[t][0] = v.x;
      w[t][1] = v.y;
      w[t][2] = v.z;
      w[t][3] = v.w;
    }
  } else
#endif
#if SRC_WORDS && PLINTH_LITTLE_ENDIAN
  if (span_inside) { /* the first and last bands, or rows off 16-byte boundaries: word loads */
#pragma unroll
    for (int t = 0; t < NR; ++t) {
      const int yi = rows_inside ? ys + t : border_index(ys + t, height, border);
      GLOBAL const uint* p = (GLOBAL const uint*)(src + (src_offset + (yi < 0 ? 0 : yi) * src_step + e));
#pragma unroll
      for (int j = 0; j < SPAN_WORDS; ++j) w[t][j] = yi < 0 ? 0u : p[j];
    }
  } else
#endif
  {
    /* Spans at the image's left and right edges, and rows off word boundaries: element by element
     * through the border, each column's source index found once for all rows. Of the work-items
     * that only lend their halo, the first loads only the words it lends (its last LHW), the last
     * only its first RHW. The rows go one at a time through a private array (runtime-indexed, so in
     * memory): a rare path whose loads, all hoisted, would take the kernel's registers to 100-180. */
    int xs[SPAN];
#pragma unroll
    for (int k = 0; k < SPAN; ++k) {
      const int j = k / 4;
      const bool lent = (lane != 0 || j >= SPAN_WORDS - LHW) && (lane != 31 || j < RHW);
      const int ee = e + k;
      const int px = (ee >= 0 ? ee : ee - (CN - 1)) / CN; /* floor division */
      const int xi = lent ? border_index(px, width, border) : -1;
      xs[k] = xi < 0 ? -1 : xi * CN + (ee - px * CN);
    }
    uint rows[NR][SPAN_WORDS];
#pragma unroll 1
    for (int t = 0; t < NR; ++t) {
      const int yi = rows_inside ? ys + t : border_index(ys + t, height, border);
      GLOBAL const uchar* row = src + src_offset + (yi < 0 ? 0 : yi) * src_step;
#pragma unroll
      for (int j = 0; j < SPAN_WORDS; ++j) {
        uint v = 0u;
#pragma unroll
        for (int b = 0; b < 4; ++b) {
          const int x = xs[4 * j + b];
          if (yi >= 0 && x >= 0) v |= (uint)row[x] << (8 * b);
        }
        rows[t][j] = v;
      }
    }
#pragma unroll
    for (int t = 0; t < NR; ++t) {
#pragma unroll
      for (int j = 0; j < SPAN_WORDS; ++j) w[t][j] = rows[t][j];
    }
  }

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
    held_sums(ve, vo, pe, po, XCH, lid);
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
#undef XCH
}
