/* The `wide_rows` memory order, shared by the filters that use it (box_filter_wide_rows.cl,
 * sep_filter_wide_rows.cl): a work-item owns a span of 16 u8 elements (4 words) of RPT consecutive
 * output rows and holds the NR source rows they read, each loaded with one 16-byte load where the
 * span lies inside the image, all loads issued before any is used. The spans of a warp's 32
 * work-items are consecutive; the first and the last only lend halo to their neighbours and store
 * nothing, so a warp covers 30 spans (480 elements) of each row and the halo costs no load of its
 * own. Why this order: a copy through 16-byte spans of 4 rows reached 73-78% of the device copy, one
 * through a 4-byte word walked down 8 rows about 66% (a standalone probe; docs/filters.md).
 *
 * The including file includes common/dialect.h and common/border.h and defines CN (channels), NR
 * (source rows held), LHW and RHW (halo words a span's windows reach on the left and right, at
 * most SPAN_WORDS each), GROUP_ITEMS, SRC_WORDS and SRC_SPANS (1 when source rows start on 4- and
 * 16-byte boundaries). */
#ifndef PLINTH_WIDE_ROWS_H
#define PLINTH_WIDE_ROWS_H

#define SPAN_WORDS 4
#define SPAN (4 * SPAN_WORDS) /* elements a work-item owns */
#define OUT_LANES 30          /* work-items of a warp that store */
#define NH (LHW + SPAN_WORDS + RHW) /* words held per row with the halo */

/* The span's first element for work-item `lid` of group `group` (lane 0 of a warp starts one span
 * to the left of the warp's first stored span). */
INLINE int wide_rows_span(int group, int lid) {
  const int warp = group * (GROUP_ITEMS / 32) + (lid >> 5);
  return (warp * OUT_LANES + (lid & 31) - 1) * SPAN;
}

/* w[t][j]: word j of the span e .. e + 15 of source row ys + t (t < NR), rows and columns through
 * the border. */
INLINE void wide_rows_load(GLOBAL const uchar* src, int src_offset, int src_step, int width, int height, int border,
                           int e, int ys, int lane, uint (*w)[SPAN_WORDS]) {
  const int row_e = width * CN;
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
}

/* The packed words of one row that a span's windows read, pe[0 .. NH) and po[0 .. NH), from the
 * span's own (ve, vo): the halo words are the last LHW of the work-item before and the first RHW
 * of the one after. Every work-item of the group calls it (xch: GROUP_ITEMS * SPAN_WORDS words of
 * local memory where there are no warp shuffles, else unused). */
INLINE void wide_rows_held(const uint* ve, const uint* vo, uint* pe, uint* po, LOCAL uint2* xch, int lid) {
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

/* Local memory for wide_rows_held's exchange: declare with WIDE_ROWS_XCH_DECL at the top of the
 * kernel and pass WIDE_ROWS_XCH. */
#if HAS_WARP_SHUFFLE
#define WIDE_ROWS_XCH_DECL
#define WIDE_ROWS_XCH 0
#else
#define WIDE_ROWS_XCH_DECL LOCAL_MEM uint2 wide_rows_xch[GROUP_ITEMS * SPAN_WORDS];
#define WIDE_ROWS_XCH wide_rows_xch
#endif

#endif
