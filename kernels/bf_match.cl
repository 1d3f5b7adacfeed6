/* Brute-force k-nearest matching (cv::BFMatcher; host: src/ops/bf_match.cpp). Options:
 *   HAMMING   1: u8 descriptors compared by differing bits, read as 32-bit words; 0: f32 by L2
 *   WORDS     words of a descriptor (f32 values, or groups of 4 bytes)
 *   K         neighbours kept per query (1 to max_knn)
 *   GROUP     work-items (queries) of a work-group; TILE train descriptors share local memory
 * Each work-item holds its query in registers and walks the train set tile by tile. Neighbours
 * are kept sorted by distance (squared for L2); a candidate enters only when strictly nearer than
 * the k-th, after any equal ones: of equal distances the lower train index comes first, as
 * OpenCV's batchDistance inserts. */
#include "common/dialect.h"

#if HAMMING
#define WORD uint
#define DIST uint
#define FAR 0xffffffffu
#else
#define WORD float
#define DIST float
#define FAR INFINITY
#endif

INLINE DIST word_distance(WORD a, WORD b) {
#if HAMMING
  return popcount(a ^ b);
#else
  const float t = a - b;
  return t * t;
#endif
}

KERNEL REQD_GROUP_SIZE(GROUP, 1, 1) void bf_knn(int n, int m, CONST_ARRAY_PARAM(WORD, query), CONST_ARRAY_PARAM(WORD, train),
                                                ARRAY_PARAM(int, indices), ARRAY_PARAM(float, distances)) {
  LOCAL WORD tile[TILE * WORDS];
  const int i = GLOBAL_ID(0), lid = LOCAL_ID(0);
  const bool active = i < n;
  WORD q[WORDS];
  UNROLL for (int w = 0; w < WORDS; ++w) q[w] = active ? ARRAY_AT(query, i * WORDS + w) : (WORD)0;
  DIST best[K];
  int best_index[K];
  UNROLL for (int s = 0; s < K; ++s) {
    best[s] = FAR;
    best_index[s] = -1;
  }
  for (int t0 = 0; t0 < m; t0 += TILE) {
    const int count = min(TILE, m - t0);
    BARRIER_LOCAL();
    for (int e = lid; e < count * WORDS; e += GROUP) tile[e] = ARRAY_AT(train, t0 * WORDS + e);
    BARRIER_LOCAL();
    if (!active) continue;
    for (int t = 0; t < count; ++t) {
      DIST d = 0;
      UNROLL for (int w = 0; w < WORDS; ++w) d += word_distance(q[w], tile[t * WORDS + w]);
      if (d < best[K - 1]) {
        const int j = t0 + t;
        /* Insert after every kept distance <= d: from the end, shift what is farther. */
        UNROLL for (int s = K - 1; s > 0; --s) {
          if (best[s - 1] > d) {
            best[s] = best[s - 1];
            best_index[s] = best_index[s - 1];
          } else if (best[s] > d) {
            best[s] = d;
            best_index[s] = j;
          }
        }
        if (best[0] > d) {
          best[0] = d;
          best_index[0] = j;
        }
      }
    }
  }
  if (!active) return;
  UNROLL for (int s = 0; s < K; ++s) {
    ARRAY_AT(indices, i * K + s) = best_index[s];
#if HAMMING
    ARRAY_AT(distances, i * K + s) = best_index[s] < 0 ? INFINITY : (float)best[s];
#else
    ARRAY_AT(distances, i * K + s) = best_index[s] < 0 ? INFINITY : sqrt(best[s]);
#endif
  }
}
