/* Stable stream compaction of 32-bit values by u8 flags. Host side: src/ops/compact.cpp.
 * Three launches over tiles of SORT_TILE values: compact_count (kept values per tile),
 * compact_scan (one work-group turns the counts into offsets; the total is the count),
 * compact_scatter (each tile writes its kept values from its offset, in order). */
#include "common/dialect.h"
#include "common/scan.h"
#include "common/tile_scan.h"
#include "sort_layout.h"

/* Work-item lid of a tile holds the SORT_ITEMS consecutive positions lid * SORT_ITEMS + j, so
 * that the scan's order is the input's. */
INLINE uint kept_in_items(CONST_ARRAY_PARAM(uchar, flags), int n, int first, uchar keep[SORT_ITEMS]) {
  uint count = 0;
  UNROLL
  for (int j = 0; j < SORT_ITEMS; ++j) {
    const int p = first + j;
    keep[j] = p < n && ARRAY_AT(flags, p) != 0;
    count += keep[j];
  }
  return count;
}

KERNEL REQD_GROUP_SIZE(SORT_GROUP, 1, 1) void compact_count(CONST_ARRAY_PARAM(uchar, flags), int n, GLOBAL uint* counts) {
  LOCAL uint slots[SORT_GROUP + 32];
  uchar keep[SORT_ITEMS];
  const uint mine = kept_in_items(flags, flags_offset, n, GROUP_ID(0) * SORT_TILE + LOCAL_ID(0) * SORT_ITEMS, keep);
  uint total;
  group_exclusive_scan_u32(mine, slots, &total);
  if (LOCAL_ID(0) == 0) counts[GROUP_ID(0)] = total;
}

KERNEL REQD_GROUP_SIZE(SORT_GROUP, 1, 1) void compact_scan(GLOBAL uint* counts, int tiles, ARRAY_PARAM(uint, count)) {
  LOCAL uint slots[SORT_GROUP + 32];
  const uint total = group_scan_row(counts, tiles, slots);
  if (LOCAL_ID(0) == 0) ARRAY_AT(count, 0) = total;
}

KERNEL REQD_GROUP_SIZE(SORT_GROUP, 1, 1) void compact_scatter(CONST_ARRAY_PARAM(uint, values), CONST_ARRAY_PARAM(uchar, flags),
                                                              ARRAY_PARAM(uint, out), int n, GLOBAL const uint* counts) {
  LOCAL uint slots[SORT_GROUP + 32];
  uchar keep[SORT_ITEMS];
  const int first = GROUP_ID(0) * SORT_TILE + LOCAL_ID(0) * SORT_ITEMS;
  const uint mine = kept_in_items(flags, flags_offset, n, first, keep);
  uint total;
  uint at = counts[GROUP_ID(0)] + group_exclusive_scan_u32(mine, slots, &total);
  UNROLL
  for (int j = 0; j < SORT_ITEMS; ++j) {
    if (keep[j]) ARRAY_AT(out, at++) = ARRAY_AT(values, first + j);
  }
}
