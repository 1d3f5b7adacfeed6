/* Sorting, top-k and compaction: the shapes that host code (src/ops/sort.cpp, top_k.cpp,
 * compact.cpp) and kernels (sort.cl, top_k.cl, compact.cl) both know. Plain #defines, read by
 * the C++ host and by OpenCL C alike. */
#ifndef PLINTH_SORT_LAYOUT_H
#define PLINTH_SORT_LAYOUT_H

/* Work-items of every sort, top-k and compaction work-group (1-D). */
#define SORT_GROUP 256
/* Keys a work-item holds in a radix tile; a tile is SORT_GROUP * SORT_ITEMS keys. */
#define SORT_ITEMS 8
#define SORT_TILE (SORT_GROUP * SORT_ITEMS)
/* Bits of one radix pass (4 passes for 32-bit keys) and the digits they make. Inside a tile the
 * 8-bit digit is ranked as two 4-bit halves (SORT_SUB_DIGITS counters per work-item). */
#define SORT_RADIX_BITS 8
#define SORT_DIGITS 256
#define SORT_SUB_DIGITS 16
/* Elements a work-group sorts in local memory with the bitonic network (network and merge). */
#define SORT_NETWORK_TILE 2048

/* Key kinds (-D KEY_KIND=...). */
#define SORT_KEY_U32 0
#define SORT_KEY_S32 1
#define SORT_KEY_F32 2

/* top_k's state words in its scratch buffer: the digit prefix found so far, its mask, the
 * count still to take from keys equal to the prefix, then one histogram per radix pass. */
#define TOPK_PREFIX 0
#define TOPK_MASK 1
#define TOPK_REMAINING 2
#define TOPK_HIST 16
#define TOPK_STATE_WORDS (TOPK_HIST + 4 * SORT_DIGITS)

#endif
