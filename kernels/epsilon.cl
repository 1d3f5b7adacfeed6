/* Epsilon filter on a u8 plane (the Y plane of NV12 frames), docs/epsilon_filter.md:
 *   out(x, y) = floor((S + floor(n / 2)) / n),  over the WIN x WIN window around (x, y),
 *   S = sum of the values v with |v - centre| <= threshold, n = how many there are (>= 1).
 * Host side: src/ops/epsilon.cpp. Options:
 *   WIN       window side (odd, 1..31); R its radius
 *   BORDER    border code of common/border.h; outside values are made up by it and then judged
 *             by the same rule as the others
 *   GX, GY    work-group shape of epsilon_tiled and epsilon_blocked; PX outputs per work-item along x
 *   PY        (epsilon_blocked) output rows per work-item */
#include "common/dialect.h"
#include "common/types.h"
#include "common/border.h"

#define R (WIN / 2)
#define AREA (WIN * WIN)

/* ---- plain: one output per work-item, straight from global memory ------------------------- */
KERNEL void epsilon_plain(int width, int height, int threshold, int border_value, CONST_IMAGE_PARAM(uchar, src),
                          IMAGE_PARAM(uchar, dst)) {
  const int x = GLOBAL_ID(0);
  const int y = GLOBAL_ID(1);
  if (x >= width || y >= height) return;
  const int centre = IMAGE_AT(src, x, y);
  int sum = 0, count = 0;
  for (int dy = -R; dy <= R; ++dy) {
    const int yy = border_index(y + dy, height, BORDER);
    for (int dx = -R; dx <= R; ++dx) {
      const int xx = border_index(x + dx, width, BORDER);
      const int v = (yy < 0 || xx < 0) ? border_value : IMAGE_AT(src, xx, yy);
      if ((int)abs(v - centre) <= threshold) {
        sum += v;
        ++count;
      }
    }
  }
  IMAGE_AT(dst, x, y) = (uchar)((sum + count / 2) / count);
}

/* ---- tiled: the work-group's window rows in local memory, PX outputs per work-item --------- */
#if defined(PX) && !defined(PY)
#define TILE_W (GX * PX + 2 * R)
#define TILE_H (GY + 2 * R)
#define SEG (PX + 2 * R)

KERNEL REQD_GROUP_SIZE(GX, GY, 1) void epsilon_tiled(int width, int height, int threshold, int border_value,
                                                     CONST_IMAGE_PARAM(uchar, src), IMAGE_PARAM(uchar, dst)) {
  LOCAL_MEM uchar tile[TILE_H * TILE_W];
  /* recip[n] = ceil(2^32 / n): floor(a / n) = (a * recip[n]) >> 32 exactly while a * n < 2^32,
   * which holds for every a = S + n / 2 <= 256 * AREA and n <= AREA = 961. */
  LOCAL_MEM ulong recip[AREA + 1];
  const int lx = LOCAL_ID(0), ly = LOCAL_ID(1);
  const int lid = ly * GX + lx;
  const int x0 = GROUP_ID(0) * GX * PX;
  const int y0 = GROUP_ID(1) * GY;

  for (int i = lid; i <= AREA; i += GX * GY) recip[i] = i == 0 ? 0ul : (0x100000000ul + (ulong)i - 1ul) / (ulong)i;
  for (int i = lid; i < TILE_H * TILE_W; i += GX * GY) {
    const int ty = i / TILE_W, tx = i - ty * TILE_W;
    const int yy = border_index(y0 - R + ty, height, BORDER);
    const int xx = border_index(x0 - R + tx, width, BORDER);
    tile[i] = (yy < 0 || xx < 0) ? (uchar)border_value : IMAGE_AT(src, xx, yy);
  }
  BARRIER_LOCAL();

  const int x = x0 + lx * PX;
  const int y = y0 + ly;
  if (x >= width || y >= height) return;

  int centre[PX], sum[PX], count[PX];
#pragma unroll
  for (int t = 0; t < PX; ++t) {
    centre[t] = tile[(ly + R) * TILE_W + lx * PX + t + R];
    sum[t] = 0;
    count[t] = 0;
  }
#pragma unroll
  for (int dy = 0; dy < WIN; ++dy) {
    /* The row segment every output of this work-item reads, loaded from local memory once. */
    int seg[SEG];
    LOCAL const uchar* row = tile + (ly + dy) * TILE_W + lx * PX;
#pragma unroll
    for (int k = 0; k < SEG; ++k) seg[k] = row[k];
#pragma unroll
    for (int t = 0; t < PX; ++t) {
#pragma unroll
      for (int dx = 0; dx < WIN; ++dx) {
        const int v = seg[t + dx];
        const int take = (int)abs(v - centre[t]) <= threshold;
        sum[t] += take ? v : 0;
        count[t] += take;
      }
    }
  }
  GLOBAL uchar* out = dst + IMAGE_INDEX(dst, x, y);
#pragma unroll
  for (int t = 0; t < PX; ++t) {
    if (x + t < width) {
      out[t] = (uchar)((((ulong)(sum[t] + count[t] / 2)) * recip[count[t]]) >> 32);
    }
  }
}
#endif

/* ---- blocked: PX x PY outputs per work-item, three operations per neighbour ----------------
 * The work-group's tile (GX PX + 2R by GY PY + 2R values) is loaded into local memory row by row.
 * Each work-item keeps, per output, one packed accumulator: the sum of the values that count in
 * bits 0..17 (at most 961 * 255 = 245055 < 2^18) and their number above (at most 961 << 18, so the
 * word stays below 2^32). A window value v enters as pv = v + 2^18; with lo = centre - T + 2^18,
 * |v - centre| <= T is the one unsigned test pv - lo <= 2T (a value below centre - T wraps to a
 * huge number), and a value that counts adds pv: subtract, compare, add. Each loaded row segment
 * serves every output of the block whose window covers it. The rounded mean is
 * floor(a / n) = (a * ceil(2^32 / n)) >> 32 (a 32 x 32 -> 64-bit product) with the reciprocals in a
 * local table of 32-bit words made with 32-bit divisions (n = 1, whose reciprocal needs 33 bits,
 * is a itself). */
#ifdef PY
#define BTILE_W (GX * PX + 2 * R)
#define BTILE_H (GY * PY + 2 * R)
#define BSEG (PX + 2 * R)
#define COUNT_SHIFT 18
#define PACK (1u << COUNT_SHIFT)

KERNEL REQD_GROUP_SIZE(GX, GY, 1) void epsilon_blocked(int width, int height, int threshold, int border_value,
                                                       CONST_IMAGE_PARAM(uchar, src), IMAGE_PARAM(uchar, dst)) {
  LOCAL_MEM uchar tile[BTILE_H * BTILE_W];
  /* recip[n] = ceil(2^32 / n) for n >= 2: floor((2^32 - 1) / n) + 1 (2^32 is no multiple of n > 1
   * unless n is a power of two, where both sides are 2^32 / n). */
  LOCAL_MEM uint recip[AREA + 1];
  const int lx = LOCAL_ID(0), ly = LOCAL_ID(1);
  const int lid = ly * GX + lx;
  const int x0 = GROUP_ID(0) * GX * PX;
  const int y0 = GROUP_ID(1) * GY * PY;

  for (int n = lid; n <= AREA; n += GX * GY) recip[n] = n < 2 ? 0u : 0xffffffffu / (uint)n + 1u;
  for (int ty = ly; ty < BTILE_H; ty += GY) {
    const int yy = border_index(y0 - R + ty, height, BORDER);
    LOCAL uchar* trow = tile + ty * BTILE_W;
    for (int tx = lx; tx < BTILE_W; tx += GX) {
      const int xx = border_index(x0 - R + tx, width, BORDER);
      trow[tx] = (yy < 0 || xx < 0) ? (uchar)border_value : IMAGE_AT(src, xx, yy);
    }
  }
  BARRIER_LOCAL();

  const int bx = x0 + lx * PX, by = y0 + ly * PY;
  if (bx >= width || by >= height) return;
  const uint span = (uint)(2 * threshold);
  uint acc[PY][PX], lo[PY][PX];
  UNROLL
  for (int py = 0; py < PY; ++py) {
    UNROLL
    for (int t = 0; t < PX; ++t) {
      const int centre = tile[(ly * PY + py + R) * BTILE_W + lx * PX + t + R];
      lo[py][t] = (uint)(centre - threshold) + PACK;
      acc[py][t] = 0u;
    }
  }
  UNROLL
  for (int j = 0; j < PY + 2 * R; ++j) {
    /* Tile row j of the block: the row segment every output reads, loaded once. */
    uint pv[BSEG];
    LOCAL const uchar* row = tile + (ly * PY + j) * BTILE_W + lx * PX;
    UNROLL
    for (int k = 0; k < BSEG; ++k) pv[k] = (uint)row[k] + PACK;
    UNROLL
    for (int py = 0; py < PY; ++py) {
      if (j - py >= 0 && j - py < WIN) {
        UNROLL
        for (int t = 0; t < PX; ++t) {
          UNROLL
          for (int dx = 0; dx < WIN; ++dx) {
            const uint v = pv[t + dx];
            acc[py][t] += v - lo[py][t] <= span ? v : 0u;
          }
        }
      }
    }
  }
  UNROLL
  for (int py = 0; py < PY; ++py) {
    const int y = by + py;
    if (y < height) {
      GLOBAL uchar* out = dst + IMAGE_INDEX(dst, bx, y);
      UNROLL
      for (int t = 0; t < PX; ++t) {
        if (bx + t < width) {
          const uint n = acc[py][t] >> COUNT_SHIFT;
          const uint a = (acc[py][t] & (PACK - 1u)) + (n >> 1);
          out[t] = (uchar)(n == 1u ? a : (uint)(((ulong)a * (ulong)recip[n]) >> 32));
        }
      }
    }
  }
}
#endif
