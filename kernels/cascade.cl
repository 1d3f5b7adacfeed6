/* Viola-Jones cascade evaluation with OpenCV 4.6's arithmetic (objdetect/src/cascadedetect.*).
 * Host side: src/ops/cascade_detect.cpp (launches), src/ops/cascade_tables.cpp (tables).
 * Every scale of every image lives in one atlas; its integrals (s32 sum, s32 squared sum, s32
 * tilted) are planes of one buffer with one pitch, so a rectangle sum is four reads at the
 * window's base offset plus offsets baked into the node table. Sums wrap modulo 2^32 across the
 * atlas, and a rectangle's difference of four corners is still its exact sum.
 *
 * Kernels (docs/cascade.md, "Methods"):
 *   cascade_first   staged: one work-item per window (neighbouring work-items on neighbouring
 *                   windows of one scale): variance test and the first stages; stage-0 skip bits;
 *                   survivors compacted in order per work-group
 *   cascade_lanes   staged: one work-item per listed window runs a few more stages, survivors
 *                   compacted again (breadth first, so warps stay full of live windows)
 *   cascade_coop    staged: one warp (32 work-items) per listed window, each adding every 32nd
 *                   tree of a stage, for the deep stages that few windows reach; the window's
 *                   integral footprint is first copied to local memory
 *   cascade_simple  simple: one work-item per window runs every stage
 *   cascade_visit   simple: keeps the windows OpenCV's row loop visits
 *
 * Options:
 *   LBP           1 for LBP features, 0 for Haar
 *   STUMPS        1 when every tree is one node (OpenCV's stump path)
 *   GROUP         work-items per group of cascade_first / cascade_lanes (a multiple of 32)
 *   FOOT_W, FOOT_H, FOOT_PLANES   cascade_coop's local copy of a window's integrals:
 *                 (W + 1) x (H + 1) values per plane (sum, then tilted); FOOT_PLANES 0: no copy
 *
 * Node tables (cascade_tables.cpp) are int4 chunks, chunk k of node n at nodes[k * nn + n], so
 * that a work-item reads a node with a few vector loads and the 32 work-items of cascade_coop,
 * which read 32 consecutive nodes, read consecutive memory:
 *   Haar: 0-2 the corner offsets of rectangles 0-2, 3 (w0, w1, w2, threshold) as floats,
 *         4 (left, right): leaf values (as floats) for stumps, else child indices
 *   LBP:  0-3 the 16 corner offsets o[j * 4 + i] of the 3x3 blocks, 4-5 the 256-bit subset,
 *         6 (left, right) as for Haar
 * Window results follow OpenCV: -1 when the variance test rejects the window, -s when stage s
 * rejects it, 1 when every stage passes; a window rejected by stage 0 makes OpenCV skip the next
 * window of its row, which the skip bits reproduce.
 *
 * The pass kernels share a result buffer: RESULT_HEADER counters (one per list written), then
 * the final list of window indices. */
#include "common/dialect.h"
#include "common/scan.h"

#ifndef LBP
#define LBP 0
#endif
#ifndef STUMPS
#define STUMPS 1
#endif
#ifndef GROUP
#define GROUP 256
#endif
#ifndef FOOT_PLANES
#define FOOT_PLANES 0
#endif
#ifndef FOOT_W
#define FOOT_W 1
#endif
#ifndef FOOT_H
#define FOOT_H 1
#endif
#define WARPS (GROUP / 32)
#define RESULT_HEADER 64 /* counters 0-31 count lists, 32-63 hand out chunks (tickets) */
#define COOP_LANES 32
#define COOP_CHUNK 8 /* windows cascade_coop takes per ticket */

/* Job table: 4 ints per scale job: first window index, windows per row, step, element offset
 * of the job's top-left corner in the sum plane. */
#define JOB_WORDS 4

typedef struct {
  int job;
  int xi, yi;
  int base; /* element offset of the window's top-left corner in the sum plane */
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

/* HaarEvaluator::setWindow: returns 0 when the window is rejected; *vnf the float factor. */
INLINE int variance_factor(GLOBAL const int* p, int sq_plane, int4 nofs, double area, float* vnf) {
  const int valsum = as_int((uint)p[nofs.x] - (uint)p[nofs.y] - (uint)p[nofs.z] + (uint)p[nofs.w]);
  GLOBAL const int* q = p + sq_plane;
  const uint valsqsum = (uint)q[nofs.x] - (uint)q[nofs.y] - (uint)q[nofs.z] + (uint)q[nofs.w];
  double nf = area * (double)valsqsum - (double)valsum * (double)valsum;
  if (nf > 0.0) {
    nf = sqrt(nf);
    *vnf = (float)(1.0 / nf);
    return area * (double)(*vnf) < 1e-1;
  }
  *vnf = 1.f;
  return 0;
}

/* Node and tree evaluation, once for integrals in global memory (suffix _g) and once for the
 * local copy of cascade_coop (_l). SPACE is the address space of p. The arithmetic is OpenCV's:
 * Haar: w0 * s0 + w1 * s1 (+ w2 * s2) in float in that order, times the variance factor,
 * against the threshold; LBP: the 8-bit code of the 3x3 blocks against the node's subset. */
#define CASCADE_EVAL_FUNCTIONS(SPACE, SFX)                                                                          \
  INLINE int rect_sum_##SFX(SPACE const int* p, int4 o) {                                                           \
    return as_int((uint)p[o.x] - (uint)p[o.y] - (uint)p[o.z] + (uint)p[o.w]);                                       \
  }                                                                                                                 \
  /* True: the left branch (for stumps: leaf 0). */                                                                 \
  INLINE int goes_left_##SFX(SPACE const int* p, GLOBAL const int4* nodes, int nn, int n, float vnf) {              \
    if (LBP) {                                                                                                      \
      const int4 a = nodes[n], b = nodes[nn + n], c = nodes[2 * nn + n], d = nodes[3 * nn + n];                     \
      const uint a0 = (uint)p[a.x], a1 = (uint)p[a.y], a2 = (uint)p[a.z], a3 = (uint)p[a.w];                         \
      const uint b0 = (uint)p[b.x], b1 = (uint)p[b.y], b2 = (uint)p[b.z], b3 = (uint)p[b.w];                         \
      const uint c0 = (uint)p[c.x], c1 = (uint)p[c.y], c2 = (uint)p[c.z], c3 = (uint)p[c.w];                         \
      const uint d0 = (uint)p[d.x], d1 = (uint)p[d.y], d2 = (uint)p[d.z], d3 = (uint)p[d.w];                         \
      const int ctr = as_int(b1 - b2 - c1 + c2);                                                                    \
      const int code = (as_int(a0 - a1 - b0 + b1) >= ctr ? 128 : 0) | (as_int(a1 - a2 - b1 + b2) >= ctr ? 64 : 0) | \
                       (as_int(a2 - a3 - b2 + b3) >= ctr ? 32 : 0) | (as_int(b2 - b3 - c2 + c3) >= ctr ? 16 : 0) |  \
                       (as_int(c2 - c3 - d2 + d3) >= ctr ? 8 : 0) | (as_int(c1 - c2 - d1 + d2) >= ctr ? 4 : 0) |    \
                       (as_int(c0 - c1 - d0 + d1) >= ctr ? 2 : 0) | (as_int(b0 - b1 - c0 + c1) >= ctr ? 1 : 0);     \
      const int word = code >> 5;                                                                                   \
      const GLOBAL int* subset = (const GLOBAL int*)(nodes + (4 + (word >> 2)) * nn + n);                           \
      return ((uint)subset[word & 3] & (1u << (code & 31))) != 0u;                                                 \
    }                                                                                                               \
    const float4 w = as_float4(nodes[3 * nn + n]);                                                                  \
    float f = w.x * (float)rect_sum_##SFX(p, nodes[n]) + w.y * (float)rect_sum_##SFX(p, nodes[nn + n]);             \
    if (w.z != 0.f) f += w.z * (float)rect_sum_##SFX(p, nodes[2 * nn + n]);                                         \
    return f * vnf < w.w;                                                                                           \
  }                                                                                                                 \
  /* The leaf value tree t contributes (OpenCV's predict*Stump / predict*). */                                      \
  INLINE float tree_value_##SFX(SPACE const int* p, float vnf, int t, GLOBAL const int4* nodes, int nn,             \
                                GLOBAL const int* trees, GLOBAL const float* leaves) {                              \
    const int lr_chunk = LBP ? 6 : 4;                                                                               \
    if (STUMPS) {                                                                                                   \
      const int left = goes_left_##SFX(p, nodes, nn, t, vnf);                                                       \
      const int2 lr = nodes[lr_chunk * nn + t].xy;                                                                  \
      return as_float(left ? lr.x : lr.y);                                                                          \
    }                                                                                                               \
    const int first_node = trees[2 * t];                                                                            \
    const int first_leaf = trees[2 * t + 1];                                                                        \
    int idx = 0;                                                                                                    \
    do {                                                                                                            \
      const int n = first_node + idx;                                                                               \
      const int left = goes_left_##SFX(p, nodes, nn, n, vnf);                                                       \
      const int2 lr = nodes[lr_chunk * nn + n].xy;                                                                  \
      idx = left ? lr.x : lr.y;                                                                                     \
    } while (idx > 0);                                                                                              \
    return leaves[first_leaf - idx];                                                                                \
  }

CASCADE_EVAL_FUNCTIONS(GLOBAL, g)
#if FOOT_PLANES > 0
CASCADE_EVAL_FUNCTIONS(LOCAL, l)
#endif

/* Stages [s0, s1) in order by one work-item, stage sums in double added in tree order (OpenCV's
 * order, so exact for every cascade). Returns 1 when all pass, else -s of the first stage that
 * rejects. */
INLINE int run_stages(GLOBAL const int* p, float vnf, int s0, int s1, GLOBAL const int* stages, GLOBAL const int4* nodes,
                      int nn, GLOBAL const int* trees, GLOBAL const float* leaves) {
  for (int s = s0; s < s1; ++s) {
    const int first = stages[4 * s];
    const int count = stages[4 * s + 1];
    const float threshold = as_float(stages[4 * s + 2]);
    double sum = 0.0;
    for (int t = first; t < first + count; ++t) sum += (double)tree_value_g(p, vnf, t, nodes, nn, trees, leaves);
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

INLINE int visited_window(GLOBAL const uint* bits, uint w, Window win, GLOBAL const int* jobs) {
  const uint row_start = (uint)jobs[win.job * JOB_WORDS] + (uint)(win.yi * jobs[win.job * JOB_WORDS + 1]);
  return visited(bits, w, row_start);
}

/* Ordered compaction across a work-group of GROUP work-items: every work-item calls it (it has
 * barriers); returns the slot of this work-item's kept value in the list counted by *counter.
 * Kept values keep their order within the group, so that neighbouring windows stay neighbours
 * in the list and the next pass's reads stay close together. */
INLINE uint compact_slot(int keep, LOCAL uint* slots, LOCAL uint* warp_base, GLOBAL uint* counter) {
  const int lid = LOCAL_ID(0);
  const int lane = lid & 31;
  const int warp = lid >> 5;
  const uint prefix = warp_exclusive_scan_u32((uint)keep, lane, slots);
  if (lane == 31) warp_base[warp] = prefix + (uint)keep;
  BARRIER_LOCAL();
  if (lid == 0) {
    uint s = 0;
    for (int k = 0; k < WARPS; ++k) {
      const uint t = warp_base[k];
      warp_base[k] = s;
      s += t;
    }
    warp_base[WARPS] = s != 0u ? ATOMIC_ADD(counter, s) : 0u;
  }
  BARRIER_LOCAL();
  const uint slot = warp_base[WARPS] + warp_base[warp] + prefix;
  BARRIER_LOCAL(); /* warp_base is written again by the next call */
  return slot;
}

/* The parameters every window kernel shares (the host's `common` lambda passes them). */
#define COMMON_PARAMS                                                                                         \
  int njobs, int pitch, int sq_plane, int n0, int n1, int n2, int n3, double area,                            \
      GLOBAL const int *RESTRICT integral, int integral_offset, GLOBAL const int *RESTRICT jobs,               \
      GLOBAL const int *RESTRICT stages, GLOBAL const int4 *RESTRICT nodes, int nn, GLOBAL const int *RESTRICT trees, \
      GLOBAL const float *RESTRICT leaves

/* The window's variance factor, or 0 when the variance test rejects it (LBP: always 1). */
INLINE int window_factor(GLOBAL const int* p, int sq_plane, int4 nofs, double area, float* vnf) {
#if LBP
  (void)p;
  (void)sq_plane;
  (void)nofs;
  (void)area;
  *vnf = 1.f;
  return 1;
#else
  return variance_factor(p, sq_plane, nofs, area, vnf);
#endif
}

/* staged, first pass: windows [0, total), one work-item each; global size total rounded up to
 * GROUP. Stages [0, stage_end). Writes every skip-bit word of its windows (no clearing needed)
 * and appends the survivors, as (window, variance factor bits), to `out`, counted by
 * result[out_counter]. */
KERNEL REQD_GROUP_SIZE(GROUP, 1, 1) void cascade_first(uint total, COMMON_PARAMS, int stage_end,
                                                        GLOBAL uint* RESTRICT skip_bits, GLOBAL uint* RESTRICT result,
                                                        int out_counter, GLOBAL uint2* RESTRICT out, uint capacity) {
  LOCAL_MEM uint slots[GROUP];
  LOCAL_MEM uint warp_base[WARPS + 1];
  LOCAL_MEM uint bits[WARPS];
  const int lid = LOCAL_ID(0);
  if (lid < WARPS) bits[lid] = 0u;
  BARRIER_LOCAL();
  const uint w = (uint)GLOBAL_ID(0);
  int keep = 0;
  float vnf = 1.f;
  if (w < total) {
    const Window win = decode_window(w, njobs, jobs, pitch);
    GLOBAL const int* p = integral + integral_offset + win.base;
    if (window_factor(p, sq_plane, VEC4(int4, n0, n1, n2, n3), area, &vnf)) {
      const int r = run_stages(p, vnf, 0, stage_end, stages, nodes, nn, trees, leaves);
      if (r == 0) ATOMIC_OR(&bits[lid >> 5], 1u << (lid & 31));
      keep = r == 1;
    }
  }
  BARRIER_LOCAL();
  if (lid < WARPS) skip_bits[(uint)GROUP_ID(0) * WARPS + (uint)lid] = bits[lid];
  const uint slot = compact_slot(keep, slots, warp_base, result + out_counter);
  if (keep && slot < capacity) out[slot] = VEC2(uint2, w, as_uint(vnf));
}

/* staged, later passes: the windows listed in `in` (counted by result[in_counter]), one
 * work-item each; work-groups take chunks of GROUP entries with tickets (result[ticket]), so
 * that however many groups fit on the device, none idles while chunks are left.
 * filter_visited drops first the windows OpenCV's row loop skips (the skip bits are complete
 * once cascade_first has run). Stages [stage_begin, stage_end); survivors go to `out` (counted
 * by result[out_counter]) or, when final, to the result list as window indices. */
KERNEL REQD_GROUP_SIZE(GROUP, 1, 1) void cascade_lanes(COMMON_PARAMS, int stage_begin, int stage_end, int filter_visited,
                                                        GLOBAL const uint* RESTRICT skip_bits, GLOBAL uint* RESTRICT result,
                                                        int in_counter, GLOBAL const uint2* RESTRICT in, int out_counter,
                                                        GLOBAL uint2* RESTRICT out, int final_list, uint capacity,
                                                        int ticket) {
  LOCAL_MEM uint slots[GROUP];
  LOCAL_MEM uint warp_base[WARPS + 1];
  LOCAL_MEM uint next_chunk;
  (void)sq_plane;
  (void)n0;
  (void)n1;
  (void)n2;
  (void)n3;
  (void)area;
  const uint n = min(result[in_counter], capacity);
  for (;;) {
    if (LOCAL_ID(0) == 0) next_chunk = ATOMIC_INC(result + ticket);
    BARRIER_LOCAL();
    const uint chunk = next_chunk;
    BARRIER_LOCAL();
    if (chunk >= (n + GROUP - 1) / GROUP) break; /* uniform */
    const uint i = chunk * GROUP + (uint)LOCAL_ID(0);
    int keep = 0;
    uint2 e = VEC2(uint2, 0u, 0u);
    if (i < n) {
      e = in[i];
      const Window win = decode_window(e.x, njobs, jobs, pitch);
      keep = !filter_visited || visited_window(skip_bits, e.x, win, jobs);
      if (keep) {
        GLOBAL const int* p = integral + integral_offset + win.base;
        keep = run_stages(p, as_float(e.y), stage_begin, stage_end, stages, nodes, nn, trees, leaves) == 1;
      }
    }
    const uint slot = compact_slot(keep, slots, warp_base, result + out_counter);
    if (keep && slot < capacity) {
      if (final_list) {
        result[RESULT_HEADER + slot] = e.x;
      } else {
        out[slot] = e;
      }
    }
  }
}

/* The sum of a double over the 32 work-items of a cascade_coop group, in every work-item. The
 * partial sums are sums of leaves, which the host allows only when no such sum rounds, so the
 * order does not matter. */
INLINE double coop_sum(double v, LOCAL double* slots) {
#if HAS_WARP_SHUFFLE
  (void)slots;
  for (int m = 16; m > 0; m >>= 1) v += as_double(warp_shuffle_xor_u64(as_ulong(v), m));
  return v;
#else
  const int lane = LOCAL_ID(0);
  slots[lane] = v;
  BARRIER_LOCAL();
  double s = 0.0;
  for (int k = 0; k < COOP_LANES; ++k) s += slots[k];
  BARRIER_LOCAL();
  return s;
#endif
}

/* staged, last pass: one group of 32 work-items (one warp) per listed window; groups take
 * COOP_CHUNK windows at a time with tickets (result[ticket]), so that the rare windows that run
 * every stage do not hold back a group's fixed share; each work-item adds the leaves of every
 * 32nd tree of a stage. With FOOT_PLANES the
 * window's integrals are first copied to local memory and read through `local_nodes`, whose
 * offsets are relative to that copy. Survivors of stages [stage_begin, stage_end) go to the
 * result list. */
KERNEL REQD_GROUP_SIZE(COOP_LANES, 1, 1) void cascade_coop(COMMON_PARAMS, int stage_begin, int stage_end,
                                                            int filter_visited, GLOBAL const uint* RESTRICT skip_bits,
                                                            GLOBAL uint* RESTRICT result, int in_counter,
                                                            GLOBAL const uint2* RESTRICT in, int out_counter,
                                                            uint capacity, int tilted_plane,
                                                            GLOBAL const int4* RESTRICT local_nodes, int ticket) {
  LOCAL_MEM double slots[COOP_LANES];
  LOCAL_MEM uint next_chunk;
#if FOOT_PLANES > 0
  LOCAL_MEM int foot[FOOT_PLANES * FOOT_W * FOOT_H];
#endif
  (void)sq_plane;
  (void)n0;
  (void)n1;
  (void)n2;
  (void)n3;
  (void)area;
  (void)tilted_plane;
  (void)local_nodes;
  const int lane = LOCAL_ID(0);
  const uint n = min(result[in_counter], capacity);
  for (;;) {
    if (lane == 0) next_chunk = ATOMIC_INC(result + ticket);
    BARRIER_LOCAL();
    const uint begin = next_chunk * COOP_CHUNK;
    BARRIER_LOCAL();
    if (begin >= n) break; /* uniform */
    const uint end = min(begin + COOP_CHUNK, n);
    for (uint i = begin; i < end; ++i) {
      const uint2 e = in[i];
      const Window win = decode_window(e.x, njobs, jobs, pitch);
      if (filter_visited && !visited_window(skip_bits, e.x, win, jobs)) continue; /* uniform */
      const float vnf = as_float(e.y);
      GLOBAL const int* p = integral + integral_offset + win.base;
#if FOOT_PLANES > 0
      for (int k = lane; k < FOOT_PLANES * FOOT_W * FOOT_H; k += COOP_LANES) {
        const int plane = k / (FOOT_W * FOOT_H);
        const int r = (k - plane * (FOOT_W * FOOT_H)) / FOOT_W;
        const int c = k - plane * (FOOT_W * FOOT_H) - r * FOOT_W;
        foot[k] = p[plane * tilted_plane + r * pitch + c];
      }
      BARRIER_LOCAL();
#endif
      int passed = 1;
      for (int s = stage_begin; s < stage_end; ++s) {
        const int first = stages[4 * s];
        const int count = stages[4 * s + 1];
        double partial = 0.0;
        for (int t = lane; t < count; t += COOP_LANES) {
#if FOOT_PLANES > 0
          partial += (double)tree_value_l(foot, vnf, first + t, local_nodes, nn, trees, leaves);
#else
          partial += (double)tree_value_g(p, vnf, first + t, nodes, nn, trees, leaves);
#endif
        }
        if (coop_sum(partial, slots) < (double)as_float(stages[4 * s + 2])) {
          passed = 0;
          break;
        }
      }
      if (passed && lane == 0) {
        const uint slot = ATOMIC_INC(result + out_counter);
        if (slot < capacity) result[RESULT_HEADER + slot] = e.x;
      }
#if FOOT_PLANES > 0
      BARRIER_LOCAL(); /* the next window overwrites foot */
#endif
    }
  }
}

/* simple: one work-item per window, variance test and every stage. Stage-0 rejections set skip
 * bits (cleared by the host first); windows that pass are appended to `list`, counted by
 * result[list_counter]. */
KERNEL void cascade_simple(uint total, COMMON_PARAMS, int stage_end, GLOBAL uint* RESTRICT skip_bits,
                           GLOBAL uint* RESTRICT result, int list_counter, GLOBAL uint* RESTRICT list, uint capacity) {
  const uint w = (uint)GLOBAL_ID(0);
  if (w >= total) return;
  const Window win = decode_window(w, njobs, jobs, pitch);
  GLOBAL const int* p = integral + integral_offset + win.base;
  float vnf = 1.f;
  if (!window_factor(p, sq_plane, VEC4(int4, n0, n1, n2, n3), area, &vnf)) return;
  const int r = run_stages(p, vnf, 0, stage_end, stages, nodes, nn, trees, leaves);
  if (r == 0) ATOMIC_OR(skip_bits + (w >> 5), 1u << (w & 31));
  if (r == 1) {
    const uint slot = ATOMIC_INC(result + list_counter);
    if (slot < capacity) list[slot] = w;
  }
}

/* simple: keeps the windows of `list` that OpenCV's row loop visits (a grid-stride loop). */
KERNEL void cascade_visit(int njobs, int pitch, GLOBAL const int* RESTRICT jobs, GLOBAL const uint* RESTRICT skip_bits,
                          GLOBAL uint* RESTRICT result, int list_counter, GLOBAL const uint* RESTRICT list,
                          int out_counter, uint capacity) {
  const uint n = min(result[list_counter], capacity);
  for (uint i = (uint)GLOBAL_ID(0); i < n; i += (uint)GLOBAL_SIZE(0)) {
    const uint w = list[i];
    const Window win = decode_window(w, njobs, jobs, pitch);
    if (visited_window(skip_bits, w, win, jobs)) {
      const uint slot = ATOMIC_INC(result + out_counter);
      if (slot < capacity) result[RESULT_HEADER + slot] = w;
    }
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
