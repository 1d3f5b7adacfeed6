/* Viola-Jones cascade evaluation with OpenCV 4.6's arithmetic (objdetect/src/cascadedetect.*).
 * Host side: src/ops/cascade_detect.cpp. Every scale of every image lives in one atlas; its
 * integrals (s32 sum, s32 squared sum, s32 tilted) are planes of one buffer with one pitch, so a
 * rectangle sum is four reads at the window's base offset plus offsets baked into the node table.
 * Sums wrap modulo 2^32 across the atlas, and a rectangle's difference of four corners is still
 * its exact sum.
 *
 * Options:
 *   LBP           1 for LBP features, 0 for Haar
 *   STUMPS        1 when every tree is one node (OpenCV's stump path)
 *   NODE_WORDS    ints per node record (see pack_nodes in cascade_tables.cpp)
 *   LANES         work-items per window in cascade_cooperative
 * Window results follow OpenCV: -1 when the variance test rejects the window, -s when stage s
 * rejects it, 1 when every stage passes; a window rejected by stage 0 makes OpenCV skip the next
 * window of its row, which the skip bits reproduce. */
#include "common/dialect.h"

#ifndef LBP
#define LBP 0
#endif
#ifndef STUMPS
#define STUMPS 1
#endif
#ifndef LANES
#define LANES 64
#endif

/* Job table: 4 ints per scale job: first window index, windows per row, step, element offset
 * of the job's top-left corner in the sum plane. */
#define JOB_WORDS 4

typedef struct {
  int job;
  int xi, yi;
  int base;  /* element offset of the window's top-left corner in the sum plane */
} Window;

INLINE Window decode_window(uint w, int njobs, GLOBAL const int* jobs, int pitch) {
  int lo = 0, hi = njobs - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if ((uint)jobs[mid * JOB_WORDS] <= w) lo = mid; else hi = mid - 1;
  }
  Window r;
  r.job = lo;
  const int local_index = (int)(w - (uint)jobs[lo * JOB_WORDS]);
  const int nx = jobs[lo * JOB_WORDS + 1];
  const int step = jobs[lo * JOB_WORDS + 2];
  r.yi = local_index / nx;
  r.xi = local_index - r.yi * nx;
  r.base = jobs[lo * JOB_WORDS + 3] + r.yi * step * pitch + r.xi * step;
  return r;
}

/* Four-corner sum p0 - p1 - p2 + p3 with wrap-around (uint) arithmetic, as OpenCV's int sums. */
INLINE int corner_sum(GLOBAL const int* p, int o0, int o1, int o2, int o3) {
  return as_int((uint)p[o0] - (uint)p[o1] - (uint)p[o2] + (uint)p[o3]);
}

/* HaarEvaluator::setWindow: returns 0 when the window is rejected; *vnf the float factor. */
INLINE int variance_factor(GLOBAL const int* p, int sq_plane, int4 nofs, double area, float* vnf) {
  const int valsum = corner_sum(p, nofs.x, nofs.y, nofs.z, nofs.w);
  const uint valsqsum = (uint)corner_sum(p + sq_plane, nofs.x, nofs.y, nofs.z, nofs.w);
  double nf = area * (double)valsqsum - (double)valsum * (double)valsum;
  if (nf > 0.0) {
    nf = sqrt(nf);
    *vnf = (float)(1.0 / nf);
    return area * (double)(*vnf) < 1e-1;
  }
  *vnf = 1.f;
  return 0;
}

#if LBP
/* LBPEvaluator::OptFeature::calc: 3x3 blocks, offsets o[j * 4 + i] = corner (x + i w, y + j h). */
INLINE int lbp_code(GLOBAL const int* p, GLOBAL const int* o) {
  const int c = corner_sum(p, o[5], o[6], o[9], o[10]);
  return (corner_sum(p, o[0], o[1], o[4], o[5]) >= c ? 128 : 0) | (corner_sum(p, o[1], o[2], o[5], o[6]) >= c ? 64 : 0) |
         (corner_sum(p, o[2], o[3], o[6], o[7]) >= c ? 32 : 0) | (corner_sum(p, o[6], o[7], o[10], o[11]) >= c ? 16 : 0) |
         (corner_sum(p, o[10], o[11], o[14], o[15]) >= c ? 8 : 0) | (corner_sum(p, o[9], o[10], o[13], o[14]) >= c ? 4 : 0) |
         (corner_sum(p, o[8], o[9], o[12], o[13]) >= c ? 2 : 0) | (corner_sum(p, o[4], o[5], o[8], o[9]) >= c ? 1 : 0);
}
/* Node: 16 offsets, 8 subset words, left, right. True: take the left branch. */
INLINE int node_goes_left(GLOBAL const int* p, GLOBAL const int* node, float vnf) {
  (void)vnf;
  const int c = lbp_code(p, node);
  return (node[16 + (c >> 5)] & (1 << (c & 31))) != 0;
}
#define NODE_LEFT 24
#else
/* HaarEvaluator::OptFeature::calc then * varianceNormFactor, in float, in OpenCV's order.
 * Node: 12 offsets (3 rectangles x 4 corners), 3 weights, threshold, left, right. */
INLINE int node_goes_left(GLOBAL const int* p, GLOBAL const int* node, float vnf) {
  const float w0 = as_float(node[12]);
  const float w1 = as_float(node[13]);
  const float w2 = as_float(node[14]);
  float f = w0 * (float)corner_sum(p, node[0], node[1], node[2], node[3]) +
            w1 * (float)corner_sum(p, node[4], node[5], node[6], node[7]);
  if (w2 != 0.f) f += w2 * (float)corner_sum(p, node[8], node[9], node[10], node[11]);
  return f * vnf < as_float(node[15]);
}
#define NODE_LEFT 16
#endif

/* The leaf value tree t contributes (OpenCV's predict*Stump / predict*). */
INLINE float tree_value(GLOBAL const int* p, float vnf, int t, GLOBAL const int* nodes, GLOBAL const int* trees,
                        GLOBAL const float* leaves) {
#if STUMPS
  (void)trees;
  (void)leaves;
  GLOBAL const int* node = nodes + t * NODE_WORDS;
  return as_float(node_goes_left(p, node, vnf) ? node[NODE_LEFT] : node[NODE_LEFT + 1]);
#else
  const int first_node = trees[2 * t];
  const int first_leaf = trees[2 * t + 1];
  int idx = 0;
  do {
    GLOBAL const int* node = nodes + (first_node + idx) * NODE_WORDS;
    idx = node_goes_left(p, node, vnf) ? node[NODE_LEFT] : node[NODE_LEFT + 1];
  } while (idx > 0);
  return leaves[first_leaf - idx];
#endif
}

/* Stages [s0, s1) in order, stage sums in double added in tree order. Returns 1 when all pass,
 * else -s of the first stage that rejects. */
INLINE int run_stages(GLOBAL const int* p, float vnf, int s0, int s1, GLOBAL const int* stages, GLOBAL const int* nodes,
                      GLOBAL const int* trees, GLOBAL const float* leaves) {
  for (int s = s0; s < s1; ++s) {
    const int first = stages[4 * s];
    const int count = stages[4 * s + 1];
    const float threshold = as_float(stages[4 * s + 2]);
    double sum = 0.0;
    for (int t = first; t < first + count; ++t) sum += (double)tree_value(p, vnf, t, nodes, trees, leaves);
    if (sum < (double)threshold) return -s;
  }
  return 1;
}

/* OpenCV's row loop visits a window unless the window before it was visited and rejected by
 * stage 0 (then x advances twice). The skip bits mark stage-0 rejections (set only for windows
 * that were evaluated), so window x is visited iff the run of set bits just left of it in its
 * row has even length. */
INLINE int visited(GLOBAL const uint* bits, uint w, uint row_start) {
  int run = 0;
  long i = (long)w - 1;
  while (i >= (long)row_start) {
    const uint word = bits[i >> 5];
    const int b = (int)(i & 31);
    const int avail = (int)min((long)(b + 1), i - (long)row_start + 1);
    const uint m = (~word) << (31 - b);
    const int ones = m == 0u ? 32 : (int)clz(m);
    run += min(ones, avail);
    if (ones < avail) break;
    i -= avail;
  }
  return (run & 1) == 0;
}

INLINE void push(GLOBAL uint* count, GLOBAL uint* list, uint capacity, uint value) {
  const uint slot = atomic_inc(count);
  if (slot < capacity) list[slot] = value;
}

/* One work-item per window: variance test and stages [0, stage_end). Stage-0 rejections set
 * skip bits; windows that pass go to `list` (window index). */
/* The parameters every window kernel shares (the host's `common` lambda passes them). */
#define COMMON_PARAMS                                                                                          \
  int njobs, int pitch, int sq_plane, int n0, int n1, int n2, int n3, double area,                             \
      GLOBAL const int *RESTRICT integral, int integral_offset, GLOBAL const int *RESTRICT jobs,                \
      GLOBAL const int *RESTRICT stages, GLOBAL const int *RESTRICT nodes, GLOBAL const int *RESTRICT trees,    \
      GLOBAL const float *RESTRICT leaves

/* counts[0] counts list1 (survivors of cascade_windows), counts[1] the final list2. */
KERNEL void cascade_windows(uint total, COMMON_PARAMS, int stage_end, GLOBAL uint* RESTRICT skip_bits,
                            GLOBAL uint* RESTRICT counts, GLOBAL uint* RESTRICT list, uint capacity) {
  const int4 nofs = (int4)(n0, n1, n2, n3);
  const uint w = (uint)get_global_id(0);
  if (w >= total) return;
  const Window win = decode_window(w, njobs, jobs, pitch);
  GLOBAL const int* p = integral + integral_offset + win.base;
  float vnf = 1.f;
#if !LBP
  if (!variance_factor(p, sq_plane, nofs, area, &vnf)) return;
#else
  (void)sq_plane;
  (void)nofs;
  (void)area;
#endif
  const int result = run_stages(p, vnf, 0, stage_end, stages, nodes, trees, leaves);
  if (result == 0) atomic_or(skip_bits + (w >> 5), 1u << (w & 31));
  if (result == 1) push(counts, list, capacity, w);
}

/* Survivors of the first stages, LANES work-items per window: each adds the leaves of every
 * LANES-th tree, the partial sums are reduced in local memory. Exact because the host uses
 * this kernel only for cascades whose stage sums never round (any order gives OpenCV's sum).
 * Windows that OpenCV's row loop would skip are dropped first. One work-group per window,
 * looping over the list. */
KERNEL REQD_GROUP_SIZE(LANES, 1, 1) void cascade_cooperative(COMMON_PARAMS, int stage_begin, int stage_end,
                                                              GLOBAL const uint* RESTRICT skip_bits,
                                                              GLOBAL uint* RESTRICT counts,
                                                              GLOBAL const uint* RESTRICT in_list,
                                                              GLOBAL uint* RESTRICT list, uint capacity) {
  LOCAL double partial[LANES];
  const int4 nofs = (int4)(n0, n1, n2, n3);
  const int lane = LOCAL_ID(0);
  const uint n = min(counts[0], capacity);
  for (uint i = (uint)GROUP_ID(0); i < n; i += (uint)NUM_GROUPS(0)) {
    const uint w = in_list[i];
    const Window win = decode_window(w, njobs, jobs, pitch);
    const uint row_start = (uint)jobs[win.job * JOB_WORDS] + (uint)(win.yi * jobs[win.job * JOB_WORDS + 1]);
    if (!visited(skip_bits, w, row_start)) continue;  /* uniform: every lane reads the same */
    GLOBAL const int* p = integral + integral_offset + win.base;
    float vnf = 1.f;
#if !LBP
    variance_factor(p, sq_plane, nofs, area, &vnf);  /* passed in cascade_windows */
#else
    (void)sq_plane;
    (void)nofs;
    (void)area;
#endif
    int passed = 1;
    for (int s = stage_begin; s < stage_end; ++s) {
      const int first = stages[4 * s];
      const int tree_count = stages[4 * s + 1];
      double sum = 0.0;
      for (int t = lane; t < tree_count; t += LANES) sum += (double)tree_value(p, vnf, first + t, nodes, trees, leaves);
      partial[lane] = sum;
      BARRIER_LOCAL();
      for (int width = LANES / 2; width > 0; width >>= 1) {
        if (lane < width) partial[lane] += partial[lane + width];
        BARRIER_LOCAL();
      }
      const double total = partial[0];
      BARRIER_LOCAL();
      if (total < (double)as_float(stages[4 * s + 2])) {
        passed = 0;
        break;
      }
    }
    if (passed && lane == 0) push(counts + 1, list, capacity, w);
  }
}

/* Keeps the windows of `in_list` that OpenCV's row loop visits. */
KERNEL void cascade_visit(int njobs, int pitch, GLOBAL const int* RESTRICT jobs, GLOBAL const uint* RESTRICT skip_bits,
                          GLOBAL uint* RESTRICT counts, GLOBAL const uint* RESTRICT in_list, GLOBAL uint* RESTRICT list,
                          uint capacity) {
  const uint n = min(counts[0], capacity);
  for (uint i = (uint)get_global_id(0); i < n; i += (uint)get_global_size(0)) {
    const uint w = in_list[i];
    const Window win = decode_window(w, njobs, jobs, pitch);
    const uint row_start = (uint)jobs[win.job * JOB_WORDS] + (uint)(win.yi * jobs[win.job * JOB_WORDS + 1]);
    if (visited(skip_bits, w, row_start)) push(counts + 1, list, capacity, w);
  }
}

/* Tilted integral of the atlas from its sum integral S ((W + 1) x (H + 1), s32):
 *   T(X, Y) = A(X, Y) - B(X, Y),
 *   A(X, Y) = sum over y < Y of R_y(clamp(X + Y - 1 - y)),  B(X, Y) = sum over y < Y of R_y(clamp(X - Y + y)),
 * with R_y(k) = S(k, y + 1) - S(k, y) the prefix of row y and clamp to [0, W]. A accumulates
 * along anti-diagonals (one work-item per X + Y - 1), B along diagonals (one per X - Y);
 * OpenCV's definition is the same sum over the triangle above each point. Wraps mod 2^32. */
KERNEL void cascade_tilted_a(int width, int height, CONST_IMAGE_PARAM(int, sum), IMAGE_PARAM(int, tilted)) {
  const int k = GLOBAL_ID(0);
  if (k > width + height) return;
  if (k <= width) IMAGE_AT(tilted, k, 0) = 0;
  uint acc = 0;
  for (int y = 0; y < height; ++y) {
    const int x = k - y;
    const int c = clamp(x, 0, width);
    acc += (uint)IMAGE_AT(sum, c, y + 1) - (uint)IMAGE_AT(sum, c, y);
    if (x >= 0 && x <= width) IMAGE_AT(tilted, x, y + 1) = as_int(acc);
  }
}

KERNEL void cascade_tilted_b(int width, int height, CONST_IMAGE_PARAM(int, sum), IMAGE_PARAM(int, tilted)) {
  const int m = GLOBAL_ID(0) - height;
  if (m > width) return;
  uint acc = 0;
  for (int y = 0; y < height; ++y) {
    const int c = clamp(m + y, 0, width);
    acc += (uint)IMAGE_AT(sum, c, y + 1) - (uint)IMAGE_AT(sum, c, y);
    const int x = m + y + 1;
    if (x >= 0 && x <= width) IMAGE_AT(tilted, x, y + 1) = as_int((uint)IMAGE_AT(tilted, x, y + 1) - acc);
  }
}
