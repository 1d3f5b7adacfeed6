/* Integral images, method `tiled`: one launch in three phases.
 * Host side: src/ops/integral_tiled.cpp; the method is written up in docs/integral.md.
 *
 * Tiles are TW = 128 columns (32 lanes x 4) by TH rows of one channel plane. Work-groups take
 * tickets and work in ticket order:
 *   reduce  a work-group per tile: its row totals R(y), column totals C(x) and total T.
 *   scan    work-groups of 32 lines: exclusive scans of the aggregates, in place, a line per
 *           lane and each line's values split among the warps: each row's R across the tiles
 *           becomes RowLeft(y) = sum of row y left of each tile, each tile row's T becomes
 *           TL = sum of T left of each tile, and each column's C down the tiles becomes
 *           ColAbove(x) = sum of column x above each tile.
 *   write   a work-group per tile, each warp walking RPW = TH / NW of its rows: with
 *             S(y, x)  = OpenCV's integral (sum of src over y' < y, x' < x),
 *             Corner   = S(y0, x0) = sum of TL over the tiles above (in this tile column),
 *           S(y0, x + 1) = Corner + sum of ColAbove over [x0, x]; a warp starting below y0 adds
 *           the rows above it in the tile (their RowLeft, and their column sums, which every
 *           warp leaves in local memory); then row by row
 *           S(y + 1, x + 1) = S(y, x + 1) + RowLeft(y) + sum of src(y, x') over [x0, x].
 * Each phase waits on flags of the one before (below, at the kernel). The source is read twice
 * (the second time mostly from L2) and every output written once, by streaming stores (7%
 * faster at 3840x2160 on the H100, 8% with the f64 squared sum). One launch instead of a
 * reduce launch and a scan-and-write launch saved 3.4 us at 3840x2160 on the H100 (measured) and
 * cost 3% at 7680x4320, where the reduce phase runs at the write phase's register count.
 * Order-free requests only (integer accumulation modulo 2^n; docs/integral.md).
 *
 * Options:
 *   SRC_T/SRC_DEPTH, HAS_SUM, HAS_SQ, SUM_T/SUM_DEPTH, SQ_T/SQ_DEPTH, COUNT  as in integral.cl
 *   SACC, SACC_S / QACC, QACC_S  accumulators (uint/u32 or ulong/u64) of the sum and the square
 *   NW          warps per work-group (4: a tile's rows in bands of RPW)
 *   TH          rows per tile: 32 (a warp holds a tile's RowLeft, a row per lane)
 *   SRC_VEC_OK  1 when a lane may read its 4 source elements of a row as one aligned vector
 *   OUT_VEC_OK  1 when outputs may be written as aligned 4-element vectors
 * Aggregate buffers (one per quantity, in its accumulator type), for P planes:
 *   R [P][tiles_x][tiles_y * TH], C [P][tiles_y][tiles_x * TW], T [P][tiles_y][T_PITCH(tiles_x)] */
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
#define QUAD_ROWS RPW
#include "integral_tiles.h"
/* The write phase's row loops: unrolled with shuffles (registers indexed by constants); kept
 * rolled without them, where every warp operation holds barriers that CPU compilers handle
 * slowly when copied 32 times. */
#if HAS_WARP_SHUFFLE
#define ROW_UNROLL UNROLL
#else
#define ROW_UNROLL _Pragma("nounroll")
#endif

/* The aggregate regions of one quantity (needs planes, tiles_x, tiles_y in scope). */
#define AGG_R(agg) (agg)
#define AGG_C(agg) ((agg) + (long)planes * tiles_x * tiles_y * TH)
#define AGG_T(agg) (AGG_C(agg) + (long)planes * tiles_y * tiles_x * TW)
/* T's rows of tiles are T_PITCH values apart: whole cache lines (below, before the write phase). */
#define T_PITCH(tiles_x) (((tiles_x) + 31) & ~31)

/* Per accumulator type S (u32 / u64) and ACC: the write phase's step for one row. */
#define TILED_FUNCTIONS(S, ACC)                                                                       \
  /* One row of a tile in the write phase: e holds the lane's 4 source quantities; acc, S(y, x + 1)  \
   * of the lane's columns, becomes S(y + 1, x + 1); col0, the sum of the lane's first column over  \
   * the rows above y, takes in row y, and `left` receives S(y + 1, x0 + 4 lane) = acc[0] - col0,  \
   * the column before the lane's first.                                                        */ \
  INLINE void write_row_step_##S(ACC e[4], ACC acc[4], ACC row_left, ACC* col0, ACC* left, int lane, \
                                 LOCAL ACC* slots) {                                                 \
    ACC p[4];                                                                                        \
    p[0] = e[0];                                                                                     \
    UNROLL                                                                                           \
    for (int k = 1; k < 4; ++k) p[k] = p[k - 1] + e[k];                                              \
    const ACC before = warp_exclusive_scan_##S(p[3], lane, slots) + row_left;                       \
    UNROLL                                                                                           \
    for (int k = 0; k < 4; ++k) acc[k] += p[k] + before;                                             \
    *col0 += e[0];                                                                                   \
    *left = acc[0] - *col0;                                                                          \
  }                                                                                                  \
  /* The same where a row's sums within the tile fit 32 bits (ROW_FITS_32): e and the warp's scan  \
   * in uint, then widened (fewer registers and shuffles for 64-bit accumulators); with `given`,   \
   * the scan's result is `given_before` (paired rows, below).                                  */ \
  INLINE void write_row_step_32_##S(uint e[4], ACC acc[4], ACC row_left, ACC* col0, ACC* left, int lane, \
                                    LOCAL ACC* slots, bool given, uint given_before) {               \
    uint p[4];                                                                                       \
    p[0] = e[0];                                                                                     \
    UNROLL                                                                                           \
    for (int k = 1; k < 4; ++k) p[k] = p[k - 1] + e[k];                                              \
    const uint before = given ? given_before : warp_exclusive_scan_u32(p[3], lane, (LOCAL uint*)slots); \
    UNROLL                                                                                           \
    for (int k = 0; k < 4; ++k) acc[k] += (ACC)(p[k] + before) + row_left;                          \
    *col0 += e[0];                                                                                   \
    *left = acc[0] - *col0;                                                                          \
  }

TILED_FUNCTIONS(u32, uint)
TILED_FUNCTIONS(u64, ulong)

#if HAS_SUM
#define SUM_AGG_ARG , sum_agg
#define SUM_AGG_PARAM , GLOBAL SACC* RESTRICT sum_agg
#define SUM_PARAM , IMAGE_PARAM(SUM_T, sum)
#define SUM_STORE(a) STORE_AS(SUM_T, SUM_DEPTH, a)
#else
#define SUM_AGG_ARG
#define SUM_AGG_PARAM
#define SUM_PARAM
#endif
#if HAS_SQ
#define SQ_AGG_ARG , sq_agg
#define SQ_AGG_PARAM , GLOBAL QACC* RESTRICT sq_agg
#define SQ_PARAM , IMAGE_PARAM(SQ_T, sq)
#define SQ_STORE(a) STORE_AS(SQ_T, SQ_DEPTH, a)
#else
#define SQ_AGG_ARG
#define SQ_AGG_PARAM
#define SQ_PARAM
#endif

#if COUNT
#define SUM_OF(v) ((SACC)((v) != (SRC_T)0))
#define SUM_OF_32(v) ((uint)((v) != (SRC_T)0))
#else
#define SUM_OF(v) ((SACC)(v))
#define SUM_OF_32(v) ((uint)(v))
#endif
#define SQ_OF(v) ((QACC)(v) * (QACC)(v))
#define SQ_OF_32(v) ((uint)(v) * (uint)(v))
/* ROW_FITS_32: the sum of a tile row's quantities (128 values) stays below 2^32. */
#define SUM_ROW_FITS_32 (COUNT || SRC_DEPTH == DEPTH_U8 || SRC_DEPTH == DEPTH_U16)
#define SQ_ROW_FITS_32 (SRC_DEPTH == DEPTH_U8)

/* Tile `tile`, row-major over planes, rows and columns of tiles (needs tiles_x, tiles_y). */
#define TILE_COORDS(tile)                                                                  \
  const int plane = (tile) / (tiles_x * tiles_y), tile_y = (tile) % (tiles_x * tiles_y) / tiles_x, \
            tile_x = (tile) % tiles_x;                                                      \
  const int b = plane / channels, c = plane % channels

/* ---- reduce: tile aggregates ------------------------------------------------------------ */

/* The reduce phase adds in 32 bits where a whole tile's sums fit them (ROW_FITS_32 sources: a
 * tile's 4096 values stay below 2^32 too), and widens what it stores. */
#if SUM_ROW_FITS_32
#define SRED uint
#define SRED_S u32
#define SUM_RED_OF SUM_OF_32
#else
#define SRED SACC
#define SRED_S SACC_S
#define SUM_RED_OF SUM_OF
#endif
#if SQ_ROW_FITS_32
#define QRED uint
#define QRED_S u32
#define SQ_RED_OF SQ_OF_32
#else
#define QRED QACC
#define QRED_S QACC_S
#define SQ_RED_OF SQ_OF
#endif

/* One quantity (RED/RED_S: the reduce phase's type, OF: a source value's quantity) of the warp's
 * rows: their totals R (stored widened to WIDE), and the lane's column totals in `cols`. */
#define REDUCE_ROWS(RED, RED_S, OF, WIDE, WIDE_S, agg, cols, slots)                                  \
  do {                                                                                              \
    RED col_[4] = {0, 0, 0, 0}, part_[RPW], row_ = 0;                                               \
    UNROLL                                                                                          \
    for (int j = 0; j < RPW; ++j) {                                                                 \
      const RED e0 = OF(raw[j].x), e1 = OF(raw[j].y), e2 = OF(raw[j].z), e3 = OF(raw[j].w);         \
      col_[0] += e0, col_[1] += e1, col_[2] += e2, col_[3] += e3;                                   \
      part_[j] = e0 + e1 + e2 + e3;                                                                 \
    }                                                                                               \
    WARP_ROW_TOTALS(RED_S, RED, part_, row_, slots);                                                \
    if (row_out) CAT(store_past_l1_, WIDE_S)(AGG_R(agg) + r_at, (WIDE)row_);                        \
    UNROLL                                                                                          \
    for (int k = 0; k < 4; ++k) cols[warp][4 * lane + k] = col_[k];                                 \
  } while (0)

/* One quantity's column totals C and its warps' shares of T (after the barrier that follows R). */
#define REDUCE_COLUMNS(S, ACC, WIDE, WIDE_S, agg, cols, warps_sum, slots) \
  do {                                                                   \
    ACC part_ = 0;                                                       \
    if (lid < TW) {                                                      \
      UNROLL                                                             \
      for (int w = 0; w < NW; ++w) part_ += cols[w][lid];                \
      CAT(store_past_l1_, WIDE_S)(AGG_C(agg) + c_at + lid, (WIDE)part_); \
    }                                                                    \
    part_ = CAT(warp_sum_, S)(part_, slots);                             \
    if (lane == 0) warps_sum[warp] = part_;                              \
  } while (0)

/* One quantity's tile total T, by work-item 0 (after the barrier that follows REDUCE_COLUMNS). */
#define REDUCE_TOTAL(RED, WIDE, WIDE_S, agg, warps_sum)                   \
  do {                                                                   \
    RED total_ = 0;                                                      \
    for (int w = 0; w < NW; ++w) total_ += warps_sum[w];                 \
    CAT(store_past_l1_, WIDE_S)(AGG_T(agg) + t_at, (WIDE)total_);        \
  } while (0)

#if HAS_SUM
#define SUM_RED_LOCAL_PARAM , LOCAL SRED* s_slots, LOCAL SRED(*s_cols)[TW], LOCAL SRED* s_warps
#define SUM_RED_LOCAL_ARG , rs_slots, rs_cols, rs_warps
#else
#define SUM_RED_LOCAL_PARAM
#define SUM_RED_LOCAL_ARG
#endif
#if HAS_SQ
#define SQ_RED_LOCAL_PARAM , LOCAL QRED* q_slots, LOCAL QRED(*q_cols)[TW], LOCAL QRED* q_warps
#define SQ_RED_LOCAL_ARG , rq_slots, rq_cols, rq_warps
#else
#define SQ_RED_LOCAL_PARAM
#define SQ_RED_LOCAL_ARG
#endif

/* The warp's rows of tile `tile` for reduce_tile. */
INLINE void load_reduce_rows(int width, int height, int channels, int tiles_x, int tiles_y, int tile,
                             CONST_IMAGE_PARAM(SRC_T, src), SRC_T4* raw) {
  const int lane = LOCAL_ID(0) & 31, warp = LOCAL_ID(0) >> 5;
  TILE_COORDS(tile);
  const bool whole = SRC_VEC_OK && (tile_x + 1) * TW <= width && (tile_y + 1) * TH <= height;
  load_rows(src, src_offset, src_step, width, height, channels, b, c, tile_x * TW + 4 * lane, tile_y * TH + RPW * warp,
            whole, raw);
}

/* Tile `tile`'s R, C and T to the aggregates, from the warp's rows in `raw`. */
INLINE void reduce_tile(int height, int channels, int planes, int tiles_x, int tiles_y, int tile,
                        const SRC_T4* raw SUM_AGG_PARAM SQ_AGG_PARAM SUM_RED_LOCAL_PARAM SQ_RED_LOCAL_PARAM) {
  const int lid = LOCAL_ID(0), lane = lid & 31, warp = lid >> 5;
  TILE_COORDS(tile);
  (void)b, (void)c;
  const int yb = tile_y * TH + RPW * warp;
  const int row = WARP_ROW_OF(lane); /* the row whose total the lane ends with */
  const bool row_out = WARP_ROW_OWNER(lane) && yb + row < height;
  const long r_at = ((long)plane * tiles_x + tile_x) * tiles_y * TH + yb + row;
  const long c_at = ((long)plane * tiles_y + tile_y) * tiles_x * TW + tile_x * TW;
  const long t_at = ((long)plane * tiles_y + tile_y) * T_PITCH(tiles_x) + tile_x;
#if HAS_SUM
  REDUCE_ROWS(SRED, SRED_S, SUM_RED_OF, SACC, SACC_S, sum_agg, s_cols, s_slots);
#endif
#if HAS_SQ
  REDUCE_ROWS(QRED, QRED_S, SQ_RED_OF, QACC, QACC_S, sq_agg, q_cols, q_slots);
#endif
  BARRIER_LOCAL();
#if HAS_SUM
  REDUCE_COLUMNS(SRED_S, SRED, SACC, SACC_S, sum_agg, s_cols, s_warps, s_slots);
#endif
#if HAS_SUM && HAS_SQ && !HAS_WARP_SHUFFLE
  /* Not needed by the memory model; PoCL 3.1 loses the sum's warps_sum store without it (the
   * tiles' totals came out 0 in tests). */
  BARRIER_LOCAL();
#endif
#if HAS_SQ
  REDUCE_COLUMNS(QRED_S, QRED, QACC, QACC_S, sq_agg, q_cols, q_warps, q_slots);
#endif
  BARRIER_LOCAL();
  if (lid == 0) {
#if HAS_SUM
    REDUCE_TOTAL(SRED, SACC, SACC_S, sum_agg, s_warps);
#endif
#if HAS_SQ
    REDUCE_TOTAL(QRED, QACC, QACC_S, sq_agg, q_warps);
#endif
  }
}

/* ---- scan: exclusive scans of the aggregates, in place ----------------------------------- */

/* Values a lane loads before using any. The H100's compiler gave the whole kernel 80 registers
 * with 18 for a sum with its squared sum, 93-94 with 12 or 16 and 122 with 24 (measured). */
#define SCAN_BATCH 18

/* One quantity's scan of the lane's line (values `stride` apart from `line` on), in two steps
 * around a barrier, so that every quantity's loads are in flight at once: SCAN_OWN declares v
 * and own and sums the lane's part [lo, hi) of the values (a part per warp) into own; after the
 * caller has left own in `totals` (LOCAL, a value per work-item) and passed a barrier, SCAN_STORE
 * writes the exclusive scan. */
#define SCAN_OWN(ACC, line, stride, lo, hi, v, own)                                                   \
  ACC v[SCAN_BATCH], own = 0;                                                                       \
  for (int i0_ = lo; i0_ < hi; i0_ += SCAN_BATCH) {                                                 \
    UNROLL                                                                                          \
    for (int u_ = 0; u_ < SCAN_BATCH; ++u_) v[u_] = i0_ + u_ < hi ? (line)[(long)(i0_ + u_) * (stride)] : 0; \
    UNROLL                                                                                          \
    for (int u_ = 0; u_ < SCAN_BATCH; ++u_) own += v[u_];                                           \
  }
#define SCAN_STORE(ACC, line, stride, lo, hi, v, totals)                                              \
  do {                                                                                              \
    ACC run_ = 0;                                                                                   \
    for (int p_ = 0; p_ < warp; ++p_) run_ += totals[32 * p_ + lane];                               \
    for (int i0_ = lo; i0_ < hi; i0_ += SCAN_BATCH) {                                               \
      if (hi - lo > SCAN_BATCH) {                                                                   \
        UNROLL                                                                                      \
        for (int u_ = 0; u_ < SCAN_BATCH; ++u_) v[u_] = i0_ + u_ < hi ? (line)[(long)(i0_ + u_) * (stride)] : 0; \
      }                                                                                             \
      UNROLL                                                                                        \
      for (int u_ = 0; u_ < SCAN_BATCH; ++u_) {                                                     \
        if (i0_ + u_ < hi) (line)[(long)(i0_ + u_) * (stride)] = run_;                              \
        run_ += v[u_];                                                                              \
      }                                                                                             \
    }                                                                                               \
  } while (0)

/* Scan work-group `g` takes lines 32 g + lane, a line per lane, each line's values split among the
 * NW warps. Lines: every row of every plane (R across the tiles_x tiles), then every column (C
 * down the tiles_y tiles), then every row of tiles (T across); 32 | planes * tiles_y * TH and
 * 32 | planes * tiles_x * TW, so a tile's rows are one scan group and its columns four. */
INLINE void scan_line_geometry(int g, int lane, int height, int planes, int tiles_x, int tiles_y, long* first,
                               long* stride, int* count) {
  const long rows = (long)planes * tiles_y * TH, columns = (long)planes * tiles_x * TW;
  long id = (long)g * 32 + lane;
  *first = 0, *stride = 1, *count = 0;
  if (id < rows) {
    const long plane = id / ((long)tiles_y * TH), y = id % ((long)tiles_y * TH);
    if (y < height) *count = tiles_x, *stride = (long)tiles_y * TH, *first = plane * tiles_x * tiles_y * TH + y;
  } else if ((id -= rows) < columns) {
    const long cw = (long)tiles_x * TW;
    *count = tiles_y, *stride = cw, *first = rows * tiles_x + id / cw * tiles_y * cw + id % cw;
  } else if ((id -= columns) < (long)planes * tiles_y) {
    *count = tiles_x, *first = rows * tiles_x + columns * tiles_y + id * T_PITCH(tiles_x);
  }
}

INLINE int scan_groups(int planes, int tiles_x, int tiles_y) {
  return (int)(((long)planes * (tiles_y * TH + tiles_x * TW + tiles_y) + 31) / 32);
}

/* The write phase's tiles wait for the scan groups that hold their lines: flags[g] == epoch. */
#define SCAN_FLAG(g) (sync + 64 + (g))

/* ---- write: a tile per work-group, RPW rows per warp ----------------------------------------- */

/* Writes one output row's columns [xb, xb + 4) = (left, v0, v1, v2), those up to width, and
 * column width itself from v3 when xb + 4 == width is the image's last column. */
#define STORE_QUAD(T, STORE, out, row, left, v)                                                     \
  do {                                                                                              \
    GLOBAL T* qrow_ = out + out##_offset + (row) * out##_step;                                      \
    if (OUT_VEC_OK && xb + 3 <= width) {                                                            \
      CAT(stream_store4_, T)(qrow_ + xb, VEC4(CAT(T, 4), STORE(left), STORE((v)[0]), STORE((v)[1]), STORE((v)[2]))); \
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
    CAT(stream_store4_, T)(qrow_ + xb, VEC4(CAT(T, 4), STORE(left), STORE((v)[0]), STORE((v)[1]), STORE((v)[2]))); \
    if (xb + 4 == width) qrow_[width] = STORE((v)[3]);                                              \
  } while (0)

/* One quantity's start for warp `warp`, whose rows are [yw, yw + RPW) with yw = y0 + RPW warp:
 * acc = S(yw, x + 1) of the lane's columns, rl = RowLeft of the tile's rows (lane j holds row
 * y0 + j), col0 = ColAbove + D of the lane's first column, and the zero first row. With
 * Corner = S(y0, x0) and D(x') the column sums of the tile's rows above yw (from `cols`, each
 * warp's column sums),
 *   edge = S(yw, x0) = Corner + sum of RowLeft over [y0, yw),
 *   acc  = edge + sum over [x0, x] of (ColAbove + D).                                           */
#define WRITE_START(S, ACC, agg, T, STORE, out, slots, cols)                                        \
  ACC acc_##out[4], rl_##out, col0_##out;                                                           \
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
        t_[u_] = i_ < tile_y ? AGG_T(agg)[((long)plane * tiles_y + i_) * T_PITCH(tiles_x) + tile_x] : 0;   \
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
    col0_##out = p_[0];                                                                             \
    const ACC edge_ = CAT(warp_sum_, S)(corner_ + (lane < RPW * warp ? rl_##out : 0), slots);       \
    UNROLL                                                                                          \
    for (int k_ = 1; k_ < 4; ++k_) p_[k_] += p_[k_ - 1];                                            \
    const ACC before_ = CAT(warp_exclusive_scan_, S)(p_[3], lane, slots) + edge_;                   \
    UNROLL                                                                                          \
    for (int k_ = 0; k_ < 4; ++k_) acc_##out[k_] = before_ + p_[k_];                                \
    if (tile_y == 0 && warp == 0) {                                                                 \
      const ACC zero_[4] = {0, 0, 0, 0};                                                            \
      STORE_QUAD(T, STORE, out, out_row0, (ACC)0, zero_);                                           \
    }                                                                                               \
  } while (0)

/* One quantity (SUM or SQ) of the warp's row j (tile row RPW warp + j) from the source quad v;
 * FAST: a whole tile (STORE_QUAD_FAST); PAIRED: the row's scan is BEFORE (SUM_PAIR). */
#define WRITE_ROW(S, ACC, OF, T, STORE, out, slots, FAST, PAIRED, BEFORE)                           \
  do {                                                                                              \
    const ACC rl_ = CAT(warp_get_, S)(rl_##out, RPW * warp + j, slots);                             \
    ACC left_;                                                                                      \
    if ((sizeof(ACC) == 8 || (PAIRED)) && OF##_ROW_FITS_32) {                                       \
      uint e_[4] = {OF##_OF_32(v.x), OF##_OF_32(v.y), OF##_OF_32(v.z), OF##_OF_32(v.w)};            \
      CAT(write_row_step_32_, S)(e_, acc_##out, rl_, &col0_##out, &left_, lane, slots, PAIRED, BEFORE); \
    } else {                                                                                        \
      ACC e_[4] = {OF##_OF(v.x), OF##_OF(v.y), OF##_OF(v.z), OF##_OF(v.w)};                         \
      CAT(write_row_step_, S)(e_, acc_##out, rl_, &col0_##out, &left_, lane, slots);                \
    }                                                                                               \
    if (FAST) {                                                                                     \
      STORE_QUAD_FAST(T, STORE, out, out_row0 + y + 1, left_, acc_##out);                           \
    } else if (y < height) {                                                                        \
      STORE_QUAD(T, STORE, out, out_row0 + y + 1, left_, acc_##out);                                \
    }                                                                                               \
  } while (0)

/* SUM_PAIR: the sums' scans of two rows run as one, row j0 in the low and row j0 + 1 in the high
 * 16 bits of a uint (a lane's exclusive prefix within a tile row stays below 31 * 4 * 255 =
 * 31620): half the sums' shuffles, 0.2-0.3 us less at 3840x2160 and 0.7-1.2 at 7680x4320 on the H100. Not
 * with a squared sum, where the compiler then took 94 registers instead of 80 and 7680x4320
 * took 3% longer (measured). */
#define SUM_PAIR (HAS_SUM && !HAS_SQ && (COUNT || SRC_DEPTH == DEPTH_U8))
#if SUM_PAIR
#define ROW_SUM_32(v) (SUM_OF_32((v).x) + SUM_OF_32((v).y) + SUM_OF_32((v).z) + SUM_OF_32((v).w))
#define SUM_PAIR_SCAN(j0) \
  const uint pair_ = warp_exclusive_scan_u32(ROW_SUM_32(raw[j0]) | ROW_SUM_32(raw[(j0) + 1]) << 16, lane, (LOCAL uint*)s_slots)
#define SUM_PAIR_BEFORE(h) ((h) == 0 ? pair_ & 0xffffu : pair_ >> 16)
#else
#define SUM_PAIR_SCAN(j0) (void)0
#define SUM_PAIR_BEFORE(h) 0u
#endif

/* The warp's RPW rows of every quantity, from `raw`, two at a time. */
#if HAS_SUM
#define WRITE_SUM_ROW(FAST, h) \
  WRITE_ROW(SACC_S, SACC, SUM, SUM_T, SUM_STORE, sum, s_slots, FAST, SUM_PAIR, SUM_PAIR_BEFORE(h))
#else
#define WRITE_SUM_ROW(FAST, h)
#endif
#if HAS_SQ
#define WRITE_SQ_ROW(FAST) WRITE_ROW(QACC_S, QACC, SQ, SQ_T, SQ_STORE, sq, q_slots, FAST, 0, 0u)
#else
#define WRITE_SQ_ROW(FAST)
#endif
#if RPW % 2 != 0
#error "integral_tiled.cl: the write phase takes rows in pairs"
#endif
#define WRITE_ROWS(FAST)                     \
  do {                                       \
    ROW_UNROLL                               \
    for (int j0 = 0; j0 < RPW; j0 += 2) {    \
      SUM_PAIR_SCAN(j0);                     \
      UNROLL                                 \
      for (int h = 0; h < 2; ++h) {          \
        const int j = j0 + h, y = yw + j;    \
        const SRC_T4 v = raw[j];             \
        WRITE_SUM_ROW(FAST, h);              \
        WRITE_SQ_ROW(FAST);                  \
      }                                      \
    }                                        \
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

/* One launch; work-groups take tickets. The first tiles_x * tiles_y * planes reduce a tile each
 * (row-major) and raise its flag; the next scan_groups() wait for the flags of the tiles their
 * lines cover, scan the lines and raise their own flags; the others write a tile each (row-major),
 * polling the flags of the lines they read while their source rows load. Flags are a fence and
 * then the launch's epoch (never cleared). A work-group waits only on work-groups that took
 * earlier tickets, so already run.
 * Aggregates are read with plain loads, which no incoherent cache can answer with an old value:
 * the reduce phase stores them past L1 (store_past_l1), and each 128-byte line of them (32 rows
 * of R, 32 columns of C, a padded row of tiles of T) is loaded first by its one scan group (after
 * the flags of the tiles that wrote it), whose stores leave the scanned line in its own cache,
 * and then by tiles (after that group's flag); caches start empty in every launch. Measured on
 * the H100 (two-launch version): volatile loads instead, or a fence after the polls, cost
 * 3-8 us at 3840x2160. */
#define TILE_FLAG(t) (sync + 64 + scans + (t))

/* The group polls the flags at `flag`, `flag + step`, ... (`count` of them) until all are `epoch`. */
INLINE void wait_for_flags(GLOBAL uint* flag, int count, int step, uint epoch) {
  for (int k = LOCAL_ID(0); k < count; k += GROUP) {
    while (VOLATILE_LOAD(uint, flag + (long)k * step) != epoch) SPIN_PAUSE(64u);
  }
  BARRIER_ALL();
}

/* One quantity's local memory (prefix s: the sum, q: the squared sum): the write and scan phases'
 * warp slots and column sums in ACC, the reduce phase's in RED (r prefix) and its warps' totals. */
#define TILED_LOCALS(p, ACC, RED) \
  LOCAL_MEM ACC p##_slots[GROUP];     \
  LOCAL_MEM ACC p##_cols[NW][TW];     \
  LOCAL_MEM RED r##p##_slots[GROUP];  \
  LOCAL_MEM RED r##p##_cols[NW][TW];  \
  LOCAL_MEM RED r##p##_warps[NW]

KERNEL REQD_GROUP_SIZE(GROUP, 1, 1) void integral_tiled(int width, int height, int channels, int planes, int tiles_x,
                                                       int tiles_y, uint ticket_base, uint epoch,
                                                       GLOBAL uint* sync SUM_AGG_PARAM SQ_AGG_PARAM,
                                                       CONST_IMAGE_PARAM(SRC_T, src) SUM_PARAM SQ_PARAM) {
  const int lid = LOCAL_ID(0), lane = lid & 31, warp = lid >> 5;
  LOCAL_MEM int ticket_of_group;
#if HAS_SUM
  TILED_LOCALS(s, SACC, SRED);
#endif
#if HAS_SQ
  TILED_LOCALS(q, QACC, QRED);
#endif
  if (lid == 0) ticket_of_group = (int)TAKE_TICKET(sync, ticket_base);
  BARRIER_LOCAL();
  const int tiles = tiles_x * tiles_y, scans = scan_groups(planes, tiles_x, tiles_y);
  int ticket = ticket_of_group;
  if (ticket < planes * tiles) {
    SRC_T4 raw[RPW];
    load_reduce_rows(width, height, channels, tiles_x, tiles_y, ticket, src, src_offset, src_step, raw);
    reduce_tile(height, channels, planes, tiles_x, tiles_y, ticket, raw SUM_AGG_ARG SQ_AGG_ARG SUM_RED_LOCAL_ARG
                    SQ_RED_LOCAL_ARG);
    DEVICE_FENCE();
    BARRIER_ALL();
    if (lid == 0) ATOMIC_XCHG(TILE_FLAG(ticket), epoch);
    return;
  }
  ticket -= planes * tiles;
  if (ticket < scans) {
    /* The tiles whose aggregates the group's lines hold: a row of tiles (rows), a column of
     * tiles (columns), or the rows of tiles of its lines (T). */
    const long rows = (long)planes * tiles_y * TH, columns = (long)planes * tiles_x * TW;
    const long id = (long)ticket * 32;
    if (id < rows) {
      wait_for_flags(TILE_FLAG(ticket * tiles_x), tiles_x, 1, epoch);
    } else if (id - rows < columns) {
      const long cw = (long)tiles_x * TW;
      const int plane = (int)((id - rows) / cw), tx = (int)((id - rows) % cw / TW);
      wait_for_flags(TILE_FLAG(plane * tiles + tx), tiles_y, tiles_x, epoch);
    } else {
      const int line = (int)(id - rows - columns), lines = min(32, planes * tiles_y - line);
      wait_for_flags(TILE_FLAG(line * tiles_x), lines * tiles_x, 1, epoch);
    }
    long first, stride;
    int count;
    scan_line_geometry(ticket, lane, height, planes, tiles_x, tiles_y, &first, &stride, &count);
    const int share = (count + NW - 1) / NW;
    const int lo = min(count, warp * share), hi = min(count, lo + share);
#if HAS_SUM
    GLOBAL SACC* s_line = sum_agg + first;
    SCAN_OWN(SACC, s_line, stride, lo, hi, s_v, s_own);
    s_slots[lid] = s_own;
#endif
#if HAS_SQ
    GLOBAL QACC* q_line = sq_agg + first;
    SCAN_OWN(QACC, q_line, stride, lo, hi, q_v, q_own);
    q_slots[lid] = q_own;
#endif
    BARRIER_LOCAL();
#if HAS_SUM
    SCAN_STORE(SACC, s_line, stride, lo, hi, s_v, s_slots);
#endif
#if HAS_SQ
    SCAN_STORE(QACC, q_line, stride, lo, hi, q_v, q_slots);
#endif
    DEVICE_FENCE();
    BARRIER_ALL();
    if (lid == 0) ATOMIC_XCHG(SCAN_FLAG(ticket), epoch);
    return;
  }
  TILE_COORDS(ticket - scans);
  const int x0 = tile_x * TW, y0 = tile_y * TH, yw = y0 + RPW * warp;
  const int xb = x0 + 4 * lane;
  const int out_row0 = b * (height + 1);
  const long r_at = ((long)plane * tiles_x + tile_x) * tiles_y * TH + y0;
  const long c_at = ((long)plane * tiles_y + tile_y) * tiles_x * TW + xb;
  /* A whole tile: unconditional vector loads, no checks on the stores. */
  const bool full = SRC_VEC_OK && OUT_VEC_OK && x0 + TW <= width && y0 + TH <= height;
  SRC_T4 raw[RPW];
  load_rows(src, src_offset, src_step, width, height, channels, b, c, xb, yw, full, raw);
  /* The flags of the scan groups of this tile's rows (one), columns (four) and of the rows of
   * tiles above it (T, for Corner). */
  {
    const int rows_group = plane * tiles_y + tile_y;
    const int columns_group = planes * tiles_y + (plane * tiles_x + tile_x) * (TW / 32);
    const long t_line = (long)planes * (tiles_y * TH + tiles_x * TW) + (long)plane * tiles_y;
    const int t_first = (int)(t_line / 32), t_groups = tile_y == 0 ? 0 : (int)((t_line + tile_y - 1) / 32) - t_first + 1;
    for (int k = lid; k < 1 + TW / 32 + t_groups; k += GROUP) {
      const int g = k == 0 ? rows_group : k <= TW / 32 ? columns_group + k - 1 : t_first + k - 1 - TW / 32;
      while (VOLATILE_LOAD(uint, SCAN_FLAG(g)) != epoch) SPIN_PAUSE(64u);
    }
  }
#if HAS_SUM
  COLUMN_SUMS(SACC, SUM_OF, s_cols);
#endif
#if HAS_SQ
  COLUMN_SUMS(QACC, SQ_OF, q_cols);
#endif
  BARRIER_ALL();
#if HAS_SUM
  WRITE_START(SACC_S, SACC, sum_agg, SUM_T, SUM_STORE, sum, s_slots, s_cols);
#endif
#if HAS_SQ
  WRITE_START(QACC_S, QACC, sq_agg, SQ_T, SQ_STORE, sq, q_slots, q_cols);
#endif
  /* The two loops differ only in FAST, a constant, so that whole tiles carry no checks. */
  if (full) {
    WRITE_ROWS(1);
  } else {
    WRITE_ROWS(0);
  }
}
