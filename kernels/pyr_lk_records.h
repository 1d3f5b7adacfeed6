/* Methods opencv_int_sums and opencv_fused (included by pyr_lk.cl): pyr_lk_level_group's
 * arithmetic with the b and A chains summed as integers where that is proven exact
 * (docs/tracking.md, "Where the exactness comes from"), laid out so that an iteration's step is
 * few instructions (counted in docs/tracking.md):
 *  - every work-item makes exactly `steps` steps of two window elements (a lane pair's columns
 *    8c + k and 8c + k + 4 of a row, or two consecutive elements of the scalar tail); the window's
 *    template is one 16-byte record a step, rec[t * LK_GROUP + lid] = {ca, cb, Ix*a | Ix*b << 16,
 *    Iy*a | Iy*b << 16} with c = 2^8 - 2^9 I* (the descale's rounding and the template folded into
 *    the bilinear sum: (s + 2^8) >> 9 - I* = (s + c) >> 9 exactly), and woff[same] the two
 *    elements' indices in the staged window (a table: the loop computes no index). Steps past a class's elements hold records of zeros
 *    (terms 0), so no work-item tests a bound in the loop;
 *  - an iteration stages J's window as one 32-bit word per element, the 2x2 bytes its bilinear
 *    sample reads (J(x, y), J(x + 1, y), J(x, y + 1), J(x + 1, y + 1)), so that a sample is one
 *    local load and two 16x8-bit dot products (dp2a on NVIDIA) with the weights as 16-bit pairs;
 *  - each step stores its integer terms (the fallback's), terms[t * LK_GROUP + lid] = {x1, y1, x2,
 *    y2}: a lane pair's term in x1 (x2 = 0), the tail's two products in x1, x2; a chain not proven
 *    exact is summed in OpenCV's order from these, converting each to float as OpenCV does. */

/* c + a.lo16 * b.byte0 + a.hi16 * b.byte1 (lo) or with bytes 2, 3 (hi); a's halves signed (w11 can
 * be -1), b's bytes unsigned. Every partial sum here is below 2^23, so no form overflows. */
#if defined(__CUDACC__)
INLINE int dp2a_lo(int a, uint b, int c) {
  int d;
  asm("dp2a.lo.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
INLINE int dp2a_hi(int a, uint b, int c) {
  int d;
  asm("dp2a.hi.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
#else
INLINE int dp2a_lo(int a, uint b, int c) { return c + (int)(short)(a & 0xffff) * (int)(b & 0xff) + (a >> 16) * (int)((b >> 8) & 0xff); }
INLINE int dp2a_hi(int a, uint b, int c) { return c + (int)(short)(a & 0xffff) * (int)((b >> 16) & 0xff) + (a >> 16) * (int)(b >> 24); }
#endif

/* Two 16-bit fields of a word, sign-extended. */
INLINE int lo16(int v) { return (int)(short)(v & 0xffff); }
INLINE int hi16(int v) { return v >> 16; }

/* The layout of a work-item's steps: class cls (0-3 lane pairs, 4 the tail, 5 idle), its index j
 * among the class's n work-items, and the class's element count. */
typedef struct {
  int cls, j, n, count;
} lk_walk;

/* J's window at corner (jx, jy) as 2x2 byte words, column-major (element (x, y) at x * win_h + y,
 * so that a work-item's stores of its column are consecutive words): work-item x takes column x,
 * 8 rows of loads in flight at a time (each load of a warp one contiguous run of a row). */
INLINE void stage_quads(CONST_IMAGE_PARAM(uchar, J), int jx, int jy, LOCAL uint* quads, int lid, int win_w, int win_h) {
  for (int x = lid; x < win_w; x += LK_GROUP) {
    const int src = IMAGE_INDEX(J, jx + x, jy);
    LOCAL uint* dst = quads + x * win_h;
    uint above = (uint)J[src] | ((uint)J[src + 1] << 8);
    int y = 0;
    for (; y + 8 <= win_h; y += 8) {
      uint v[8];
      UNROLL for (int k = 0; k < 8; ++k) {
        const int i = src + (y + k + 1) * J_step;
        v[k] = (uint)J[i] | ((uint)J[i + 1] << 8);
      }
      UNROLL for (int k = 0; k < 8; ++k) {
        dst[y + k] = above | (v[k] << 16);
        above = v[k];
      }
    }
    for (; y < win_h; ++y) {
      const int i = src + (y + 1) * J_step;
      const uint v = (uint)J[i] | ((uint)J[i + 1] << 8);
      dst[y] = above | (v << 16);
      above = v;
    }
  }
}

/* J* - I* of one element: the staged word q, weights wxy = w00 | w01 << 16, wzw = w10 | w11 << 16,
 * c = 2^8 - 2^9 I*. */
INLINE int quad_diff(uint q, int wxy, int wzw, int c) { return dp2a_hi(wzw, q, dp2a_lo(wxy, q, c)) >> (W_BITS - 5); }

/* The records of the template at corner (ipx, ipy) in I (weights wp), this work-item's steps. */
INLINE void build_records(CONST_IMAGE_PARAM(uchar, I), CONST_IMAGE_PARAM(short, dI), int ipx, int ipy, int4 wp,
                          LOCAL int4* rec, LOCAL uint* woff, lk_walk w, int lid, int steps, int win_w, int win_h) {
  const int chunks = win_w / 8, tail = 8 * chunks, tail_w = win_w - tail;
  /* The step's first element q as (row y, r) of the class's row of `row` elements, advanced by
   * the class's stride without divisions (one division each, before the loop). */
  const int row = w.cls < 4 ? chunks : tail_w, per_step = w.cls < 4 ? 1 : 2;
  const int stride = per_step * w.n, row1 = max(row, 1);
  const int dy = stride / row1, dr = stride - dy * row1;
  int q = per_step * w.j, y = q / row1, r = q - y * row1;
  for (int t = 0; t < steps; ++t, q += stride) {
    const bool va = w.cls < 5 && q < w.count;
    const bool vb = va && (w.cls < 4 || q + 1 < w.count);
    const int xa = w.cls < 4 ? 8 * r + w.cls : tail + r;
    const bool wrap = w.cls >= 4 && r + 1 == tail_w;
    const int2 ea = va ? VEC2(int2, xa, y) : VEC2(int2, 0, 0);
    const int2 eb = w.cls < 4 ? VEC2(int2, ea.x + 4, ea.y) : (vb ? (wrap ? VEC2(int2, tail, y + 1) : VEC2(int2, xa + 1, y)) : ea);
    r += dr;
    y += dy;
    if (r >= row1) {
      r -= row1;
      ++y;
    }
    int4 r = SPLAT(int4, 0);
    if (va) {
      const int ia = sample_image(I, I_offset, I_step, ipx + ea.x, ipy + ea.y, wp);
      const int2 da = sample_deriv(dI, dI_offset, dI_step, ipx + ea.x, ipy + ea.y, wp);
      r.x = (1 << (W_BITS - 6)) - (ia << (W_BITS - 5));
      r.z = da.x & 0xffff;
      r.w = da.y & 0xffff;
    }
    if (vb) {
      const int ib = sample_image(I, I_offset, I_step, ipx + eb.x, ipy + eb.y, wp);
      const int2 db = sample_deriv(dI, dI_offset, dI_step, ipx + eb.x, ipy + eb.y, wp);
      r.y = (1 << (W_BITS - 6)) - (ib << (W_BITS - 5));
      r.z |= db.x << 16;
      r.w |= db.y << 16;
    }
    rec[t * LK_GROUP + lid] = r;
    woff[t * LK_GROUP + lid] = (uint)(ea.x * win_h + ea.y) | ((uint)(eb.x * win_h + eb.y) << 16);
  }
}

/* A's integer sums from the records: red rows P11, P12, -N12, P22 (each a term of its own). */
INLINE void records_a_sums(LOCAL const int4* rec, LOCAL int* red, int lid, int steps) {
  int s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int t = 0; t < steps; ++t) {
    const int4 r = rec[t * LK_GROUP + lid];
    const int gxa = lo16(r.z), gxb = hi16(r.z), gya = lo16(r.w), gyb = hi16(r.w);
    const int ca = gxa * gya, cb = gxb * gyb;
    s0 += gxa * gxa + gxb * gxb;
    s1 += max(ca, 0) + max(cb, 0);
    s2 += ca + cb;
    s3 += gya * gya + gyb * gyb;
  }
  red[lid] = clamp(s0, -LK_LANE_CLAMP, LK_LANE_CLAMP);
  red[LK_GROUP + lid] = clamp(s1, -LK_LANE_CLAMP, LK_LANE_CLAMP);
  red[2 * LK_GROUP + lid] = clamp(s2 - s1, -LK_LANE_CLAMP, LK_LANE_CLAMP);
  red[3 * LK_GROUP + lid] = clamp(s3, -LK_LANE_CLAMP, LK_LANE_CLAMP);
}

/* An iteration's b terms on the staged window: red rows P, -N of the Ix terms, of the Iy terms;
 * the terms into terms (the fallback's). pair_mask: -1 for lane pair classes (the two products
 * form one term), 0 for the tail and idle work-items. */
INLINE void records_b_sums(LOCAL const int4* rec, LOCAL const uint* woff, LOCAL const uint* quads, int4 w, LOCAL int4* terms,
                           LOCAL int* red, int lid, int steps, int pair_mask) {
  const int wxy = (w.x & 0xffff) | (w.y << 16), wzw = (w.z & 0xffff) | (w.w << 16);
  int p0 = 0, s1 = 0, p2 = 0, s3 = 0;
  for (int t = 0; t < steps; ++t) {
    const int i = t * LK_GROUP + lid;
    const int4 r = rec[i];
    const uint o = woff[i];
    const int da = quad_diff(quads[o & 0xffff], wxy, wzw, r.x);
    const int db = quad_diff(quads[o >> 16], wxy, wzw, r.y);
    const int ta = da * lo16(r.z), tb = db * hi16(r.z), ua = da * lo16(r.w), ub = db * hi16(r.w);
    const int mt = tb & pair_mask, mu = ub & pair_mask;
    const int x1 = ta + mt, x2 = tb - mt, y1 = ua + mu, y2 = ub - mu;
    terms[i] = VEC4(int4, x1, y1, x2, y2);
    p0 += max(x1, 0) + max(x2, 0);
    s1 += x1 + x2;
    p2 += max(y1, 0) + max(y2, 0);
    s3 += y1 + y2;
  }
  red[lid] = clamp(p0, -LK_LANE_CLAMP, LK_LANE_CLAMP);
  red[LK_GROUP + lid] = clamp(s1 - p0, -LK_LANE_CLAMP, LK_LANE_CLAMP);
  red[2 * LK_GROUP + lid] = clamp(p2, -LK_LANE_CLAMP, LK_LANE_CLAMP);
  red[3 * LK_GROUP + lid] = clamp(s3 - p2, -LK_LANE_CLAMP, LK_LANE_CLAMP);
}

/* One of OpenCV's chains in its order: `count` elements of the class of work-items first .. first
 * + n - 1, `slots` (1 or 2) a record, record after record of each step, step after step. kind:
 * 0-2 A's Ix*^2, Ix* Iy*, Iy*^2 of the records; 3, 4 the stored b terms of Ix, Iy. */
INLINE float ordered_chain(LOCAL const int4* rec, LOCAL const int4* terms, int first, int n, int slots, int count, int kind) {
  float acc = 0.0f;
  /* One flat loop (the element's record i and slot s advanced by hand): PoCL's work-group loops
   * take it where they did not take the nested form. */
  int i = first, j = 0, s = 0;
  for (int e = 0; e < count; ++e) {
    int v;
    if (kind < 3) {
      const int4 r = rec[i];
      const int gx = s == 0 ? lo16(r.z) : hi16(r.z), gy = s == 0 ? lo16(r.w) : hi16(r.w);
      v = (kind == 0 ? gx : gy) * (kind == 2 ? gy : gx);
    } else {
      const int4 u = terms[i];
      v = kind == 3 ? (s == 0 ? u.x : u.z) : (s == 0 ? u.y : u.w);
    }
    acc += (float)v;
    if (++s == slots) {
      s = 0;
      ++i;
      if (++j == n) {
        j = 0;
        i += LK_GROUP - n;
      }
    }
  }
  return acc;
}

/* |J* - I*| summed over this work-item's elements (the window staged at the final position). */
INLINE int records_abs_diff(LOCAL const int4* rec, LOCAL const uint* woff, LOCAL const uint* quads, int4 w, lk_walk wk,
                            int lid, int steps) {
  const int wxy = (w.x & 0xffff) | (w.y << 16), wzw = (w.z & 0xffff) | (w.w << 16);
  int part = 0;
  for (int t = 0; t < steps; ++t) {
    const int q = wk.cls < 4 ? wk.j + t * wk.n : 2 * (wk.j + t * wk.n);
    const bool va = wk.cls < 5 && q < wk.count;
    const bool vb = va && (wk.cls < 4 || q + 1 < wk.count);
    const int i = t * LK_GROUP + lid;
    const int4 r = rec[i];
    const uint o = woff[i];
    const int da = quad_diff(quads[o & 0xffff], wxy, wzw, r.x);
    const int db = quad_diff(quads[o >> 16], wxy, wzw, r.y);
    part += (va ? abs(da) : 0) + (vb ? abs(db) : 0);
  }
  return part;
}

/* Pyramidal LK for one level with the integer sums, a work-group per point. Local memory: rec and
 * terms steps * LK_GROUP int4 each; after rec, woff (steps * LK_GROUP uint) and the staged window
 * (win_w * win_h uint). */
INLINE void lk_records_level(int npoints, int level, int max_level, int use_initial_flow, int get_min_eig, int has_err,
                             int win_w, int win_h, int max_count, double epsilon_sq, float min_eig_threshold, int cols,
                             int rows, CONST_IMAGE_PARAM(uchar, I), CONST_IMAGE_PARAM(short, dI),
                             CONST_IMAGE_PARAM(uchar, J), CONST_ARRAY_PARAM(float, prev_pts),
                             ARRAY_PARAM(float, next_pts), ARRAY_PARAM(uchar, status), ARRAY_PARAM(float, err),
                             LOCAL int4* rec, LOCAL int4* terms, LOCAL float* sums, LOCAL int* parts, LOCAL int* red,
                             LOCAL int* exact, int tail_lanes, int steps) {
  const int p = GROUP_ID(0);
  const int lid = LOCAL_ID(0);
  LOCAL uint* woff = (LOCAL uint*)(rec + steps * LK_GROUP);
  LOCAL uint* quads = woff + steps * LK_GROUP;
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
  const int chunks = win_w / 8, tail_w = win_w - 8 * chunks;
  const int lb = win_h * chunks, lt = win_h * tail_w; /* elements of a pair class, of the tail */
  const int class_lanes = chunks > 0 ? (LK_GROUP - tail_lanes) / 4 : 0;
  lk_walk wk;
  wk.cls = lid < 4 * class_lanes ? lid / class_lanes : (lid < 4 * class_lanes + tail_lanes ? 4 : 5);
  wk.j = wk.cls < 4 ? lid - wk.cls * class_lanes : lid - 4 * class_lanes;
  wk.n = wk.cls < 4 ? class_lanes : tail_lanes;
  wk.count = wk.cls < 4 ? lb : lt;
  const int pair_mask = wk.cls < 4 ? -1 : 0;

  build_records(I, I_offset, I_step, dI, dI_offset, dI_step, ipx, ipy, wp, rec, woff, wk, lid, steps, win_w, win_h);
  BARRIER_LOCAL();
  records_a_sums(rec, red, lid, steps);
  BARRIER_LOCAL();
  /* Chain c < 12: A11, A12, A22 (c / 4) of lane k = c % 4; 12-14 the tail's. */
  if (lid < 15) {
    const int q = lid < 12 ? lid / 4 : lid - 12;
    const int first = lid < 12 ? (lid % 4) * class_lanes : 4 * class_lanes, n = lid < 12 ? class_lanes : tail_lanes;
    prove_chain(red, first, n, q == 0 ? 0 : (q == 1 ? 1 : 3), q == 1 ? 2 : -1, sums, exact, lid);
    if (exact[lid] == 0) sums[lid] = ordered_chain(rec, terms, first, n, 2, lid < 12 ? 2 * lb : lt, q);
  }
  BARRIER_LOCAL();
  float A11, A12, A22;
  lk_a_from_chains(sums, &A11, &A12, &A22);
  BARRIER_LOCAL(); /* sums and exact are reused below */

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
    stage_quads(J, J_offset, J_step, inx, iny, quads, lid, win_w, win_h);
    BARRIER_LOCAL();
    records_b_sums(rec, woff, quads, wn, terms, red, lid, steps, pair_mask);
    BARRIER_LOCAL();
    /* Chain c < 8: class c / 2, diff * Ix (c even) or diff * Iy; 8, 9: the tail's. A chain not
     * proven exact is summed in OpenCV's order right away. */
    if (lid < 10) {
      const int comp = lid < 8 ? (lid & 1) : lid - 8;
      const int first = lid < 8 ? (lid >> 1) * class_lanes : 4 * class_lanes, n = lid < 8 ? class_lanes : tail_lanes;
      prove_chain(red, first, n, 2 * comp, 2 * comp + 1, sums, exact, lid);
      if (exact[lid] == 0) sums[lid] = ordered_chain(rec, terms, first, n, lid < 8 ? 1 : 2, lid < 8 ? lb : lt, 3 + comp);
    }
    BARRIER_LOCAL();
    float b1, b2;
    lk_b_from_chains(sums, &b1, &b2);
    BARRIER_LOCAL(); /* sums, red and the staged window are rewritten by the next iteration */
    if (lk_update(b1, b2, A11, A12, A22, D, half_x, half_y, j, epsilon_sq, &next_x, &next_y, &out_x, &out_y, &prev_dx, &prev_dy)) break;
  }
  int ifx, ify;
  int4 wf;
  if (!lk_level_end(p, lid, level, get_min_eig, has_err, win_w, win_h, cols, rows, next_pts, next_pts_offset, status,
                    status_offset, ok, out_x, out_y, half_x, half_y, &ifx, &ify, &wf)) {
    return;
  }
  stage_quads(J, J_offset, J_step, ifx, ify, quads, lid, win_w, win_h);
  BARRIER_LOCAL();
  parts[lid] = records_abs_diff(rec, woff, quads, wf, wk, lid, steps);
  BARRIER_LOCAL();
  if (writer) {
    /* OpenCV adds |diff| (integers of at most 8160) in float one by one; the windows this method
     * takes (at most 32 * 60 elements, src/ops/pyr_lk.cpp) keep every partial sum below 2^24, so
     * each addition is exact and any order gives the same float: the work-items' integer parts. */
    int total = 0;
    for (int i = 0; i < LK_GROUP; ++i) total += parts[i];
    ARRAY_AT(err, p) = div_rn((float)total, (float)(32 * win_w * win_h));
  }
}
