/* Pyramidal Lucas-Kanade, OpenCV's method: pyr_lk_level (one work-item per point; method
 * opencv_item), pyr_lk_level_group (a work-group per point; opencv), pyr_lk_level_int_sums (the
 * same with integer sums where proven exact; opencv_int_sums) and pyr_lk_levels_int_sums (that for
 * several levels in one launch; opencv_fused), whose walk table pyr_lk_walk makes
 * (pyr_lk_records.h). Host side: src/ops/pyr_lk.cpp. docs/tracking.md
 * has the formulas. Built with PLINTH_NEED_FP64 (doubles for exact rounding, below); no other
 * options: one program serves every window size.
 *
 * pyr_lk_level reproduces cv::calcOpticalFlowPyrLK of OpenCV 4.6 on x86 (its CPU path, compiled
 * for 128-bit SIMD without FMA) bit for bit:
 *  - the window samples are integers: bilinear weights rounded to 14 bits, the image sample
 *    descaled by 9 bits (I * 32), the derivative samples by 14 bits;
 *  - the float sums follow OpenCV's lanes: columns are taken 8 at a time; A11, A12, A22 keep four
 *    lanes (lane k sums columns 8c + k and 8c + 4 + k, row after row), b1 and b2 eight lanes (lane
 *    pair k sums the integer dot product of columns 8c + k and 8c + 4 + k); the columns past the
 *    last multiple of 8 go to a scalar sum, row after row; the lanes are reduced at the end in
 *    OpenCV's order;
 *  - FP_CONTRACT is off (common/dialect.h) and the divisions and the square root, which OpenCL
 *    may compute inexactly in single precision, are done in double and rounded once to float,
 *    which is the correctly rounded float result. */
#include "common/dialect.h"
#include "common/scan.h"

/* ---- OpenCV's tracker, one work-item per point and pyramid level ---------------------------- */

#define W_BITS 14
#define FLT_SCALE (1.0f / (1 << 20))

INLINE int descale(int v, int n) { return (v + (1 << (n - 1))) >> n; }
/* Correctly rounded float division and square root (a double result rounded once to float is
 * the correctly rounded float result: 53 >= 2 * 24 + 2). */
INLINE float div_rn(float a, float b) { return (float)((double)a / (double)b); }
INLINE float sqrt_rn(float a) { return (float)sqrt((double)a); }
/* cvFloor; values far outside every image (and NaN) map to INT_MIN, as x86's conversion does,
 * so that they fail the window checks. */
INLINE int cv_floor(float v) { return fabs(v) < 1e9f ? (int)floor(v) : (int)0x80000000; }

/* OpenCV's 14-bit bilinear weights of the fractions a, b. */
INLINE int4 bilinear_weights(float a, float b) {
  int4 w;
  w.x = convert_int_rte((1.f - a) * (1.f - b) * (float)(1 << W_BITS));
  w.y = convert_int_rte(a * (1.f - b) * (float)(1 << W_BITS));
  w.z = convert_int_rte((1.f - a) * b * (float)(1 << W_BITS));
  w.w = (1 << W_BITS) - w.x - w.y - w.z;
  return w;
}

/* Image sample at (x, y) of the window at p: the u8 bilinear value times 32, rounded. */
INLINE int sample_image(CONST_IMAGE_PARAM(uchar, img), int x, int y, int4 w) {
  const int i = IMAGE_INDEX(img, x, y);
  return descale(img[i] * w.x + img[i + 1] * w.y + img[i + img_step] * w.z + img[i + img_step + 1] * w.w, W_BITS - 5);
}

/* Derivative samples (Ix, Iy) at (x, y). */
INLINE int2 sample_deriv(CONST_IMAGE_PARAM(short, d), int x, int y, int4 w) {
  const int i = IMAGE_INDEX(d, 2 * x, y);
  const int s = d_step;
  int2 r;
  r.x = descale(d[i] * w.x + d[i + 2] * w.y + d[i + s] * w.z + d[i + s + 2] * w.w, W_BITS);
  r.y = descale(d[i + 1] * w.x + d[i + 3] * w.y + d[i + s + 1] * w.z + d[i + s + 3] * w.w, W_BITS);
  return r;
}

/* The smaller eigenvalue of G = [A11 A12; A12 A22], divided by the window's area times 2, as
 * OpenCV computes it (err with OPTFLOW_LK_GET_MIN_EIGENVALS, and the minEigThreshold test). */
INLINE float min_eigenvalue(float A11, float A12, float A22, int win_w, int win_h) {
  return div_rn(A22 + A11 - sqrt_rn((A11 - A22) * (A11 - A22) + 4.f * A12 * A12), (float)(2 * win_w * win_h));
}

/* OpenCV's v_reduce_sum of four float lanes on SSE: (l0 + l2) + (l1 + l3). */
INLINE float reduce4(float4 l) { return (l.x + l.z) + (l.y + l.w); }

/* One step of OpenCV's iteration: moves next by G^-1 b (D = 1 / det G) and sets out, the position
 * next_pts keeps. Returns 1 when the iterations stop: the step is within epsilon (squared, in
 * double, as Point2f::ddot), or it undoes the previous one (an oscillation: out goes back by half
 * the step). */
INLINE int lk_update(float b1, float b2, float A11, float A12, float A22, float D, float half_x, float half_y, int j,
                     double epsilon_sq, float* next_x, float* next_y, float* out_x, float* out_y, float* prev_dx,
                     float* prev_dy) {
  const float dx = (A12 * b2 - A22 * b1) * D;
  const float dy = (A12 * b1 - A11 * b2) * D;
  *next_x += dx;
  *next_y += dy;
  *out_x = *next_x + half_x;
  *out_y = *next_y + half_y;
  if ((double)dx * (double)dx + (double)dy * (double)dy <= epsilon_sq) return 1;
  if (j > 0 && (double)fabs(dx + *prev_dx) < 0.01 && (double)fabs(dy + *prev_dy) < 0.01) {
    *out_x -= dx * 0.5f;
    *out_y -= dy * 0.5f;
    return 1;
  }
  *prev_dx = dx;
  *prev_dy = dy;
  return 0;
}

/* The window with its corner at (x, y): 0 when it lies outside the image as OpenCV tests it (the
 * point is lost, or keeps its guess), else its integer corner (*ix, *iy) and bilinear weights (*w). */
INLINE int lk_window_at(float x, float y, int win_w, int win_h, int cols, int rows, int* ix, int* iy, int4* w) {
  *ix = cv_floor(x);
  *iy = cv_floor(y);
  if (*ix < -win_w || *ix >= cols || *iy < -win_h || *iy >= rows) return 0;
  *w = bilinear_weights(x - (float)*ix, y - (float)*iy);
  return 1;
}

/* ---- A level's checks and its end, shared by every tracker kernel (writer: the work-item that
 * writes the point's outputs) ------------------------------------------------------------------ */

/* After A's sums: err as the minimum eigenvalue where asked; a point whose G is too weak is lost
 * (its outputs written). Returns 0 for a lost point, else 1 with *inv_det = 1 / det G. */
INLINE int lk_level_gradient_ok(int p, int lid, int level, int get_min_eig, int has_err, int win_w, int win_h,
                                float min_eig_threshold, ARRAY_PARAM(float, next_pts), ARRAY_PARAM(uchar, status),
                                ARRAY_PARAM(float, err), float A11, float A12, float A22, float out_x, float out_y,
                                float* inv_det) {
  const bool writer = lid == 0;
  const float D = A11 * A22 - A12 * A12;
  const float min_eig = min_eigenvalue(A11, A12, A22, win_w, win_h);
  if (writer && has_err && get_min_eig) ARRAY_AT(err, p) = min_eig;
  if (min_eig < min_eig_threshold || D < FLT_EPSILON) {
    if (writer) {
      ARRAY_AT(next_pts, 2 * p) = out_x;
      ARRAY_AT(next_pts, 2 * p + 1) = out_y;
      if (level == 0) ARRAY_AT(status, p) = 0;
    }
    return 0;
  }
  *inv_det = div_rn(1.f, D);
  return 1;
}

/* After the iterations: the position written; at level 0 status cleared for a point that left the
 * image (ok false) or whose final window lies outside. Returns 1 when err is to be |J - I| at the
 * final position, whose window corner (*ifx, *ify) and weights (*wf) it gives. */
INLINE int lk_level_end(int p, int lid, int level, int get_min_eig, int has_err, int win_w, int win_h, int cols,
                        int rows, ARRAY_PARAM(float, next_pts), ARRAY_PARAM(uchar, status), bool ok, float out_x,
                        float out_y, float half_x, float half_y, int* ifx, int* ify, int4* wf) {
  const bool writer = lid == 0;
  if (writer) {
    ARRAY_AT(next_pts, 2 * p) = out_x;
    ARRAY_AT(next_pts, 2 * p + 1) = out_y;
  }
  if (level != 0) return 0;
  if (!ok) {
    if (writer) ARRAY_AT(status, p) = 0;
    return 0;
  }
  if (!has_err || get_min_eig) return 0;
  if (!lk_window_at(out_x - half_x, out_y - half_y, win_w, win_h, cols, rows, ifx, ify, wf)) {
    if (writer) ARRAY_AT(status, p) = 0;
    return 0;
  }
  return 1;
}

KERNEL void pyr_lk_level(int npoints, int level, int max_level, int use_initial_flow, int get_min_eig, int has_err,
                         int win_w, int win_h, int max_count, double epsilon_sq, float min_eig_threshold, int cols,
                         int rows, CONST_IMAGE_PARAM(uchar, I), CONST_IMAGE_PARAM(short, dI), CONST_IMAGE_PARAM(uchar, J),
                         CONST_ARRAY_PARAM(float, prev_pts), ARRAY_PARAM(float, next_pts), ARRAY_PARAM(uchar, status),
                         ARRAY_PARAM(float, err)) {
  const int p = GLOBAL_ID(0);
  if (p >= npoints) return;
  const float half_x = (float)(win_w - 1) * 0.5f, half_y = (float)(win_h - 1) * 0.5f;
  const float scale = 1.0f / (float)(1 << level); /* exact: a power of two */
  float prev_x = ARRAY_AT(prev_pts, 2 * p) * scale, prev_y = ARRAY_AT(prev_pts, 2 * p + 1) * scale;
  float next_x, next_y;
  if (level == max_level) {
    ARRAY_AT(status, p) = 1;
    if (has_err && !get_min_eig) ARRAY_AT(err, p) = 0.0f;
    if (use_initial_flow) {
      next_x = ARRAY_AT(next_pts, 2 * p) * scale;
      next_y = ARRAY_AT(next_pts, 2 * p + 1) * scale;
    } else {
      next_x = prev_x;
      next_y = prev_y;
    }
  } else {
    next_x = ARRAY_AT(next_pts, 2 * p) * 2.f;
    next_y = ARRAY_AT(next_pts, 2 * p + 1) * 2.f;
  }
  float out_x = next_x, out_y = next_y; /* what next_pts holds */

  int ipx, ipy;
  int4 wp;
  if (!lk_window_at(prev_x - half_x, prev_y - half_y, win_w, win_h, cols, rows, &ipx, &ipy, &wp)) {
    ARRAY_AT(next_pts, 2 * p) = out_x;
    ARRAY_AT(next_pts, 2 * p + 1) = out_y;
    if (level == 0) {
      ARRAY_AT(status, p) = 0;
      if (has_err) ARRAY_AT(err, p) = 0.0f;
    }
    return;
  }
  const int chunks = win_w / 8, tail = 8 * chunks;

  /* The gradient matrix. */
  float4 q11 = SPLAT(float4, 0.0f), q12 = SPLAT(float4, 0.0f), q22 = SPLAT(float4, 0.0f);
  float s11 = 0.0f, s12 = 0.0f, s22 = 0.0f;
  for (int y = 0; y < win_h; ++y) {
    for (int c = 0; c < chunks; ++c) {
      for (int part4 = 0; part4 < 2; ++part4) {
        const int x0 = ipx + 8 * c + 4 * part4;
        const int2 d0 = sample_deriv(dI, dI_offset, dI_step, x0, ipy + y, wp);
        const int2 d1 = sample_deriv(dI, dI_offset, dI_step, x0 + 1, ipy + y, wp);
        const int2 d2 = sample_deriv(dI, dI_offset, dI_step, x0 + 2, ipy + y, wp);
        const int2 d3 = sample_deriv(dI, dI_offset, dI_step, x0 + 3, ipy + y, wp);
        const float4 fx = VEC4(float4, (float)d0.x, (float)d1.x, (float)d2.x, (float)d3.x);
        const float4 fy = VEC4(float4, (float)d0.y, (float)d1.y, (float)d2.y, (float)d3.y);
        q22 = fy * fy + q22;
        q12 = fx * fy + q12;
        q11 = fx * fx + q11;
      }
    }
    for (int x = tail; x < win_w; ++x) {
      const int2 d = sample_deriv(dI, dI_offset, dI_step, ipx + x, ipy + y, wp);
      s11 += (float)(d.x * d.x);
      s12 += (float)(d.x * d.y);
      s22 += (float)(d.y * d.y);
    }
  }
  s11 += reduce4(q11);
  s12 += reduce4(q12);
  s22 += reduce4(q22);
  const float A11 = s11 * FLT_SCALE, A12 = s12 * FLT_SCALE, A22 = s22 * FLT_SCALE;

  float D;
  if (!lk_level_gradient_ok(p, 0, level, get_min_eig, has_err, win_w, win_h, min_eig_threshold, next_pts,
                            next_pts_offset, status, status_offset, err, err_offset, A11, A12, A22, out_x, out_y, &D)) {
    return;
  }

  next_x -= half_x;
  next_y -= half_y;
  float prev_dx = 0.0f, prev_dy = 0.0f;
  bool ok = true;
  for (int j = 0; j < max_count; ++j) {
    int inx, iny;
    int4 wn;
    if (!lk_window_at(next_x, next_y, win_w, win_h, cols, rows, &inx, &iny, &wn)) {
      ok = false;
      break;
    }
    float4 qb0 = SPLAT(float4, 0.0f), qb1 = SPLAT(float4, 0.0f);
    float sb1 = 0.0f, sb2 = 0.0f;
    for (int y = 0; y < win_h; ++y) {
      for (int c = 0; c < chunks; ++c) {
        const int x0 = 8 * c;
        int it[8];
        int2 d[8];
        for (int k = 0; k < 8; ++k) {
          it[k] = sample_image(J, J_offset, J_step, inx + x0 + k, iny + y, wn) -
                  sample_image(I, I_offset, I_step, ipx + x0 + k, ipy + y, wp);
          d[k] = sample_deriv(dI, dI_offset, dI_step, ipx + x0 + k, ipy + y, wp);
        }
        /* Lane pair k: the dot products of columns k and k + 4 (exact in int), rounded to float. */
        qb0 += VEC4(float4, (float)(it[0] * d[0].x + it[4] * d[4].x), (float)(it[0] * d[0].y + it[4] * d[4].y),
                    (float)(it[1] * d[1].x + it[5] * d[5].x), (float)(it[1] * d[1].y + it[5] * d[5].y));
        qb1 += VEC4(float4, (float)(it[2] * d[2].x + it[6] * d[6].x), (float)(it[2] * d[2].y + it[6] * d[6].y),
                    (float)(it[3] * d[3].x + it[7] * d[7].x), (float)(it[3] * d[3].y + it[7] * d[7].y));
      }
      for (int x = tail; x < win_w; ++x) {
        const int diff = sample_image(J, J_offset, J_step, inx + x, iny + y, wn) -
                         sample_image(I, I_offset, I_step, ipx + x, ipy + y, wp);
        const int2 dd = sample_deriv(dI, dI_offset, dI_step, ipx + x, ipy + y, wp);
        sb1 += (float)(diff * dd.x);
        sb2 += (float)(diff * dd.y);
      }
    }
    const float4 s = qb0 + qb1;
    sb1 += s.x + s.z;
    sb2 += s.y + s.w;
    const float b1 = sb1 * FLT_SCALE, b2 = sb2 * FLT_SCALE;
    if (lk_update(b1, b2, A11, A12, A22, D, half_x, half_y, j, epsilon_sq, &next_x, &next_y, &out_x, &out_y, &prev_dx, &prev_dy)) break;
  }
  int ifx, ify;
  int4 wf;
  if (!lk_level_end(p, 0, level, get_min_eig, has_err, win_w, win_h, cols, rows, next_pts, next_pts_offset, status,
                    status_offset, ok, out_x, out_y, half_x, half_y, &ifx, &ify, &wf)) {
    return;
  }
  /* The residual: mean |J - I| over the window at the final position, / 32. */
  float e = 0.0f;
  for (int y = 0; y < win_h; ++y) {
    for (int x = 0; x < win_w; ++x) {
      const int diff = sample_image(J, J_offset, J_step, ifx + x, ify + y, wf) -
                       sample_image(I, I_offset, I_step, ipx + x, ipy + y, wp);
      e += fabs((float)diff);
    }
  }
  ARRAY_AT(err, p) = div_rn(e, (float)(32 * win_w * win_h));
}

/* ---- OpenCV's tracker, one work-group of LK_GROUP work-items per point ----------------------
 * The same arithmetic as pyr_lk_level, shared out: the integer window samples are made by all
 * work-items into local memory, then each of OpenCV's float sums (its SIMD lanes and its scalar
 * tail) is one work-item's sequential chain, in OpenCV's order. Every work-item computes the
 * scalar steps (weights, the 2x2 solve, the stop rule) itself from the same values, so decisions
 * are uniform and no broadcast is needed. patch holds 4 * win_w * win_h shorts: I*, Ix*, Iy*, and
 * J* - I* of the current iteration; terms the float terms of an iteration's b sums, made by all
 * work-items so that each chain is only a run of loads and additions (a chain's length, not its
 * arithmetic, bounds an iteration). */
#define LK_GROUP 32
#define LK_ERR_EXACT_AREA ((1 << 24) / 8160) /* windows whose |J - I| sums stay exact in float */
/* Window samples a work-item makes at once: their global loads are in flight together (a loop
 * of one sample at a time waits out the memory latency per sample). */
#define LK_BATCH 4

/* Moves (x, y) of a window element (row-major, win_w wide) to that of the element LK_GROUP on:
 * work-items walk the window without integer divisions. */
INLINE void next_element(int* x, int* y, int win_w) {
  *x += LK_GROUP;
  while (*x >= win_w) {
    *x -= win_w;
    *y += 1;
  }
}

/* J* - I* over the window whose corner is (jx, jy) in J (weights w) into pD, this work-item's
 * elements (from (x0, y0) on, LK_GROUP apart), LK_BATCH samples at a time; returns its part of
 * sum |J* - I*|. */
INLINE int window_differences(CONST_IMAGE_PARAM(uchar, J), int jx, int jy, int4 w, LOCAL const short* pI, LOCAL short* pD,
                              int lid, int x0, int y0, int win_w, int win_h) {
  const int area = win_w * win_h;
  int part = 0;
  for (int e0 = lid, x = x0, y = y0; e0 < area; e0 += LK_BATCH * LK_GROUP) {
    int vj[LK_BATCH];
    UNROLL for (int k = 0; k < LK_BATCH; ++k) {
      const bool inside = y < win_h; /* past the window: sample its last pixel, keep nothing */
      vj[k] = sample_image(J, J_offset, J_step, jx + (inside ? x : win_w - 1), jy + (inside ? y : win_h - 1), w);
      next_element(&x, &y, win_w);
    }
    UNROLL for (int k = 0; k < LK_BATCH; ++k) {
      const int e = e0 + k * LK_GROUP;
      if (e < area) {
        const int diff = vj[k] - pI[e];
        pD[e] = (short)diff;
        part += diff < 0 ? -diff : diff;
      }
    }
  }
  return part;
}

/* A chain of float additions in order, its loads issued eight at a time. */
INLINE float chain_sum(LOCAL const float* c, int len) {
  float acc = 0.0f;
  int t = 0;
  for (; t + 8 <= len; t += 8) {
    float v[8];
    UNROLL for (int k = 0; k < 8; ++k) v[k] = c[t + k];
    UNROLL for (int k = 0; k < 8; ++k) acc = v[k] + acc;
  }
  for (; t < len; ++t) acc = c[t] + acc;
  return acc;
}

/* ---- Integer sums (methods opencv_int_sums and opencv_fused, pyr_lk_records.h) ----------------
 * Each of OpenCV's b chains adds integer terms t_i (for a lane pair the int sum of two products
 * diff * Ix of columns 8c + k and 8c + k + 4, for the scalar tail one product) converted to float,
 * one by one from 0. While every partial sum is an integer of magnitude <= 2^24 every conversion
 * and every addition is exact, so the chain's float is the exact integer sum, whatever the order.
 * Any partial sum lies in [-N, P], P the sum of the chain's positive terms and N that of its
 * negative ones, so P <= 2^24 and N <= 2^24 prove a chain exact (lk_prove in pyr_lk_records.h,
 * from the work-items' shares of P and N); A's chains likewise. How the terms are dealt out and
 * stored: pyr_lk_records.h. */
#define LK_EXACT_LIMIT (1 << 24)
#define LK_LANE_CLAMP (1 << 25) /* per work-item sums are clamped here: 32 of them stay below 2^31 */

/* A from the group kernels' 15 chain sums (sums[c]: A11, A12, A22 of lane c % 4 for c < 12, their
 * scalar tails at 12-14), reduced in OpenCV's order. */
INLINE void lk_a_from_chains(LOCAL const float* sums, float* A11, float* A12, float* A22) {
  *A11 = (sums[12] + reduce4(VEC4(float4, sums[0], sums[1], sums[2], sums[3]))) * FLT_SCALE;
  *A12 = (sums[13] + reduce4(VEC4(float4, sums[4], sums[5], sums[6], sums[7]))) * FLT_SCALE;
  *A22 = (sums[14] + reduce4(VEC4(float4, sums[8], sums[9], sums[10], sums[11]))) * FLT_SCALE;
}

/* b from the 10 b chain sums: 0-3 the lanes of OpenCV's qb0 (pairs 0, 1), 4-7 those of qb1 (pairs
 * 2, 3), 8-9 the scalar tails of b1 and b2. */
INLINE void lk_b_from_chains(LOCAL const float* sums, float* b1, float* b2) {
  const float4 s = VEC4(float4, sums[0], sums[1], sums[2], sums[3]) + VEC4(float4, sums[4], sums[5], sums[6], sums[7]);
  *b1 = (sums[8] + (s.x + s.z)) * FLT_SCALE;
  *b2 = (sums[9] + (s.y + s.w)) * FLT_SCALE;
}

/* ---- A level in a work-group per point (lk_group_level and lk_records_level) ----------------- */

/* The level's start: the window of the previous point at this level (its corner *ipx, *ipy and
 * bilinear weights *wp); the first guess (*nx, *ny: the initial flow or the previous point at the
 * top level, twice the last level's result below it) and the position kept so far (*ox, *oy);
 * status (and err) set at the top level. Every work-item calls it (a barrier). Returns 0 when the
 * window lies outside the image: the point's outputs are written and the level ends for it. */
INLINE int lk_level_begin(int p, int lid, int level, int max_level, int use_initial_flow, int get_min_eig, int has_err,
                          int win_w, int win_h, int cols, int rows, CONST_ARRAY_PARAM(float, prev_pts),
                          ARRAY_PARAM(float, next_pts), ARRAY_PARAM(uchar, status), ARRAY_PARAM(float, err),
                          float half_x, float half_y, float* nx, float* ny, float* ox, float* oy, int* ipx, int* ipy,
                          int4* wp) {
  const float scale = as_float((127 - level) << 23); /* 2^-level, exactly (levels <= 30) */
  float prev_x = ARRAY_AT(prev_pts, 2 * p) * scale, prev_y = ARRAY_AT(prev_pts, 2 * p + 1) * scale;
  float next_x, next_y;
  if (level == max_level) {
    if (use_initial_flow) {
      next_x = ARRAY_AT(next_pts, 2 * p) * scale;
      next_y = ARRAY_AT(next_pts, 2 * p + 1) * scale;
    } else {
      next_x = prev_x;
      next_y = prev_y;
    }
  } else {
    next_x = ARRAY_AT(next_pts, 2 * p) * 2.f;
    next_y = ARRAY_AT(next_pts, 2 * p + 1) * 2.f;
  }
  /* Every work-item has read next_pts before anyone writes it. */
  BARRIER_ALL();
  const bool writer = lid == 0;
  if (writer && level == max_level) {
    ARRAY_AT(status, p) = 1;
    if (has_err && !get_min_eig) ARRAY_AT(err, p) = 0.0f;
  }
  *nx = next_x;
  *ny = next_y;
  *ox = next_x;
  *oy = next_y;
  if (!lk_window_at(prev_x - half_x, prev_y - half_y, win_w, win_h, cols, rows, ipx, ipy, wp)) {
    if (writer) {
      ARRAY_AT(next_pts, 2 * p) = next_x;
      ARRAY_AT(next_pts, 2 * p + 1) = next_y;
      if (level == 0) {
        ARRAY_AT(status, p) = 0;
        if (has_err) ARRAY_AT(err, p) = 0.0f;
      }
    }
    return 0;
  }
  return 1;
}

/* Pyramidal LK for one level, a work-group per point, every chain summed in OpenCV's order. */
INLINE void lk_group_level(int npoints, int level, int max_level, int use_initial_flow, int get_min_eig, int has_err,
                           int win_w, int win_h, int max_count, double epsilon_sq, float min_eig_threshold, int cols,
                           int rows, CONST_IMAGE_PARAM(uchar, I), CONST_IMAGE_PARAM(short, dI), CONST_IMAGE_PARAM(uchar, J),
                           CONST_ARRAY_PARAM(float, prev_pts), ARRAY_PARAM(float, next_pts), ARRAY_PARAM(uchar, status),
                           ARRAY_PARAM(float, err), LOCAL short* patch, LOCAL float* terms, LOCAL float* sums,
                           LOCAL int* parts) {
  const int p = GROUP_ID(0);
  const int lid = LOCAL_ID(0);
  const int area = win_w * win_h;
  LOCAL short* pI = patch;
  LOCAL short* pX = patch + area;
  LOCAL short* pY = patch + 2 * area;
  LOCAL short* pD = patch + 3 * area;
  const float half_x = (float)(win_w - 1) * 0.5f, half_y = (float)(win_h - 1) * 0.5f;
  float next_x, next_y, out_x, out_y;
  int ipx, ipy;
  int4 wp;
  if (!lk_level_begin(p, lid, level, max_level, use_initial_flow, get_min_eig, has_err, win_w, win_h, cols, rows,
                      prev_pts, prev_pts_offset, next_pts, next_pts_offset, status, status_offset, err, err_offset,
                      half_x, half_y, &next_x, &next_y, &out_x, &out_y, &ipx, &ipy, &wp)) {
    return;
  }
  const bool writer = lid == 0;
  const int chunks = win_w / 8, tail = 8 * chunks, tail_w = win_w - tail;
  const int lb = win_h * chunks, lt = win_h * tail_w; /* lengths of the b chains */
  const int x0 = lid % win_w, y0 = lid / win_w; /* this work-item's first window element */
  for (int e0 = lid, x = x0, y = y0; e0 < area; e0 += LK_BATCH * LK_GROUP) {
    int vi[LK_BATCH];
    int2 vd[LK_BATCH];
    UNROLL for (int k = 0; k < LK_BATCH; ++k) {
      const bool inside = y < win_h; /* past the window: sample its last pixel, keep nothing */
      const int sx = ipx + (inside ? x : win_w - 1), sy = ipy + (inside ? y : win_h - 1);
      vi[k] = sample_image(I, I_offset, I_step, sx, sy, wp);
      vd[k] = sample_deriv(dI, dI_offset, dI_step, sx, sy, wp);
      next_element(&x, &y, win_w);
    }
    UNROLL for (int k = 0; k < LK_BATCH; ++k) {
      const int e = e0 + k * LK_GROUP;
      if (e < area) {
        pI[e] = (short)vi[k];
        pX[e] = (short)vd[k].x;
        pY[e] = (short)vd[k].y;
      }
    }
  }
  BARRIER_LOCAL();
  /* Chains 0-11: lane k = lid % 4 of A11, A12, A22 (lid / 4), columns 8c + k and 8c + 4 + k row
   * after row; 12-14: the scalar tail sums of A11, A12, A22. One loop for both kinds (only the
   * walk differs), so that a warp does not run them one after the other. Each product is exact in
   * float (|Ix* Iy*| <= 4080^2 < 2^24), so the int product converted equals OpenCV's float one. */
  if (lid < 15) {
    const bool lane = lid < 12;
    const int k = lid % 4, q = lane ? lid / 4 : lid - 12;
    LOCAL const short* fa = q == 2 ? pY : pX;
    LOCAL const short* fb = q == 0 ? pX : pY;
    /* A row's elements: lane chains columns 4r + k (8c + k, 8c + 4 + k, ...), r < 2 chunks; tail
     * chains tail + r, r < tail_w. */
    const int row = lane ? 2 * chunks : tail_w, x0 = lane ? k : tail, dx = lane ? 4 : 1;
    float acc = 0.0f;
    for (int y = 0; y < win_h; ++y) {
      LOCAL const short* a = fa + y * win_w + x0;
      LOCAL const short* b = fb + y * win_w + x0;
      for (int r = 0; r < row; ++r) acc += (float)(a[dx * r] * b[dx * r]);
    }
    sums[lid] = acc;
  }
  BARRIER_LOCAL();
  float A11, A12, A22;
  lk_a_from_chains(sums, &A11, &A12, &A22);
  BARRIER_LOCAL(); /* sums is reused below */

  float D;
  if (!lk_level_gradient_ok(p, lid, level, get_min_eig, has_err, win_w, win_h, min_eig_threshold, next_pts,
                            next_pts_offset, status, status_offset, err, err_offset, A11, A12, A22, out_x, out_y, &D)) {
    return;
  }

  next_x -= half_x;
  next_y -= half_y;
  float prev_dx = 0.0f, prev_dy = 0.0f;
  bool ok = true;
  for (int j = 0; j < max_count; ++j) {
    int inx, iny;
    int4 wn;
    if (!lk_window_at(next_x, next_y, win_w, win_h, cols, rows, &inx, &iny, &wn)) {
      ok = false;
      break;
    }
    (void)window_differences(J, J_offset, J_step, inx, iny, wn, pI, pD, lid, x0, y0, win_w, win_h);
    BARRIER_LOCAL();
    /* The terms of the b chains, element by element. Chains 0-7: OpenCV's b lanes (pair k of
     * columns 8c + k, 8c + k + 4, made at column 8c + k; Ix in chain 2k, Iy in 2k + 1), lb
     * terms each, row after row and chunk after chunk; 8-9: the scalar tail sums of b1, b2, lt
     * terms each, row after row. */
    for (int e = lid, x = x0, y = y0; e < area; e += LK_GROUP) {
      if (x >= tail) {
        const int t = y * tail_w + (x - tail);
        terms[8 * lb + t] = (float)(pD[e] * pX[e]);
        terms[8 * lb + lt + t] = (float)(pD[e] * pY[e]);
      } else if ((x & 7) < 4) {
        const int k = x & 7, t = y * chunks + (x >> 3);
        terms[2 * k * lb + t] = (float)(pD[e] * pX[e] + pD[e + 4] * pX[e + 4]);
        terms[(2 * k + 1) * lb + t] = (float)(pD[e] * pY[e] + pD[e + 4] * pY[e + 4]);
      }
      next_element(&x, &y, win_w);
    }
    BARRIER_LOCAL();
    /* One loop for both kinds of chain (only its length differs), so the work-items of a warp do
     * not take two paths one after the other. */
    if (lid < 10) {
      const bool lane = lid < 8;
      sums[lid] = chain_sum(terms + (lane ? lid * lb : 8 * lb + (lid - 8) * lt), lane ? lb : lt);
    }
    BARRIER_LOCAL();
    float b1, b2;
    lk_b_from_chains(sums, &b1, &b2);
    BARRIER_LOCAL(); /* sums and pD are rewritten by the next iteration */
    if (lk_update(b1, b2, A11, A12, A22, D, half_x, half_y, j, epsilon_sq, &next_x, &next_y, &out_x, &out_y, &prev_dx, &prev_dy)) break;
  }
  int ifx, ify;
  int4 wf;
  if (!lk_level_end(p, lid, level, get_min_eig, has_err, win_w, win_h, cols, rows, next_pts, next_pts_offset, status,
                    status_offset, ok, out_x, out_y, half_x, half_y, &ifx, &ify, &wf)) {
    return;
  }
  parts[lid] = window_differences(J, J_offset, J_step, ifx, ify, wf, pI, pD, lid, x0, y0, win_w, win_h);
  BARRIER_LOCAL();
  if (writer) {
    /* OpenCV adds |diff| (integers of at most 8160) in float one by one; while the window is
     * small enough that every partial sum stays below 2^24, each addition is exact and any
     * order gives the same float: the work-items' integer parts. */
    float e = 0.0f;
    if (area <= LK_ERR_EXACT_AREA) {
      int total = 0;
      for (int i = 0; i < LK_GROUP; ++i) total += parts[i];
      e = (float)total;
    } else {
      for (int i = 0; i < area; ++i) e += fabs((float)pD[i]);
    }
    ARRAY_AT(err, p) = div_rn(e, (float)(32 * win_w * win_h));
  }
}

#define LK_GROUP_PARAMS                                                                                                  \
  int npoints, int level, int max_level, int use_initial_flow, int get_min_eig, int has_err, int win_w, int win_h,      \
      int max_count, double epsilon_sq, float min_eig_threshold, int cols, int rows, CONST_IMAGE_PARAM(uchar, I),        \
      CONST_IMAGE_PARAM(short, dI), CONST_IMAGE_PARAM(uchar, J), CONST_ARRAY_PARAM(float, prev_pts),                     \
      ARRAY_PARAM(float, next_pts), ARRAY_PARAM(uchar, status), ARRAY_PARAM(float, err), LOCAL_PARAM(short, patch),     \
      LOCAL_PARAM(float, terms)
#define LK_GROUP_ARGS                                                                                                    \
  npoints, level, max_level, use_initial_flow, get_min_eig, has_err, win_w, win_h, max_count, epsilon_sq,               \
      min_eig_threshold, cols, rows, I, I_offset, I_step, dI, dI_offset, dI_step, J, J_offset, J_step, prev_pts,         \
      prev_pts_offset, next_pts, next_pts_offset, status, status_offset, err, err_offset, patch, terms

#include "pyr_lk_records.h"
#define LK_RECORDS_PARAMS                                                                                                \
  int npoints, int level, int max_level, int use_initial_flow, int get_min_eig, int has_err, int win_w, int win_h,      \
      int max_count, double epsilon_sq, float min_eig_threshold, int cols, int rows, CONST_IMAGE_PARAM(uchar, I),        \
      CONST_IMAGE_PARAM(short, dI), CONST_IMAGE_PARAM(uchar, J), CONST_ARRAY_PARAM(float, prev_pts),                     \
      ARRAY_PARAM(float, next_pts), ARRAY_PARAM(uchar, status), ARRAY_PARAM(float, err), LOCAL_PARAM(int4, lkmem),       \
      GLOBAL const uint2* RESTRICT walk
#define LK_RECORDS_ARGS                                                                                                  \
  npoints, level, max_level, use_initial_flow, get_min_eig, has_err, win_w, win_h, max_count, epsilon_sq,               \
      min_eig_threshold, cols, rows, I, I_offset, I_step, dI, dI_offset, dI_step, J, J_offset, J_step, prev_pts,         \
      prev_pts_offset, next_pts, next_pts_offset, status, status_offset, err, err_offset, lkmem, walk

/* Every b chain summed in OpenCV's order (method opencv). */
KERNEL REQD_GROUP_SIZE(LK_GROUP, 1, 1) void pyr_lk_level_group(LK_GROUP_PARAMS) {
  LOCAL_MEM float sums[16];
  LOCAL_MEM int parts[LK_GROUP];
  lk_group_level(LK_GROUP_ARGS, sums, parts);
}

/* slots: the warp scans' local memory where there are no warp shuffles (common/scan.h); with
 * them a word that nothing reads (less local memory, more work-groups an SM). */
#define LK_SLOTS (HAS_WARP_SHUFFLE ? 1 : LK_GROUP)

/* The b chains as integer sums where that is proven exact (method opencv_int_sums); tail_lanes:
 * the work-items given the scalar tail's elements (the host balances the classes). */
KERNEL REQD_GROUP_SIZE(LK_GROUP, 1, 1) void pyr_lk_level_int_sums(LK_RECORDS_PARAMS, int tail_lanes, int steps) {
  LOCAL_MEM float sums[16];
  LOCAL_MEM uint slots[LK_SLOTS];
  lk_records_level(LK_RECORDS_ARGS, sums, slots, tail_lanes, steps);
}

/* Method opencv_fused: opencv_int_sums for levels top .. 0 (top < LK_FUSED_LEVELS) in one launch:
 * each work-group takes its point through these levels, coarsest first (the levels of a point
 * follow one another anyway; one launch leaves no idle tail between levels). Levels above top, if
 * any, ran before as pyr_lk_level_int_sums. A level's next_pts is written by work-item 0 and read
 * by all at the next level: the barrier between the levels orders that. Levels above top are not
 * read (the host passes level 0's images there). */
#define LK_FUSED_LEVELS 4
/* One-warp groups resident on an SM at once (sm_90 holds at most 32 groups): the registers stay
 * within the 64 a work-item of the per-level kernels has (selecting a level's images takes some). */
#define LK_RESIDENT 32
#define LK_LEVEL_PARAMS(n) \
  CONST_IMAGE_PARAM(uchar, I##n), CONST_IMAGE_PARAM(short, dI##n), CONST_IMAGE_PARAM(uchar, J##n), int cols##n, int rows##n
KERNEL REQD_GROUP_SIZE_RESIDENT(LK_GROUP, LK_RESIDENT) void pyr_lk_levels_int_sums(
    int npoints, int top, int max_level, int use_initial_flow, int get_min_eig, int has_err, int win_w, int win_h,
    int max_count, double epsilon_sq, float min_eig_threshold, LK_LEVEL_PARAMS(0), LK_LEVEL_PARAMS(1), LK_LEVEL_PARAMS(2),
    LK_LEVEL_PARAMS(3), CONST_ARRAY_PARAM(float, prev_pts), ARRAY_PARAM(float, next_pts), ARRAY_PARAM(uchar, status),
    ARRAY_PARAM(float, err), LOCAL_PARAM(int4, lkmem), GLOBAL const uint2* RESTRICT walk, int tail_lanes, int steps) {
  LOCAL_MEM float sums[16];
  LOCAL_MEM uint slots[LK_SLOTS];
  for (int level = top; level >= 0; --level) {
    BARRIER_ALL();
#define LK_PICK(name, part) \
  (level == 0 ? name##0##part : (level == 1 ? name##1##part : (level == 2 ? name##2##part : name##3##part)))
    GLOBAL const uchar* I = LK_PICK(I, );
    GLOBAL const short* dI = LK_PICK(dI, );
    GLOBAL const uchar* J = LK_PICK(J, );
    const int I_offset = LK_PICK(I, _offset), I_step = LK_PICK(I, _step);
    const int dI_offset = LK_PICK(dI, _offset), dI_step = LK_PICK(dI, _step);
    const int J_offset = LK_PICK(J, _offset), J_step = LK_PICK(J, _step);
    const int cols = LK_PICK(cols, ), rows = LK_PICK(rows, );
#undef LK_PICK
    lk_records_level(LK_RECORDS_ARGS, sums, slots, tail_lanes, steps);
  }
}
