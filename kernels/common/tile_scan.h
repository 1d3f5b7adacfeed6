/* Work-group and cross-work-group scans for ops that cut an array into tiles (sort, top-k,
 * compaction): a tile counts what it holds, one work-group per row of counts turns them into
 * exclusive offsets (group_scan_row), and each tile then writes at its offset. Needs dialect.h
 * and scan.h first. Every work-item of the group must call these functions (they contain
 * barriers). */
#ifndef PLINTH_TILE_SCAN_H
#define PLINTH_TILE_SCAN_H

/* Exclusive prefix sum of `v` over the work-group (LOCAL_SIZE(0) a multiple of 32, at most
 * 1024); *total receives the group's sum. `slots`: LOCAL uint[LOCAL_SIZE(0) + 32]. */
INLINE uint group_exclusive_scan_u32(uint v, LOCAL uint* slots, uint* total) {
  const int id = LOCAL_ID(0);
  const int lane = id & 31, warp = id >> 5, warps = LOCAL_SIZE(0) >> 5;
  const uint within = warp_exclusive_scan_u32(v, lane, slots);
  LOCAL uint* warp_sums = slots + LOCAL_SIZE(0);
  if (lane == 31) warp_sums[warp] = within + v;
  BARRIER_LOCAL();
  uint before = 0, all = 0;
  for (int w = 0; w < warps; ++w) {
    const uint s = warp_sums[w];
    before += w < warp ? s : 0u;
    all += s;
  }
  BARRIER_LOCAL(); /* slots may be reused at once */
  *total = all;
  return before + within;
}

/* Replaces row[0..count) by its exclusive prefix sums and returns the row's total (in every
 * work-item). Each work-item takes `per_item` consecutive values per round. */
#define TILE_SCAN_PER_ITEM 8
INLINE uint group_scan_row(GLOBAL uint* row, int count, LOCAL uint* slots) {
  const int id = LOCAL_ID(0);
  const int round = LOCAL_SIZE(0) * TILE_SCAN_PER_ITEM;
  uint carry = 0;
  for (int start = 0; start < count; start += round) {
    uint v[TILE_SCAN_PER_ITEM];
    uint sum = 0;
    UNROLL
    for (int j = 0; j < TILE_SCAN_PER_ITEM; ++j) {
      const int i = start + id * TILE_SCAN_PER_ITEM + j;
      v[j] = i < count ? row[i] : 0u;
      sum += v[j];
    }
    uint total;
    uint run = carry + group_exclusive_scan_u32(sum, slots, &total);
    UNROLL
    for (int j = 0; j < TILE_SCAN_PER_ITEM; ++j) {
      const int i = start + id * TILE_SCAN_PER_ITEM + j;
      if (i < count) row[i] = run;
      run += v[j];
    }
    carry += total;
  }
  return carry;
}

#endif
