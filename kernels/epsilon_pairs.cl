/* Epsilon filter on a u8 plane, method `pairs` (issue 20); the formula is docs/epsilon_filter.md:
 *   out(x, y) = floor((S + floor(n / 2)) / n) over the WIN x WIN window around (x, y),
 *   S = sum of the values v with |v - centre| <= threshold, n = how many there are.
 * Host side: src/ops/epsilon.cpp; shapes shared with it: epsilon_pairs_shape.h.
 *
 * Why it is cheaper than `blocked`: the test |I(q) - I(p)| <= T is symmetric, so one test of an
 * unordered pair (p, q) serves both outputs: p takes q's value and q takes p's. Each work-item owns
 * a strip of 4 columns (one 32-bit word of a row) by RPT rows and walks it from top to bottom; the
 * pairs between the new row and the R rows above it, and inside the new row, are tested once; a
 * row's outputs are complete R rows later. Only pairs whose other end lies in a neighbouring strip
 * (to the left or right) or in the rows above and below the strip serve one side. Per output this
 * is (A - 1) / 2 tests for a window of A values, plus that edge share, instead of A - 1.
 *
 * Arithmetic in float, exact: every value enters as the float U + v (U = 2^UNIT_SHIFT, a power of
 * two above 255 * A: 2^15, so U + v is U's bits with v in bits 8..15, one byte move); a test
 * is one subtraction and |d| <= T (the values differ by an integer below 256, exactly); a value that
 * counts adds U + v to the other end's accumulator, which starts at 2^22 + U + centre. So an
 * accumulator is 2^22 + n U + S < 2^23, a float in [2^22, 2^23) whose mantissa holds 2 (n U + S)
 * exactly: n = its bits >> (UNIT_SHIFT + 1), less the exponent's share. Float additions run on the
 * FMA pipe, which has twice the integer pipe's rate on NVIDIA GPUs.
 *
 * The mean: floor((S + floor(n / 2)) / n) = rint((S + e) / n) with e = 1/2 for even n and 0 for odd
 * n, because (S + e) / n lies at least 1 / (2n) from the nearest half-integer. A table in local
 * memory holds, for each n, 1/n and 2^22 + n U - e (exact: the floats of [2^22, 2^23) are spaced
 * 1/2 apart), so S + e is one subtraction and rint((S + e) * (1/n)) one fma with 1.5 * 2^23 (the
 * product is exact inside the fma; 1/n is off by at most 2.5 ulp (OpenCL's division; CUDA's is
 * correctly rounded), so the result is off (S + e) / n by less than 256 * 2^-21, far inside the
 * 1 / (2 * 121) margin); the low mantissa byte of that sum is the output.
 *
 * The source tile (the strips' rows plus R above and below, their 128 columns plus a word each side)
 * is loaded into local memory first, one 32-bit word per load, all loads issued before any store
 * (aligned word loads where the tile's columns lie inside the image, element by element through
 * the border elsewhere).
 *
 * Options: WIN (odd, 1..EPS_PAIRS_MAX_WINDOW), BORDER (common/border.h), RPT rows per strip,
 * SRC_WORDS (1: source rows start on 4-byte boundaries), DST_WORDS (1: destination rows do). */
#include "common/dialect.h"
#include "common/types.h"
#include "common/border.h"
#include "epsilon_pairs_shape.h"

#define R (WIN / 2)
#define AREA (WIN * WIN)
#define STRIPS (EPS_PAIRS_GROUP / EPS_PAIRS_TW_WORDS)
#define TILE_H (STRIPS * RPT)
#define HW ((R + 3) / 4)                          /* halo words on each side */
#define EXT_W (EPS_PAIRS_TW_WORDS + 2 * HW)       /* words per local row */
#define EXT_H (TILE_H + 2 * R)                    /* local rows */
#define EXT_WORDS (EXT_W * EXT_H)
#define CORE_ITEMS ((EXT_H + STRIPS - 1) / STRIPS)  /* core words a work-item loads */
#define HALO_WORDS (2 * HW * EXT_H)
#define HALO_ITEMS (HW > 0 ? (HALO_WORDS + EPS_PAIRS_GROUP - 1) / EPS_PAIRS_GROUP : 1) /* (1: no halo, 1x1) */
/* Halo word h of the tile: its row, and its local word (the HW words left of the core, then right). */
#define HALO_ROW(h) ((h) / (2 * HW + (HW == 0)))
#define HALO_WORD(h) ((h) - HALO_ROW(h) * (2 * HW) < HW ? (h) - HALO_ROW(h) * (2 * HW) : (h) - HALO_ROW(h) * (2 * HW) + EPS_PAIRS_TW_WORDS)
#define NV (4 + 2 * R)                            /* values of a row a strip reads */
#define NROWS (RPT + 2 * R)                       /* rows a strip reads */

#if WIN > EPS_PAIRS_MAX_WINDOW
#error "epsilon_pairs: window too wide for the packed float accumulator"
#endif
/* U = 2^15 for every window: above 255 * 121, and 121 U + 255 * 121 < 2^22; with 15 the byte v sits
 * at bits 8..15 of the float U + v (one byte move from a loaded word). */
#define UNIT_SHIFT 15
#define UNIT_BITS ((uint)(127 + UNIT_SHIFT) << 23) /* the bits of the float U */
#define TWO22 4194304.0f
#define TWO22_BITS 0x4A800000u
#define ROUNDER 12582912.0f                       /* 1.5 * 2^23: adding it rounds to an integer */

#if PLINTH_LITTLE_ENDIAN
#define LITTLE_WORDS 1
#else
#define LITTLE_WORDS 0
#endif

/* Elements [e, e + 4) of source row `row` (0: a BORDER_CONSTANT row outside the image) as one
 * word, element e in the low byte, through the border. */
INLINE uint pairs_word(GLOBAL const uchar* row, int e, int width, int border_value, bool direct) {
  if (row == 0) return (uint)border_value * 0x01010101u;
#if SRC_WORDS && LITTLE_WORDS
  if (direct) return *(GLOBAL const uint*)(row + e);
#else
  (void)direct;
#endif
  uint w = 0u;
  UNROLL
  for (int t = 0; t < 4; ++t) {
    const int xi = border_index(e + t, width, BORDER);
    w |= (uint)(xi < 0 ? border_value : (int)row[xi]) << (8 * t);
  }
  return w;
}

/* One unordered pair (a, b) of values of one window: if they are within T of each other, each
 * owned end takes the other's value. */
#define PAIR(va, vb, own_a, acc_a, own_b, acc_b) \
  do {                                            \
    if (fabs((va) - (vb)) <= tf) {                \
      if (own_a) acc_a += (vb);                   \
      if (own_b) acc_b += (va);                   \
    }                                             \
  } while (0)
#define OWNED(c) ((c) >= R && (c) < R + 4)        /* value column c is one of the strip's outputs */
#define OUT(c) (OWNED(c) ? (c) - R : 0)

/* The rounded mean of an accumulator 2^22 + n U + S (see the top of the file). */
INLINE uint pairs_mean(float a, LOCAL const float2* rtab) {
  const float2 t = rtab[(as_uint(a) >> (UNIT_SHIFT + 1)) - (TWO22_BITS >> (UNIT_SHIFT + 1))];
  return as_uint(fma(a - t.y, t.x, ROUNDER)) & 0xffu;
}

KERNEL REQD_GROUP_SIZE(EPS_PAIRS_GROUP, 1, 1) void epsilon_pairs(int width, int height, int threshold, int border_value,
                                                                 CONST_IMAGE_PARAM(uchar, src), IMAGE_PARAM(uchar, dst)) {
  LOCAL_MEM uint tile[EXT_WORDS];
  /* rtab[n] = (1/n, 2^22 + n U - e): e = 1/2 for even n, 0 for odd n. */
  LOCAL_MEM float2 rtab[AREA + 1];
  const int lid = LOCAL_ID(0);
  const int w0 = GROUP_ID(0) * EPS_PAIRS_TW_WORDS;  /* the tile's first output word */
  const int y0 = GROUP_ID(1) * TILE_H;              /* and first output row */
  const int e_first = (w0 - HW) * 4;                /* element of local column 0 */
  const bool direct = e_first >= 0 && e_first + EXT_W * 4 <= width;

  /* Work-item (wrow, lane) loads the tile's core word HW + lane of rows wrow, wrow + STRIPS, ...;
   * the halo words (HW each side of each row) are spread over the work-group. Work-groups whose
   * region lies inside the image (most of them) read with aligned word loads and no border
   * arithmetic; the others through the border. */
  const int lane = lid % EPS_PAIRS_TW_WORDS, wrow = lid / EPS_PAIRS_TW_WORDS;
  const bool rows_inside = y0 - R >= 0 && y0 - R + EXT_H <= height;
  uint core[CORE_ITEMS], halo[HALO_ITEMS];
#if SRC_WORDS && LITTLE_WORDS
  if (direct && rows_inside) {
    GLOBAL const uchar* base = src + src_offset + (y0 - R) * src_step + e_first;
    UNROLL
    for (int k = 0; k < CORE_ITEMS; ++k) {
      const int r = wrow + STRIPS * k;
      core[k] = 0u;
      if (r < EXT_H) core[k] = *(GLOBAL const uint*)(base + r * src_step + 4 * (HW + lane));
    }
    UNROLL
    for (int k = 0; k < HALO_ITEMS; ++k) {
      const int h = lid + EPS_PAIRS_GROUP * k;
      halo[k] = 0u;
      if (h < HALO_WORDS) halo[k] = *(GLOBAL const uint*)(base + HALO_ROW(h) * src_step + 4 * HALO_WORD(h));
    }
  } else
#endif
  {
    UNROLL
    for (int k = 0; k < CORE_ITEMS; ++k) {
      const int r = wrow + STRIPS * k;
      core[k] = 0u;
      if (r < EXT_H) {
        const int yi = border_index(y0 - R + r, height, BORDER);
        GLOBAL const uchar* row = yi < 0 ? 0 : src + src_offset + yi * src_step;
        core[k] = pairs_word(row, e_first + 4 * (HW + lane), width, border_value, direct);
      }
    }
    UNROLL
    for (int k = 0; k < HALO_ITEMS; ++k) {
      const int h = lid + EPS_PAIRS_GROUP * k;
      halo[k] = 0u;
      if (h < HALO_WORDS) {
        const int yi = border_index(y0 - R + HALO_ROW(h), height, BORDER);
        GLOBAL const uchar* row = yi < 0 ? 0 : src + src_offset + yi * src_step;
        halo[k] = pairs_word(row, e_first + 4 * HALO_WORD(h), width, border_value, direct);
      }
    }
  }
  UNROLL
  for (int k = 0; k < CORE_ITEMS; ++k) {
    const int r = wrow + STRIPS * k;
    if (r < EXT_H) tile[r * EXT_W + HW + lane] = core[k];
  }
  UNROLL
  for (int k = 0; k < HALO_ITEMS; ++k) {
    const int h = lid + EPS_PAIRS_GROUP * k;
    if (h < HALO_WORDS) tile[HALO_ROW(h) * EXT_W + HALO_WORD(h)] = halo[k];
  }
  if (lid <= AREA) {
    const float r = lid == 0 ? 0.0f : 1.0f / (float)lid;
    rtab[lid] = VEC2(float2, r, TWO22 + (float)(lid << UNIT_SHIFT) - ((lid & 1) ? 0.0f : 0.5f));
  }
  BARRIER_LOCAL();

  const int i = lid % EPS_PAIRS_TW_WORDS;
  const int strip = lid / EPS_PAIRS_TW_WORDS;
  const int x0 = (w0 + i) * 4;
  const int ys = y0 + strip * RPT;
  if (x0 >= width || ys >= height) return;
  LOCAL const uint* col = tile + strip * RPT * EXT_W + i;
  const float tf = (float)threshold;

  /* win[R] is the row just read, win[R - d] the row d above it; acc likewise (owned rows only). */
  float win[R + 1][NV];
  float acc[R + 1][4];
  UNROLL
  for (int a = 0; a <= R; ++a) {
    UNROLL
    for (int c = 0; c < NV; ++c) win[a][c] = 0.0f;
    UNROLL
    for (int t = 0; t < 4; ++t) acc[a][t] = 0.0f;
  }

  UNROLL
  for (int j = 0; j < NROWS; ++j) {
    UNROLL
    for (int a = 0; a < R; ++a) {
      UNROLL
      for (int c = 0; c < NV; ++c) win[a][c] = win[a + 1][c];
      UNROLL
      for (int t = 0; t < 4; ++t) acc[a][t] = acc[a + 1][t];
    }
    /* Each value becomes U + v by one byte move into U's bits. */
    uint wr[2 * HW + 1];
    UNROLL
    for (int q = 0; q <= 2 * HW; ++q) wr[q] = col[j * EXT_W + q];
    UNROLL
    for (int c = 0; c < NV; ++c) {
      const int e = c - R + 4 * HW;
      win[R][c] = as_float(byte_perm(wr[e / 4], UNIT_BITS, 0x7504u | (uint)(e % 4) << 4));
    }
    const bool own_j = j >= R && j < R + RPT;
    if (own_j) {
      UNROLL
      for (int t = 0; t < 4; ++t) acc[R][t] = win[R][R + t] + TWO22;
    }
    /* Pairs inside the new row. */
    UNROLL
    for (int dx = 1; dx <= R; ++dx) {
      UNROLL
      for (int a = 0; a + dx < NV; ++a) {
        const int b = a + dx;
        const bool oa = own_j && OWNED(a), ob = own_j && OWNED(b);
        if (oa || ob) PAIR(win[R][a], win[R][b], oa, acc[R][OUT(a)], ob, acc[R][OUT(b)]);
      }
    }
    /* Pairs between the new row and each of the R rows above it. */
    UNROLL
    for (int dy = 1; dy <= R; ++dy) {
      if (j - dy >= 0) {
        const bool own_i = j - dy >= R && j - dy < R + RPT;
        UNROLL
        for (int a = 0; a < NV; ++a) {
          UNROLL
          for (int dx = -R; dx <= R; ++dx) {
            const int b = a + dx;
            if (b >= 0 && b < NV) {
              const bool oa = own_i && OWNED(a), ob = own_j && OWNED(b);
              if (oa || ob) PAIR(win[R - dy][a], win[R][b], oa, acc[R - dy][OUT(a)], ob, acc[R][OUT(b)]);
            }
          }
        }
      }
    }
    /* Row j - R has met every row of its windows. */
    if (j >= 2 * R) {
      const int y = ys + j - 2 * R;
      if (y < height) {
        const uint m = pairs_mean(acc[0][0], rtab) | (pairs_mean(acc[0][1], rtab) << 8) |
                       (pairs_mean(acc[0][2], rtab) << 16) | (pairs_mean(acc[0][3], rtab) << 24);
        GLOBAL uchar* out = dst + IMAGE_INDEX(dst, x0, y);
#if DST_WORDS && LITTLE_WORDS
        if (x0 + 4 <= width) {
          *(GLOBAL uint*)out = m;
        } else
#endif
        {
          UNROLL
          for (int t = 0; t < 4; ++t) {
            if (x0 + t < width) out[t] = (uchar)(m >> (8 * t));
          }
        }
      }
    }
  }
}
