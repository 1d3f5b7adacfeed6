/* Integral images, method `resident`: one launch that reads the source once.
 * Host side: src/ops/integral_resident.cpp; the method is written up in docs/integral.md.
 *
 * Blocks are TW = 128 columns (32 lanes x 4) by BH = NW * WR rows of one channel plane, a
 * work-group per block, blocks in ticket order (row-major over planes). A work-group
 *   1. loads its block into local memory (warp w: rows [WR w, WR w + WR)) and publishes the
 *      block's aggregates: R(y), each row's total, and C(x), each column's total, in the block's
 *      record, then its total T in its status words, which double as its flag;
 *   2. waits for the status of every block above and to the left of it (earlier tickets: already
 *      running) and sums their aggregates:
 *        RowLeft(y)  = sum of R(y) of the blocks to its left,
 *        ColAbove(x) = sum of C(x) of the blocks above it,
 *        Corner      = S(y0, x0) = sum of T of the blocks above and to the left;
 *   3. writes its block from local memory, each warp walking its rows with
 *        S(y + 1, x + 1) = S(y, x + 1) + RowLeft(y) + sum of src(y, x') over [x0, x].
 * A block waits only for others to load and reduce their own data, never for their sums, so no
 * chain of waits forms. Order-free requests for one quantity (the sum or the count: integer
 * accumulation modulo 2^n; docs/integral.md).
 *
 * Options:
 *   SRC_T/SRC_DEPTH, HAS_SUM, SUM_T/SUM_DEPTH, COUNT  as in integral.cl (no HAS_SQ)
 *   SACC, SACC_S   the accumulator (uint/u32 or ulong/u64)
 *   NW, WR         warps per work-group, rows per warp (a multiple of 8)
 *   SRC_VEC_OK     1 when a lane may read its 4 source elements of a row as one aligned vector
 *   OUT_VEC_OK     1 when outputs may be written as aligned 4-element vectors
 * Scratch: per block a record of BH values R then TW values C (whole 128-byte lines, written by
 * that block alone: plain loads see them after its status), and T_WORDS status words after the
 * ticket counter's 256 bytes of `sync`. */
#include "common/dialect.h"
#include "common/types.h"
#include "common/scan.h"

#ifndef COUNT
#define COUNT 0
#endif
#if !HAS_SUM || HAS_SQ
#error "integral_resident.cl: the sum (or the count) alone"
#endif

#define TW 128
#define GROUP (32 * NW)
#define BH (NW * WR)
#define CHUNK 8 /* rows a lane loads at once */
#define RECORD (BH + TW)
#if WR % CHUNK != 0
#error "integral_resident.cl: WR must be a multiple of 8"
#endif
#define QUAD_ROWS CHUNK
#include "integral_tiles.h"
#define SUM_T4 CAT(SUM_T, 4)
/* The write loop, two rows a step: two steps unrolled with shuffles (measured on the H100), none
 * without them, where every warp operation holds barriers that CPU compilers handle slowly when
 * copied. */
#if HAS_WARP_SHUFFLE
#define PAIR_UNROLL _Pragma("unroll 2")
#else
#define PAIR_UNROLL _Pragma("nounroll")
#endif

#if COUNT
#define OF(v) ((SACC)((v) != (SRC_T)0))
#else
#define OF(v) ((SACC)(v))
#endif
#define STORE(a) STORE_AS(SUM_T, SUM_DEPTH, a)
/* PAIR_SCAN: two rows' scans as one, row j in the low and row j + 1 in the high 16 bits of a
 * uint (a lane's exclusive prefix within a block row stays below 31 * 4 * 255 = 31620). */
#define PAIR_SCAN (COUNT || SRC_DEPTH == DEPTH_U8)
#define ST_PAST_L1 CAT(store_past_l1_, SACC_S)
#define WARP_SUM CAT(warp_sum_, SACC_S)
#define WARP_EXSCAN CAT(warp_exclusive_scan_, SACC_S)

/* Writes one output row's columns [xb, xb + 4) = (left, v0, v1, v2), those up to width, and
 * column width itself from v3 when xb + 4 == width. */
INLINE void store_quad(GLOBAL SUM_T* row, int xb, int width, int channels, int c, bool vec, SACC left,
                       const SACC v[4]) {
  if (vec && xb + 3 <= width) {
    CAT(stream_store4_, SUM_T)(row + xb, VEC4(SUM_T4, STORE(left), STORE(v[0]), STORE(v[1]), STORE(v[2])));
  } else {
    if (xb <= width) row[xb * channels + c] = STORE(left);
    UNROLL
    for (int k = 0; k < 3; ++k) {
      if (xb + 1 + k <= width) row[(xb + 1 + k) * channels + c] = STORE(v[k]);
    }
  }
  if (xb + 4 == width) row[width * channels + c] = STORE(v[3]);
}

/* Phase 2's work-items: 4 rows (columns) each, the blocks to the left (above) split among
 * ROW_PARTS (COL_PARTS) of them. */
#define ROW_PARTS (4 * GROUP / BH)
#define COL_PARTS (4 * GROUP / TW)
#if ROW_PARTS < 1
#error "integral_resident.cl: BH must be at most 4 * GROUP"
#endif
#define VACC CAT(SACC, 4)

/* A block's total T travels in T_WORDS status words, each (epoch << 32 | 32 bits of T): a word
 * read with this launch's epoch holds its part, and the block's R and C are out (fenced before). */
#define T_WORDS (sizeof(SACC) / 4)

INLINE bool status_ready(const ulong* w, uint epoch) {
  bool ready = true;
  UNROLL
  for (int i = 0; i < (int)T_WORDS; ++i) ready = ready && (uint)(w[i] >> 32) == epoch;
  return ready;
}

INLINE SACC status_total(const ulong* w) {
  SACC t = 0;
  UNROLL
  for (int i = 0; i < (int)T_WORDS; ++i) t |= (SACC)(uint)w[i] << (32 * i);
  return t;
}

/* Waits for the status of the blocks (r, q), r <= by, q <= bx, other than (by, bx) itself (index
 * n of the rectangle), eight blocks in flight per work-item at a time, and returns the work-item's
 * share of Corner: the totals of those with r < by and q < bx. */
INLINE SACC wait_for_rectangle(GLOBAL const ulong* status, int blocks_x, int by, int bx, uint epoch) {
  const int w = bx + 1, n = (by + 1) * w - 1;
  SACC corner = 0;
  for (int k0 = LOCAL_ID(0); k0 < n; k0 += 8 * GROUP) {
    ulong s[8][T_WORDS];
    UNROLL
    for (int u = 0; u < 8; ++u) {
      const int k = k0 + u * GROUP;
      GLOBAL const ulong* at = status + (long)(k / w * blocks_x + k % w) * T_WORDS;
      UNROLL
      for (int i = 0; i < (int)T_WORDS; ++i) s[u][i] = k < n ? VOLATILE_LOAD(ulong, at + i) : (ulong)epoch << 32;
    }
    UNROLL
    for (int u = 0; u < 8; ++u) {
      const int k = k0 + u * GROUP;
      GLOBAL const ulong* at = status + (long)(k / w * blocks_x + k % w) * T_WORDS;
      while (!status_ready(s[u], epoch)) {
        SPIN_PAUSE(64u);
        UNROLL
        for (int i = 0; i < (int)T_WORDS; ++i) s[u][i] = VOLATILE_LOAD(ulong, at + i);
      }
      if (k < n && k / w < by && k % w < bx) corner += status_total(s[u]);
    }
  }
  return corner;
}

/* RowLeft and ColAbove, four rows (columns) per work-item, the blocks to the left (above) split
 * among ROW_PARTS (COL_PARTS) work-items; the loads of a step (NEIGHBOUR_BATCH records of each
 * kind) in flight together. Batches of 2: 64 registers for blocks of 128 rows in 4 warps, and so
 * 8 work-groups per SM, where batches of 4 took 72 and 7680x4320 86.5 us instead of 80.0 (H100). */
#define NEIGHBOUR_BATCH 2
INLINE void sum_neighbours(GLOBAL const SACC* row_base, long row_stride, int row_part, int row_n,
                           GLOBAL const SACC* col_base, long col_stride, int col_part, int col_n, VACC* rows, VACC* cols) {
  VACC rs = SPLAT(VACC, 0), cs = SPLAT(VACC, 0);
  for (int m = 0; row_part + m * ROW_PARTS < row_n || col_part + m * COL_PARTS < col_n; m += NEIGHBOUR_BATCH) {
    VACC r[NEIGHBOUR_BATCH], c[NEIGHBOUR_BATCH];
    UNROLL
    for (int u = 0; u < NEIGHBOUR_BATCH; ++u) {
      const int i = row_part + (m + u) * ROW_PARTS, j = col_part + (m + u) * COL_PARTS;
      r[u] = i < row_n ? *(GLOBAL const VACC*)(row_base + i * row_stride) : SPLAT(VACC, 0);
      c[u] = j < col_n ? *(GLOBAL const VACC*)(col_base + j * col_stride) : SPLAT(VACC, 0);
    }
    UNROLL
    for (int u = 0; u < NEIGHBOUR_BATCH; ++u) rs += r[u], cs += c[u];
  }
  *rows = rs, *cols = cs;
}

KERNEL REQD_GROUP_SIZE(GROUP, 1, 1) void integral_resident(int width, int height, int channels, int planes,
                                                           int blocks_x, int blocks_y, uint ticket_base, uint epoch,
                                                           GLOBAL uint* sync, GLOBAL SACC* records,
                                                           CONST_IMAGE_PARAM(SRC_T, src),
                                                           IMAGE_PARAM(SUM_T, sum)) {
  const int lid = LOCAL_ID(0), lane = lid & 31, warp = lid >> 5;
  LOCAL_MEM int ticket_of_group;
  LOCAL_MEM SRC_T4 stash[NW][WR][32];
  LOCAL_MEM SACC cols[NW][TW];     /* each warp's column totals */
  LOCAL_MEM SACC row_left[BH];
  LOCAL_MEM SACC col_above[TW];
  LOCAL_MEM SACC row_parts[ROW_PARTS][BH];
  LOCAL_MEM SACC col_parts[COL_PARTS][TW];
  LOCAL_MEM SACC slots[GROUP];
  LOCAL_MEM SACC warp_totals[NW];
  if (lid == 0) ticket_of_group = (int)TAKE_TICKET(sync, ticket_base);
  BARRIER_LOCAL();
  const int ticket = ticket_of_group;
  const int blocks = blocks_x * blocks_y;
  const int plane = ticket / blocks, by = ticket % blocks / blocks_x, bx = ticket % blocks_x;
  const int b = plane / channels, c = plane % channels;
  const int x0 = bx * TW, y0 = by * BH, yw = y0 + WR * warp, xb = x0 + 4 * lane;
  GLOBAL SACC* record = records + (long)ticket * RECORD;
  GLOBAL ulong* status = (GLOBAL ulong*)(sync + 64); /* after the ticket counter's 256 bytes */
  const bool full = SRC_VEC_OK && OUT_VEC_OK && x0 + TW <= width && y0 + BH <= height;

  /* 1. Load and reduce: R of the warp's rows, the lane's column totals. */
  SACC col[4] = {0, 0, 0, 0};
  _Pragma("unroll 1") /* one chunk's loads in flight at a time: fewer registers, more blocks per SM */
  for (int j0 = 0; j0 < WR; j0 += CHUNK) {
    SRC_T4 raw[CHUNK];
    load_rows(src, src_offset, src_step, width, height, channels, b, c, xb, yw + j0, full, raw);
    SACC part[CHUNK];
    UNROLL
    for (int j = 0; j < CHUNK; ++j) {
      stash[warp][j0 + j][lane] = raw[j];
      const SACC e0 = OF(raw[j].x), e1 = OF(raw[j].y), e2 = OF(raw[j].z), e3 = OF(raw[j].w);
      col[0] += e0, col[1] += e1, col[2] += e2, col[3] += e3;
      part[j] = e0 + e1 + e2 + e3;
    }
    SACC row_total = 0;
    WARP_ROW_TOTALS(SACC_S, SACC, part, row_total, slots);
    if (WARP_ROW_OWNER(lane)) ST_PAST_L1(record + WR * warp + j0 + WARP_ROW_OF(lane), row_total);
  }
  UNROLL
  for (int k = 0; k < 4; ++k) cols[warp][4 * lane + k] = col[k];
  BARRIER_LOCAL();
  {
    SACC ct = 0;
    if (lid < TW) {
      UNROLL
      for (int w = 0; w < NW; ++w) ct += cols[w][lid];
      ST_PAST_L1(record + BH + lid, ct);
    }
    ct = WARP_SUM(ct, slots);
    if (lane == 0) warp_totals[warp] = ct;
  }
  BARRIER_LOCAL();
  if (lid == 0) {
    SACC t = 0;
    for (int w = 0; w < NW; ++w) t += warp_totals[w];
    warp_totals[0] = t;
  }
  DEVICE_FENCE();
  BARRIER_ALL();
  if (lid == 0) {
    UNROLL
    for (int i = 0; i < (int)T_WORDS; ++i) {
      *(volatile GLOBAL ulong*)(status + (long)ticket * T_WORDS + i) = (ulong)epoch << 32 | (uint)(warp_totals[0] >> (32 * i));
    }
  }

  /* 2. Wait for the blocks above and to the left, and sum their aggregates. */
  SACC corner = wait_for_rectangle(status + (long)plane * blocks * T_WORDS, blocks_x, by, bx, epoch);
  BARRIER_ALL();
  corner = WARP_SUM(corner, slots);
  GLOBAL const SACC* plane_records = records + (long)plane * blocks * RECORD;
  {
    const int row_quad = lid % (BH / 4), row_part = lid / (BH / 4);
    const int col_quad = lid % (TW / 4), col_part = lid / (TW / 4);
    VACC rs, cs;
    sum_neighbours(plane_records + (long)by * blocks_x * RECORD + 4 * row_quad, RECORD, row_part, bx,
                   plane_records + (long)bx * RECORD + BH + 4 * col_quad, (long)blocks_x * RECORD, col_part, by, &rs, &cs);
    row_parts[row_part][4 * row_quad] = rs.x, row_parts[row_part][4 * row_quad + 1] = rs.y;
    row_parts[row_part][4 * row_quad + 2] = rs.z, row_parts[row_part][4 * row_quad + 3] = rs.w;
    col_parts[col_part][4 * col_quad] = cs.x, col_parts[col_part][4 * col_quad + 1] = cs.y;
    col_parts[col_part][4 * col_quad + 2] = cs.z, col_parts[col_part][4 * col_quad + 3] = cs.w;
  }
  BARRIER_LOCAL();
  if (lane == 0) warp_totals[warp] = corner;
  for (int r = lid; r < BH; r += GROUP) {
    SACC s = 0;
    UNROLL
    for (int p = 0; p < ROW_PARTS; ++p) s += row_parts[p][r];
    row_left[r] = s;
  }
  if (lid < TW) {
    SACC s = 0;
    UNROLL
    for (int p = 0; p < COL_PARTS; ++p) s += col_parts[p][lid];
    col_above[lid] = s;
  }
  BARRIER_LOCAL();
  corner = 0;
  UNROLL
  for (int w = 0; w < NW; ++w) corner += warp_totals[w];

  /* 3. Write: the warp's start S(yw, x + 1) = Corner + sum of RowLeft over [y0, yw) + sum over
   * [x0, x] of (ColAbove + the column totals of the warps above). */
  SACC acc[4], col0;
  {
    SACC p[4];
    UNROLL
    for (int k = 0; k < 4; ++k) p[k] = col_above[4 * lane + k];
    for (int w = 0; w < warp; ++w) {
      UNROLL
      for (int k = 0; k < 4; ++k) p[k] += cols[w][4 * lane + k];
    }
    col0 = p[0];
    SACC edge = 0;
    for (int r = lane; r < WR * warp; r += 32) edge += row_left[r];
    edge = WARP_SUM(edge, slots) + corner;
    UNROLL
    for (int k = 1; k < 4; ++k) p[k] += p[k - 1];
    const SACC before = WARP_EXSCAN(p[3], lane, slots) + edge;
    UNROLL
    for (int k = 0; k < 4; ++k) acc[k] = before + p[k];
  }
  const int out_row0 = b * (height + 1);
  if (by == 0 && warp == 0) {
    const SACC zero[4] = {0, 0, 0, 0};
    store_quad(sum + sum_offset + out_row0 * sum_step, xb, width, channels, c, OUT_VEC_OK, 0, zero);
  }
  PAIR_UNROLL
  for (int j0 = 0; j0 < WR; j0 += 2) {
    SACC e[2][4], pr[2][4];
    UNROLL
    for (int h = 0; h < 2; ++h) {
      const SRC_T4 v = stash[warp][j0 + h][lane];
      e[h][0] = OF(v.x), e[h][1] = OF(v.y), e[h][2] = OF(v.z), e[h][3] = OF(v.w);
      pr[h][0] = e[h][0];
      UNROLL
      for (int k = 1; k < 4; ++k) pr[h][k] = pr[h][k - 1] + e[h][k];
    }
#if PAIR_SCAN
    const uint pair = warp_exclusive_scan_u32((uint)pr[0][3] | (uint)pr[1][3] << 16, lane, (LOCAL uint*)slots);
#endif
    UNROLL
    for (int h = 0; h < 2; ++h) {
      const int y = yw + j0 + h;
#if PAIR_SCAN
      const SACC scanned = h == 0 ? pair & 0xffffu : pair >> 16;
#else
      const SACC scanned = WARP_EXSCAN(pr[h][3], lane, slots);
#endif
      const SACC before = scanned + row_left[WR * warp + j0 + h];
      UNROLL
      for (int k = 0; k < 4; ++k) acc[k] += pr[h][k] + before;
      col0 += e[h][0];
      const SACC left = acc[0] - col0;
      GLOBAL SUM_T* out = sum + sum_offset + (out_row0 + y + 1) * sum_step;
      if (full) {
        CAT(stream_store4_, SUM_T)(out + xb, VEC4(SUM_T4, STORE(left), STORE(acc[0]), STORE(acc[1]), STORE(acc[2])));
        if (xb + 4 == width) out[width] = STORE(acc[3]);
      } else if (y < height) {
        store_quad(out, xb, width, channels, c, OUT_VEC_OK, left, acc);
      }
    }
  }
}
