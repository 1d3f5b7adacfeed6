/* Bags of visual words: nearest-centroid assignment and counting (host: src/ops/bow_assign.cpp;
 * formulas and methods: docs/features.md). Options:
 *   DIM        descriptor length (a multiple of 4)
 *   GROUP      work-group size of the one-descriptor-per-work-item methods (the seed's GPU1-GPU5)
 *   ROW_THREADS, DIM_SLICE   the fused kernel's shape (below)
 * Layouts: descriptor-major ("rows", OpenCV's: value d of descriptor i at i * DIM + d) or
 * dimension-major ("columns", the seed's transposed layout: at d * n + i).
 * Every kernel keeps the nearest centroid with a strict comparison in increasing index order, so
 * of equal distances the lowest index wins. Distances that are never below +infinity (NaN
 * descriptors) leave the label at -1, which is not counted. */
#include "common/dialect.h"

/* The image that owns descriptor i: the largest m with starts[m] <= i (starts is non-decreasing,
 * starts[0] = 0 and starts[images] = n > i, so m < images and image m is not empty). */
INLINE int image_of(int i, GLOBAL const int* starts, int images) {
  int lo = 0, hi = images;  // starts[lo] <= i < starts[hi]
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (starts[mid] <= i) lo = mid;
    else hi = mid;
  }
  return lo;
}

INLINE void record(int i, int label, int k, GLOBAL const int* starts, int images, GLOBAL int* counts,
                   GLOBAL int* labels) {
  if (labels != 0) labels[i] = label;
  if (label >= 0) ATOMIC_INC(counts + image_of(i, starts, images) * k + label);
}

/* Counts zeroed; with `norms` set, |c_j|^2 of every centroid too (for the fused kernel), summed in
 * dimension order. */
KERNEL void bow_prepare(int k, int count_words, CONST_ARRAY_PARAM(float, centroids), ARRAY_PARAM(float, norms),
                        int want_norms, ARRAY_PARAM(int, counts)) {
  const int g = GLOBAL_ID(0);
  if (g < count_words) ARRAY_AT(counts, g) = 0;
  if (want_norms && g < k) {
    float s = 0.0f;
    for (int d = 0; d < DIM; ++d) {
      const float c = ARRAY_AT(centroids, g * DIM + d);
      s = fma(c, c, s);
    }
    ARRAY_AT(norms, g) = s;
  }
}

/* A rows x cols matrix into its cols x rows transpose, through 32 x 32 tiles in local memory
 * (work-groups of 32 x 8). */
KERNEL void bow_transpose(int rows, int cols, CONST_ARRAY_PARAM(float, src), ARRAY_PARAM(float, dst)) {
  LOCAL_MEM float tile[32][33];
  const int tx = LOCAL_ID(0), ty = LOCAL_ID(1);
  const int c0 = GROUP_ID(0) * 32, r0 = GROUP_ID(1) * 32;
  for (int y = ty; y < 32; y += 8) {
    const int r = r0 + y, c = c0 + tx;
    if (r < rows && c < cols) tile[y][tx] = ARRAY_AT(src, r * cols + c);
  }
  BARRIER_LOCAL();
  for (int y = ty; y < 32; y += 8) {
    const int c = c0 + y, r = r0 + tx;
    if (r < rows && c < cols) ARRAY_AT(dst, c * rows + r) = tile[tx][y];
  }
}

/* Histograms: counts times OpenCV's scale, the float nearest 1/n_i (a reciprocal refined by one
 * fused Newton step, since OpenCL's division may be off by more than half an ulp). */
KERNEL void bow_normalize(int k, int images, CONST_ARRAY_PARAM(int, starts), CONST_ARRAY_PARAM(int, counts),
                          ARRAY_PARAM(float, histograms)) {
  const int g = GLOBAL_ID(0);
  if (g >= k * images) return;
  const int img = g / k;
  const int n = ARRAY_AT(starts, img + 1) - ARRAY_AT(starts, img);
  float h = 0.0f;
  if (n > 0) {
    const float fn = (float)n;
    float r = 1.0f / fn;
    r = fma(r, fma(-fn, r, 1.0f), r);
    h = (float)ARRAY_AT(counts, g) * r;
  }
  ARRAY_AT(histograms, g) = h;
}

#define ASSIGN_PARAMS                                                                                    \
  int n, int k, CONST_ARRAY_PARAM(float, desc), CONST_ARRAY_PARAM(float, centroids),                     \
      CONST_ARRAY_PARAM(int, starts), int images, ARRAY_PARAM(int, counts), ARRAY_PARAM(int, labels), \
      int want_labels
#define RECORD(i, label)                                                                                    \
  record(i, label, k, starts + starts_offset, images, counts + counts_offset, \
         want_labels ? labels + labels_offset : (GLOBAL int*)0)

/* The nearest of the k centroids to a descriptor whose value d is x[d * stride], distances summed
 * in dimension order; one definition per pair of address spaces the seed's kernels read from. */
#define DEFINE_NEAREST(name, X_SPACE, C_SPACE)                                   \
  INLINE int name(X_SPACE const float* x, int stride, C_SPACE const float* c, int k) { \
    int label = -1;                                                              \
    float best = INFINITY;                                                       \
    for (int j = 0; j < k; ++j) {                                                \
      float dist = 0.0f;                                                         \
      for (int d = 0; d < DIM; ++d) {                                            \
        const float t = x[d * stride] - c[j * DIM + d];                          \
        dist += t * t;                                                           \
      }                                                                          \
      if (dist < best) {                                                         \
        best = dist;                                                             \
        label = j;                                                               \
      }                                                                          \
    }                                                                            \
    return label;                                                                \
  }
DEFINE_NEAREST(nearest_global, GLOBAL, GLOBAL)
DEFINE_NEAREST(nearest_local, LOCAL, GLOBAL)
DEFINE_NEAREST(nearest_local_constant, LOCAL, CONSTANT)

/* ---- GPU1 (baseline): descriptor-major rows, one descriptor per work-item ---- */
KERNEL void bow_baseline(ASSIGN_PARAMS) {
  const int i = GLOBAL_ID(0);
  if (i >= n) return;
  RECORD(i, nearest_global(desc + desc_offset + i * DIM, 1, centroids + centroids_offset, k));
}

/* ---- GPU2 (transposed): dimension-major descriptors; work-items i, i+1 read neighbouring words ---- */
KERNEL void bow_transposed(ASSIGN_PARAMS) {
  const int i = GLOBAL_ID(0);
  if (i >= n) return;
  RECORD(i, nearest_global(desc + desc_offset + i, n, centroids + centroids_offset, k));
}

/* ---- GPU3 (float4): dimension-major, four dimensions a step; the four squares summed, then added ---- */
KERNEL void bow_float4(ASSIGN_PARAMS) {
  const int i = GLOBAL_ID(0);
  if (i >= n) return;
  GLOBAL const float* x = desc + desc_offset + i;
  GLOBAL const float* c = centroids + centroids_offset;
  int label = -1;
  float best = INFINITY;
  for (int j = 0; j < k; ++j) {
    float dist = 0.0f;
    for (int d = 0; d < DIM; d += 4) {
      const float4 xv = VEC4(float4, x[d * n], x[(d + 1) * n], x[(d + 2) * n], x[(d + 3) * n]);
      const float4 cv = vload4(0, c + j * DIM + d);
      float4 t = xv - cv;
      t = t * t;
      dist += t.x + t.y + t.z + t.w;
    }
    if (dist < best) {
      best = dist;
      label = j;
    }
  }
  RECORD(i, label);
}

/* The work-group's descriptors, dimension-major, copied into local memory (value d of the
 * work-item's descriptor at tile[d * GROUP + lid]); zeros past n. */
INLINE void stage_descriptors(LOCAL float* tile, GLOBAL const float* x, int n, int i, int lid) {
  for (int d = 0; d < DIM; ++d) tile[d * GROUP + lid] = i < n ? x[d * n + i] : 0.0f;
  BARRIER_LOCAL();
}

/* ---- GPU4 (local): dimension-major, the descriptors read from local memory ---- */
KERNEL REQD_GROUP_SIZE(GROUP, 1, 1) void bow_local(ASSIGN_PARAMS) {
  LOCAL_MEM float tile[DIM * GROUP];
  const int i = GLOBAL_ID(0), lid = LOCAL_ID(0);
  stage_descriptors(tile, desc + desc_offset, n, i, lid);
  if (i >= n) return;
  RECORD(i, nearest_local(tile + lid, GROUP, centroids + centroids_offset, k));
}

/* ---- GPU5 (constant): as GPU4, the centroids in constant memory ---- */
KERNEL REQD_GROUP_SIZE(GROUP, 1, 1) void bow_constant(int n, int k, CONST_ARRAY_PARAM(float, desc),
                                                      CONSTANT float* centroids, int centroids_offset,
                                                      CONST_ARRAY_PARAM(int, starts), int images,
                                                      ARRAY_PARAM(int, counts), ARRAY_PARAM(int, labels),
                                                      int want_labels) {
  LOCAL_MEM float tile[DIM * GROUP];
  const int i = GLOBAL_ID(0), lid = LOCAL_ID(0);
  stage_descriptors(tile, desc + desc_offset, n, i, lid);
  if (i >= n) return;
  RECORD(i, nearest_local_constant(tile + lid, GROUP, centroids + centroids_offset, k));
}

/* ---- fused: |x - c|^2 = |x|^2 + |c|^2 - 2 x.c, and |x|^2 is the same for every centroid, so a
 * descriptor's word is the arg-min of |c|^2 - 2 x.c: a matrix product, blocked like a GEMM.
 * A work-group of 16 x ROW_THREADS work-items takes TM = 8 * ROW_THREADS descriptors, kept whole
 * in local memory (dimension-major, rows padded by 4 floats), and walks the centroids in chunks of
 * TN = 128, each streamed through local memory DIM_SLICE dimensions at a time; every work-item
 * accumulates an 8 x 8 block of dot products in registers (64 fused multiply-adds per 4 float4
 * loads from local memory), then keeps each of its 8 descriptors' best score. The 16 work-items
 * that share descriptors reduce their bests through local memory, and one work-item per
 * descriptor writes the label and counts it. */
#if defined(ROW_THREADS)
#define TX 16
#define MT 8
#define NT 8
#define TM (MT * ROW_THREADS)
#define TN (NT * TX)
#define RS (TM + 4) /* row stride of the descriptor tile */
#define CS (TN + 4) /* row stride of the centroid slice */

/* The fused kernels' shared steps, as macros over the kernel's own names (rows4, slice4, acc,
 * best, best_index, tx, ty, k, norms), so that the register blocks stay in registers:
 * FUSED_STEP adds dimension d (row dd of the slice) to the 8 x 8 block of dot products; a
 * work-item's 8 centroids of a chunk are FUSED_CENTROID(0..7), 4 at 4 tx and 4 at 4 (TX + tx), so
 * that a half-warp's float4 reads of the slice are 256 contiguous bytes (no bank conflicts);
 * FUSED_KEEP_BEST turns a chunk's dot products into scores |c|^2 - 2 x.c and keeps each
 * descriptor's least, in increasing centroid order (of equal scores the first, lowest index, stays). */
#define FUSED_CENTROID(j) (((j) / 4) * (4 * TX) + 4 * tx + (j) % 4)
#define FUSED_STEP(d, dd)                                                                     \
  {                                                                                           \
    const float4 a0 = rows4[((d) * RS + ty * MT) / 4];                                        \
    const float4 a1 = rows4[((d) * RS + ty * MT) / 4 + 1];                                    \
    const float4 b0 = slice4[(dd) * (CS / 4) + tx];                                           \
    const float4 b1 = slice4[(dd) * (CS / 4) + TX + tx];                                      \
    const float a[MT] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};                     \
    const float b[NT] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};                     \
    UNROLL for (int m = 0; m < MT; ++m) {                                                     \
      UNROLL for (int j = 0; j < NT; ++j) acc[m][j] = fma(a[m], b[j], acc[m][j]);             \
    }                                                                                         \
  }
#define FUSED_KEEP_BEST(c0)                                                                   \
  UNROLL for (int j = 0; j < NT; ++j) {                                                       \
    const int c = (c0) + FUSED_CENTROID(j);                                                   \
    /* Past k the slice held zeros, so the score is +inf there and never replaces a best. */  \
    const float norm = c < k ? ARRAY_AT(norms, c) : INFINITY;                                 \
    UNROLL for (int m = 0; m < MT; ++m) {                                                     \
      const float score = norm - 2.0f * acc[m][j];                                            \
      const bool better = score < best[m];                                                    \
      best[m] = better ? score : best[m];                                                     \
      best_index[m] = better ? c : best_index[m];                                             \
    }                                                                                         \
  }

/* The group's TM descriptors into local memory, dimension-major (float4 reads along each
 * descriptor, scattered into rows of RS floats); zeros past n. */
INLINE void stage_rows(LOCAL float* rows, GLOBAL const float* desc, int n, int row0, int lid, int threads) {
  for (int e = lid; e < TM * (DIM / 4); e += threads) {
    const int r = e / (DIM / 4), q = e % (DIM / 4);
    const int g = row0 + r;
    const float4 v = g < n ? vload4(0, desc + g * DIM + 4 * q) : SPLAT(float4, 0.0f);
    rows[(4 * q + 0) * RS + r] = v.x;
    rows[(4 * q + 1) * RS + r] = v.y;
    rows[(4 * q + 2) * RS + r] = v.z;
    rows[(4 * q + 3) * RS + r] = v.w;
  }
}

/* A work-item's best score and word for each of its MT descriptors, into local memory (`space`:
 * the descriptor tile's, no longer read), TX candidates per descriptor. */
INLINE void put_candidates(LOCAL float* space, const float* best, const int* best_index, int tx, int ty) {
  LOCAL int* index = (LOCAL int*)(space + TM * TX);
  UNROLL for (int m = 0; m < MT; ++m) {
    space[(ty * MT + m) * TX + tx] = best[m];
    index[(ty * MT + m) * TX + tx] = best_index[m];
  }
}

/* Descriptor r's word from its TX candidates: the least score, of equal scores the lowest index. */
INLINE int pick_candidate(LOCAL const float* space, int r) {
  LOCAL const int* index = (LOCAL const int*)(space + TM * TX);
  float v = INFINITY;
  int label = -1;
  for (int t = 0; t < TX; ++t) {
    const float cv = space[r * TX + t];
    const int ci = index[r * TX + t];
    if (ci >= 0 && (cv < v || (cv == v && ci < label))) {
      v = cv;
      label = ci;
    }
  }
  return label;
}

KERNEL REQD_GROUP_SIZE(TX * ROW_THREADS, 1, 1) void bow_fused(int n, int k, CONST_ARRAY_PARAM(float, desc),
                                                               CONST_ARRAY_PARAM(float, centroids),
                                                               CONST_ARRAY_PARAM(float, norms),
                                                               CONST_ARRAY_PARAM(int, starts), int images,
                                                               ARRAY_PARAM(int, counts), ARRAY_PARAM(int, labels),
                                                               int want_labels) {
  LOCAL_MEM float4 rows4[DIM * RS / 4];
  LOCAL_MEM float4 slice4[DIM_SLICE * CS / 4];
  LOCAL float* rows = (LOCAL float*)rows4;
  LOCAL float* slice = (LOCAL float*)slice4;
  const int lid = LOCAL_ID(0);
  const int tx = lid % TX, ty = lid / TX;
  const int row0 = GROUP_ID(0) * TM;
  const int threads = TX * ROW_THREADS;

  /* Descriptor tile: float4 reads along each descriptor, scattered into dimension-major rows. */
  stage_rows(rows, desc + desc_offset, n, row0, lid, threads);

  float best[MT];
  int best_index[MT];
  UNROLL for (int m = 0; m < MT; ++m) {
    best[m] = INFINITY;
    best_index[m] = -1;
  }

  for (int c0 = 0; c0 < k; c0 += TN) {
    float acc[MT][NT];
    UNROLL for (int m = 0; m < MT; ++m) {
      UNROLL for (int j = 0; j < NT; ++j) acc[m][j] = 0.0f;
    }
    for (int d0 = 0; d0 < DIM; d0 += DIM_SLICE) {
      BARRIER_LOCAL(); /* the previous slice is consumed (and, first time, the descriptor tile written) */
      for (int e = lid; e < TN * (DIM_SLICE / 4); e += threads) {
        const int c = e / (DIM_SLICE / 4), q = e % (DIM_SLICE / 4);
        const int g = c0 + c;
        const float4 v = g < k ? vload4(0, centroids + centroids_offset + g * DIM + d0 + 4 * q) : SPLAT(float4, 0.0f);
        slice[(4 * q + 0) * CS + c] = v.x;
        slice[(4 * q + 1) * CS + c] = v.y;
        slice[(4 * q + 2) * CS + c] = v.z;
        slice[(4 * q + 3) * CS + c] = v.w;
      }
      BARRIER_LOCAL();
      UNROLL for (int dd = 0; dd < DIM_SLICE; ++dd) FUSED_STEP(d0 + dd, dd);
    }
    /* Scores in increasing centroid order: of equal scores the first (lowest index) stays. */
    FUSED_KEEP_BEST(c0);
  }

  /* The 16 candidates of each descriptor, through local memory (the descriptor tile's space). */
  BARRIER_LOCAL();
  put_candidates(rows, best, best_index, tx, ty);
  BARRIER_LOCAL();
  if (lid < TM && row0 + lid < n) RECORD(row0 + lid, pick_candidate(rows, lid));
}
/* ---- fused_pipelined: bow_fused's blocks and arithmetic (each score the same fma chain over the
 * dimensions in increasing order, so the same labels bit for bit), with the centroid slices double
 * buffered: slices of PIPE_SLICE dimensions, the next one loaded from global memory into registers
 * (one float4 per work-item) before the current one is multiplied, stored to the other buffer
 * after, and one barrier per slice instead of two, so the loads' latency hides behind the
 * multiply-adds instead of stalling the group. */
#define PIPE_SLICE 8
#define PIPE_SLICES (DIM / PIPE_SLICE)
/* float4s of a slice per work-item (1 with 256 work-items, 2 with 128) */
#define PIPE_LOADS ((TN * PIPE_SLICE / 4) / (TX * ROW_THREADS))

/* float4 e of slice s (chunk s / PIPE_SLICES, dimensions from (s % PIPE_SLICES) * PIPE_SLICE). */
INLINE float4 pipe_load(int s, int e, int k, GLOBAL const float* centroids) {
  const int c = e / (PIPE_SLICE / 4), q = e % (PIPE_SLICE / 4);
  const int g = (s / PIPE_SLICES) * TN + c;
  const int d0 = (s % PIPE_SLICES) * PIPE_SLICE;
  return g < k ? vload4(0, centroids + g * DIM + d0 + 4 * q) : SPLAT(float4, 0.0f);
}

INLINE void pipe_store(float4 v, int e, LOCAL float* slice) {
  const int c = e / (PIPE_SLICE / 4), q = e % (PIPE_SLICE / 4);
  slice[(4 * q + 0) * CS + c] = v.x;
  slice[(4 * q + 1) * CS + c] = v.y;
  slice[(4 * q + 2) * CS + c] = v.z;
  slice[(4 * q + 3) * CS + c] = v.w;
}

KERNEL REQD_GROUP_SIZE(TX * ROW_THREADS, 1, 1) void bow_fused_pipelined(int n, int k, CONST_ARRAY_PARAM(float, desc),
                                                                         CONST_ARRAY_PARAM(float, centroids),
                                                                         CONST_ARRAY_PARAM(float, norms),
                                                                         CONST_ARRAY_PARAM(int, starts), int images,
                                                                         ARRAY_PARAM(int, counts), ARRAY_PARAM(int, labels),
                                                                         int want_labels) {
  LOCAL_MEM float4 rows4[DIM * RS / 4];
  LOCAL_MEM float4 slices4[2 * PIPE_SLICE * CS / 4];
  LOCAL float* rows = (LOCAL float*)rows4;
  LOCAL float* slices = (LOCAL float*)slices4;
  const int lid = LOCAL_ID(0);
  const int tx = lid % TX, ty = lid / TX;
  const int row0 = GROUP_ID(0) * TM;
  const int threads = TX * ROW_THREADS;
  GLOBAL const float* cents = centroids + centroids_offset;

  stage_rows(rows, desc + desc_offset, n, row0, lid, threads);
  /* A slice is TN x PIPE_SLICE floats: PIPE_LOADS float4s per work-item. */
  UNROLL for (int t = 0; t < PIPE_LOADS; ++t) pipe_store(pipe_load(0, lid + t * threads, k, cents), lid + t * threads, slices);
  BARRIER_LOCAL();

  float best[MT];
  int best_index[MT];
  UNROLL for (int m = 0; m < MT; ++m) {
    best[m] = INFINITY;
    best_index[m] = -1;
  }
  const int chunks = (k + TN - 1) / TN;
  const int total = chunks * PIPE_SLICES;
  int s = 0;
  for (int c0 = 0; c0 < k; c0 += TN) {
    float acc[MT][NT];
    UNROLL for (int m = 0; m < MT; ++m) {
      UNROLL for (int j = 0; j < NT; ++j) acc[m][j] = 0.0f;
    }
    for (int d0 = 0; d0 < DIM; d0 += PIPE_SLICE, ++s) {
      const int more = s + 1 < total;
      float4 next[PIPE_LOADS];
      UNROLL for (int t = 0; t < PIPE_LOADS; ++t) next[t] = more ? pipe_load(s + 1, lid + t * threads, k, cents) : SPLAT(float4, 0.0f);
      LOCAL const float4* slice4 = slices4 + (s & 1) * (PIPE_SLICE * CS / 4);
      UNROLL for (int dd = 0; dd < PIPE_SLICE; ++dd) FUSED_STEP(d0 + dd, dd);
      /* The other buffer was last read in the previous slice, before the barrier that ended it. */
      if (more) {
        UNROLL for (int t = 0; t < PIPE_LOADS; ++t) pipe_store(next[t], lid + t * threads, slices + ((s + 1) & 1) * (PIPE_SLICE * CS));
      }
      BARRIER_LOCAL();
    }
    FUSED_KEEP_BEST(c0);
  }

  /* As bow_fused (the rows are no longer read: the last slice's barrier has passed). */
  put_candidates(rows, best, best_index, tx, ty);
  BARRIER_LOCAL();
  if (lid < TM && row0 + lid < n) RECORD(row0 + lid, pick_candidate(rows, lid));
}
#endif
