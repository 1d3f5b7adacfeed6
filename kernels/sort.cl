/* Stable sorting of 32-bit keys, alone or with 32-bit values. Host side: src/ops/sort.cpp;
 * methods and measurements: docs/sort.md. Options:
 * Arguments key_kind (SORT_KEY_*) and descending: sort_keys.h turns keys into order words.
 *   HAS_VALUES             1 when values travel with the keys
 * Keys and values are moved as uint bits whatever their type.
 *
 * radix    LSD radix sort, 8 bits a pass, 4 passes. A pass is three launches: radix_count (each
 *          tile of SORT_TILE keys counts its digits), sort_scan_rows (one work-group per digit
 *          turns the tiles' counts into exclusive offsets, and the digit's total), radix_scatter
 *          (each tile ranks its keys by digit in local memory, stably, as two 4-bit halves, and
 *          writes each run of equal digits to the digit's base + the tile's offset).
 * network  bitonic sorting network over (order word << 32 | index) pairs, padded to a power of
 *          two: unique pairs, so the network is stable. Tiles of SORT_NETWORK_TILE in local memory
 *          (network_sort_tiles, bitonic_merge_tile), longer strides one launch each.
 * merge    tiles sorted by the network, then merge passes that double the run length: every
 *          element finds its place in the other run by a branchless binary search (the case
 *          study's branch-free merge, made parallel: no element waits for another).
 * Both pair methods finish with sort_gather (keys back from the words, values by index). */
#include "common/dialect.h"
#include "common/scan.h"
#include "common/tile_scan.h"
#include "sort_layout.h"
#include "sort_keys.h"

#if SORT_GROUP != SORT_DIGITS
#error "radix_scatter gives each work-item one digit"
#endif

/* ---- radix --------------------------------------------------------------------------------- */

/* counts[d * tiles + tile] = number of keys of tile `tile` whose digit at `shift` is d. */
KERNEL REQD_GROUP_SIZE(SORT_GROUP, 1, 1) void radix_count(CONST_ARRAY_PARAM(uint, keys), int n, int shift, int first,
                                                          int key_kind, int descending, GLOBAL uint* counts, int counts_offset, int tiles) {
  LOCAL uint hist[SORT_DIGITS];
  const int lid = LOCAL_ID(0), tile = GROUP_ID(0);
  hist[lid] = 0;
  BARRIER_LOCAL();
  const int base = tile * SORT_TILE;
  UNROLL
  for (int i = 0; i < SORT_ITEMS; ++i) {
    const int p = base + i * SORT_GROUP + lid;
    if (p < n) {
      uint k = ARRAY_AT(keys, p);
      if (first) k = order_word(k, key_kind, descending);
      ATOMIC_ADD(&hist[(k >> shift) & (SORT_DIGITS - 1)], 1u);
    }
  }
  BARRIER_LOCAL();
  counts[counts_offset + lid * tiles + tile] = hist[lid];
}

/* Each work-group scans one row of `columns` counts in place; its total goes to totals[row]. */
KERNEL REQD_GROUP_SIZE(SORT_GROUP, 1, 1) void sort_scan_rows(GLOBAL uint* counts, int counts_offset, int columns,
                                                             GLOBAL uint* totals, int totals_offset) {
  LOCAL uint slots[SORT_GROUP + 32];
  const uint total = group_scan_row(counts + counts_offset + (long)GROUP_ID(0) * columns, columns, slots);
  if (LOCAL_ID(0) == 0) totals[totals_offset + GROUP_ID(0)] = total;
}

/* Local arrays are padded by one word per 32, so that a work-item reading SORT_ITEMS (or
 * SORT_SUB_DIGITS) consecutive words while its neighbours do the same hits distinct banks
 * instead of all 32 lanes of a warp falling on 4 (or 2) banks. */
#define PADDED(i) ((i) + ((i) >> 5))

/* One pass: the tile's keys ranked stably by digit in local memory, then written out. `first`:
 * the input holds keys (turned into order words here); `last`: write keys, not order words.
 * counts: the scanned offsets of radix_count's layout, followed by the digits' totals. */
KERNEL REQD_GROUP_SIZE(SORT_GROUP, 1, 1) void radix_scatter(CONST_ARRAY_PARAM(uint, keys_in), CONST_ARRAY_PARAM(uint, values_in),
                                                            ARRAY_PARAM(uint, keys_out), ARRAY_PARAM(uint, values_out), int n,
                                                            int shift, int first, int last, int key_kind, int descending, GLOBAL const uint* counts,
                                                            int counts_offset, int tiles) {
  LOCAL uint lkeys[PADDED(SORT_TILE)];
#if HAS_VALUES
  LOCAL uint lvals[PADDED(SORT_TILE)];
#endif
  LOCAL uint counters[PADDED(SORT_SUB_DIGITS * SORT_GROUP)]; /* [digit][work-item], padded */
  LOCAL uint digit_dst[SORT_DIGITS];                 /* where the tile's first key of a digit goes */
  LOCAL uint digit_start[SORT_DIGITS];               /* its position in the ranked tile */
  LOCAL uint slots[SORT_GROUP + 32];
  const int lid = LOCAL_ID(0), tile = GROUP_ID(0);
  const int base = tile * SORT_TILE;
  const int valid = min(SORT_TILE, n - base);

  /* Positions past the input get the largest word: they rank after every key of the tile. */
  UNROLL
  for (int i = 0; i < SORT_ITEMS; ++i) {
    const int p = i * SORT_GROUP + lid;
    uint k = 0xFFFFFFFFu;
    if (p < valid) {
      k = ARRAY_AT(keys_in, base + p);
      if (first) k = order_word(k, key_kind, descending);
    }
    lkeys[PADDED(p)] = k;
#if HAS_VALUES
    lvals[PADDED(p)] = p < valid ? ARRAY_AT(values_in, base + p) : 0u;
#endif
  }
  {
    uint total;
    const uint digit_total = counts[counts_offset + SORT_DIGITS * tiles + lid];
    const uint digit_base = group_exclusive_scan_u32(digit_total, slots, &total);
    digit_dst[lid] = digit_base + counts[counts_offset + lid * tiles + tile];
  }
  BARRIER_LOCAL();

  for (int nibble = 0; nibble < 2; ++nibble) {
    const int s = shift + 4 * nibble;
    /* Work-item lid holds tile positions lid * SORT_ITEMS + j: ranking in (digit, work-item, j)
     * order keeps the tile's order among equal digits. */
    uint key[SORT_ITEMS];
#if HAS_VALUES
    uint val[SORT_ITEMS];
#endif
    UNROLL
    for (int j = 0; j < SORT_ITEMS; ++j) {
      key[j] = lkeys[PADDED(lid * SORT_ITEMS + j)];
#if HAS_VALUES
      val[j] = lvals[PADDED(lid * SORT_ITEMS + j)];
#endif
    }
    UNROLL
    for (int d = 0; d < SORT_SUB_DIGITS; ++d) counters[PADDED(d * SORT_GROUP + lid)] = 0;
    uint before[SORT_ITEMS];
    UNROLL
    for (int j = 0; j < SORT_ITEMS; ++j) {
      const int d = (key[j] >> s) & (SORT_SUB_DIGITS - 1);
      before[j] = counters[PADDED(d * SORT_GROUP + lid)];
      counters[PADDED(d * SORT_GROUP + lid)] = before[j] + 1;
    }
    BARRIER_LOCAL();
    /* Exclusive scan of the counters in (digit, work-item) order: work-item lid takes entries
     * lid * SORT_SUB_DIGITS ... + SORT_SUB_DIGITS - 1 of that order. */
    uint c[SORT_SUB_DIGITS];
    uint sum = 0;
    UNROLL
    for (int e = 0; e < SORT_SUB_DIGITS; ++e) {
      c[e] = counters[PADDED(lid * SORT_SUB_DIGITS + e)];
      sum += c[e];
    }
    uint total;
    uint run = group_exclusive_scan_u32(sum, slots, &total);
    UNROLL
    for (int e = 0; e < SORT_SUB_DIGITS; ++e) {
      counters[PADDED(lid * SORT_SUB_DIGITS + e)] = run;
      run += c[e];
    }
    BARRIER_LOCAL();
    UNROLL
    for (int j = 0; j < SORT_ITEMS; ++j) {
      const int d = (key[j] >> s) & (SORT_SUB_DIGITS - 1);
      const uint r = counters[PADDED(d * SORT_GROUP + lid)] + before[j];
      lkeys[PADDED(r)] = key[j];
#if HAS_VALUES
      lvals[PADDED(r)] = val[j];
#endif
    }
    BARRIER_LOCAL();
  }

  /* The tile is now ordered by digit; a run of digit d starts where the digit changes. */
  UNROLL
  for (int i = 0; i < SORT_ITEMS; ++i) {
    const int p = i * SORT_GROUP + lid;
    const uint d = (lkeys[PADDED(p)] >> shift) & (SORT_DIGITS - 1);
    if (p == 0 || ((lkeys[PADDED(p - 1)] >> shift) & (SORT_DIGITS - 1)) != d) digit_start[d] = (uint)p;
  }
  BARRIER_LOCAL();
  UNROLL
  for (int i = 0; i < SORT_ITEMS; ++i) {
    const int p = i * SORT_GROUP + lid;
    if (p < valid) {
      const uint k = lkeys[PADDED(p)];
      const uint d = (k >> shift) & (SORT_DIGITS - 1);
      const uint dst = digit_dst[d] + ((uint)p - digit_start[d]);
      ARRAY_AT(keys_out, dst) = last ? key_bits(k, key_kind, descending) : k;
#if HAS_VALUES
      ARRAY_AT(values_out, dst) = lvals[PADDED(p)];
#endif
    }
  }
}

/* ---- network and merge: (order word, index) pairs ------------------------------------------ */

#define PAIR(word, index) ((ulong)(word) << 32 | (uint)(index))

/* Compare-exchange of a and b into ascending (or descending) order. */
INLINE void compare_exchange(LOCAL ulong* a, LOCAL ulong* b, int descending) {
  const ulong x = *a, y = *b;
  const int swap = descending ? x < y : x > y;
  *a = swap ? y : x;
  *b = swap ? x : y;
}

/* Position of the lower element of pair p of a bitonic step of stride j (a power of two). */
INLINE int pair_low(int p, int j) { return ((p & ~(j - 1)) << 1) | (p & (j - 1)); }

/* Sorts tiles of `tile` (a power of two, <= SORT_NETWORK_TILE) pairs made from the keys, and
 * writes the pairs at positions below `limit`. Positions n .. limit - 1 get the pairs
 * (0xFFFFFFFF, position): after every key's pair, and unique. `alternate`: odd tiles descending,
 * as the next bitonic merge wants; otherwise every tile ascending. */
KERNEL REQD_GROUP_SIZE(SORT_GROUP, 1, 1) void network_sort_tiles(CONST_ARRAY_PARAM(uint, keys), int n, int limit, int tile,
                                                                 int alternate, int key_kind, int descending, GLOBAL ulong* pairs) {
  LOCAL ulong t[SORT_NETWORK_TILE];
  const int lid = LOCAL_ID(0);
  const int base = GROUP_ID(0) * tile;
  for (int i = lid; i < tile; i += SORT_GROUP) {
    const int g = base + i;
    t[i] = g < n ? PAIR(order_word(ARRAY_AT(keys, g), key_kind, descending), g) : PAIR(0xFFFFFFFFu, g);
  }
  const int flip = alternate && (GROUP_ID(0) & 1);
  for (int k = 2; k <= tile; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      BARRIER_LOCAL();
      for (int p = lid; p < tile / 2; p += SORT_GROUP) {
        const int lo = pair_low(p, j);
        const int descending = ((lo & k) != 0) ^ (k == tile && flip);
        compare_exchange(&t[lo], &t[lo + j], descending);
      }
    }
  }
  BARRIER_LOCAL();
  for (int i = lid; i < tile; i += SORT_GROUP) {
    if (base + i < limit) pairs[base + i] = t[i];
  }
}

/* One step of stride j (>= SORT_NETWORK_TILE) of the bitonic merge of size k; a work-item per pair. */
KERNEL void bitonic_merge_global(GLOBAL ulong* pairs, int k, int j) {
  const int lo = pair_low(GLOBAL_ID(0), j);
  const ulong x = pairs[lo], y = pairs[lo + j];
  const int descending = (lo & k) != 0;
  const int swap = descending ? x < y : x > y;
  if (swap) {
    pairs[lo] = y;
    pairs[lo + j] = x;
  }
}

/* The steps of strides SORT_NETWORK_TILE / 2 .. 1 of the bitonic merge of size k, a tile each. */
KERNEL REQD_GROUP_SIZE(SORT_GROUP, 1, 1) void bitonic_merge_tile(GLOBAL ulong* pairs, int k) {
  LOCAL ulong t[SORT_NETWORK_TILE];
  const int lid = LOCAL_ID(0);
  const int base = GROUP_ID(0) * SORT_NETWORK_TILE;
  for (int i = lid; i < SORT_NETWORK_TILE; i += SORT_GROUP) t[i] = pairs[base + i];
  const int descending = (base & k) != 0;
  for (int j = SORT_NETWORK_TILE / 2; j > 0; j >>= 1) {
    BARRIER_LOCAL();
    for (int p = lid; p < SORT_NETWORK_TILE / 2; p += SORT_GROUP) {
      const int lo = pair_low(p, j);
      compare_exchange(&t[lo], &t[lo + j], descending);
    }
  }
  BARRIER_LOCAL();
  for (int i = lid; i < SORT_NETWORK_TILE; i += SORT_GROUP) pairs[base + i] = t[i];
}

/* How many of a[0..len) are below x (a ascending): binary lifting with a select, no branch. */
INLINE int count_below(GLOBAL const ulong* a, int len, ulong x) {
  int below = 0;
  int step = len > 0 ? 1 << (31 - clz(len)) : 0;
  for (; step > 0; step >>= 1) {
    const int probe = below + step;
    const ulong v = a[min(probe, len) - 1];
    below = (probe <= len && v < x) ? probe : below;
  }
  return below;
}

/* Merges runs of `width` pairs two by two: a pair's place is its rank in its own run plus the
 * number of pairs of the other run below it (pairs are unique, so no tie rule is needed). */
KERNEL void merge_pass(GLOBAL const ulong* src, GLOBAL ulong* dst, int n, int width) {
  const int i = GLOBAL_ID(0);
  if (i >= n) return;
  const ulong x = src[i];
  const int run = i / width;
  const int start = (run & ~1) * width;
  int place;
  if ((run & 1) == 0) {
    const int other = start + width;
    const int other_len = clamp(n - other, 0, width);
    place = i + count_below(src + other, other_len, x);
  } else {
    place = i - width + count_below(src + start, width, x);
  }
  dst[place] = x;
}

/* Keys back from the sorted pairs' words; values fetched by the pairs' indices. */
KERNEL void sort_gather(GLOBAL const ulong* pairs, int n, int key_kind, int descending, ARRAY_PARAM(uint, keys_out),
                        CONST_ARRAY_PARAM(uint, values), ARRAY_PARAM(uint, values_out)) {
  const int i = GLOBAL_ID(0);
  if (i >= n) return;
  const ulong pair = pairs[i];
  ARRAY_AT(keys_out, i) = key_bits((uint)(pair >> 32), key_kind, descending);
#if HAS_VALUES
  ARRAY_AT(values_out, i) = ARRAY_AT(values, (uint)pair);
#endif
}

/* dst = src, 32-bit words (values saved before an in-place pair method overwrites them). */
KERNEL void sort_copy(CONST_ARRAY_PARAM(uint, src), ARRAY_PARAM(uint, dst), int n) {
  const int i = GLOBAL_ID(0);
  if (i < n) ARRAY_AT(dst, i) = ARRAY_AT(src, i);
}
