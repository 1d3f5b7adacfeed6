/* top_k: the k first keys in the requested order and their indices, equal keys by ascending
 * index. Host side: src/ops/top_k.cpp. Arguments key_kind, descending: sort_keys.h.
 * Radix select over order words (smaller word = earlier in the output): four passes of
 * topk_histogram (the 8-bit digits, most significant first, of the words that match the prefix
 * found so far) and topk_select (the digit where the k-th word lies) find the k-th word T and
 * how many words equal to T are taken (`remaining`); topk_count and topk_scatter then collect,
 * in index order, every key whose word is below T and the first `remaining` whose word is T.
 * The host sorts these k candidates stably (sort.cl), which puts equal keys in index order. */
#include "common/dialect.h"
#include "common/scan.h"
#include "common/tile_scan.h"
#include "sort_layout.h"
#include "sort_keys.h"

KERNEL REQD_GROUP_SIZE(SORT_GROUP, 1, 1) void topk_init(GLOBAL uint* state, int k) {
  for (int i = LOCAL_ID(0); i < TOPK_STATE_WORDS; i += SORT_GROUP) state[i] = i == TOPK_REMAINING ? (uint)k : 0u;
}

KERNEL REQD_GROUP_SIZE(SORT_GROUP, 1, 1) void topk_histogram(CONST_ARRAY_PARAM(uint, keys), int n, int key_kind, int descending,
                                                             GLOBAL uint* state, int pass) {
  LOCAL uint hist[SORT_DIGITS];
  const int lid = LOCAL_ID(0);
  const int shift = 32 - SORT_RADIX_BITS * (pass + 1);
  const uint prefix = state[TOPK_PREFIX], mask = state[TOPK_MASK];
  hist[lid] = 0;
  BARRIER_LOCAL();
  for (int p = GLOBAL_ID(0); p < n; p += GLOBAL_SIZE(0)) {
    const uint w = order_word(ARRAY_AT(keys, p), key_kind, descending);
    if ((w & mask) == prefix) ATOMIC_ADD(&hist[(w >> shift) & (SORT_DIGITS - 1)], 1u);
  }
  BARRIER_LOCAL();
  if (hist[lid] != 0) ATOMIC_ADD(&state[TOPK_HIST + pass * SORT_DIGITS + lid], hist[lid]);
}

/* One work-group: the digit d where the remaining count falls extends the prefix. */
KERNEL REQD_GROUP_SIZE(SORT_GROUP, 1, 1) void topk_select(GLOBAL uint* state, int pass) {
  LOCAL uint slots[SORT_GROUP + 32];
  const int lid = LOCAL_ID(0);
  const int shift = 32 - SORT_RADIX_BITS * (pass + 1);
  const uint h = state[TOPK_HIST + pass * SORT_DIGITS + lid];
  const uint remaining = state[TOPK_REMAINING];
  uint total;
  const uint before = group_exclusive_scan_u32(h, slots, &total);
  if (before < remaining && remaining <= before + h) {
    state[TOPK_PREFIX] |= (uint)lid << shift;
    state[TOPK_MASK] |= (uint)(SORT_DIGITS - 1) << shift;
    state[TOPK_REMAINING] = remaining - before;
  }
}

/* A work-item's SORT_ITEMS consecutive keys: bit j of *below / *equal says whether key j's word
 * is below T / equal to it. Returns both counts packed (below in the low 16 bits). */
INLINE uint classify(CONST_ARRAY_PARAM(uint, keys), int n, int key_kind, int descending, int first, uint t, uint* below,
                     uint* equal) {
  uint b = 0, e = 0;
  UNROLL
  for (int j = 0; j < SORT_ITEMS; ++j) {
    const int p = first + j;
    if (p < n) {
      const uint w = order_word(ARRAY_AT(keys, p), key_kind, descending);
      b |= (uint)(w < t) << j;
      e |= (uint)(w == t) << j;
    }
  }
  *below = b;
  *equal = e;
  return popcount(b) | popcount(e) << 16;
}

/* counts[tile]: keys below T; counts[tiles + tile]: keys equal to T. */
KERNEL REQD_GROUP_SIZE(SORT_GROUP, 1, 1) void topk_count(CONST_ARRAY_PARAM(uint, keys), int n, int key_kind, int descending,
                                                         GLOBAL const uint* state,
                                                         GLOBAL uint* counts, int tiles) {
  LOCAL uint slots[SORT_GROUP + 32];
  uint below, equal, total;
  const uint mine = classify(keys, keys_offset, n, key_kind, descending, GROUP_ID(0) * SORT_TILE + LOCAL_ID(0) * SORT_ITEMS, state[TOPK_PREFIX], &below, &equal);
  group_exclusive_scan_u32(mine, slots, &total);
  if (LOCAL_ID(0) == 0) {
    counts[GROUP_ID(0)] = total & 0xFFFFu;
    counts[tiles + GROUP_ID(0)] = total >> 16;
  }
}

KERNEL REQD_GROUP_SIZE(SORT_GROUP, 1, 1) void topk_scan(GLOBAL uint* counts, int tiles) {
  LOCAL uint slots[SORT_GROUP + 32];
  group_scan_row(counts + (long)GROUP_ID(0) * tiles, tiles, slots);
}

/* Keys below T go to candidates [0, k - remaining) in index order, the first `remaining` keys
 * equal to T after them. */
KERNEL REQD_GROUP_SIZE(SORT_GROUP, 1, 1) void topk_scatter(CONST_ARRAY_PARAM(uint, keys), int n, int key_kind, int descending,
                                                           GLOBAL const uint* state,
                                                           GLOBAL const uint* counts, int tiles, int k,
                                                           ARRAY_PARAM(uint, cand_keys), ARRAY_PARAM(uint, cand_indices)) {
  LOCAL uint slots[SORT_GROUP + 32];
  const int first = GROUP_ID(0) * SORT_TILE + LOCAL_ID(0) * SORT_ITEMS;
  const uint take = state[TOPK_REMAINING];
  uint below, equal, total;
  const uint mine = classify(keys, keys_offset, n, key_kind, descending, first, state[TOPK_PREFIX], &below, &equal);
  const uint at = group_exclusive_scan_u32(mine, slots, &total);
  uint b = counts[GROUP_ID(0)] + (at & 0xFFFFu);
  uint e = counts[tiles + GROUP_ID(0)] + (at >> 16);
  UNROLL
  for (int j = 0; j < SORT_ITEMS; ++j) {
    const int p = first + j;
    if ((below >> j) & 1u) {
      ARRAY_AT(cand_keys, b) = ARRAY_AT(keys, p);
      ARRAY_AT(cand_indices, b) = (uint)p;
      ++b;
    }
    if ((equal >> j) & 1u) {
      if (e < take) {
        ARRAY_AT(cand_keys, (uint)k - take + e) = ARRAY_AT(keys, p);
        ARRAY_AT(cand_indices, (uint)k - take + e) = (uint)p;
      }
      ++e;
    }
  }
}
