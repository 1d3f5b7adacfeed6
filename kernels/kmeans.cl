/* k-means (cv::kmeans) on the device: k-means++ and random seeding, the centre update and the
 * compactness (host: src/ops/kmeans.cpp; semantics: docs/features.md). The assignment is
 * bow_assign's. Options: DIM, the padded sample length (a multiple of 4; padded values are 0 in
 * samples and centres alike, so distances and sums are unchanged), and PLINTH_NEED_FP64.
 * Determinism: no float atomics. Every sum is taken in a fixed order: centre sums in label order
 * (samples sorted stably by label, so in sample order within a cluster), doubles reduced by a
 * fixed tree or sequentially. Squared distances are float sums in dimension order (FP_CONTRACT
 * off), as the host's. */
#include "common/dialect.h"
#include "kmeans_shape.h"

#define KM_DBL_MIN 2.2250738585072014e-308

/* |x - c|^2 in dimension order, as cv::kmeans' plain float sum (FP_CONTRACT off); read four
 * values at a time (DIM is a multiple of 4), added one by one. */
#define ROW_DISTANCE(name, C_SPACE)                               \
  INLINE float name(GLOBAL const float* x, C_SPACE const float* c) { \
    float s = 0.0f;                                               \
    for (int d = 0; d < DIM; d += 4) {                            \
      const float4 t = vload4(0, x + d) - vload4(0, c + d);       \
      s = s + t.x * t.x;                                          \
      s = s + t.y * t.y;                                          \
      s = s + t.z * t.z;                                          \
      s = s + t.w * t.w;                                          \
    }                                                             \
    return s;                                                     \
  }
ROW_DISTANCE(row_distance, GLOBAL)
ROW_DISTANCE(row_distance_local, LOCAL)

/* The first position of `value` or above in the non-decreasing `sorted`. */
INLINE int lower_bound_label(GLOBAL const int* sorted, int n, int value) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The work-group's sum of v by a fixed tree (the same order on every run). */
INLINE double group_sum(LOCAL double* scratch, double v, int lid) {
  scratch[lid] = v;
  BARRIER_LOCAL();
  for (int s = KMEANS_GROUP / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] = scratch[lid] + scratch[lid + s];
    BARRIER_LOCAL();
  }
  const double r = scratch[0];
  BARRIER_LOCAL();
  return r;
}

/* Sum of `count` doubles by one work-group: contiguous runs per work-item, then the tree. */
INLINE double group_total(GLOBAL const double* values, int count, LOCAL double* scratch, int lid) {
  const int per = (count + KMEANS_GROUP - 1) / KMEANS_GROUP;
  const int lo = min(lid * per, count), hi = min(lo + per, count);
  double s = 0.0;
  for (int b = lo; b < hi; ++b) s = s + values[b];
  return group_sum(scratch, s, lid);
}

KERNEL void kmeans_iota(int n, ARRAY_PARAM(int, out)) {
  const int i = GLOBAL_ID(0);
  if (i < n) ARRAY_AT(out, i) = i;
}

/* ---- Centre update ---- */

/* Samples order[from .. to) of dimension x[0] added to s one by one (four loads issued ahead, the
 * additions kept in order). */
INLINE float sum_range(GLOBAL const float* x, GLOBAL const int* order, int from, int to, float s) {
  int p = from;
  for (; p + 4 <= to; p += 4) {
    const float a = x[order[p] * DIM], b = x[order[p + 1] * DIM];
    const float c = x[order[p + 2] * DIM], d = x[order[p + 3] * DIM];
    s = s + a;
    s = s + b;
    s = s + c;
    s = s + d;
  }
  for (; p < to; ++p) s = s + x[order[p] * DIM];
  return s;
}

/* The sum of every whole chunk of KMEANS_CHUNK positions of the label order, per dimension: one
 * work-item per (chunk, dimension). Only chunks that lie inside one cluster are used. */
KERNEL void kmeans_chunk_sums(int n, CONST_ARRAY_PARAM(float, data), CONST_ARRAY_PARAM(int, order),
                              ARRAY_PARAM(float, chunk_sums)) {
  const int g = GLOBAL_ID(0);
  const int chunk = g / DIM, j = g % DIM;
  if (chunk >= n / KMEANS_CHUNK) return;
  const int from = chunk * KMEANS_CHUNK;
  ARRAY_AT(chunk_sums, g) = sum_range(data + data_offset + j, order + order_offset, from, from + KMEANS_CHUNK, 0.0f);
}

/* Each cluster's sum and count, one work-item per (cluster, dimension). The cluster's positions
 * [start, end) of the label order are summed in order: the partial chunk before the first whole
 * chunk sample by sample, then the whole chunks' sums, then the rest sample by sample. A cluster
 * that holds no whole chunk (fewer than KMEANS_CHUNK samples always) is summed purely in sample
 * order. */
KERNEL void kmeans_cluster_sums(int n, int k, CONST_ARRAY_PARAM(int, sorted), CONST_ARRAY_PARAM(int, order),
                                CONST_ARRAY_PARAM(float, data), CONST_ARRAY_PARAM(float, chunk_sums),
                                ARRAY_PARAM(float, sums), ARRAY_PARAM(int, counts)) {
  const int g = GLOBAL_ID(0);
  const int c = g / DIM, j = g % DIM;
  if (c >= k) return;
  GLOBAL const int* s_labels = sorted + sorted_offset;
  const int start = lower_bound_label(s_labels, n, c), end = lower_bound_label(s_labels, n, c + 1);
  GLOBAL const float* x = data + data_offset + j;
  GLOBAL const int* ord = order + order_offset;
  const int first_whole = (start + KMEANS_CHUNK - 1) / KMEANS_CHUNK * KMEANS_CHUNK;
  float s = 0.0f;
  if (first_whole + KMEANS_CHUNK <= end) {
    s = sum_range(x, ord, start, first_whole, s);
    int p = first_whole;
    for (; p + KMEANS_CHUNK <= end; p += KMEANS_CHUNK) s = s + ARRAY_AT(chunk_sums, (p / KMEANS_CHUNK) * DIM + j);
    s = sum_range(x, ord, p, end, s);
  } else {
    s = sum_range(x, ord, start, end, s);
  }
  ARRAY_AT(sums, c * DIM + j) = s;
  if (j == 0) ARRAY_AT(counts, c) = end - start;
}

/* cv::kmeans' rule for empty clusters, in increasing cluster order, by one work-group: an empty
 * cluster c takes the sample of the largest cluster (the first of the most samples) farthest
 * from that cluster's current mean (of equal distances the last in sample order); the sample's
 * values move from that cluster's sum to c's and its label becomes c. Each move changes the
 * counts and sums the next one sees, so they run one after another. */
KERNEL REQD_GROUP_SIZE(KMEANS_GROUP, 1, 1) void kmeans_empty_clusters(int n, int k, CONST_ARRAY_PARAM(int, sorted),
                                                                      CONST_ARRAY_PARAM(int, order),
                                                                      CONST_ARRAY_PARAM(float, data),
                                                                      ARRAY_PARAM(float, sums), ARRAY_PARAM(int, counts),
                                                                      ARRAY_PARAM(int, labels)) {
  LOCAL_MEM int empty[KMEANS_GROUP];
  LOCAL_MEM int best_count[KMEANS_GROUP];
  LOCAL_MEM int best_index[KMEANS_GROUP];
  LOCAL_MEM float best_d[KMEANS_GROUP];
  LOCAL_MEM int best_pos[KMEANS_GROUP];
  LOCAL_MEM float mean[DIM];
  const int lid = LOCAL_ID(0);
  GLOBAL const int* s_labels = sorted + sorted_offset;
  GLOBAL const int* ord = order + order_offset;
  GLOBAL const float* x = data + data_offset;
  GLOBAL float* sum = sums + sums_offset;
  GLOBAL int* count = counts + counts_offset;
  GLOBAL int* label = labels + labels_offset;
  for (int base = 0; base < k; base += KMEANS_GROUP) {
    empty[lid] = base + lid < k && count[base + lid] == 0;
    BARRIER_ALL();
    for (int t = 0; t < KMEANS_GROUP; ++t) {
      if (!empty[t]) continue; /* the same for the whole group */
      const int c = base + t;
      int bc = -1, bi = 0;
      for (int q = lid; q < k; q += KMEANS_GROUP) {
        const int v = count[q];
        if (v > bc) {
          bc = v;
          bi = q;
        }
      }
      best_count[lid] = bc;
      best_index[lid] = bi;
      BARRIER_LOCAL();
      for (int s = KMEANS_GROUP / 2; s > 0; s >>= 1) {
        if (lid < s) {
          const int oc = best_count[lid + s], oi = best_index[lid + s];
          if (oc > best_count[lid] || (oc == best_count[lid] && oi < best_index[lid])) {
            best_count[lid] = oc;
            best_index[lid] = oi;
          }
        }
        BARRIER_LOCAL();
      }
      const int largest = best_index[0];
      const float scale = (float)(1.0 / (double)best_count[0]);
      for (int j = lid; j < DIM; j += KMEANS_GROUP) mean[j] = sum[largest * DIM + j] * scale;
      BARRIER_LOCAL();
      /* The samples sorted under `largest` that still carry its label (earlier moves relabelled some). */
      const int start = lower_bound_label(s_labels, n, largest), end = lower_bound_label(s_labels, n, largest + 1);
      float bd = -1.0f;
      int bp = -1;
      for (int p = start + lid; p < end; p += KMEANS_GROUP) {
        const int i = ord[p];
        if (label[i] != largest) continue;
        const float d = row_distance_local(x + i * DIM, mean);
        if (d >= bd) {
          bd = d;
          bp = p;
        }
      }
      best_d[lid] = bd;
      best_pos[lid] = bp;
      BARRIER_LOCAL();
      for (int s = KMEANS_GROUP / 2; s > 0; s >>= 1) {
        if (lid < s) {
          const float od = best_d[lid + s];
          const int op = best_pos[lid + s];
          if (od > best_d[lid] || (od == best_d[lid] && op > best_pos[lid])) {
            best_d[lid] = od;
            best_pos[lid] = op;
          }
        }
        BARRIER_LOCAL();
      }
      /* No sample to move: every label was out of range (the status after this kernel reports it;
       * reading ord[-1] here would fault on a GPU). The same value for the whole group. */
      if (best_pos[0] < 0) continue;
      const int far = ord[best_pos[0]];
      for (int j = lid; j < DIM; j += KMEANS_GROUP) {
        const float v = x[far * DIM + j];
        sum[largest * DIM + j] = sum[largest * DIM + j] - v;
        sum[c * DIM + j] = sum[c * DIM + j] + v;
      }
      if (lid == 0) {
        count[largest] = count[largest] - 1;
        count[c] = count[c] + 1;
        label[far] = c;
      }
      BARRIER_ALL();
    }
    BARRIER_LOCAL(); /* every work-item has read empty[] before the next round writes it */
  }
}

/* Centres = sums times the float 1/count; shift[c] = the squared distance moved, in double. */
KERNEL void kmeans_scale(int k, CONST_ARRAY_PARAM(float, sums), CONST_ARRAY_PARAM(int, counts),
                         CONST_ARRAY_PARAM(float, old), ARRAY_PARAM(float, centres), ARRAY_PARAM(double, shift)) {
  const int c = GLOBAL_ID(0);
  if (c >= k) return;
  const float scale = (float)(1.0 / (double)ARRAY_AT(counts, c));
  double d = 0.0;
  for (int j = 0; j < DIM; ++j) {
    const float v = ARRAY_AT(sums, c * DIM + j) * scale;
    ARRAY_AT(centres, c * DIM + j) = v;
    const double t = (double)v - (double)ARRAY_AT(old, c * DIM + j);
    d = d + t * t;
  }
  ARRAY_AT(shift, c) = d;
}

/* The status read back after an update: the largest shift, and whether any label of the update
 * was out of range (a negative one from an assignment whose distances overflowed, or one >= k). */
KERNEL REQD_GROUP_SIZE(KMEANS_GROUP, 1, 1) void kmeans_status(int n, int k, CONST_ARRAY_PARAM(double, shift),
                                                              CONST_ARRAY_PARAM(int, sorted), ARRAY_PARAM(double, status)) {
  LOCAL_MEM double m[KMEANS_GROUP];
  const int lid = LOCAL_ID(0);
  double v = 0.0;
  for (int q = lid; q < k; q += KMEANS_GROUP) {
    const double s = ARRAY_AT(shift, q);
    v = v < s ? s : v;
  }
  m[lid] = v;
  BARRIER_LOCAL();
  for (int s = KMEANS_GROUP / 2; s > 0; s >>= 1) {
    if (lid < s) m[lid] = m[lid] < m[lid + s] ? m[lid + s] : m[lid];
    BARRIER_LOCAL();
  }
  if (lid == 0) {
    ARRAY_AT(status, KMEANS_STATUS_SHIFT) = m[0];
    const int lo = ARRAY_AT(sorted, 0), hi = ARRAY_AT(sorted, n - 1);
    ARRAY_AT(status, KMEANS_STATUS_FLAG) = lo < 0 ? 1.0 : hi >= k ? 2.0 : 0.0;
  }
}

/* ---- Compactness: sum over samples of |x_i - c_label(i)|^2 (float each, summed in double) ---- */

KERNEL REQD_GROUP_SIZE(KMEANS_GROUP, 1, 1) void kmeans_distances(int n, CONST_ARRAY_PARAM(float, data),
                                                                 CONST_ARRAY_PARAM(float, centres),
                                                                 CONST_ARRAY_PARAM(int, labels),
                                                                 ARRAY_PARAM(double, partial)) {
  LOCAL_MEM double scratch[KMEANS_GROUP];
  const int i = GLOBAL_ID(0), lid = LOCAL_ID(0);
  double d = 0.0;
  if (i < n) d = (double)row_distance(data + data_offset + i * DIM, centres + centres_offset + ARRAY_AT(labels, i) * DIM);
  const double r = group_sum(scratch, d, lid);
  if (lid == 0) ARRAY_AT(partial, GROUP_ID(0)) = r;
}

KERNEL REQD_GROUP_SIZE(KMEANS_GROUP, 1, 1) void kmeans_total(int count, CONST_ARRAY_PARAM(double, partial),
                                                             ARRAY_PARAM(double, total)) {
  LOCAL_MEM double scratch[KMEANS_GROUP];
  const int lid = LOCAL_ID(0);
  const double r = group_total(partial + partial_offset, count, scratch, lid);
  if (lid == 0) ARRAY_AT(total, 0) = r;
}

/* ---- k-means++ ----
 * weights: KMEANS_TRIALS rows of n floats; row state[0] holds each sample's squared distance to
 * the nearest centre chosen so far (state[0] < 0 before the first). block_sums: the same rows
 * summed per KMEANS_GROUP samples, in double. */

/* For each candidate t: min(|x_i - x_cand[t]|^2, current weight) per sample, and the block sums. */
KERNEL REQD_GROUP_SIZE(KMEANS_GROUP, 1, 1) void kmeans_pp_trials(int n, int nblocks, int trials,
                                                                 CONST_ARRAY_PARAM(float, data),
                                                                 CONST_ARRAY_PARAM(int, cand),
                                                                 CONST_ARRAY_PARAM(int, state),
                                                                 ARRAY_PARAM(float, weights),
                                                                 ARRAY_PARAM(double, block_sums)) {
  LOCAL_MEM double scratch[KMEANS_GROUP];
  const int i = GLOBAL_ID(0), lid = LOCAL_ID(0);
  GLOBAL const float* x = data + data_offset;
  GLOBAL float* w = weights + weights_offset;
  const int best = ARRAY_AT(state, 0);
  float current = INFINITY;
  if (i < n && best >= 0) current = w[best * n + i];
  /* The sample read once for all candidates; each distance summed in dimension order. */
  float next[KMEANS_TRIALS];
  UNROLL for (int t = 0; t < KMEANS_TRIALS; ++t) next[t] = 0.0f;
  if (i < n) {
    GLOBAL const float* c[KMEANS_TRIALS];
    UNROLL for (int t = 0; t < KMEANS_TRIALS; ++t) c[t] = x + ARRAY_AT(cand, t < trials ? t : 0) * DIM;
    for (int d = 0; d < DIM; d += 4) {
      const float4 xv = vload4(0, x + i * DIM + d);
      UNROLL for (int t = 0; t < KMEANS_TRIALS; ++t) {
        const float4 v = xv - vload4(0, c[t] + d);
        next[t] = next[t] + v.x * v.x;
        next[t] = next[t] + v.y * v.y;
        next[t] = next[t] + v.z * v.z;
        next[t] = next[t] + v.w * v.w;
      }
    }
    UNROLL for (int t = 0; t < KMEANS_TRIALS; ++t) next[t] = current < next[t] ? current : next[t];
  }
  UNROLL for (int t = 0; t < KMEANS_TRIALS; ++t) {
    if (t < trials) { /* the same for the whole group */
      if (i < n) w[t * n + i] = next[t];
      const double r = group_sum(scratch, (double)next[t], lid);
      if (lid == 0) ARRAY_AT(block_sums, t * nblocks + GROUP_ID(0)) = r;
    }
  }
}

/* The candidate whose weights sum least (the first of equal sums, as cv::kmeans) becomes centre
 * c, and its weights the current ones. */
KERNEL REQD_GROUP_SIZE(KMEANS_GROUP, 1, 1) void kmeans_pp_choose(int nblocks, int trials, int c,
                                                                 CONST_ARRAY_PARAM(double, block_sums),
                                                                 CONST_ARRAY_PARAM(int, cand), ARRAY_PARAM(int, state),
                                                                 ARRAY_PARAM(int, chosen)) {
  LOCAL_MEM double scratch[KMEANS_GROUP];
  const int lid = LOCAL_ID(0);
  double best_total = 0.0;
  int best = -1;
  for (int t = 0; t < trials; ++t) {
    const double total = group_total(block_sums + block_sums_offset + t * nblocks, nblocks, scratch, lid);
    if (best < 0 || total < best_total) {
      best_total = total;
      best = t;
    }
  }
  if (lid == 0) {
    ARRAY_AT(state, 0) = best;
    ARRAY_AT(chosen, c) = ARRAY_AT(cand, best);
  }
}

/* Work-group t draws candidate t: with W the current weights summed (per work-item runs of
 * blocks, then in work-item order) and p = u_t * W, the first sample i of positive weight whose
 * running sum reaches p. The running sum is found level by level (work-items' runs, blocks,
 * samples), each level summed in one fixed order, so nothing of size n leaves the device. All
 * weights zero (every sample on a centre): sample 0. */
KERNEL REQD_GROUP_SIZE(KMEANS_GROUP, 1, 1) void kmeans_pp_search(int n, int nblocks, double u0, double u1, double u2,
                                                                 CONST_ARRAY_PARAM(double, block_sums),
                                                                 CONST_ARRAY_PARAM(float, weights),
                                                                 CONST_ARRAY_PARAM(int, state), ARRAY_PARAM(int, cand)) {
  LOCAL_MEM double part[KMEANS_GROUP];
  LOCAL_MEM double stage[KMEANS_GROUP];
  LOCAL_MEM int found[2];
  LOCAL_MEM double found_base[2];
  const int t = GROUP_ID(0), lid = LOCAL_ID(0);
  const double u = t == 0 ? u0 : (t == 1 ? u1 : u2);
  const int best = ARRAY_AT(state, 0);
  GLOBAL const double* bs = block_sums + block_sums_offset + best * nblocks;
  GLOBAL const float* w = weights + weights_offset + best * n;
  const int per = (nblocks + KMEANS_GROUP - 1) / KMEANS_GROUP;
  const int lo = min(lid * per, nblocks), hi = min(lo + per, nblocks);
  double s = 0.0;
  for (int b = lo; b < hi; ++b) s = s + bs[b];
  part[lid] = s;
  BARRIER_LOCAL();
  /* p, and the work-item run where the running sum first reaches it. */
  double p = 0.0;
  if (lid == 0) {
    double total = 0.0;
    for (int q = 0; q < KMEANS_GROUP; ++q) total = total + part[q];
    int owner = -1;
    double base = 0.0;
    if (total > 0.0) {
      p = u * total;
      p = p < KM_DBL_MIN ? KM_DBL_MIN : (p > total ? total : p);
      double r = 0.0;
      for (int q = 0; q < KMEANS_GROUP; ++q) {
        const double next = r + part[q];
        if (next >= p) {
          owner = q;
          base = r;
          break;
        }
        r = next;
      }
    }
    found[0] = owner;
    found[1] = -1;
    found_base[0] = base;
    stage[0] = p;
  }
  BARRIER_LOCAL();
  /* No early return: every work-item passes every barrier (owner < 0 only marks the result). */
  const int none = found[0] < 0;
  const int owner = none ? 0 : found[0];
  p = stage[0];
  const double base = found_base[0];
  BARRIER_LOCAL();
  /* The block within the owner's run: the same additions from 0, so base + run reaches p. */
  const int olo = min(owner * per, nblocks), ohi = min(olo + per, nblocks);
  double run = 0.0;
  int block = -1;
  for (int off = olo; off < ohi; off += KMEANS_GROUP) {
    if (off + lid < ohi) stage[lid] = bs[off + lid];
    BARRIER_LOCAL();
    if (lid == 0 && block < 0) {
      const int m_end = min(KMEANS_GROUP, ohi - off);
      for (int m = 0; m < m_end; ++m) {
        const double next = run + stage[m];
        if (base + next >= p) {
          block = off + m;
          found_base[1] = base + run;
          break;
        }
        run = next;
      }
    }
    BARRIER_LOCAL();
  }
  if (lid == 0) found[1] = block;
  BARRIER_LOCAL();
  /* The sample within the block; p capped at the block's own sequential sum (its block sum was
   * a tree sum, which may round differently). */
  const int e0 = (found[1] < 0 ? 0 : found[1]) * KMEANS_GROUP;
  stage[lid] = e0 + lid < n ? (double)w[e0 + lid] : 0.0;
  BARRIER_LOCAL();
  if (lid == 0) {
    const double block_base = found_base[1];
    const int m_end = min(KMEANS_GROUP, n - e0);
    double q = 0.0;
    for (int m = 0; m < m_end; ++m) q = q + stage[m];
    const double limit = block_base + q;
    const double target = p < limit ? p : limit;
    int pick = -1, last_positive = 0;
    q = 0.0;
    for (int m = 0; m < m_end; ++m) {
      const double v = stage[m];
      q = q + v;
      if (v > 0.0) {
        last_positive = m;
        if (block_base + q >= target) {
          pick = m;
          break;
        }
      }
    }
    ARRAY_AT(cand, t) = none || block < 0 ? 0 : e0 + (pick >= 0 ? pick : last_positive);
  }
}

/* Centre c = sample chosen[c]. */
KERNEL void kmeans_gather(int k, CONST_ARRAY_PARAM(int, chosen), CONST_ARRAY_PARAM(float, data),
                          ARRAY_PARAM(float, centres)) {
  const int g = GLOBAL_ID(0);
  const int c = g / DIM, j = g % DIM;
  if (c >= k) return;
  ARRAY_AT(centres, g) = ARRAY_AT(data, ARRAY_AT(chosen, c) * DIM + j);
}

/* ---- Random centres: uniform in the bounding box widened by 1/dim each side ---- */

/* Per run of KMEANS_BOUNDS_RUN samples and dimension: the least and the largest value (the first
 * of equal ones, as a sequential scan). partial: runs rows of 2 * DIM (lows, then highs). */
KERNEL void kmeans_bounds_runs(int n, int runs, CONST_ARRAY_PARAM(float, data), ARRAY_PARAM(float, partial)) {
  const int g = GLOBAL_ID(0);
  const int r = g / DIM, j = g % DIM;
  if (r >= runs) return;
  const int from = r * KMEANS_BOUNDS_RUN, to = min(from + KMEANS_BOUNDS_RUN, n);
  GLOBAL const float* x = data + data_offset + j;
  float lo = x[from * DIM], hi = lo;
  for (int i = from + 1; i < to; ++i) {
    const float v = x[i * DIM];
    lo = v < lo ? v : lo;
    hi = hi < v ? v : hi;
  }
  ARRAY_AT(partial, r * 2 * DIM + j) = lo;
  ARRAY_AT(partial, r * 2 * DIM + DIM + j) = hi;
}

/* centre value (c, j) = (u * (1 + 2 margin) - margin) * (hi_j - lo_j) + lo_j, margin = 1/dim, with
 * u = uniforms[c * dim + j] from the host's generator; padded dimensions 0. The bounds are reduced
 * over the runs in order by every work-item (runs are few: n / KMEANS_BOUNDS_RUN). */
KERNEL void kmeans_random_centres(int k, int dim, int runs, CONST_ARRAY_PARAM(float, partial),
                                  CONST_ARRAY_PARAM(float, uniforms), ARRAY_PARAM(float, centres)) {
  const int g = GLOBAL_ID(0);
  const int c = g / DIM, j = g % DIM;
  if (c >= k) return;
  if (j >= dim) {
    ARRAY_AT(centres, g) = 0.0f;
    return;
  }
  float lo = ARRAY_AT(partial, j), hi = ARRAY_AT(partial, DIM + j);
  for (int r = 1; r < runs; ++r) {
    const float l = ARRAY_AT(partial, r * 2 * DIM + j), h = ARRAY_AT(partial, r * 2 * DIM + DIM + j);
    lo = l < lo ? l : lo;
    hi = hi < h ? h : hi;
  }
  const float margin = (float)(1.0 / (double)dim);
  const float u = ARRAY_AT(uniforms, c * dim + j);
  ARRAY_AT(centres, g) = (u * (1.0f + 2.0f * margin) - margin) * (hi - lo) + lo;
}
