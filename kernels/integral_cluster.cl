/* Integral images, method `cluster`: one launch in thread-block clusters, for small u8 images
 * (CUDA backend, sm_90 and newer; elsewhere this file defines no kernel and the host never asks
 * for it). Host side: src/ops/integral_cluster.cpp; the method is written up in docs/integral.md.
 *
 * The image is cut into strips of 128 columns (a lane holds 4 of them) and each strip into BANDS
 * bands of 8 * RPW rows (a warp holds RPW rows). A work-group takes one band of one strip; the
 * BANDS groups of a strip form one cluster, so they all run at once. A group
 *   1. loads its band, and for each of its rows the part of the row left of its strip (at most
 *      MAXC pieces of 512 bytes a row), all loads issued before any is used;
 *   2. forms each row's inclusive sums P(x) = sum of src(x', y) over x' <= x with one warp scan
 *      a row (the sum of the row's left part rides in the scan's high bits when it fits: MAXC 1),
 *      and adds them down its warp's rows;
 *   3. adds the warps' totals into the band's column totals C(x) = sum of P(x) over its rows and
 *      stores them, with asynchronous stores, into the local memory of every later band's group
 *      of the cluster, each store counted on that group's mbarrier;
 *   4. waits on its own mbarrier for the totals of the bands above it, and writes
 *        S(y + 1, x + 1) = sum of C(x) over the bands above + sum of P(x) over its rows up to y.
 * No group waits for another's sums, only for its loads and scans, so no chain of waits forms;
 * nothing goes through global memory but the source and the output. Integer sums modulo 2^32.
 *
 * Options:
 *   SUM_T       int or uint (s32 or u32 output; the same bits)
 *   COUNT       1: the count of non-zero pixels instead of the sum
 *   RPW         rows per warp (8 warps a group)
 *   BANDS       bands of a strip: the cluster's height, at most 16
 *   MAXC        512-byte pieces of a row left of the widest strip's start: ceil(128 (strips - 1) / 512)
 *   SRC_WORDS   1 when source rows start on 4-byte boundaries (word loads)
 *   SRC_SPANS   1 when they start on 16-byte boundaries (16-byte loads of the left parts) */
#include "common/dialect.h"

#if HAS_CLUSTERS
#include "common/scan.h"

#define NW 8
#define GROUP (32 * NW)
#define BH (NW * RPW)
#define MAXC_HELD (MAXC > 0 ? MAXC : 1)
/* Sums of a row's left part are at most 512 * 255 < 2^17 when MAXC is 1: with a lane's prefix
 * (at most 128 * 255 < 2^15) they fit one 32-bit scan. */
#define PACKED_SCAN (MAXC <= 1)

/* The 4 bytes of row `row` at columns x .. x + 3 (zero from column `width` on). */
INLINE uint load_word(GLOBAL const uchar* row, int x, int width) {
#if SRC_WORDS && PLINTH_LITTLE_ENDIAN
  if (x + 4 <= width) return *(GLOBAL const uint*)(row + x);
#endif
  uint v = 0u;
  for (int b = 0; b < 4; ++b) {
    if (x + b < width) v |= (uint)row[x + b] << (8 * b);
  }
  return v;
}

/* The 16 bytes of row `row` at columns x .. x + 15, all left of `x0` (a multiple of 128). */
INLINE uint4 load_span(GLOBAL const uchar* row, int x) {
#if SRC_SPANS && PLINTH_LITTLE_ENDIAN
  return *(GLOBAL const uint4*)(row + x);
#else
  return VEC4(uint4, load_word(row, x, x + 16), load_word(row, x + 4, x + 16), load_word(row, x + 8, x + 16),
              load_word(row, x + 12, x + 16));
#endif
}

#ifndef COUNT
#define COUNT 0
#endif
/* What is summed of each byte: the byte, or 1 where it is not zero (bit 7 of each byte of
 * (v & 0x7F..) + 0x7F.. is set where its low 7 bits are not all zero, with no carry between bytes). */
INLINE uint summed(uint v) {
#if COUNT
  return ((((v & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) | v) >> 7) & 0x01010101u;
#else
  return v;
#endif
}

/* The sum of the 4 bytes of each of the 4 words as 16-bit lanes of one word (each lane below 2^16). */
INLINE uint byte_sums(uint4 v) {
  const uint m = 0x00FF00FFu, x = summed(v.x), y = summed(v.y), z = summed(v.z), w = summed(v.w);
  return (x & m) + ((x >> 8) & m) + (y & m) + ((y >> 8) & m) + (z & m) + ((z >> 8) & m) + (w & m) + ((w >> 8) & m);
}

KERNEL CLUSTER_DIMS(1, BANDS, 1) REQD_GROUP_SIZE(GROUP, 1, 1)
void integral_cluster(int width, int height, CONST_IMAGE_PARAM(uchar, src), IMAGE_PARAM(SUM_T, sum)) {
  LOCAL_MEM uint4 warp_totals[NW][32];
  LOCAL_MEM uint4 inbox[BANDS][32]; /* inbox[b]: the column totals of band b (b above this one) */
  LOCAL_MEM ulong arrived;
  const int lid = LOCAL_ID(0), lane = lid & 31, warp = lid >> 5;
  const uint rank = cluster_rank(); /* the band */
  if (lid == 0) mbarrier_init(&arrived, 1u);
  cluster_arrive_relaxed(); /* waited for before the first store into another group */

  const int x0 = GROUP_ID(0) * 128, xl = x0 + 4 * lane;
  const int yw = (int)rank * BH + warp * RPW; /* this warp's first row */
  const int pieces = (x0 + 511) / 512;
  uint word[RPW];
  uint4 left[RPW][MAXC_HELD];
  UNROLL
  for (int r = 0; r < RPW; ++r) {
    const int y = yw + r;
    GLOBAL const uchar* row = src + src_offset + (y < height ? y : 0) * src_step;
    word[r] = y < height && xl < width ? load_word(row, xl, width) : 0u;
    UNROLL
    for (int c = 0; c < MAXC_HELD; ++c) {
      const int xc = 512 * c + 16 * lane;
      left[r][c] = y < height && c < pieces && xc < x0 ? load_span(row, xc) : VEC4(uint4, 0u, 0u, 0u, 0u);
    }
  }

  /* Row sums down the warp's rows: acc[k] = sum of P(xl + k) over the rows so far. */
  uint acc[4] = {0u, 0u, 0u, 0u};
  uint out[RPW][4];
  UNROLL
  for (int r = 0; r < RPW; ++r) {
    uint part = 0u; /* this lane's share of the row's left part, as two 16-bit lanes */
    UNROLL
    for (int c = 0; c < MAXC_HELD; ++c) part += byte_sums(left[r][c]);
    part = (part & 0xFFFFu) + (part >> 16);
    const uint v = summed(word[r]);
    const uint a = v & 255u, b = a + ((v >> 8) & 255u), c = b + ((v >> 16) & 255u), d = c + (v >> 24);
#if PACKED_SCAN
    const uint incl = warp_inclusive_scan_u32(d + (part << 15), lane, 0);
    const uint base = (warp_get_u32(incl, 31, 0) >> 15) + (incl & 0x7FFFu) - d;
#else
    const uint base = warp_sum_u32(part, 0) + warp_inclusive_scan_u32(d, lane, 0) - d;
#endif
    acc[0] += base + a;
    acc[1] += base + b;
    acc[2] += base + c;
    acc[3] += base + d;
    UNROLL
    for (int k = 0; k < 4; ++k) out[r][k] = acc[k];
  }

  /* The band's column totals, and the warps above this one's. */
  warp_totals[warp][lane] = VEC4(uint4, acc[0], acc[1], acc[2], acc[3]);
  BARRIER_LOCAL();
  uint above[4] = {0u, 0u, 0u, 0u}, total[4] = {0u, 0u, 0u, 0u};
  UNROLL
  for (int q = 0; q < NW; ++q) {
    const uint4 t = warp_totals[q][lane];
    const uint s[4] = {t.x, t.y, t.z, t.w};
    UNROLL
    for (int k = 0; k < 4; ++k) {
      if (q < warp) above[k] += s[k];
      total[k] += s[k];
    }
  }
  /* Pass the totals down the strip: 512 bytes from each band above this one. */
  if (lid == 0) mbarrier_expect_bytes(&arrived, rank * 512u);
  cluster_wait();
  if (warp == 0) {
    const uint4 t = VEC4(uint4, total[0], total[1], total[2], total[3]);
    for (uint q = rank + 1; q < (uint)BANDS; ++q) cluster_store_async_uint4(&inbox[rank][lane], q, t, &arrived);
  }
  mbarrier_wait(&arrived, 0u);
  UNROLL
  for (int q = 0; q < BANDS; ++q) {
    if (q < (int)rank) {
      const uint4 t = inbox[q][lane];
      above[0] += t.x;
      above[1] += t.y;
      above[2] += t.z;
      above[3] += t.w;
    }
  }

  UNROLL
  for (int r = 0; r < RPW; ++r) {
    const int y = yw + r;
    if (y >= height) break;
    GLOBAL SUM_T* o = sum + sum_offset + (y + 1) * sum_step + xl + 1;
    UNROLL
    for (int k = 0; k < 4; ++k) {
      if (xl + k < width) o[k] = (SUM_T)(out[r][k] + above[k]);
    }
  }
  /* Column 0 of the band's rows, and row 0. */
  if (GROUP_ID(0) == 0 && warp == 0) {
    for (int r = lane; r < BH; r += 32) {
      const int y = (int)rank * BH + r;
      if (y < height) sum[sum_offset + (y + 1) * sum_step] = (SUM_T)0;
    }
  }
  if (rank == 0u && warp == 0) {
    for (int x = lane; x < 128; x += 32) {
      if (x0 + x < width) sum[sum_offset + x0 + x + 1] = (SUM_T)0;
    }
    if (GROUP_ID(0) == 0 && lane == 0) sum[sum_offset] = (SUM_T)0;
  }
}

#endif
