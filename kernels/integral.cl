/* Integral images (sum, squared sum, tilted, count of non-zero) and their variants.
 * Host side: src/ops/integral*.cpp. Options:
 *   SRC_T/SRC_DEPTH              source element type
 *   HAS_SUM, HAS_SQ, HAS_TILTED  which outputs exist (0/1)
 *   SUM_T/SUM_DEPTH, SQ_T/SQ_DEPTH  output element types (tilted has the sum's)
 *   COUNT                        1: sum counts non-zero values instead of adding them
 * Kernels take their scalars first and images after, so that absent outputs drop out of the
 * parameter list (SUM_PARAM, SQ_PARAM) and the host passes only the images that exist.
 * Ordered variant (row_column): OpenCV's summation order, exact for every type:
 *   row prefix s accumulated left to right in the output type, then
 *   out(x, y) = out(x, y - 1) + s, top to bottom. */
#include "common/dialect.h"
#include "common/types.h"
#include "common/scan.h"

#ifndef COUNT
#define COUNT 0
#endif
#ifndef HAS_SUM
#define HAS_SUM 0
#endif
#ifndef HAS_SQ
#define HAS_SQ 0
#endif
#ifndef HAS_TILTED
#define HAS_TILTED 0
#endif

/* Integer outputs accumulate in unsigned arithmetic of their width, which wraps modulo 2^n
 * (OpenCV's int sums wrap the same way), and are stored bit for bit. */
#if HAS_SUM || HAS_TILTED
#if SUM_DEPTH == DEPTH_S32 || SUM_DEPTH == DEPTH_U32
#define SUM_ACC uint
#define SUM_STORE(a) ((SUM_T)(a))
#if SUM_DEPTH == DEPTH_S32
#undef SUM_STORE
#define SUM_STORE(a) as_int(a)
#endif
#else
#define SUM_ACC SUM_T
#define SUM_STORE(a) (a)
#endif
#endif

#if HAS_SQ
#if SQ_DEPTH == DEPTH_S32
#define SQ_ACC uint
#define SQ_STORE(a) as_int(a)
#elif SQ_DEPTH == DEPTH_S64
#define SQ_ACC ulong
#define SQ_STORE(a) as_long(a)
#else
#define SQ_ACC SQ_T
#define SQ_STORE(a) (a)
#endif
#endif

#if COUNT
#define SUM_VALUE(v) ((SUM_ACC)((v) != (SRC_T)0))
#else
#define SUM_VALUE(v) ((SUM_ACC)(v))
#endif
/* OpenCV squares in the squared sum's type: (QT)v * v. */
#define SQ_VALUE(v) ((SQ_ACC)(v) * (SQ_ACC)(v))

#if HAS_SUM
#define SUM_PARAM , IMAGE_PARAM(SUM_T, sum)
#else
#define SUM_PARAM
#endif
#if HAS_SQ
#define SQ_PARAM , IMAGE_PARAM(SQ_T, sq)
#else
#define SQ_PARAM
#endif

/* ---- row_column: pass 1, one work-item per (source row, channel) -------------------------- */
KERNEL void integral_rows_ordered(int width, int height, int channels, int rows,
                                  CONST_IMAGE_PARAM(SRC_T, src) SUM_PARAM SQ_PARAM) {
  const int r = GLOBAL_ID(0);
  const int c = GLOBAL_ID(1);
  if (r >= rows || c >= channels) return;
  const int out_y = r + r / height + 1; /* image b's row y lands on output row b * (height + 1) + y + 1 */
#if HAS_SUM
  SUM_ACC s = 0;
  IMAGE_AT(sum, c, out_y) = SUM_STORE((SUM_ACC)0);
#endif
#if HAS_SQ
  SQ_ACC q = 0;
  IMAGE_AT(sq, c, out_y) = SQ_STORE((SQ_ACC)0);
#endif
  /* Unrolled so that loads run ahead of the (inherently sequential) chain of additions. */
#pragma unroll 16
  for (int x = 0; x < width; ++x) {
    const SRC_T v = IMAGE_AT(src, x * channels + c, r);
#if HAS_SUM
    s += SUM_VALUE(v);
    IMAGE_AT(sum, (x + 1) * channels + c, out_y) = SUM_STORE(s);
#endif
#if HAS_SQ
    q += SQ_VALUE(v);
    IMAGE_AT(sq, (x + 1) * channels + c, out_y) = SQ_STORE(q);
#endif
  }
}

/* ---- row_column, order-free requests: pass 1 with one warp per (source row, channel) --------
 * Lanes hold 4 consecutive values; a warp scan (shuffles, or scan.h's emulation) joins them, a
 * running carry joins the 128-value chunks along the row. Exact only where any summation order
 * is (integer accumulation): ROW_ACC is uint for 32-bit outputs, ulong otherwise, and rows are
 * stored as exact integers in the output type. */
#ifdef ROW_ACC
#define ROW_CAT_(a, b) a##b
#define ROW_CAT(a, b) ROW_CAT_(a, b)
#define ROW_SCAN ROW_CAT(warp_exclusive_scan_, ROW_ACC_SUFFIX)
#define ROW_GET ROW_CAT(warp_get_, ROW_ACC_SUFFIX)
#if HAS_SUM
#if SUM_DEPTH == DEPTH_S32
#define ROW_STORE_SUM(a) as_int((uint)(a))
#elif SUM_DEPTH == DEPTH_U32
#define ROW_STORE_SUM(a) ((uint)(a))
#else
#define ROW_STORE_SUM(a) ((SUM_T)as_long((ulong)(a)))
#endif
#endif
#if HAS_SQ
#if SQ_DEPTH == DEPTH_S32
#define ROW_STORE_SQ(a) as_int((uint)(a))
#elif SQ_DEPTH == DEPTH_U64
#define ROW_STORE_SQ(a) ((ulong)(a))
#else
#define ROW_STORE_SQ(a) ((SQ_T)as_long((ulong)(a)))
#endif
#endif

KERNEL REQD_GROUP_SIZE(ROW_GROUP, 1, 1) void integral_rows_warp(int width, int height, int channels, int rows,
                                                                CONST_IMAGE_PARAM(SRC_T, src) SUM_PARAM SQ_PARAM) {
  LOCAL_MEM ROW_ACC slots[ROW_GROUP];
  const int lane = LOCAL_ID(0) & 31;
  const int r = GROUP_ID(0) * (ROW_GROUP / 32) + (LOCAL_ID(0) >> 5);
  const int c = GROUP_ID(1);
  /* Whole warps leave together, so the warp operations below see all their lanes. */
  const bool active = r < rows;
  const int out_y = r + r / height + 1;
  GLOBAL const SRC_T* row = src + IMAGE_INDEX(src, c, active ? r : 0);
#if HAS_SUM
  ROW_ACC carry_sum = 0;
  if (active && lane == 0) IMAGE_AT(sum, c, out_y) = ROW_STORE_SUM((ROW_ACC)0);
#endif
#if HAS_SQ
  ROW_ACC carry_sq = 0;
  if (active && lane == 0) IMAGE_AT(sq, c, out_y) = ROW_STORE_SQ((ROW_ACC)0);
#endif
  for (int base = 0; base < width; base += 128) {
    const int x0 = base + 4 * lane;
    SRC_T e[4];
    UNROLL
    for (int k = 0; k < 4; ++k) e[k] = active && x0 + k < width ? row[(x0 + k) * channels] : (SRC_T)0;
#if HAS_SUM
    {
      ROW_ACC t[4];
#if COUNT
      t[0] = (ROW_ACC)(e[0] != (SRC_T)0);
#else
      t[0] = (ROW_ACC)e[0];
#endif
      UNROLL
      for (int k = 1; k < 4; ++k) {
#if COUNT
        t[k] = t[k - 1] + (ROW_ACC)(e[k] != (SRC_T)0);
#else
        t[k] = t[k - 1] + (ROW_ACC)e[k];
#endif
      }
      const ROW_ACC before = carry_sum + ROW_SCAN(t[3], lane, slots);
      UNROLL
      for (int k = 0; k < 4; ++k) {
        if (active && x0 + k < width) IMAGE_AT(sum, (x0 + k + 1) * channels + c, out_y) = ROW_STORE_SUM(before + t[k]);
      }
      carry_sum = ROW_GET(before + t[3], 31, slots);
    }
#endif
#if HAS_SQ
    {
      ROW_ACC t[4];
      t[0] = (ROW_ACC)e[0] * (ROW_ACC)e[0];
      UNROLL
      for (int k = 1; k < 4; ++k) t[k] = t[k - 1] + (ROW_ACC)e[k] * (ROW_ACC)e[k];
      const ROW_ACC before = carry_sq + ROW_SCAN(t[3], lane, slots);
      UNROLL
      for (int k = 0; k < 4; ++k) {
        if (active && x0 + k < width) IMAGE_AT(sq, (x0 + k + 1) * channels + c, out_y) = ROW_STORE_SQ(before + t[k]);
      }
      carry_sq = ROW_GET(before + t[3], 31, slots);
    }
#endif
  }
}
#endif /* ROW_ACC */

/* ---- row_column: pass 2, one work-item per (output element column, image of the batch) ----- */
KERNEL void integral_columns_ordered(int row_elements, int height SUM_PARAM SQ_PARAM) {
  const int i = GLOBAL_ID(0);
  const int b = GLOBAL_ID(1);
  if (i >= row_elements) return;
  const int y0 = b * (height + 1);
#if HAS_SUM
  SUM_ACC s = 0;
  IMAGE_AT(sum, i, y0) = SUM_STORE(s);
#endif
#if HAS_SQ
  SQ_ACC q = 0;
  IMAGE_AT(sq, i, y0) = SQ_STORE(q);
#endif
#pragma unroll 8
  for (int y = y0 + 1; y <= y0 + height; ++y) {
#if HAS_SUM
    s = (SUM_ACC)IMAGE_AT(sum, i, y) + s;
    IMAGE_AT(sum, i, y) = SUM_STORE(s);
#endif
#if HAS_SQ
    q = (SQ_ACC)IMAGE_AT(sq, i, y) + q;
    IMAGE_AT(sq, i, y) = SQ_STORE(q);
#endif
  }
}

/* ---- single_pass: one launch over tiles joined by decoupled look-back -----------------------
 * For order-free requests (integer accumulation; docs/integral.md). Options:
 *   ACC, ACC_S  accumulator type and its scan.h suffix: uint/u32 (wraps modulo 2^32) or ulong/u64
 *   NW, RY      work-group of NW warps of 32 lanes; a lane holds 4 columns of RY rows, so a tile
 *               is TILE_W = 128 columns by TILE_H = NW * RY rows of one channel plane
 *   WINDOW      predecessors one look-back step reads at once
 *   SRC_VEC_OK  1 when a lane may read its 4 source elements of a row as one vector
 *   OUT_VEC_OK  1 when outputs may be written as aligned 4-element vectors
 * For a tile with top-left (x0, y0) and local integral L (sums inside the tile only),
 *   I(y, x) = Corner + sum_{x0<=x'<=x} ColAbove(x') + sum_{y0<=y'<=y} RowLeft(y') + L(y, x)
 *   RowLeft(y)  = sum of row y left of the tile,     ColAbove(x) = sum of column x above it,
 *   Corner      = sum of everything above and left.
 * Aggregates come from the tile's own pixels (row totals R, column totals C) or one step later
 * (S = sum of RowLeft over the tile's rows), so no tile waits on a chain of other tiles: a lane
 * finds RowLeft by adding the R of every tile to its left, stopping early at the nearest tile
 * that already published its inclusive RowLeft + R; ColAbove and Corner likewise from the C and
 * S of the tiles above or the nearest inclusive ColAbove + C, Corner + S. Each look-back step
 * issues the loads of WINDOW predecessors before inspecting any. The input stays in registers
 * while the tile waits; the local integral is computed afterwards.
 * Status words are 64-bit: the launch's epoch in the high half, 32 payload bits in the low half
 * (a ulong takes two words), so each word tells by itself whether it is current. Tiles take
 * tickets in row-major order, so a tile waits only on tiles that already run. */
#ifdef ACC

#define NQ (HAS_SUM + HAS_SQ)
#define Q_SQ (NQ - 1) /* index of the squared sum when HAS_SQ */
#define TILE_W 128
#define TILE_H (NW * RY)
#define GROUP (32 * NW)
#if defined(ACC_IS_ULONG)
#define WORDS 2 /* status words per value */
#else
#define WORDS 1
#endif
/* Status vectors of a tile, in values per quantity: horizontal aggregate R and inclusive
 * RowLeft + R (TILE_H each); vertical aggregate C with S as value TILE_W, and inclusive
 * ColAbove + C with Corner + S as value TILE_W (TILE_W + 1 each). Offsets in words. */
#define H_VALUES TILE_H
#define V_VALUES (TILE_W + 1)
#define ST_HA 0
#define ST_HP (WORDS * NQ * H_VALUES)
#define ST_VA (2 * WORDS * NQ * H_VALUES)
#define ST_VP (ST_VA + WORDS * NQ * V_VALUES)
#define ST_STRIDE (2 * WORDS * NQ * (H_VALUES + V_VALUES))

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define SRC_T4 CAT(SRC_T, 4)
#define WARP_UP CAT(warp_up_, ACC_S)
#define WARP_GET CAT(warp_get_, ACC_S)
#define WARP_SUM CAT(warp_sum_, ACC_S)
#define WARP_EXCLUSIVE_SCAN CAT(warp_exclusive_scan_, ACC_S)

#if HAS_SUM
#define SUM_T4 CAT(SUM_T, 4)
#if SUM_DEPTH == DEPTH_S32
#define SP_STORE_SUM(a) as_int((uint)(a))
#elif SUM_DEPTH == DEPTH_U32
#define SP_STORE_SUM(a) ((uint)(a))
#else
#define SP_STORE_SUM(a) ((SUM_T)as_long((ulong)(a)))
#endif
#endif
#if HAS_SQ
#define SQ_T4 CAT(SQ_T, 4)
#if SQ_DEPTH == DEPTH_S32
#define SP_STORE_SQ(a) as_int((uint)(a))
#elif SQ_DEPTH == DEPTH_U64
#define SP_STORE_SQ(a) ((ulong)(a))
#else
#define SP_STORE_SQ(a) ((SQ_T)as_long((ulong)(a)))
#endif
#endif

/* The quantities of one source value: the value (or 1 if non-zero, when counting), its square. */
INLINE void sp_values(ACC out[NQ], SRC_T v) {
#if HAS_SUM
#if COUNT
  out[0] = (ACC)(v != (SRC_T)0);
#else
  out[0] = (ACC)v;
#endif
#endif
#if HAS_SQ
  out[Q_SQ] = (ACC)v * (ACC)v;
#endif
}

INLINE void sp_publish(GLOBAL ulong* words, int index, ACC value, uint epoch) {
  const ulong tag = (ulong)epoch << 32;
#if WORDS == 2
  words[2 * index] = tag | (uint)value;
  words[2 * index + 1] = tag | (uint)((ulong)value >> 32);
#else
  words[index] = tag | value;
#endif
}

/* Reads value `index`; returns 0 when a word of it is not from this launch yet. */
INLINE int sp_read(GLOBAL const ulong* words, int index, uint epoch, ACC* value) {
#if WORDS == 2
  const ulong lo = VOLATILE_LOAD(ulong, words + 2 * index);
  const ulong hi = VOLATILE_LOAD(ulong, words + 2 * index + 1);
  *value = (ulong)(uint)lo | (ulong)(uint)hi << 32;
  return (uint)(lo >> 32) == epoch && (uint)(hi >> 32) == epoch;
#else
  const ulong w = VOLATILE_LOAD(ulong, words + index);
  *value = (uint)w;
  return (uint)(w >> 32) == epoch;
#endif
}

#define FLAG_AGGREGATE 1u
#define FLAG_PREFIX 2u

/* One lane's look-back for one value over the `count` predecessors first, first - step, ...:
 * polls WINDOW of their flags (one word each; lanes of a warp read the same words), adds the
 * aggregates (region `aggregate_at`) of the predecessors flagged so, and the inclusive value
 * (region `prefix_at`) of the nearest one flagged inclusive, where it stops. Values are read once
 * their flag says so, all loads of a batch issued before any is inspected; a value word older
 * than its flag (no fences order them) is read again. */
INLINE ACC sp_look_back(GLOBAL const uint* flags, int dir, GLOBAL const ulong* status, int first, int step, int count,
                        int aggregate_at, int prefix_at, int index, uint epoch) {
  ACC sum = 0;
  uint pause = 64;
  for (int done = 0; done < count;) {
    uint f[WINDOW];
    UNROLL
    for (int w = 0; w < WINDOW; ++w) {
      f[w] = done + w < count ? VOLATILE_LOAD(uint, flags + 2 * (first - (done + w) * step) + dir) : 0u;
    }
    int aggregates = 0, prefix = 0;
    UNROLL
    for (int w = 0; w < WINDOW; ++w) {
      const uint state = (f[w] >> 2) == epoch ? (f[w] & 3u) : 0u;
      if (done + w >= count || state == 0u) break;
      if (state == FLAG_PREFIX) {
        prefix = 1;
        break;
      }
      ++aggregates;
    }
    if (aggregates == 0 && !prefix) {
      SPIN_PAUSE(pause);
      pause = min(2u * pause, 2048u);
      continue;
    }
    for (;;) {
      ACC part = 0;
      int ok = 1;
      UNROLL
      for (int w = 0; w < WINDOW; ++w) {
        if (w < aggregates + prefix) {
          GLOBAL const ulong* s = status + (long)(first - (done + w) * step) * ST_STRIDE;
          ACC x;
          ok &= sp_read(s + (w < aggregates ? aggregate_at : prefix_at), index, epoch, &x);
          part += x;
        }
      }
      if (ok) {
        sum += part;
        break;
      }
      SPIN_PAUSE(64u);
    }
    if (prefix) return sum;
    done += aggregates;
  }
  return sum;
}

KERNEL REQD_GROUP_SIZE(GROUP, 1, 1) void integral_single_pass(
    int width, int height, int channels, int tiles_x, int tiles_y, uint ticket_base, uint epoch,
    GLOBAL uint* flag_words, GLOBAL ulong* status, CONST_IMAGE_PARAM(SRC_T, src) SUM_PARAM SQ_PARAM) {
  /* flag_words: the ticket counter, then from word 64 two flags per tile (horizontal,
   * vertical), each the launch's epoch << 2 | state. */
  GLOBAL uint* counter = flag_words;
  GLOBAL uint* flags = flag_words + 64;
  LOCAL_MEM uint tile_ticket;
  LOCAL_MEM ACC col_part[NQ][NW][TILE_W]; /* column totals of each warp's rows */
  LOCAL_MEM ACC row_total[NQ][TILE_H];    /* R */
  LOCAL_MEM ACC row_left[NQ][TILE_H];     /* RowLeft, then its running sum down the tile */
  LOCAL_MEM ACC warp_part[NQ][NW];        /* per-warp sums of RowLeft, then of ColAbove */
  LOCAL_MEM ACC top[NQ][TILE_W];          /* Corner + running sum of ColAbove along the tile */
  LOCAL_MEM ACC slots[GROUP];             /* warp-operation emulation where shuffles are missing */

  const int lid = LOCAL_ID(0);
  const int lane = lid & 31, warp = lid >> 5;
  if (lid == 0) tile_ticket = TAKE_TICKET(counter, ticket_base);
  BARRIER_LOCAL();
  const int tiles_per_plane = tiles_x * tiles_y;
  const int ticket = (int)tile_ticket;
  const int plane = ticket / tiles_per_plane;
  const int tile_y = (ticket % tiles_per_plane) / tiles_x;
  const int tile_x = ticket % tiles_x;
  const int b = plane / channels, c = plane % channels;
  const int x0 = tile_x * TILE_W, y0 = tile_y * TILE_H;
  const int xb = x0 + 4 * lane, yb = y0 + RY * warp;
  GLOBAL ulong* my_status = status + (long)ticket * ST_STRIDE;

  /* 1. Load 4 columns x RY rows into registers; outside the image counts as 0. */
  SRC_T4 raw[RY];
  UNROLL
  for (int j = 0; j < RY; ++j) {
    SRC_T4 r = SPLAT(SRC_T4, 0);
    const int y = yb + j;
    if (y < height) {
      GLOBAL const SRC_T* row = src + IMAGE_INDEX(src, 0, b * height + y);
#if SRC_VEC_OK
      if (xb + 3 < width) {
        r = *(GLOBAL const SRC_T4*)(row + xb);
      } else
#endif
      {
        if (xb < width) r.x = row[xb * channels + c];
        if (xb + 1 < width) r.y = row[(xb + 1) * channels + c];
        if (xb + 2 < width) r.z = row[(xb + 2) * channels + c];
        if (xb + 3 < width) r.w = row[(xb + 3) * channels + c];
      }
    }
    raw[j] = r;
  }

  /* 2. Aggregates from the tile's own pixels: row totals R and each warp's column totals. */
  const bool first_column = tile_x == 0, first_row = tile_y == 0;
  UNROLL
  for (int j = 0; j < RY; ++j) {
    ACC e[4][NQ];
    sp_values(e[0], raw[j].x);
    sp_values(e[1], raw[j].y);
    sp_values(e[2], raw[j].z);
    sp_values(e[3], raw[j].w);
    UNROLL
    for (int i = 0; i < NQ; ++i) {
      const ACC r = WARP_SUM(e[0][i] + e[1][i] + e[2][i] + e[3][i], slots);
      if (lane == j) {
        row_total[i][RY * warp + j] = r;
        /* The first tile column has nothing on its left: its aggregate is already inclusive. */
        sp_publish(my_status + (first_column ? ST_HP : ST_HA), i * H_VALUES + RY * warp + j, r, epoch);
      }
      if (j == 0) {
        UNROLL
        for (int k = 0; k < 4; ++k) col_part[i][warp][4 * lane + k] = e[k][i];
      } else {
        UNROLL
        for (int k = 0; k < 4; ++k) col_part[i][warp][4 * lane + k] += e[k][i];
      }
    }
  }
  BARRIER_LOCAL();
  if (lid == 0) ATOMIC_MAX(flags + 2 * ticket, epoch << 2 | (first_column ? FLAG_PREFIX : FLAG_AGGREGATE));

  /* 3. RowLeft, one lane per tile row; publish RowLeft + R; the warps' sums give S. */
  for (int r = lid; r < TILE_H; r += GROUP) {
    UNROLL
    for (int i = 0; i < NQ; ++i) {
      const ACC left = sp_look_back(flags, 0, status, ticket - 1, 1, tile_x, ST_HA + i * WORDS * H_VALUES,
                                    ST_HP + i * WORDS * H_VALUES, r, epoch);
      row_left[i][r] = left;
      if (!first_column) sp_publish(my_status + ST_HP, i * H_VALUES + r, left + row_total[i][r], epoch);
    }
  }
  BARRIER_LOCAL();
  if (lid == 0 && !first_column) ATOMIC_MAX(flags + 2 * ticket, epoch << 2 | FLAG_PREFIX);
  /* Running sum of RowLeft down the tile (every warp scans its 32-row slice, then adds the
   * slices above), and S = its last value. */
  UNROLL
  for (int i = 0; i < NQ; ++i) {
    ACC mine = lid < TILE_H ? row_left[i][lid] : 0;
    const ACC before = WARP_EXCLUSIVE_SCAN(mine, lane, slots);
    mine += before;
    if (lane == 31) warp_part[i][warp] = mine;
    BARRIER_LOCAL();
    ACC above = 0;
    for (int w = 0; w < warp; ++w) above += warp_part[i][w];
    if (lid < TILE_H) row_left[i][lid] = above + mine;
    BARRIER_LOCAL();
  }

  /* 4. ColAbove and Corner, one lane per tile column (value TILE_W is Corner): publish the
   *    aggregate C (and S), look back up the tile column, publish ColAbove + C (Corner + S). */
  ACC own[NQ][(TILE_W + GROUP) / GROUP];
  for (int x = lid, n = 0; x <= TILE_W; x += GROUP, ++n) {
    UNROLL
    for (int i = 0; i < NQ; ++i) {
      own[i][n] = row_left[i][TILE_H - 1]; /* S */
      if (x < TILE_W) {
        own[i][n] = 0;
        UNROLL
        for (int w = 0; w < NW; ++w) own[i][n] += col_part[i][w][x];
      }
      sp_publish(my_status + (first_row ? ST_VP : ST_VA), i * V_VALUES + x, own[i][n], epoch);
    }
  }
  BARRIER_LOCAL();
  if (lid == 0) ATOMIC_MAX(flags + 2 * ticket + 1, epoch << 2 | (first_row ? FLAG_PREFIX : FLAG_AGGREGATE));
  for (int x = lid, n = 0; x <= TILE_W; x += GROUP, ++n) {
    UNROLL
    for (int i = 0; i < NQ; ++i) {
      const ACC above = sp_look_back(flags, 1, status, ticket - tiles_x, tiles_x, tile_y, ST_VA + i * WORDS * V_VALUES,
                                     ST_VP + i * WORDS * V_VALUES, x, epoch);
      if (!first_row) sp_publish(my_status + ST_VP, i * V_VALUES + x, above + own[i][n], epoch);
      if (x < TILE_W) {
        top[i][x] = above;
      } else {
        warp_part[i][0] = above; /* Corner */
      }
    }
  }
  BARRIER_LOCAL();
  if (lid == 0 && !first_row) ATOMIC_MAX(flags + 2 * ticket + 1, epoch << 2 | FLAG_PREFIX);
  /* top(x) = Corner + running sum of ColAbove along the tile: every warp scans (the warp
   * operations need all work-items), warp 0 writes. */
  UNROLL
  for (int i = 0; i < NQ; ++i) {
    ACC t[4];
    UNROLL
    for (int k = 0; k < 4; ++k) t[k] = top[i][4 * lane + k];
    UNROLL
    for (int k = 1; k < 4; ++k) t[k] += t[k - 1];
    const ACC before = WARP_EXCLUSIVE_SCAN(t[3], lane, slots) + warp_part[i][0];
    BARRIER_LOCAL();
    if (warp == 0) {
      UNROLL
      for (int k = 0; k < 4; ++k) top[i][4 * lane + k] = t[k] + before;
    }
    BARRIER_LOCAL();
  }

  /* 5. The local integral from the registers, plus the carries: rows run down the warp, column
   *    sums of the warps above seed them. Stored one row down and one column right; with aligned
   *    outputs a lane writes the quad [x0 + 4 lane, x0 + 4 lane + 4): its left neighbour's last
   *    value and its own first three; lane 0 writes its three singly, lane 31 its last one. */
  ACC run[NQ][4];
  UNROLL
  for (int i = 0; i < NQ; ++i) {
    UNROLL
    for (int k = 0; k < 4; ++k) {
      ACC above = 0;
      for (int w = 0; w < warp; ++w) above += col_part[i][w][4 * lane + k];
      run[i][k] = above;
    }
    /* run holds column sums; the row direction is folded in below by scanning them once. */
    ACC t[4];
    UNROLL
    for (int k = 0; k < 4; ++k) t[k] = run[i][k];
    UNROLL
    for (int k = 1; k < 4; ++k) t[k] += t[k - 1];
    const ACC before = WARP_EXCLUSIVE_SCAN(t[3], lane, slots);
    UNROLL
    for (int k = 0; k < 4; ++k) run[i][k] = t[k] + before + top[i][4 * lane + k];
  }
  const int out_row0 = b * (height + 1);
  UNROLL
  for (int j = 0; j < RY; ++j) {
    ACC e[4][NQ];
    sp_values(e[0], raw[j].x);
    sp_values(e[1], raw[j].y);
    sp_values(e[2], raw[j].z);
    sp_values(e[3], raw[j].w);
    const int y = yb + j;
    ACC out[NQ][4];
#if OUT_VEC_OK
    ACC from_left[NQ];
#endif
    UNROLL
    for (int i = 0; i < NQ; ++i) {
      ACC t[4];
      t[0] = e[0][i];
      UNROLL
      for (int k = 1; k < 4; ++k) t[k] = t[k - 1] + e[k][i];
      const ACC before = WARP_EXCLUSIVE_SCAN(t[3], lane, slots);
      const ACC left = row_left[i][RY * warp + j];
      UNROLL
      for (int k = 0; k < 4; ++k) {
        run[i][k] += t[k] + before;
        out[i][k] = run[i][k] + left;
      }
#if OUT_VEC_OK
      from_left[i] = WARP_UP(out[i][3], 1, lane, slots);
#endif
    }
    if (y >= height) continue;
#if HAS_SUM
    GLOBAL SUM_T* sum_row = sum + IMAGE_INDEX(sum, 0, out_row0 + y + 1);
#endif
#if HAS_SQ
    GLOBAL SQ_T* sq_row = sq + IMAGE_INDEX(sq, 0, out_row0 + y + 1);
#endif
#if OUT_VEC_OK
    if (lane > 0 && xb + 3 <= width) {
#if HAS_SUM
      *(GLOBAL SUM_T4*)(sum_row + xb) =
          VEC4(SUM_T4, SP_STORE_SUM(from_left[0]), SP_STORE_SUM(out[0][0]), SP_STORE_SUM(out[0][1]), SP_STORE_SUM(out[0][2]));
#endif
#if HAS_SQ
      *(GLOBAL SQ_T4*)(sq_row + xb) = VEC4(SQ_T4, SP_STORE_SQ(from_left[Q_SQ]), SP_STORE_SQ(out[Q_SQ][0]),
                                           SP_STORE_SQ(out[Q_SQ][1]), SP_STORE_SQ(out[Q_SQ][2]));
#endif
      if (lane == 31 && xb + 4 <= width) {
#if HAS_SUM
        sum_row[xb + 4] = SP_STORE_SUM(out[0][3]);
#endif
#if HAS_SQ
        sq_row[xb + 4] = SP_STORE_SQ(out[Q_SQ][3]);
#endif
      }
      continue;
    }
    if (lane > 0 && xb <= width) { /* the left neighbour wrote its quad, not this column */
#if HAS_SUM
      sum_row[xb] = SP_STORE_SUM(from_left[0]);
#endif
#if HAS_SQ
      sq_row[xb] = SP_STORE_SQ(from_left[Q_SQ]);
#endif
    }
#endif
    UNROLL
    for (int k = 0; k < 4; ++k) {
      const int x = xb + k;
      if (x >= width) break;
#if HAS_SUM
      sum_row[(x + 1) * channels + c] = SP_STORE_SUM(out[0][k]);
#endif
#if HAS_SQ
      sq_row[(x + 1) * channels + c] = SP_STORE_SQ(out[Q_SQ][k]);
#endif
    }
    if (xb == 0) {
#if HAS_SUM
      sum_row[c] = SP_STORE_SUM((ACC)0);
#endif
#if HAS_SQ
      sq_row[c] = SP_STORE_SQ((ACC)0);
#endif
    }
  }
  /* The zero first row, from the tiles that own it. */
  if (yb == 0) {
    for (int k = -1; k < 4; ++k) {
      const int x = xb + k;
      if (x >= width || (k < 0 && xb != 0)) continue;
#if HAS_SUM
      sum[IMAGE_INDEX(sum, (x + 1) * channels + c, out_row0)] = SP_STORE_SUM((ACC)0);
#endif
#if HAS_SQ
      sq[IMAGE_INDEX(sq, (x + 1) * channels + c, out_row0)] = SP_STORE_SQ((ACC)0);
#endif
    }
  }
}

#endif /* ACC */

/* ---- block_4x4, blelloch, blocked_scan: the case studies' methods ---------------------------
 * For order-free requests. One output per program: DST_T / DST_DEPTH, quantity Q_KIND (0 the
 * value, or 1 if non-zero when COUNT; 1 its square), accumulator VACC (uint for 32-bit outputs,
 * else ulong; every intermediate is an exact integer, so it may sit in the output as DST_T). A
 * plane is one channel of one image of the batch: element (x, y) of plane p = b * channels + c
 * sits at row b * height + y, element x * channels + c; its integral one row and column on. */
#ifdef DST_DEPTH

#if DST_DEPTH == DEPTH_S32
#define V_STORE(a) as_int((uint)(a))
#define V_LOAD(d) ((VACC)as_uint(d))
#elif DST_DEPTH == DEPTH_U32 || DST_DEPTH == DEPTH_U64
#define V_STORE(a) ((DST_T)(a))
#define V_LOAD(d) ((VACC)(d))
#else /* s64, f32, f64: through signed 64-bit */
#define V_STORE(a) ((DST_T)as_long((ulong)(a)))
#define V_LOAD(d) ((VACC)(long)(d))
#endif
#if Q_KIND == 1
#define V_VALUE(v) ((VACC)(v) * (VACC)(v))
#elif COUNT
#define V_VALUE(v) ((VACC)((v) != (SRC_T)0))
#else
#define V_VALUE(v) ((VACC)(v))
#endif
#define V_SRC(x, y) V_VALUE(IMAGE_AT(src, (x) * channels + c, b * height + (y)))
#define V_DST(x, y) IMAGE_AT(dst, (x) * channels + c, b * (height + 1) + (y))

/* block_4x4, kernel 1 of 5: the local integral of each 4x4 block, and the zero row and column. */
KERNEL void integral_block_local(int width, int height, int channels, CONST_IMAGE_PARAM(SRC_T, src),
                                 IMAGE_PARAM(DST_T, dst)) {
  const int bx = GLOBAL_ID(0), by = GLOBAL_ID(1), p = GLOBAL_ID(2);
  const int b = p / channels, c = p % channels;
  const int x0 = 4 * bx, y0 = 4 * by;
  if (x0 >= width || y0 >= height) return;
  VACC m[4][4];
  for (int j = 0; j < 4; ++j) {
    for (int k = 0; k < 4; ++k) m[j][k] = (x0 + k < width && y0 + j < height) ? V_SRC(x0 + k, y0 + j) : 0;
  }
  for (int j = 0; j < 4; ++j) {
    for (int k = 1; k < 4; ++k) m[j][k] += m[j][k - 1];
  }
  for (int j = 1; j < 4; ++j) {
    for (int k = 0; k < 4; ++k) m[j][k] += m[j - 1][k];
  }
  for (int j = 0; j < 4 && y0 + j < height; ++j) {
    for (int k = 0; k < 4 && x0 + k < width; ++k) V_DST(x0 + k + 1, y0 + j + 1) = V_STORE(m[j][k]);
    if (x0 == 0) V_DST(0, y0 + j + 1) = V_STORE((VACC)0);
  }
  if (y0 == 0) {
    for (int k = 0; k < 4 && x0 + k < width; ++k) V_DST(x0 + k + 1, 0) = V_STORE((VACC)0);
    if (x0 == 0) V_DST(0, 0) = V_STORE((VACC)0);
  }
}

/* block_4x4, kernel 2: per row, the running sum of the blocks' right edges. */
KERNEL void integral_block_scan_rows(int width, int height, int channels, int blocks, GLOBAL VACC* edges,
                                     IMAGE_PARAM(DST_T, dst)) {
  const int y = GLOBAL_ID(0), p = GLOBAL_ID(1);
  if (y >= height) return;
  const int b = p / channels, c = p % channels;
  GLOBAL VACC* out = edges + ((long)p * height + y) * blocks;
  VACC s = 0;
  for (int k = 0; k < blocks; ++k) {
    s += V_LOAD(V_DST(min(4 * k + 4, width), y + 1));
    out[k] = s;
  }
}

/* block_4x4, kernel 3: add the running sum of the blocks to the left. */
KERNEL void integral_block_add_rows(int width, int height, int channels, int blocks, GLOBAL const VACC* edges,
                                    IMAGE_PARAM(DST_T, dst)) {
  const int x = GLOBAL_ID(0), y = GLOBAL_ID(1), p = GLOBAL_ID(2);
  if (x >= width || y >= height || x < 4) return;
  const int b = p / channels, c = p % channels;
  const VACC left = edges[((long)p * height + y) * blocks + x / 4 - 1];
  V_DST(x + 1, y + 1) = V_STORE(V_LOAD(V_DST(x + 1, y + 1)) + left);
}

/* block_4x4, kernel 4: per column, the running sum of the 4-row bands' bottom rows. */
KERNEL void integral_block_scan_columns(int width, int height, int channels, int bands, GLOBAL VACC* edges,
                                        IMAGE_PARAM(DST_T, dst)) {
  const int x = GLOBAL_ID(0), p = GLOBAL_ID(1);
  if (x >= width) return;
  const int b = p / channels, c = p % channels;
  VACC s = 0;
  for (int m = 0; m < bands; ++m) {
    s += V_LOAD(V_DST(x + 1, min(4 * m + 4, height)));
    edges[((long)p * bands + m) * width + x] = s;
  }
}

/* block_4x4, kernel 5: add the running sum of the bands above. */
KERNEL void integral_block_add_columns(int width, int height, int channels, int bands, GLOBAL const VACC* edges,
                                       IMAGE_PARAM(DST_T, dst)) {
  const int x = GLOBAL_ID(0), y = GLOBAL_ID(1), p = GLOBAL_ID(2);
  if (x >= width || y >= height || y < 4) return;
  const int b = p / channels, c = p % channels;
  const VACC above = edges[((long)p * bands + y / 4 - 1) * width + x];
  V_DST(x + 1, y + 1) = V_STORE(V_LOAD(V_DST(x + 1, y + 1)) + above);
}

#ifdef LINE_GROUP
/* blelloch and blocked_scan scan lines: a row (of the source into the output, ROWS 1) or a
 * column (of the output in place, ROWS 0), LINE_GROUP work-items per line, chunk by chunk. */
#define LINE_CHUNK (2 * LINE_GROUP)

INLINE VACC line_load(int along, int across, int b, int c, int channels, int height, GLOBAL const SRC_T* src,
                      int src_offset, int src_step, GLOBAL const DST_T* dst, int dst_offset, int dst_step, int rows) {
  if (rows) return V_SRC(along, across);
  return V_LOAD(V_DST(across + 1, along + 1));
}

/* The zero first element of a line's output: column 0 of a row, row 0 of a column (and the corner). */
INLINE void line_zeros(int line, int b, int c, int channels, int height, GLOBAL DST_T* dst, int dst_offset,
                       int dst_step, int rows) {
  if (rows) {
    V_DST(0, line + 1) = V_STORE((VACC)0);
  } else {
    V_DST(line + 1, 0) = V_STORE((VACC)0);
    if (line == 0) V_DST(0, 0) = V_STORE((VACC)0);
  }
}

/* Work-efficient exclusive scan of LINE_CHUNK values in local memory (up-sweep, down-sweep). */
INLINE void blelloch_chunk(LOCAL VACC* t, int lid) {
  int offset = 1;
  for (int d = LINE_CHUNK >> 1; d > 0; d >>= 1) {
    BARRIER_LOCAL();
    if (lid < d) {
      const int ai = offset * (2 * lid + 1) - 1, bi = offset * (2 * lid + 2) - 1;
      t[bi] += t[ai];
    }
    offset <<= 1;
  }
  if (lid == 0) t[LINE_CHUNK - 1] = 0;
  for (int d = 1; d < LINE_CHUNK; d <<= 1) {
    offset >>= 1;
    BARRIER_LOCAL();
    if (lid < d) {
      const int ai = offset * (2 * lid + 1) - 1, bi = offset * (2 * lid + 2) - 1;
      const VACC x = t[ai];
      t[ai] = t[bi];
      t[bi] += x;
    }
  }
  BARRIER_LOCAL();
}

/* One work-group per line: global (LINE_GROUP, lines, planes). */
KERNEL REQD_GROUP_SIZE(LINE_GROUP, 1, 1) void integral_blelloch_lines(int width, int height, int channels, int rows,
                                                                      CONST_IMAGE_PARAM(SRC_T, src),
                                                                      IMAGE_PARAM(DST_T, dst)) {
  LOCAL_MEM VACC t[LINE_CHUNK];
  const int lid = LOCAL_ID(0), line = GROUP_ID(1), p = GROUP_ID(2);
  const int b = p / channels, c = p % channels;
  const int length = rows ? width : height;
  if (lid == 0) line_zeros(line, b, c, channels, height, dst, dst_offset, dst_step, rows);
  VACC carry = 0;
  for (int base = 0; base < length; base += LINE_CHUNK) {
    for (int i = lid; i < LINE_CHUNK; i += LINE_GROUP) {
      t[i] = base + i < length ? line_load(base + i, line, b, c, channels, height, src, src_offset, src_step, dst,
                                           dst_offset, dst_step, rows)
                               : 0;
    }
    BARRIER_LOCAL();
    VACC mine[2];
    for (int h = 0; h < 2; ++h) mine[h] = t[lid + h * LINE_GROUP];
    const VACC last = t[LINE_CHUNK - 1];
    blelloch_chunk(t, lid);
    for (int h = 0; h < 2; ++h) {
      const int i = lid + h * LINE_GROUP, at = base + i;
      if (at >= length) continue;
      const VACC inclusive = carry + t[i] + mine[h];
      if (rows) {
        V_DST(at + 1, line + 1) = V_STORE(inclusive);
      } else {
        V_DST(line + 1, at + 1) = V_STORE(inclusive);
      }
    }
    const VACC chunk_total = t[LINE_CHUNK - 1] + last;
    BARRIER_LOCAL();
    carry += chunk_total;
  }
}

/* Blocked scan: each work-item scans SEGMENT consecutive values in registers, shares its total,
 * and adds the totals of the work-items before it. One work-group per line. */
KERNEL REQD_GROUP_SIZE(LINE_GROUP, 1, 1) void integral_blocked_lines(int width, int height, int channels, int rows,
                                                                     CONST_IMAGE_PARAM(SRC_T, src),
                                                                     IMAGE_PARAM(DST_T, dst)) {
  LOCAL_MEM VACC totals[LINE_GROUP];
  const int lid = LOCAL_ID(0), line = GROUP_ID(1), p = GROUP_ID(2);
  const int b = p / channels, c = p % channels;
  const int length = rows ? width : height;
  if (lid == 0) line_zeros(line, b, c, channels, height, dst, dst_offset, dst_step, rows);
  VACC carry = 0;
  for (int base = 0; base < length; base += LINE_GROUP * SEGMENT) {
    VACC run[SEGMENT];
    VACC s = 0;
    for (int k = 0; k < SEGMENT; ++k) {
      const int at = base + lid * SEGMENT + k;
      s += at < length ? line_load(at, line, b, c, channels, height, src, src_offset, src_step, dst, dst_offset,
                                   dst_step, rows)
                       : 0;
      run[k] = s;
    }
    totals[lid] = s;
    BARRIER_LOCAL();
    VACC before = carry;
    for (int i = 0; i < lid; ++i) before += totals[i];
    VACC all = carry;
    for (int i = 0; i < LINE_GROUP; ++i) all += totals[i];
    for (int k = 0; k < SEGMENT; ++k) {
      const int at = base + lid * SEGMENT + k;
      if (at >= length) break;
      if (rows) {
        V_DST(at + 1, line + 1) = V_STORE(before + run[k]);
      } else {
        V_DST(line + 1, at + 1) = V_STORE(before + run[k]);
      }
    }
    carry = all;
    BARRIER_LOCAL();
  }
}
#endif /* LINE_GROUP */

#endif /* DST_DEPTH */

/* ---- tilted: OpenCV's recurrence, row after row ---------------------------------------------
 * Exact for every depth: per plane, one work-group walks the rows in order; inside a row every
 * column is independent given the previous row, so the work-items split the columns.
 * T(x, y) is the output (tilted, one row and column on); buf holds OpenCV's running diagonal
 * sums, in TACC (the sum's type; uint for 32-bit integers, which wrap as OpenCV's int does):
 *   row 0:  T(x + 1, 1) = src(x, 0), buf[x] = src(x, 0);  T(0, y + 1) = T(1, y)
 *   T(1, y + 1)     = (T(1, y) + s0) + buf[1]                       (buf[1] = 0 when width 1)
 *   T(x + 1, y + 1) = buf[x] + ((buf[x + 1] + s(x)) + T(x, y))      0 < x < width - 1
 *   T(W, y + 1)     = (s(W - 1) + buf[W - 1]) + T(W - 1, y)          width > 1
 *   then buf[x] = buf[x + 1] + s(x) for x < width - 1, buf[width - 1] = s(width - 1). */
#ifdef TILTED_DEPTH
#include "integral_tilted.h"
#define T_AT(x, y) IMAGE_AT(tilted, (x) * channels + c, b * (height + 1) + (y))

KERNEL void integral_tilted_ordered(int width, int height, int channels, GLOBAL TACC* buffers,
                                    CONST_IMAGE_PARAM(SRC_T, src), IMAGE_PARAM(TILTED_T, tilted)) {
  const int lid = LOCAL_ID(0), group = LOCAL_SIZE(0), p = GROUP_ID(1);
  const int b = p / channels, c = p % channels;
  /* Two rows of diagonal sums per plane, alternating: row y reads one and writes the other. */
  GLOBAL TACC* bufs = buffers + (long)p * 2 * (width + 1);
  for (int x = lid; x <= width; x += group) {
    T_AT(x, 0) = T_STORE((TACC)0);
    if (x < width) {
      const TACC v = (TACC)IMAGE_AT(src, x * channels + c, b * height);
      T_AT(x + 1, 1) = T_STORE(v);
      bufs[x] = v;
    } else {
      bufs[x] = 0;
    }
  }
  if (lid == 0) T_AT(0, 1) = T_STORE((TACC)0);
  BARRIER_ALL();
  for (int y = 1; y < height; ++y) {
    GLOBAL const TACC* buf = bufs + ((y - 1) & 1) * (width + 1);
    GLOBAL TACC* next = bufs + (y & 1) * (width + 1);
    GLOBAL const SRC_T* row = src + IMAGE_INDEX(src, c, b * height + y);
    for (int x = lid; x < width; x += group) {
      const TACC s = (TACC)row[x * channels];
      TACC t;
      if (x == 0) {
        t = (T_LOAD(T_AT(1, y)) + s) + buf[1];
      } else if (x < width - 1) {
        t = buf[x] + ((buf[x + 1] + s) + T_LOAD(T_AT(x, y)));
      } else {
        t = (s + buf[x]) + T_LOAD(T_AT(x, y));
      }
      T_AT(x + 1, y + 1) = T_STORE(t);
      next[x] = x < width - 1 ? buf[x + 1] + s : s;
    }
    if (lid == 0) {
      T_AT(0, y + 1) = T_STORE(T_LOAD(T_AT(1, y)));
      next[width] = buf[width];
    }
    BARRIER_ALL();
  }
}
#endif /* TILTED_DEPTH */
