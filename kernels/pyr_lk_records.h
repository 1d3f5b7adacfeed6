/* Methods opencv_int_sums and opencv_fused (included by pyr_lk.cl): pyr_lk_level_group's
 * arithmetic with the b and A chains summed as integers where that is proven exact
 * (docs/tracking.md, "Where the exactness comes from"), laid out so that an iteration's step is
 * few instructions (counted in docs/tracking.md):
 *  - every work-item makes exactly `steps` steps of two window elements (a lane pair's columns
 *    8c + k and 8c + k + 4 of a row, or two consecutive elements of the scalar tail); the window's
 *    template is one 16-byte record a step, rec[t * LK_GROUP + lid] = {I*a << 16 | oa, I*b << 16 |
 *    ob, Ix*a | Ix*b << 16, Iy*a | Iy*b << 16}, with oa, ob the two elements' indices in J's staged
 *    window (so the loop computes no index). Steps past a class's elements hold records of zero
 *    derivatives (terms 0), so no work-item tests a bound in the loop. Which elements a step
 *    takes is the same for every point and level: a table (pyr_lk_walk) made once a call;
 *  - the template is made from I's and dI's window staged in local memory first (rows of the
 *    window loaded whole: the loads of a warp are contiguous runs);
 *  - J's window is staged as one 32-bit word per element, the 2x2 bytes its bilinear sample reads
 *    (J(x, y), J(x + 1, y), J(x, y + 1), J(x + 1, y + 1)), so that a sample is one local load and
 *    two 16x8-bit dot products (dp2a on NVIDIA) with the weights as 16-bit pairs; an iteration whose
 *    window corner is the one staged (near convergence, most of them) stages nothing, and the
 *    first iteration's window is staged while A is summed;
 *  - each step stores its two differences J* - I* (16 bits each: |J* - I*| <= 8160), diffs[t *
 *    LK_GROUP + lid] = da | db << 16; a chain not proven exact is summed in OpenCV's order from
 *    these and the records' derivatives (the same integer terms), converting each term to float
 *    as OpenCV does.
 * Local memory (one allocation, lkmem): rec, then an area that holds the staged template while
 * the records are made and J's staged window and diffs after (lk_records_level). */

/* Two 16-bit fields of a word, sign-extended. */
INLINE int lo16(int v) { return (int)(short)(v & 0xffff); }
INLINE int hi16(int v) { return v >> 16; }

/* The layout of a work-item's steps: class cls (0-3 lane pairs, 4 the tail, 5 idle), its index j
 * among the class's n work-items, and the class's element count. */
typedef struct {
  int cls, j, n, count;
} lk_walk;

/* Work-item lid's class: the first 4 class_lanes work-items the 4 lane pair classes (class_lanes
 * each), the next tail_lanes the tail, the rest idle. */
INLINE lk_walk lk_walk_of(int lid, int win_w, int win_h, int tail_lanes) {
  const int chunks = win_w / 8, tail_w = win_w - 8 * chunks;
  const int class_lanes = chunks > 0 ? (LK_GROUP - tail_lanes) / 4 : 0;
  lk_walk wk;
  wk.cls = lid < 4 * class_lanes ? lid / class_lanes : (lid < 4 * class_lanes + tail_lanes ? 4 : 5);
  wk.j = wk.cls < 4 ? lid - wk.cls * class_lanes : lid - 4 * class_lanes;
  wk.n = wk.cls < 4 ? class_lanes : tail_lanes;
  wk.count = win_h * (wk.cls < 4 ? chunks : tail_w);
  return wk;
}

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

/* Stages J's window at corner (ix, iy) unless it is the one staged (*sx, *sy; INT_MIN: none). The
 * corner is the same for every work-item of the group, so all take the same branch. */
INLINE void stage_window(CONST_IMAGE_PARAM(uchar, J), int ix, int iy, int* sx, int* sy, LOCAL uint* quads, int lid,
                         int win_w, int win_h) {
  if (ix != *sx || iy != *sy) {
    stage_quads(J, J_offset, J_step, ix, iy, quads, lid, win_w, win_h);
    *sx = ix;
    *sy = iy;
  }
}

/* The template's window at corner (ipx, ipy): I's (win_w + 1) x (win_h + 1) bytes into ib and dI's
 * (Ix, Iy) pairs, one 32-bit word a pixel, into dw, both row-major (row stride win_w + 1).
 * Work-item x takes column x (each load of a warp one contiguous run of a row), 4 rows of loads in
 * flight at a time, walking down by pointers (a flat walk over the pixels with all 32 work-items
 * measured slower: its row wraps cost more instructions than the idle work-items). dI's offset and
 * step are even (checked by the host), so a pixel's pair is one aligned word. */
INLINE void stage_template(CONST_IMAGE_PARAM(uchar, I), CONST_IMAGE_PARAM(short, dI), int ipx, int ipy, LOCAL uint* dw,
                           LOCAL uchar* ib, int lid, int win_w, int win_h) {
  const int sw = win_w + 1, sh = win_h + 1, d_row = dI_step >> 1;
  for (int x = lid; x < sw; x += LK_GROUP) {
    GLOBAL const uint* pd = (GLOBAL const uint*)dI + (IMAGE_INDEX(dI, 2 * (ipx + x), ipy) >> 1);
    GLOBAL const uchar* pi = I + IMAGE_INDEX(I, ipx + x, ipy);
    int o = x, y = 0;
    for (; y + 4 <= sh; y += 4, pd += 4 * d_row, pi += 4 * I_step, o += 4 * sw) {
      uint dv[4];
      uchar iv[4];
      UNROLL for (int k = 0; k < 4; ++k) {
        dv[k] = pd[k * d_row];
        iv[k] = pi[k * I_step];
      }
      UNROLL for (int k = 0; k < 4; ++k) {
        dw[o + k * sw] = dv[k];
        ib[o + k * sw] = iv[k];
      }
    }
#pragma unroll 1
    for (; y < sh; ++y, pd += d_row, pi += I_step, o += sw) {
      dw[o] = *pd;
      ib[o] = *pi;
    }
  }
}

/* J* - I* of one element: the staged word q, weights wxy = w00 | w01 << 16, wzw = w10 | w11 << 16
 * (signed halves: w11 can be -1), the element's record word e (I* << 16 | index). J* = (s + 2^8)
 * >> 9 (OpenCV's descale); every partial sum of the dot products stays below 2^23. */
INLINE int quad_diff(uint q, int wxy, int wzw, int e) {
  return (dp2a_hi(wzw, q, dp2a_lo(wxy, q, 1 << (W_BITS - 6))) >> (W_BITS - 5)) - (e >> 16);
}

/* The template's samples of element (x, y) from the staged window (stage_template): I* (the image
 * times 32) and Ix*, Iy* as packed s16 halves, OpenCV's integers (sample_image, sample_deriv). */
INLINE int staged_image(LOCAL const uchar* ib, int i, int sw, int4 w) {
  return descale(ib[i] * w.x + ib[i + 1] * w.y + ib[i + sw] * w.z + ib[i + sw + 1] * w.w, W_BITS - 5);
}
INLINE int2 staged_deriv(LOCAL const uint* dw, int i, int sw, int4 w) {
  const int a = (int)dw[i], b = (int)dw[i + 1], c = (int)dw[i + sw], d = (int)dw[i + sw + 1];
  return VEC2(int2, descale(lo16(a) * w.x + lo16(b) * w.y + lo16(c) * w.z + lo16(d) * w.w, W_BITS),
              descale(hi16(a) * w.x + hi16(b) * w.y + hi16(c) * w.z + hi16(d) * w.w, W_BITS));
}

/* The steps' elements (the same for every point and level; pyr_lk_walk makes them once a call):
 * walk[t * LK_GROUP + lid] = {ta | oa << 16, tb | ob << 16} for step t's two elements a, b, with t
 * the element's index in the template's staged window (row-major, win_w + 1 wide) or LK_NO_ELEMENT
 * for none (steps past the class's elements), o its index in J's staged window (column-major,
 * win_h high; 0 for none). */
#define LK_NO_ELEMENT 0xffff
INLINE int walk_template(uint e) { return (int)(e & 0xffffu); }

/* The records of the template (staged by stage_template; weights wp), this work-item's steps.
 * Every step samples two elements (element 0 for none, its record fields then zero), so no
 * work-item branches. */
INLINE void build_records(LOCAL const uint* dw, LOCAL const uchar* ib, int4 wp, LOCAL int4* rec,
                          GLOBAL const uint2* RESTRICT walk, int lid, int steps, int win_w) {
  const int sw = win_w + 1;
  for (int t = 0; t < steps; ++t) {
    const uint2 e = walk[t * LK_GROUP + lid];
    const bool va = walk_template(e.x) != LK_NO_ELEMENT, vb = walk_template(e.y) != LK_NO_ELEMENT;
    const int at = va ? walk_template(e.x) : 0, bt = vb ? walk_template(e.y) : 0;
    const int2 da = staged_deriv(dw, at, sw, wp), db = staged_deriv(dw, bt, sw, wp);
    const int sa = staged_image(ib, at, sw, wp), sb = staged_image(ib, bt, sw, wp);
    const int ma = va ? 0xffff : 0, mb = vb ? 0xffff : 0;
    int4 r;
    r.x = (int)(e.x >> 16) | ((sa & ma) << 16);
    r.y = (int)(e.y >> 16) | ((sb & mb) << 16);
    r.z = (da.x & ma) | ((db.x & mb) << 16);
    r.w = (da.y & ma) | ((db.y & mb) << 16);
    rec[t * LK_GROUP + lid] = r;
  }
}

/* A's integer sums from the records, this work-item's shares: P11, P12, -N12, P22 (each a term of
 * its own). */
INLINE int4 records_a_sums(LOCAL const int4* rec, int lid, int steps) {
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
  return clamp(VEC4(int4, s0, s1, s2 - s1, s3), -LK_LANE_CLAMP, LK_LANE_CLAMP);
}

/* An iteration's b terms on J's staged window win, this work-item's shares: P, -N of the Ix terms,
 * of the Iy terms; the differences into diffs (the fallback's). pair_mask: -1 for lane pair
 * classes (the two products form one term), 0 for the tail and idle work-items. */
INLINE int4 records_b_sums(LOCAL const int4* rec, LOCAL const uint* win, int4 w, LOCAL uint* diffs, int lid, int steps,
                           int pair_mask) {
  const int wxy = (w.x & 0xffff) | (w.y << 16), wzw = (w.z & 0xffff) | (w.w << 16);
  int p0 = 0, s1 = 0, p2 = 0, s3 = 0;
  for (int t = 0; t < steps; ++t) {
    const int i = t * LK_GROUP + lid;
    const int4 r = rec[i];
    const int da = quad_diff(win[r.x & 0xffff], wxy, wzw, r.x);
    const int db = quad_diff(win[r.y & 0xffff], wxy, wzw, r.y);
    const int ta = da * lo16(r.z), tb = db * hi16(r.z), ua = da * lo16(r.w), ub = db * hi16(r.w);
    const int mt = tb & pair_mask, mu = ub & pair_mask;
    const int x1 = ta + mt, x2 = tb - mt, y1 = ua + mu, y2 = ub - mu;
    diffs[i] = ((uint)da & 0xffffu) | ((uint)db << 16);
    p0 += max(x1, 0) + max(x2, 0);
    s1 += x1 + x2;
    p2 += max(y1, 0) + max(y2, 0);
    s3 += y1 + y2;
  }
  return clamp(VEC4(int4, p0, s1 - p0, p2, s3 - p2), -LK_LANE_CLAMP, LK_LANE_CLAMP);
}

/* Component k of v. */
INLINE int lk_pick(int4 v, int k) { return k == 0 ? v.x : (k == 1 ? v.y : (k == 2 ? v.z : v.w)); }

/* The sums of each component of v over work-items first .. first + n - 1 (0 for n <= 0), in every
 * work-item: differences of two values of v's inclusive scan across the warp (common/scan.h: in
 * registers with warp shuffles, else through slots with barriers, so every work-item calls it).
 * Each component is clamped to 2^25, so no scanned value leaves int. */
INLINE int4 lk_range_sums(int4 v, int lid, int first, int n, LOCAL uint* slots) {
  v = as_int4(warp_inclusive_scan4_u32(as_uint4(v), lid, slots));
  const int last = max(first + n - 1, 0), before = max(first - 1, 0);
  const int4 hi = VEC4(int4, (int)warp_get_u32((uint)v.x, last, slots), (int)warp_get_u32((uint)v.y, last, slots),
                       (int)warp_get_u32((uint)v.z, last, slots), (int)warp_get_u32((uint)v.w, last, slots));
  const int4 lo = VEC4(int4, (int)warp_get_u32((uint)v.x, before, slots), (int)warp_get_u32((uint)v.y, before, slots),
                       (int)warp_get_u32((uint)v.z, before, slots), (int)warp_get_u32((uint)v.w, before, slots));
  return n <= 0 ? SPLAT(int4, 0) : (first > 0 ? hi - lo : hi);
}

/* Proves the chains exact from the work-items' shares (4 rows, one value each): for chain lane
 * lid (chain_lane), pos is the sum of row ip over work-items first .. first + n - 1 and neg that
 * of row in (none if in < 0); sums[lid] = (float)(pos + neg), exact when P <= 2^24 and N <= 2^24
 * (the return value; pyr_lk.cl says why, above LK_EXACT_LIMIT). Every work-item calls it. */
INLINE int lk_prove(int4 shares, LOCAL uint* slots, int lid, bool chain_lane, int first, int n, int ip, int in,
                    LOCAL float* sums) {
  const int4 range = lk_range_sums(shares, lid, first, n, slots);
  const int pos = lk_pick(range, ip), neg = in >= 0 ? lk_pick(range, in) : 0;
  if (chain_lane) sums[lid] = (float)(pos + neg);
  return pos <= LK_EXACT_LIMIT && neg >= -LK_EXACT_LIMIT ? 1 : 0;
}

/* Element (record i, slot s) of an ordered chain (ordered_chain's kind and slots) as an integer. */
INLINE int chain_term(LOCAL const int4* rec, LOCAL const uint* diffs, int i, int s, int slots, int kind) {
  const int4 r = rec[i];
  if (kind < 3) {
    const int gx = s == 0 ? lo16(r.z) : hi16(r.z), gy = s == 0 ? lo16(r.w) : hi16(r.w);
    return (kind == 0 ? gx : gy) * (kind == 2 ? gy : gx);
  }
  const int d = (int)diffs[i], g = kind == 3 ? r.z : r.w;
  const int ta = lo16(d) * lo16(g), tb = hi16(d) * hi16(g);
  return slots == 1 ? ta + tb : (s == 0 ? ta : tb);
}

/* The next element of an ordered chain: slot s of record i, the record's place j among the n. */
INLINE void chain_next(int* i, int* j, int* s, int n, int slots) {
  if (++*s == slots) {
    *s = 0;
    ++*i;
    if (++*j == n) {
      *j = 0;
      *i += LK_GROUP - n;
    }
  }
}

/* One of OpenCV's chains in its order: `count` elements of the class of work-items first .. first
 * + n - 1, `slots` (1 or 2) a record, record after record of each step, step after step. kind:
 * 0-2 A's Ix*^2, Ix* Iy*, Iy*^2 of the records; 3, 4 the b terms diff * Ix*, diff * Iy* of the
 * stored differences (for a lane pair, slots 1, the int sum of the step's two products). The terms
 * are made LK_CHAIN_BATCH at a time before they are added, so that their loads are in flight
 * together (a small batch: the code stays small for chains that are rare, docs/tracking.md).
 * (A flat walk, the record i and slot s advanced by hand: PoCL's work-group loops take it where
 * they did not take the nested form.) */
#define LK_CHAIN_BATCH 4
INLINE float ordered_chain(LOCAL const int4* rec, LOCAL const uint* diffs, int first, int n, int slots, int count, int kind) {
  float acc = 0.0f;
  int i = first, j = 0, s = 0, e = 0;
  for (; e + LK_CHAIN_BATCH <= count; e += LK_CHAIN_BATCH) {
    int v[LK_CHAIN_BATCH];
    UNROLL for (int k = 0; k < LK_CHAIN_BATCH; ++k) {
      v[k] = chain_term(rec, diffs, i, s, slots, kind);
      chain_next(&i, &j, &s, n, slots);
    }
    UNROLL for (int k = 0; k < LK_CHAIN_BATCH; ++k) acc += (float)v[k];
  }
  for (; e < count; ++e) {
    acc += (float)chain_term(rec, diffs, i, s, slots, kind);
    chain_next(&i, &j, &s, n, slots);
  }
  return acc;
}

/* |J* - I*| summed over this work-item's elements (win: the window at the final position). */
INLINE int records_abs_diff(LOCAL const int4* rec, LOCAL const uint* win, int4 w, GLOBAL const uint2* RESTRICT walk,
                            int lid, int steps) {
  const int wxy = (w.x & 0xffff) | (w.y << 16), wzw = (w.z & 0xffff) | (w.w << 16);
  int part = 0;
  for (int t = 0; t < steps; ++t) {
    const int i = t * LK_GROUP + lid;
    const uint2 e = walk[i];
    const int4 r = rec[i];
    const int da = quad_diff(win[r.x & 0xffff], wxy, wzw, r.x);
    const int db = quad_diff(win[r.y & 0xffff], wxy, wzw, r.y);
    part += (walk_template(e.x) != LK_NO_ELEMENT ? abs(da) : 0) + (walk_template(e.y) != LK_NO_ELEMENT ? abs(db) : 0);
  }
  return part;
}

/* Pyramidal LK for one level with the integer sums, a work-group per point. lkmem: rec (steps *
 * LK_GROUP int4), then an area that holds the template's staged window (dI's words, then I's
 * bytes: 5 (win_w + 1) (win_h + 1) bytes) until the records are made, and after that J's staged
 * window (win_w win_h words) followed by diffs (steps * LK_GROUP words); src/ops/pyr_lk.cpp sizes
 * it. The residual's parts (LK_GROUP ints) go where diffs were (read no more then). */
INLINE void lk_records_level(int npoints, int level, int max_level, int use_initial_flow, int get_min_eig, int has_err,
                             int win_w, int win_h, int max_count, double epsilon_sq, float min_eig_threshold, int cols,
                             int rows, CONST_IMAGE_PARAM(uchar, I), CONST_IMAGE_PARAM(short, dI),
                             CONST_IMAGE_PARAM(uchar, J), CONST_ARRAY_PARAM(float, prev_pts),
                             ARRAY_PARAM(float, next_pts), ARRAY_PARAM(uchar, status), ARRAY_PARAM(float, err),
                             LOCAL int4* lkmem, GLOBAL const uint2* RESTRICT walk, LOCAL float* sums, LOCAL uint* slots,
                             int tail_lanes, int steps) {
  const int p = GROUP_ID(0);
  const int lid = LOCAL_ID(0);
  LOCAL int4* rec = lkmem;
  LOCAL uint* area = (LOCAL uint*)(lkmem + steps * LK_GROUP);
  LOCAL uint* quads = area;
  LOCAL uint* diffs = area + win_w * win_h;
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
  const int pair_mask = lid < 4 * class_lanes ? -1 : 0; /* the lane pair classes */

  LOCAL uint* template_words = area;
  LOCAL uchar* template_bytes = (LOCAL uchar*)(area + (win_w + 1) * (win_h + 1));
  stage_template(I, I_offset, I_step, dI, dI_offset, dI_step, ipx, ipy, template_words, template_bytes, lid, win_w, win_h);
  BARRIER_LOCAL();
  build_records(template_words, template_bytes, wp, rec, walk, lid, steps, win_w);
  BARRIER_LOCAL(); /* the template's staged window is read no more */
  /* The first iteration's window of J (its loads in flight while A is summed). */
  int staged_x = (int)0x80000000, staged_y = (int)0x80000000;
  {
    int inx, iny;
    int4 wn;
    if (lk_window_at(next_x - half_x, next_y - half_y, win_w, win_h, cols, rows, &inx, &iny, &wn)) {
      stage_window(J, J_offset, J_step, inx, iny, &staged_x, &staged_y, quads, lid, win_w, win_h);
    }
  }
  /* Chain c < 12: A11, A12, A22 (c / 4) of lane k = c % 4; 12-14 the tail's. */
  {
    const int4 shares = records_a_sums(rec, lid, steps);
    const int q = lid < 12 ? lid / 4 : min(lid - 12, 2);
    const int first = lid < 12 ? (lid % 4) * class_lanes : 4 * class_lanes, n = lid < 12 ? class_lanes : tail_lanes;
    const int exact = lk_prove(shares, slots, lid, lid < 15, first, n, q == 0 ? 0 : (q == 1 ? 1 : 3), q == 1 ? 2 : -1, sums);
    if (lid < 15 && !exact) sums[lid] = ordered_chain(rec, diffs, first, n, 2, lid < 12 ? 2 * lb : lt, q);
  }
  BARRIER_LOCAL();
  float A11, A12, A22;
  lk_a_from_chains(sums, &A11, &A12, &A22); /* sums is written next after two barriers */

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
    stage_window(J, J_offset, J_step, inx, iny, &staged_x, &staged_y, quads, lid, win_w, win_h);
    BARRIER_LOCAL();
    const int4 shares = records_b_sums(rec, quads, wn, diffs, lid, steps, pair_mask);
    BARRIER_LOCAL(); /* diffs, for the chains not proven */
    /* Chain c < 8: class c / 2, diff * Ix (c even) or diff * Iy; 8, 9: the tail's. A chain not
     * proven exact is summed in OpenCV's order right away. */
    {
      const int comp = lid < 8 ? (lid & 1) : min(lid - 8, 1);
      const int first = lid < 8 ? (lid >> 1) * class_lanes : 4 * class_lanes, n = lid < 8 ? class_lanes : tail_lanes;
      const int exact = lk_prove(shares, slots, lid, lid < 10, first, n, 2 * comp, 2 * comp + 1, sums);
      if (lid < 10 && !exact) sums[lid] = ordered_chain(rec, diffs, first, n, lid < 8 ? 1 : 2, lid < 8 ? lb : lt, 3 + comp);
    }
    BARRIER_LOCAL();
    float b1, b2;
    lk_b_from_chains(sums, &b1, &b2);
    /* No barrier here: the next iteration writes the staged window, red and diffs only after the
     * reads above them, and sums only after two more barriers. */
    if (lk_update(b1, b2, A11, A12, A22, D, half_x, half_y, j, epsilon_sq, &next_x, &next_y, &out_x, &out_y, &prev_dx, &prev_dy)) break;
  }
  int ifx, ify;
  int4 wf;
  if (!lk_level_end(p, lid, level, get_min_eig, has_err, win_w, win_h, cols, rows, next_pts, next_pts_offset, status,
                    status_offset, ok, out_x, out_y, half_x, half_y, &ifx, &ify, &wf)) {
    return;
  }
  stage_window(J, J_offset, J_step, ifx, ify, &staged_x, &staged_y, quads, lid, win_w, win_h);
  BARRIER_LOCAL();
  LOCAL int* parts = (LOCAL int*)diffs;
  parts[lid] = records_abs_diff(rec, quads, wf, walk, lid, steps);
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

/* The steps' elements (build_records' walk table) for a window and a split of the work-items. Each
 * work-item of one group walks its class's elements: step t takes element q = j + t n of a lane
 * pair class (row y = q / chunks, chunk r: columns 8 r + cls and + 4), or elements 2 (j + t n) and
 * the next of the tail (row after row of tail_w columns from 8 chunks). */
KERNEL REQD_GROUP_SIZE(LK_GROUP, 1, 1) void pyr_lk_walk(GLOBAL uint2* RESTRICT walk, int win_w, int win_h, int tail_lanes,
                                                       int steps) {
  const int lid = LOCAL_ID(0);
  const lk_walk w = lk_walk_of(lid, win_w, win_h, tail_lanes);
  const int chunks = win_w / 8, tail = 8 * chunks, tail_w = win_w - tail, sw = win_w + 1;
  const int row = max(w.cls < 4 ? chunks : tail_w, 1), per_step = w.cls < 4 ? 1 : 2;
  for (int t = 0; t < steps; ++t) {
    const int q = per_step * (w.j + t * w.n);
    const bool va = w.cls < 5 && q < w.count;
    const bool vb = va && (w.cls < 4 || q + 1 < w.count);
    const int y = q / row, r = q - y * row;
    const int2 ea = va ? VEC2(int2, w.cls < 4 ? 8 * r + w.cls : tail + r, y) : VEC2(int2, 0, 0);
    const int2 eb = w.cls < 4 ? VEC2(int2, ea.x + 4, ea.y)
                              : (vb ? (r + 1 == tail_w ? VEC2(int2, tail, y + 1) : VEC2(int2, ea.x + 1, y)) : ea);
    walk[t * LK_GROUP + lid] =
        VEC2(uint2, (uint)(va ? ea.y * sw + ea.x : LK_NO_ELEMENT) | ((uint)(ea.x * win_h + ea.y) << 16),
             (uint)(vb ? eb.y * sw + eb.x : LK_NO_ELEMENT) | ((uint)(eb.x * win_h + eb.y) << 16));
  }
}
