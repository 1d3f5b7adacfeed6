/* Integral images, method `tiled`: two launches, and no work-group ever waits on another.
 * Host side: src/ops/integral_tiled.cpp; the method is written up in docs/integral.md.
 *
 * Tiles are TW = 128 columns (32 lanes x 4) by TH rows of one channel plane.
 *   reduce  one work-group per tile: its row totals R(y), column totals C(x) and total T.
 *           The last work-group to finish in a row of tiles (an atomic counter per tile row)
 *           turns that row's R into RowLeft(y) = sum of row y left of each tile and its T into
 *           TL = sum of T left of each tile; the last one in a column of tiles turns C into
 *           ColAbove(x) = sum of column x above each tile. Exclusive scans, in place. Tiles
 *           run in column-major order, so that columns of tiles finish (and are scanned) while
 *           later columns are still being reduced.
 *   write   one work-group per tile, each warp walking RPW = TH / NW of its rows: with
 *             S(y, x)  = OpenCV's integral (sum of src over y' < y, x' < x),
 *             Corner   = S(y0, x0) = sum of TL over the tiles above (in this tile column),
 *           S(y0, x + 1) = Corner + sum of ColAbove over [x0, x]; a warp starting below y0 adds
 *           the rows above it in the tile (their RowLeft, and their column sums, which every
 *           warp leaves in local memory); then row by row
 *           S(y + 1, x + 1) = S(y, x + 1) + RowLeft(y) + sum of src(y, x') over [x0, x].
 * The source is read twice (the second time mostly from L2) and every output written once.
 * Order-free requests only (integer accumulation modulo 2^n; docs/integral.md).
 *
 * Options:
 *   SRC_T/SRC_DEPTH, HAS_SUM, HAS_SQ, SUM_T/SUM_DEPTH, SQ_T/SQ_DEPTH, COUNT  as in integral.cl
 *   SACC, SACC_S / QACC, QACC_S  accumulators (uint/u32 or ulong/u64) of the sum and the square
 *   NW          warps per work-group, one work-group per tile (4: the tile's rows in bands of RPW)
 *   TH          rows per tile: 32 (a warp holds a tile's RowLeft, a row per lane)
 *   SRC_VEC_OK  1 when a lane may read its 4 source elements of a row as one aligned vector
 *   OUT_VEC_OK  1 when outputs may be written as aligned 4-element vectors
 * Aggregate buffers (one per quantity, in its accumulator type), for P planes:
 *   R [P][tiles_x][tiles_y * TH], C [P][tiles_y][tiles_x * TW], T [P][tiles_y][tiles_x]
 * Counters: P * tiles_y row-of-tiles counters, then P * tiles_x column-of-tiles counters, all
 * zero between launches (the last arriver resets its own). */
#include "common/dialect.h"
#include "common/types.h"
#include "common/scan.h"

#ifndef COUNT
#define COUNT 0
#endif

#define TW 128
#define GROUP (32 * NW)
#define RPW (TH / NW) /* rows per warp */
#if TH != 32
#error "integral_tiled.cl: TH must be 32"
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define SRC_T4 CAT(SRC_T, 4)
#define SCAN_BATCH 16 /* aggregate loads a last arriver issues before using any (32: slower) */
/* The write pass's row loops: unrolled with shuffles (registers indexed by constants); kept
 * rolled without them, where every warp operation holds barriers that CPU compilers handle
 * slowly when copied 32 times. */
#if HAS_WARP_SHUFFLE
#define ROW_UNROLL UNROLL
#else
#define ROW_UNROLL _Pragma("nounroll")
#endif

/* Stores: integer outputs take the low bits of the accumulator; float outputs (only when they
 * hold every partial sum exactly) its signed value. */
#define STORE_AS(T, DEPTH, a)                       \
  ((DEPTH) == DEPTH_S32   ? (T)as_int((uint)(a))   \
   : (DEPTH) == DEPTH_U32 ? (T)(uint)(a)           \
   : (DEPTH) == DEPTH_S64 ? (T)as_long((ulong)(a)) \
   : (DEPTH) == DEPTH_U64 ? (T)(ulong)(a)          \
                          : (T)(long)(a))

/* The aggregate regions of one quantity (needs planes, tiles_x, tiles_y in scope). */
#define AGG_R(agg) (agg)
#define AGG_C(agg) ((agg) + (long)planes * tiles_x * tiles_y * TH)
#define AGG_T(agg) (AGG_C(agg) + (long)planes * tiles_y * tiles_x * TW)

/* Exclusive scan in place of `count` values at stride `stride`, SCAN_BATCH loads at a time. */
#define SCAN_IN_PLACE(ACC, ptr, count, stride)                                                      \
  do {                                                                                              \
    ACC run_ = 0;                                                                                   \
    for (int i0_ = 0; i0_ < (count); i0_ += SCAN_BATCH) {                                           \
      ACC v_[SCAN_BATCH];                                                                           \
      UNROLL                                                                                        \
      for (int u_ = 0; u_ < SCAN_BATCH; ++u_) {                                                     \
        v_[u_] = i0_ + u_ < (count) ? VOLATILE_LOAD(ACC, (ptr) + (long)(i0_ + u_) * (stride)) : 0; \
      }                                                                                             \
      UNROLL                                                                                        \
      for (int u_ = 0; u_ < SCAN_BATCH; ++u_) {                                                     \
        if (i0_ + u_ < (count)) (ptr)[(long)(i0_ + u_) * (stride)] = run_;                         \
        run_ += v_[u_];                                                                             \
      }                                                                                             \
    }                                                                                               \
  } while (0)

/* Per accumulator type S (u32 / u64) and ACC: the last arrivers' scans, and the write pass's
 * step for one row. */
#define TILED_FUNCTIONS(S, ACC)                                                                       \
  /* RowLeft for the rows of a row of tiles (a work-item each) and TL, by work-item `last`. */      \
  INLINE void scan_tile_row_##S(GLOBAL ACC* agg, int planes, int tiles_x, int tiles_y, int plane, int tile_y, \
                                int height, int lid, int last) {                                     \
    const int y = tile_y * TH + lid;                                                                 \
    if (lid < TH && y < height) {                                                                    \
      GLOBAL ACC* r = AGG_R(agg) + (long)plane * tiles_x * tiles_y * TH + y;                        \
      SCAN_IN_PLACE(ACC, r, tiles_x, (long)tiles_y * TH);                                            \
    }                                                                                                \
    if (lid == last) {                                                                               \
      GLOBAL ACC* t = AGG_T(agg) + ((long)plane * tiles_y + tile_y) * tiles_x;                      \
      SCAN_IN_PLACE(ACC, t, tiles_x, 1);                                                             \
    }                                                                                                \
  }                                                                                                  \
  /* ColAbove for the columns of a column of tiles: a work-item per column. */                      \
  INLINE void scan_tile_column_##S(GLOBAL ACC* agg, int planes, int tiles_x, int tiles_y, int plane, int tile_x, \
                                   int lid) {                                                        \
    if (lid >= TW) return;                                                                           \
    const long cw = (long)tiles_x * TW;                                                              \
    GLOBAL ACC* col = AGG_C(agg) + (long)plane * tiles_y * cw + tile_x * TW + lid;                  \
    SCAN_IN_PLACE(ACC, col, tiles_y, cw);                                                            \
  }                                                                                                  \
  /* One row of a tile in the write pass: e holds the lane's 4 source quantities; acc, S(y, x + 1)  \
   * of the lane's columns, becomes S(y + 1, x + 1); `left` receives S(y + 1, x0 + 4 lane), the    \
   * column before the lane's first (from the lane on the left, or from `edge` in lane 0).      */ \
  INLINE void write_row_step_##S(ACC e[4], ACC acc[4], ACC row_left, ACC edge, ACC* left, int lane, \
                                 LOCAL ACC* slots) {                                                 \
    ACC p[4];                                                                                        \
    p[0] = e[0];                                                                                     \
    UNROLL                                                                                           \
    for (int k = 1; k < 4; ++k) p[k] = p[k - 1] + e[k];                                              \
    const ACC before = warp_exclusive_scan_##S(p[3], lane, slots) + row_left;                       \
    UNROLL                                                                                           \
    for (int k = 0; k < 4; ++k) acc[k] += p[k] + before;                                             \
    const ACC from_left = warp_up_##S(acc[3], 1, lane, slots);                                       \
    *left = lane == 0 ? edge : from_left;                                                            \
  }

TILED_FUNCTIONS(u32, uint)
TILED_FUNCTIONS(u64, ulong)

#if HAS_SUM
#define SUM_AGG_PARAM , GLOBAL SACC* RESTRICT sum_agg
#define SUM_PARAM , IMAGE_PARAM(SUM_T, sum)
#define SUM_STORE(a) STORE_AS(SUM_T, SUM_DEPTH, a)
#else
#define SUM_AGG_PARAM
#define SUM_PARAM
#endif
#if HAS_SQ
#define SQ_AGG_PARAM , GLOBAL QACC* RESTRICT sq_agg
#define SQ_PARAM , IMAGE_PARAM(SQ_T, sq)
#define SQ_STORE(a) STORE_AS(SQ_T, SQ_DEPTH, a)
#else
#define SQ_AGG_PARAM
#define SQ_PARAM
#endif

#if COUNT
#define SUM_OF(v) ((SACC)((v) != (SRC_T)0))
#else
#define SUM_OF(v) ((SACC)(v))
#endif
#define SQ_OF(v) ((QACC)(v) * (QACC)(v))

/* The 4 source elements of a lane in row y (zero outside the image). */
INLINE SRC_T4 load_quad(GLOBAL const SRC_T* src, int src_offset, int src_step, int width, int height, int channels,
                        int b, int c, int xb, int y) {
  SRC_T4 r = (SRC_T4)(0);
  if (y >= height || xb >= width) return r;
  GLOBAL const SRC_T* row = src + src_offset + (b * height + y) * src_step;
#if SRC_VEC_OK
  if (xb + 3 < width) return *(GLOBAL const SRC_T4*)(row + xb); /* aligned: the host checked */
#endif
  r.x = row[xb * channels + c];
  if (xb + 1 < width) r.y = row[(xb + 1) * channels + c];
  if (xb + 2 < width) r.z = row[(xb + 2) * channels + c];
  if (xb + 3 < width) r.w = row[(xb + 3) * channels + c];
  return r;
}

/* ---- pass 1: tile aggregates; the last arrivers scan them --------------------------------- */

/* One quantity of the warp's rows: row totals (lane j keeps row j's) and the lane's column
 * totals (S/ACC: accumulator, OF: a source value's quantity). */
#define REDUCE_ROWS(S, ACC, OF, row_total, col, slots)                   \
  do {                                                                   \
    const ACC e0 = OF(v.x), e1 = OF(v.y), e2 = OF(v.z), e3 = OF(v.w);    \
    col[0] += e0, col[1] += e1, col[2] += e2, col[3] += e3;              \
    const ACC total_ = CAT(warp_sum_, S)(e0 + e1 + e2 + e3, slots);      \
    if (lane == j) row_total = total_;                                   \
  } while (0)

/* One quantity's tile: R of the warp's rows, then (after a barrier) C and T. */
#define REDUCE_COLUMNS(S, ACC, agg, cols, warps_sum, slots)               \
  do {                                                                   \
    ACC part_ = 0;                                                       \
    if (lid < TW) {                                                      \
      UNROLL                                                             \
      for (int w = 0; w < NW; ++w) part_ += cols[w][lid];                \
      AGG_C(agg)[c_at + lid] = part_;                                    \
    }                                                                    \
    part_ = CAT(warp_sum_, S)(part_, slots);                             \
    if (lane == 0) warps_sum[warp] = part_;                              \
  } while (0)

KERNEL REQD_GROUP_SIZE(GROUP, 1, 1) void integral_tiled_reduce(int width, int height, int channels, int planes,
                                                              int tiles_x, int tiles_y, GLOBAL uint* counters
                                                              SUM_AGG_PARAM SQ_AGG_PARAM,
                                                              CONST_IMAGE_PARAM(SRC_T, src)) {
  const int lid = LOCAL_ID(0), lane = lid & 31, warp = lid >> 5;
  /* Column-major: GROUP_ID(0) walks down a column of tiles. */
  const int tile_y = GROUP_ID(0), tile_x = GROUP_ID(1), plane = GROUP_ID(2);
  const int b = plane / channels, c = plane % channels;
  const int xb = tile_x * TW + 4 * lane, yb = tile_y * TH + RPW * warp;
  const long r_at = ((long)plane * tiles_x + tile_x) * tiles_y * TH + yb + lane;
  const long c_at = ((long)plane * tiles_y + tile_y) * tiles_x * TW + tile_x * TW;
  const long t_at = ((long)plane * tiles_y + tile_y) * tiles_x + tile_x;
  LOCAL int last_in[2];
#if HAS_SUM
  LOCAL SACC s_slots[GROUP];
  LOCAL SACC s_cols[NW][TW];
  LOCAL SACC s_warps[NW];
  SACC s_col[4] = {0, 0, 0, 0}, s_row = 0;
#endif
#if HAS_SQ
  LOCAL QACC q_slots[GROUP];
  LOCAL QACC q_cols[NW][TW];
  LOCAL QACC q_warps[NW];
  QACC q_col[4] = {0, 0, 0, 0}, q_row = 0;
#endif

  SRC_T4 raw[RPW];
  if (SRC_VEC_OK && (tile_x + 1) * TW <= width && (tile_y + 1) * TH <= height) {
    /* A whole tile: unconditional vector loads, all in flight at once. */
    GLOBAL const SRC_T4* quads = (GLOBAL const SRC_T4*)(src + src_offset + (b * height + yb) * src_step + xb);
    UNROLL
    for (int j = 0; j < RPW; ++j) raw[j] = quads[j * (src_step / 4)];
  } else {
    UNROLL
    for (int j = 0; j < RPW; ++j) raw[j] = load_quad(src, src_offset, src_step, width, height, channels, b, c, xb, yb + j);
  }
  UNROLL
  for (int j = 0; j < RPW; ++j) {
    const SRC_T4 v = raw[j];
#if HAS_SUM
    REDUCE_ROWS(SACC_S, SACC, SUM_OF, s_row, s_col, s_slots);
#endif
#if HAS_SQ
    REDUCE_ROWS(QACC_S, QACC, SQ_OF, q_row, q_col, q_slots);
#endif
  }
#if HAS_SUM
  if (lane < RPW && yb + lane < height) AGG_R(sum_agg)[r_at] = s_row;
  UNROLL
  for (int k = 0; k < 4; ++k) s_cols[warp][4 * lane + k] = s_col[k];
#endif
#if HAS_SQ
  if (lane < RPW && yb + lane < height) AGG_R(sq_agg)[r_at] = q_row;
  UNROLL
  for (int k = 0; k < 4; ++k) q_cols[warp][4 * lane + k] = q_col[k];
#endif
  BARRIER_LOCAL();
#if HAS_SUM
  REDUCE_COLUMNS(SACC_S, SACC, sum_agg, s_cols, s_warps, s_slots);
#endif
#if HAS_SQ
  REDUCE_COLUMNS(QACC_S, QACC, sq_agg, q_cols, q_warps, q_slots);
#endif
  BARRIER_LOCAL();
  if (lid == 0) {
#if HAS_SUM
    SACC s_total = 0;
    for (int w = 0; w < NW; ++w) s_total += s_warps[w];
    AGG_T(sum_agg)[t_at] = s_total;
#endif
#if HAS_SQ
    QACC q_total = 0;
    for (int w = 0; w < NW; ++w) q_total += q_warps[w];
    AGG_T(sq_agg)[t_at] = q_total;
#endif
  }

  /* Publish, count arrivals; the last in a row / column of tiles scans it. */
  DEVICE_FENCE();
  BARRIER_ALL();
  if (lid == 0) {
    GLOBAL uint* row_counter = counters + plane * tiles_y + tile_y;
    GLOBAL uint* col_counter = counters + planes * tiles_y + plane * tiles_x + tile_x;
    last_in[0] = ATOMIC_INC(row_counter) == (uint)(tiles_x - 1);
    last_in[1] = ATOMIC_INC(col_counter) == (uint)(tiles_y - 1);
    if (last_in[0]) ATOMIC_XCHG(row_counter, 0u);
    if (last_in[1]) ATOMIC_XCHG(col_counter, 0u);
  }
  BARRIER_ALL();
  if (!last_in[0] && !last_in[1]) return;
  DEVICE_FENCE();
  if (last_in[0]) {
#if HAS_SUM
    CAT(scan_tile_row_, SACC_S)(sum_agg, planes, tiles_x, tiles_y, plane, tile_y, height, lid, GROUP - 1);
#endif
#if HAS_SQ
    CAT(scan_tile_row_, QACC_S)(sq_agg, planes, tiles_x, tiles_y, plane, tile_y, height, lid, GROUP - 2);
#endif
  }
  if (last_in[1]) {
#if HAS_SUM
    CAT(scan_tile_column_, SACC_S)(sum_agg, planes, tiles_x, tiles_y, plane, tile_x, lid);
#endif
#if HAS_SQ
    CAT(scan_tile_column_, QACC_S)(sq_agg, planes, tiles_x, tiles_y, plane, tile_x, lid);
#endif
  }
}

/* ---- pass 2: a work-group per tile, RPW rows per warp, writes the outputs ------------------ */

/* Writes one output row's columns [xb, xb + 4) = (left, v0, v1, v2), those up to width, and
 * column width itself from v3 when xb + 4 == width is the image's last column. */
#define STORE_QUAD(T, STORE, out, row, left, v)                                                     \
  do {                                                                                              \
    GLOBAL T* qrow_ = out + out##_offset + (row) * out##_step;                                      \
    if (OUT_VEC_OK && xb + 3 <= width) {                                                            \
      *(GLOBAL CAT(T, 4)*)(qrow_ + xb) = (CAT(T, 4))(STORE(left), STORE((v)[0]), STORE((v)[1]), STORE((v)[2])); \
    } else {                                                                                        \
      if (xb <= width) qrow_[xb * channels + c] = STORE(left);                                      \
      UNROLL                                                                                        \
      for (int k_ = 0; k_ < 3; ++k_) {                                                              \
        if (xb + 1 + k_ <= width) qrow_[(xb + 1 + k_) * channels + c] = STORE((v)[k_]);             \
      }                                                                                             \
    }                                                                                               \
    if (xb + 4 == width) qrow_[width * channels + c] = STORE((v)[3]);                               \
  } while (0)

/* STORE_QUAD in a whole tile of one channel with vector outputs: no checks but the last column. */
#define STORE_QUAD_FAST(T, STORE, out, row, left, v)                                                \
  do {                                                                                              \
    GLOBAL T* qrow_ = out + out##_offset + (row) * out##_step;                                      \
    *(GLOBAL CAT(T, 4)*)(qrow_ + xb) = (CAT(T, 4))(STORE(left), STORE((v)[0]), STORE((v)[1]), STORE((v)[2])); \
    if (xb + 4 == width) qrow_[width] = STORE((v)[3]);                                              \
  } while (0)

/* One quantity's start for warp `warp`, whose rows are [yw, yw + RPW) with yw = y0 + RPW warp:
 * acc = S(yw, x + 1) of the lane's columns, edge = S(yw, x0), rl = RowLeft of the tile's rows
 * (lane j holds row y0 + j), and the zero first row. With Corner = S(y0, x0) and D(x') the
 * column sums of the tile's rows above yw (from `cols`, each warp's column sums),
 *   edge = Corner + sum of RowLeft over [y0, yw),
 *   acc  = edge + sum over [x0, x] of (ColAbove + D).                                           */
#define WRITE_START(S, ACC, agg, T, STORE, out, slots, cols)                                        \
  ACC acc_##out[4], rl_##out, edge_##out;                                                           \
  do {                                                                                              \
    ACC p_[4];                                                                                      \
    UNROLL                                                                                          \
    for (int k_ = 0; k_ < 4; ++k_) p_[k_] = AGG_C(agg)[c_at + k_];                                  \
    rl_##out = y0 + lane < height ? AGG_R(agg)[r_at + lane] : 0;                                    \
    /* Corner: the sum of TL over the tiles above, four loads per lane in flight. */                \
    ACC corner_ = 0;                                                                                \
    for (int i0_ = 0; i0_ < tile_y; i0_ += 4 * 32) {                                                \
      ACC t_[4];                                                                                    \
      UNROLL                                                                                        \
      for (int u_ = 0; u_ < 4; ++u_) {                                                              \
        const int i_ = i0_ + 32 * u_ + lane;                                                        \
        t_[u_] = i_ < tile_y ? AGG_T(agg)[((long)plane * tiles_y + i_) * tiles_x + tile_x] : 0;     \
      }                                                                                             \
      UNROLL                                                                                        \
      for (int u_ = 0; u_ < 4; ++u_) corner_ += t_[u_];                                             \
    }                                                                                               \
    UNROLL                                                                                          \
    for (int w_ = 0; w_ < NW - 1; ++w_) {                                                           \
      if (w_ < warp) {                                                                              \
        UNROLL                                                                                      \
        for (int k_ = 0; k_ < 4; ++k_) p_[k_] += cols[w_][4 * lane + k_];                           \
      }                                                                                             \
    }                                                                                               \
    edge_##out = CAT(warp_sum_, S)(corner_ + (lane < RPW * warp ? rl_##out : 0), slots);            \
    UNROLL                                                                                          \
    for (int k_ = 1; k_ < 4; ++k_) p_[k_] += p_[k_ - 1];                                            \
    const ACC before_ = CAT(warp_exclusive_scan_, S)(p_[3], lane, slots) + edge_##out;              \
    UNROLL                                                                                          \
    for (int k_ = 0; k_ < 4; ++k_) acc_##out[k_] = before_ + p_[k_];                                \
    if (tile_y == 0 && warp == 0) {                                                                 \
      const ACC zero_[4] = {0, 0, 0, 0};                                                            \
      STORE_QUAD(T, STORE, out, out_row0, (ACC)0, zero_);                                           \
    }                                                                                               \
  } while (0)

/* One quantity of the warp's row j (tile row RPW warp + j) from the source quad v; FAST: a whole
 * tile (STORE_QUAD_FAST). */
#define WRITE_ROW(S, ACC, OF, T, STORE, out, slots, FAST)                                           \
  do {                                                                                              \
    ACC e_[4] = {OF(v.x), OF(v.y), OF(v.z), OF(v.w)};                                               \
    const ACC rl_ = CAT(warp_get_, S)(rl_##out, RPW * warp + j, slots);                             \
    edge_##out += rl_;                                                                              \
    ACC left_;                                                                                      \
    CAT(write_row_step_, S)(e_, acc_##out, rl_, edge_##out, &left_, lane, slots);                   \
    if (FAST) {                                                                                     \
      STORE_QUAD_FAST(T, STORE, out, out_row0 + y + 1, left_, acc_##out);                           \
    } else if (y < height) {                                                                        \
      STORE_QUAD(T, STORE, out, out_row0 + y + 1, left_, acc_##out);                                \
    }                                                                                               \
  } while (0)

/* The lane's column sums over the warp's rows, published in `cols` for the warps below. */
#define COLUMN_SUMS(ACC, OF, cols)                                                                  \
  do {                                                                                              \
    ACC d_[4] = {0, 0, 0, 0};                                                                       \
    UNROLL                                                                                          \
    for (int j = 0; j < RPW; ++j) {                                                                 \
      d_[0] += OF(raw[j].x), d_[1] += OF(raw[j].y), d_[2] += OF(raw[j].z), d_[3] += OF(raw[j].w);   \
    }                                                                                               \
    UNROLL                                                                                          \
    for (int k_ = 0; k_ < 4; ++k_) cols[warp][4 * lane + k_] = d_[k_];                             \
  } while (0)

KERNEL REQD_GROUP_SIZE(GROUP, 1, 1) void integral_tiled_write(int width, int height, int channels, int planes,
                                                             int tiles_x, int tiles_y SUM_AGG_PARAM SQ_AGG_PARAM,
                                                             CONST_IMAGE_PARAM(SRC_T, src) SUM_PARAM SQ_PARAM) {
  const int lid = LOCAL_ID(0), lane = lid & 31, warp = lid >> 5;
  const int tile_x = GROUP_ID(0), tile_y = GROUP_ID(1), plane = GROUP_ID(2);
  const int b = plane / channels, c = plane % channels;
  const int x0 = tile_x * TW, y0 = tile_y * TH, yw = y0 + RPW * warp;
  const int xb = x0 + 4 * lane;
  const int out_row0 = b * (height + 1);
  const long r_at = ((long)plane * tiles_x + tile_x) * tiles_y * TH + y0;
  const long c_at = ((long)plane * tiles_y + tile_y) * tiles_x * TW + xb;
  /* A whole tile: unconditional vector loads, no checks on the stores. */
  const bool full = SRC_VEC_OK && OUT_VEC_OK && x0 + TW <= width && y0 + TH <= height;
  SRC_T4 raw[RPW];
  if (full) {
    GLOBAL const SRC_T4* quads = (GLOBAL const SRC_T4*)(src + src_offset + (b * height + yw) * src_step + xb);
    UNROLL
    for (int j = 0; j < RPW; ++j) raw[j] = quads[j * (src_step / 4)];
  } else {
    UNROLL
    for (int j = 0; j < RPW; ++j) raw[j] = load_quad(src, src_offset, src_step, width, height, channels, b, c, xb, yw + j);
  }
#if HAS_SUM
  LOCAL SACC s_slots[GROUP];
  LOCAL SACC s_cols[NW][TW];
  COLUMN_SUMS(SACC, SUM_OF, s_cols);
#endif
#if HAS_SQ
  LOCAL QACC q_slots[GROUP];
  LOCAL QACC q_cols[NW][TW];
  COLUMN_SUMS(QACC, SQ_OF, q_cols);
#endif
  BARRIER_LOCAL();
#if HAS_SUM
  WRITE_START(SACC_S, SACC, sum_agg, SUM_T, SUM_STORE, sum, s_slots, s_cols);
#endif
#if HAS_SQ
  WRITE_START(QACC_S, QACC, sq_agg, SQ_T, SQ_STORE, sq, q_slots, q_cols);
#endif
  /* The two loops differ only in WRITE_ROW's FAST, a constant, so that whole tiles carry no checks. */
  if (full) {
    ROW_UNROLL
    for (int j = 0; j < RPW; ++j) {
      const int y = yw + j;
      const SRC_T4 v = raw[j];
#if HAS_SUM
      WRITE_ROW(SACC_S, SACC, SUM_OF, SUM_T, SUM_STORE, sum, s_slots, 1);
#endif
#if HAS_SQ
      WRITE_ROW(QACC_S, QACC, SQ_OF, SQ_T, SQ_STORE, sq, q_slots, 1);
#endif
    }
  } else {
    ROW_UNROLL
    for (int j = 0; j < RPW; ++j) {
      const int y = yw + j;
      const SRC_T4 v = raw[j];
#if HAS_SUM
      WRITE_ROW(SACC_S, SACC, SUM_OF, SUM_T, SUM_STORE, sum, s_slots, 0);
#endif
#if HAS_SQ
      WRITE_ROW(QACC_S, QACC, SQ_OF, SQ_T, SQ_STORE, sq, q_slots, 0);
#endif
    }
  }
}
