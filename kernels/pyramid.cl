/* Gaussian pyramids: cv::pyrDown, cv::pyrUp (per pixel, and u8 in words: `strips`), two pyrDown
 * levels in one launch, and the KLT pyramid of the case study (Gaussian smoothing sampled every S
 * pixels). Host side: src/ops/pyramid.cpp. Options:
 *   SRC_T / SRC_DEPTH   element type; CN channels (a pixel is a vector of CN values)
 *   WT                  accumulator: int for integer depths (exact), float or double otherwise
 *   BORDER              border code of common/border.h (never constant here)
 *   GX, GY              work-group shape
 *   STRIPS, STRIP_CN    (instead of CN) the u8 kernels of method `strips` for 1 or 4 channels;
 *                       shapes in pyramid_strips.h
 * pyrDown: the 5-tap kernel [1 4 6 4 1] / 16 in each direction around (2x, 2y); integers round
 * as (sum + 128) >> 8, floats scale by 1/256. pyrUp: the same kernel on the image upsampled with
 * zeros between samples (so [1 6 1] / 8 and [4 4] / 8 by parity), integers (sum + 32) >> 6. */
#include "common/dialect.h"
#include "common/types.h"
#include "common/border.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* pyrDown / pyrUp builds define CN; subsampled builds define SUBSAMPLING. */
#ifdef CN
#if CN == 1
#define PIX SRC_T
#define WPIX WT
#define LOAD_PIX(row, x) ((row)[x])
#define STORE_PIX(v, row, x) ((row)[x] = (v))
#else
#define PIX CAT(SRC_T, CN)
#define WPIX CAT(WT, CN)
#define LOAD_PIX(row, x) CAT(vload, CN)(x, row)
#define STORE_PIX(v, row, x) CAT(vstore, CN)(v, x, row)
#endif
#define TO_W(p) CAT(convert_, WPIX)(p)

#if DEPTH_IS_FLOAT(SRC_DEPTH)
#define DOWN_RESULT(s) CAT(convert_, PIX)((s) * (WT)0.00390625f)
#define UP_RESULT(s) CAT(convert_, PIX)((s) * (WT)0.015625f)
#else
#define DOWN_RESULT(s) CAT(convert_, PIX)(((s) + 128) >> 8)
#define UP_RESULT(s) CAT(convert_, PIX)(((s) + 32) >> 6)
#endif

#include "pyramid_down_taps.h"

/* ---- pyr_down: one level; tile of GX x 2GY outputs, rows filtered into local memory -------- */
#define OUT_H (2 * GY)
#define HROWS (2 * OUT_H + 3)

KERNEL REQD_GROUP_SIZE(GX, GY, 1) void pyr_down(int src_width, int src_height, int dst_width, int dst_height,
                                                CONST_IMAGE_PARAM(SRC_T, src), IMAGE_PARAM(SRC_T, dst)) {
  LOCAL_MEM WPIX rows[HROWS * GX];
  const int lx = LOCAL_ID(0), ly = LOCAL_ID(1);
  const int ox0 = GROUP_ID(0) * GX, oy0 = GROUP_ID(1) * OUT_H;
  const int x = ox0 + lx;
  /* Horizontal pass: source rows 2 oy0 - 2 ... filtered at the tile's output columns. */
  for (int i = ly; i < HROWS; i += GY) {
    const int sy = 2 * oy0 - 2 + i;
    rows[i * GX + lx] = taps5(source_at(src, src_offset, src_step, 2 * x - 2, sy, src_width, src_height),
                              source_at(src, src_offset, src_step, 2 * x - 1, sy, src_width, src_height),
                              source_at(src, src_offset, src_step, 2 * x, sy, src_width, src_height),
                              source_at(src, src_offset, src_step, 2 * x + 1, sy, src_width, src_height),
                              source_at(src, src_offset, src_step, 2 * x + 2, sy, src_width, src_height));
  }
  BARRIER_LOCAL();
  if (x >= dst_width) return;
  GLOBAL SRC_T* out = dst + dst_offset;
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const int t = ly + k * GY;
    const int y = oy0 + t;
    if (y < dst_height) {
      LOCAL const WPIX* c = rows + 2 * t * GX + lx;
      STORE_PIX(DOWN_RESULT(taps5(c[0], c[GX], c[2 * GX], c[3 * GX], c[4 * GX])), out + y * dst_step, x);
    }
  }
}

/* ---- pyr_down2: two levels in one launch ---------------------------------------------------
 * A work-group owns a GX x GY tile of level 2 and the 2GX x 2GY tile of level 1 under it. Its
 * level-2 outputs read level 1 over that tile and a 2-pixel frame (L1W x L1H values), which it
 * computes from level 0 separably in local memory: level-0 rows filtered at the level-1 columns,
 * then columns, rounded as level 1 is stored. Frame positions outside level 1 take the value at
 * their border-mapped position, computed directly from level 0 (only tiles at the image edge have
 * them). The work-group writes its own level-1 tile, then filters level 2 from local memory. */
#define L1W (2 * GX + 3)
#define L1H (2 * GY + 3)
#define L0H (2 * L1H + 3)
/* Bytes of a WPIX (3 channels take the room of 4). CUDA refuses to compile a kernel that declares
 * more than 48 KiB, so there programs built for pyr_down's larger work-groups leave pyr_down2 out
 * (the host runs it only from programs whose tiles fit the device's local memory: 48 KiB there). */
#define WPIX_BYTES ((SRC_DEPTH == DEPTH_F64 ? 8 : 4) * (CN == 3 ? 4 : CN))
#if !defined(__CUDACC__) || (L0H * L1W + L1H * L1W) * WPIX_BYTES <= 48 * 1024

KERNEL REQD_GROUP_SIZE(GX, GY, 1) void pyr_down2(int w0, int h0, int w1, int h1, int w2, int h2,
                                                 CONST_IMAGE_PARAM(SRC_T, src), IMAGE_PARAM(SRC_T, mid),
                                                 IMAGE_PARAM(SRC_T, dst)) {
  LOCAL_MEM WPIX rows[L0H * L1W];
  LOCAL_MEM WPIX level1[L1H * L1W];
  const int lid = LOCAL_ID(1) * GX + LOCAL_ID(0);
  const int ox0 = GROUP_ID(0) * GX, oy0 = GROUP_ID(1) * GY;
  const int px0 = 2 * ox0 - 2, py0 = 2 * oy0 - 2; /* level-1 origin of the frame */
  for (int i = lid; i < L0H * L1W; i += GX * GY) {
    const int r = i / L1W, c = i - r * L1W;
    const int sy = 2 * py0 - 2 + r, sx = 2 * (px0 + c);
    rows[i] = taps5(source_at(src, src_offset, src_step, sx - 2, sy, w0, h0),
                    source_at(src, src_offset, src_step, sx - 1, sy, w0, h0),
                    source_at(src, src_offset, src_step, sx, sy, w0, h0),
                    source_at(src, src_offset, src_step, sx + 1, sy, w0, h0),
                    source_at(src, src_offset, src_step, sx + 2, sy, w0, h0));
  }
  BARRIER_LOCAL();
  for (int i = lid; i < L1H * L1W; i += GX * GY) {
    const int ty = i / L1W, tx = i - ty * L1W;
    const int px = px0 + tx, py = py0 + ty;
    PIX v;
    if (px >= 0 && px < w1 && py >= 0 && py < h1) {
      LOCAL const WPIX* c = rows + 2 * ty * L1W + tx;
      v = DOWN_RESULT(taps5(c[0], c[L1W], c[2 * L1W], c[3 * L1W], c[4 * L1W]));
      const bool own = tx >= 2 && tx < 2 + 2 * GX && ty >= 2 && ty < 2 + 2 * GY;
      if (own) STORE_PIX(v, mid + mid_offset + py * mid_step, px);
    } else {
      v = DOWN_RESULT(down_sum(src, src_offset, src_step, border_index(px, w1, BORDER), border_index(py, h1, BORDER), w0, h0));
    }
    level1[i] = TO_W(v);
  }
  BARRIER_LOCAL();
  const int x = ox0 + LOCAL_ID(0), y = oy0 + LOCAL_ID(1);
  if (x >= w2 || y >= h2) return;
  WPIX r[5];
#pragma unroll
  for (int j = 0; j < 5; ++j) {
    LOCAL const WPIX* c = level1 + (2 * LOCAL_ID(1) + j) * L1W + 2 * LOCAL_ID(0);
    r[j] = taps5(c[0], c[1], c[2], c[3], c[4]);
  }
  STORE_PIX(DOWN_RESULT(taps5(r[0], r[1], r[2], r[3], r[4])), dst + dst_offset + y * dst_step, x);
}
#endif

/* ---- pyr_up: one work-item per 2 x 2 block of outputs, from a 3 x 3 source neighbourhood -- */
KERNEL void pyr_up(int src_width, int src_height, CONST_IMAGE_PARAM(SRC_T, src), IMAGE_PARAM(SRC_T, dst)) {
  const int x = GLOBAL_ID(0), y = GLOBAL_ID(1);
  if (x >= src_width || y >= src_height) return;
  /* Neighbours on the zero-interleaved grid of twice the size, mapped back to the source. */
  const int xm = border_index(2 * x - 2, 2 * src_width, BORDER) / 2;
  const int xp = border_index(2 * x + 2, 2 * src_width, BORDER) / 2;
  const int ym = border_index(2 * y - 2, 2 * src_height, BORDER) / 2;
  const int yp = border_index(2 * y + 2, 2 * src_height, BORDER) / 2;
  WPIX even[3], odd[3];
  const int ys[3] = {ym, y, yp};
#pragma unroll
  for (int j = 0; j < 3; ++j) {
    GLOBAL const SRC_T* row = src + src_offset + ys[j] * src_step;
    const WPIX a = TO_W(LOAD_PIX(row, xm)), b = TO_W(LOAD_PIX(row, x)), c = TO_W(LOAD_PIX(row, xp));
    even[j] = a + b * (WT)6 + c;
    odd[j] = (b + c) * (WT)4;
  }
  GLOBAL SRC_T* row0 = dst + dst_offset + 2 * y * dst_step;
  GLOBAL SRC_T* row1 = row0 + dst_step;
  STORE_PIX(UP_RESULT(even[0] + even[1] * (WT)6 + even[2]), row0, 2 * x);
  STORE_PIX(UP_RESULT(odd[0] + odd[1] * (WT)6 + odd[2]), row0, 2 * x + 1);
  STORE_PIX(UP_RESULT((even[1] + even[2]) * (WT)4), row1, 2 * x);
  STORE_PIX(UP_RESULT((odd[1] + odd[2]) * (WT)4), row1, 2 * x + 1);
}
#endif /* CN */

/* ---- strips: u8 with 1 or 4 channels, 8 bytes across per work-item as words (method `strips`)
 * Each work-item owns a strip of DOWN_STRIP_ROWS output rows (pyrDown) or UP_STRIP_ROWS source
 * rows (pyrUp), 8 bytes wide (8 pixels of one channel, 2 of four): pyrDown's 8 output bytes read
 * 19 source bytes of each row (a 16-byte word plus two bytes left and one right; with 4 channels
 * 28: two pixels left, 16 bytes, one pixel right) and leave as one 8-byte word; pyrUp's 8 source
 * bytes (an 8-byte word plus a pixel either side) give 16 output bytes in each of two rows,
 * 16-byte words. Every source row the strip needs is loaded once (2 DOWN_STRIP_ROWS + 3 rows for
 * pyrDown, UP_STRIP_ROWS + 2 for pyrUp), and on the word path all of them may be in flight before
 * the arithmetic. The sums run two to a 32-bit word in 16-bit lanes (byte_perm splits and shifts
 * them; no lane exceeds 65,408), and the rounded results are bytes 1 and 3 (pyrDown) or a shift
 * and a mask away (pyrUp), packed by byte_perm. Rows outside the image and the halo bytes left and
 * right are border-mapped on the word path, so edge strips load words too. A strip whose own word
 * would cross the right edge, and every strip when the rows are not word aligned (`vec` at launch,
 * bits VEC_SRC and VEC_DST of pyramid_strips.h), gathers the same words byte by byte through the
 * border, a row at a time; the arithmetic is the same, so both paths give the same bits. Integer
 * sums are exact in any order, so these equal cv::pyrDown / cv::pyrUp. */
#ifdef STRIPS
#include "pyramid_strips.h"

/* STRIP_CN is 1 or 4: pixels per work-item (pyrDown outputs, pyrUp source pixels), so that its
 * words hold the same bytes either way. */
#define STRIP_PX (STRIP_COLS / STRIP_CN)

/* Even and odd bytes of a word, zero-extended into the two 16-bit lanes. */
INLINE uint even_lanes(uint w) { return byte_perm(w, 0u, 0x4240u); }
INLINE uint odd_lanes(uint w) { return byte_perm(w, 0u, 0x4341u); }

/* Bytes x .. x + n - 1 (n <= 4) of a mapped row as one little-endian word, each through the
 * border: the gather path of edge work-items. */
INLINE uint gather_down(GLOBAL const uchar* row, int x, int n, int width) {
  uint v = 0u;
  for (int k = 0; k < n; ++k) v |= (uint)row[border_index(x + k, width, BORDER)] << (8 * k);
  return v;
}

/* The 4 bytes of pixel px (4 channels) through the border. */
INLINE uint gather_pixel_down(GLOBAL const uchar* row, int px, int width) {
  const int x = 4 * border_index(px, width, BORDER);
  return (uint)row[x] | ((uint)row[x + 1] << 8) | ((uint)row[x + 2] << 16) | ((uint)row[x + 3] << 24);
}

#if STRIP_CN == 1
#define DOWN_RAW 6
/* Raw bytes of one source row for a pyrDown strip at output column x0 (source 2 x0 - 2 ..
 * 2 x0 + 16): raw[0] bits 0-15 = the two left bytes, raw[1..4] = 16 bytes, raw[5] bits 0-7 = the
 * right byte. On the word path `halo` holds the border-mapped source columns of the left pair
 * and the right byte (left_in: the pair lies inside, one 2-byte load). */
INLINE void down_fetch(uint* raw, GLOBAL const uchar* row, int x0, bool fast, int width, bool left_in, const int* halo) {
  const int sx = 2 * x0;
  if (fast) {
    const uint4 w = *(GLOBAL const uint4*)(row + sx);
    if (left_in) {
      raw[0] = (uint)(*(GLOBAL const ushort*)(row + sx - 2));
    } else {
      raw[0] = (uint)row[halo[0]] | ((uint)row[halo[1]] << 8);
    }
    raw[1] = w.x;
    raw[2] = w.y;
    raw[3] = w.z;
    raw[4] = w.w;
    raw[5] = (uint)row[halo[2]];
  } else {
    raw[0] = gather_down(row, sx - 2, 2, width);
    UNROLL
    for (int j = 0; j < 4; ++j) raw[1 + j] = gather_down(row, sx + 4 * j, 4, width);
    raw[5] = gather_down(row, sx + 16, 1, width);
  }
}

/* Horizontal [1 4 6 4 1] sums of one row at the strip's 8 outputs: h[j] holds outputs 2j (low
 * lane) and 2j + 1 (high lane), each at most 16 * 255. With E_k, O_k the source bytes at 2 x0 + 2k
 * and 2 x0 + 2k + 1, output k is E_{k-1} + 4 O_{k-1} + 6 E_k + 4 O_k + E_{k+1}. */
INLINE void down_hsum(const uint* raw, uint* h) {
  uint e[6], o[5];
  e[0] = byte_perm(raw[0], 0u, 0x4044u); /* high lane E_{-1} */
  o[0] = byte_perm(raw[0], 0u, 0x4144u); /* high lane O_{-1} */
  UNROLL
  for (int j = 0; j < 4; ++j) {
    e[1 + j] = even_lanes(raw[1 + j]); /* (E_2j, E_2j+1) */
    o[1 + j] = odd_lanes(raw[1 + j]);  /* (O_2j, O_2j+1) */
  }
  e[5] = raw[5] & 0xFFu; /* low lane E_8 */
  uint em[5];            /* em[j] = (E_2j-1, E_2j) */
  UNROLL
  for (int j = 0; j < 5; ++j) em[j] = byte_perm(e[j], e[j + 1], 0x5432u);
  UNROLL
  for (int j = 0; j < 4; ++j) {
    const uint om = byte_perm(o[j], o[j + 1], 0x5432u); /* (O_2j-1, O_2j) */
    h[j] = e[1 + j] * 6u + em[j] + em[j + 1] + (om + o[1 + j]) * 4u;
  }
}
/* Rounded sums (byte 1 of each lane) to output bytes: outputs 0-3 from v[0], v[1]. */
#define DOWN_PACK 0x7531u
#else
#define DOWN_RAW 7
/* Pixels 2 x0 - 2 .. 2 x0 + 4 of one source row (4 bytes each) for a pyrDown strip of the 2
 * output pixels at x0: two left (an 8-byte word, or two mapped pixels halo[0], halo[1] where
 * they lie outside), four (16), one right (halo[2], mapped). */
INLINE void down_fetch(uint* raw, GLOBAL const uchar* row, int x0, bool fast, int width, bool left_in, const int* halo) {
  const int px = 2 * x0;
  if (fast) {
    const uint4 w = *(GLOBAL const uint4*)(row + 4 * px);
    if (left_in) {
      const uint2 l = *(GLOBAL const uint2*)(row + 4 * (px - 2));
      raw[0] = l.x;
      raw[1] = l.y;
    } else {
      raw[0] = *(GLOBAL const uint*)(row + 4 * halo[0]);
      raw[1] = *(GLOBAL const uint*)(row + 4 * halo[1]);
    }
    raw[2] = w.x;
    raw[3] = w.y;
    raw[4] = w.z;
    raw[5] = w.w;
    raw[6] = *(GLOBAL const uint*)(row + 4 * halo[2]);
  } else {
    UNROLL
    for (int i = 0; i < 7; ++i) raw[i] = gather_pixel_down(row, px - 2 + i, width);
  }
}

/* Horizontal sums at the strip's 2 output pixels: h[2k] holds channels 0 and 2 of output pixel k
 * (low and high lane), h[2k + 1] channels 1 and 3, each at most 16 * 255. */
INLINE void down_hsum(const uint* raw, uint* h) {
  UNROLL
  for (int k = 0; k < 2; ++k) {
    const uint p0 = raw[2 * k], p1 = raw[2 * k + 1], p2 = raw[2 * k + 2], p3 = raw[2 * k + 3], p4 = raw[2 * k + 4];
    h[2 * k] = even_lanes(p2) * 6u + even_lanes(p0) + even_lanes(p4) + (even_lanes(p1) + even_lanes(p3)) * 4u;
    h[2 * k + 1] = odd_lanes(p2) * 6u + odd_lanes(p0) + odd_lanes(p4) + (odd_lanes(p1) + odd_lanes(p3)) * 4u;
  }
}
/* Rounded sums (byte 1 of each lane) to output bytes: pixel 0 from v[0] (channels 0, 2) and v[1]
 * (channels 1, 3). */
#define DOWN_PACK 0x7351u
#endif

#define DOWN_LOADS (2 * DOWN_STRIP_ROWS + 3)

/* One pyrDown strip. Called with `fast` a constant, so each call is its own copy: the word path
 * (strips whose 16-byte words lie inside aligned rows) keeps every row in registers with its
 * loads in flight together; rows outside the image are border-mapped row indices, the halo
 * columns border-mapped once per work-item, so strips at the top, bottom, left and right edges
 * load the same words as interior ones. The gather path (a strip whose word would cross the
 * right edge, or unaligned rows) fetches and sums a row at a time (loop not unrolled, the sums
 * in private memory), so that its 19-28 byte loads a row do not raise the kernel's register
 * count, which the word path would pay for in occupancy. */
INLINE void down_strip(const bool fast, GLOBAL const uchar* src, int src_offset, int src_step, int src_width,
                       int src_height, GLOBAL uchar* dst, int dst_offset, int dst_step, int dst_width, int dst_height,
                       int x0, int y0, bool vec_dst) {
  uint h[DOWN_LOADS][4];
  if (fast) {
    /* Source columns (pixels) of the left halo pair and the right halo pixel. */
    const int sx = 2 * x0;
    const int halo[3] = {border_index(sx - 2, src_width, BORDER), border_index(sx - 1, src_width, BORDER),
                         border_index(sx + 2 * STRIP_PX, src_width, BORDER)};
    const bool left_in = x0 >= 1;
    const bool rows_in = y0 >= 1 && 2 * y0 + 2 * DOWN_STRIP_ROWS < src_height;
    UNROLL
    for (int i = 0; i < DOWN_LOADS; ++i) {
      uint raw[DOWN_RAW];
      const int y = 2 * y0 - 2 + i;
      const int sy = rows_in ? y : border_index(y, src_height, BORDER);
      down_fetch(raw, src + src_offset + sy * src_step, x0, true, src_width, left_in, halo);
      down_hsum(raw, h[i]);
    }
  } else {
    /* Its own array: indexed by a loop that is not unrolled, it lives in private memory; h,
     * indexed statically on both paths, stays in registers. */
    uint g[DOWN_LOADS][4];
#pragma unroll 1
    for (int i = 0; i < DOWN_LOADS; ++i) {
      uint raw[DOWN_RAW];
      const int sy = border_index(2 * y0 - 2 + i, src_height, BORDER);
      down_fetch(raw, src + src_offset + sy * src_step, x0, false, src_width, false, 0);
      down_hsum(raw, g[i]);
    }
    UNROLL
    for (int i = 0; i < DOWN_LOADS; ++i) {
      UNROLL
      for (int j = 0; j < 4; ++j) h[i][j] = g[i][j];
    }
  }
  UNROLL
  for (int t = 0; t < DOWN_STRIP_ROWS; ++t) {
    const int y = y0 + t;
    if (y >= dst_height) break;
    uint v[4];
    UNROLL
    for (int j = 0; j < 4; ++j) {
      /* Rows 2y - 2 .. 2y + 2; + 128 in each lane rounds; the result is byte 1 of each lane. */
      v[j] = h[2 * t][j] + h[2 * t + 4][j] + 0x00800080u + (h[2 * t + 1][j] + h[2 * t + 3][j]) * 4u + h[2 * t + 2][j] * 6u;
    }
    const uint lo = byte_perm(v[0], v[1], DOWN_PACK), hi = byte_perm(v[2], v[3], DOWN_PACK);
    GLOBAL uchar* out = dst + dst_offset + y * dst_step + x0 * STRIP_CN;
    if (vec_dst && x0 + STRIP_PX <= dst_width) {
      *(GLOBAL uint2*)out = VEC2(uint2, lo, hi);
    } else {
      UNROLL
      for (int k = 0; k < STRIP_COLS; ++k) {
        if (x0 + k / STRIP_CN < dst_width) out[k] = (uchar)((k < 4 ? lo : hi) >> (8 * (k & 3)));
      }
    }
  }
}

/* src_width and dst_width in pixels. */
KERNEL REQD_GROUP_SIZE(STRIP_GX, DOWN_STRIP_GY, 1) void pyr_down_strips(int src_width, int src_height, int dst_width,
                                                                      int dst_height, int vec, CONST_IMAGE_PARAM(uchar, src),
                                                                      IMAGE_PARAM(uchar, dst)) {
  const int x0 = GLOBAL_ID(0) * STRIP_PX;
  const int y0 = GLOBAL_ID(1) * DOWN_STRIP_ROWS;
  if (x0 >= dst_width || y0 >= dst_height) return;
  /* Words straight from memory when the strip's 16-byte word of each row lies inside the image
   * (the halo bytes and rows are mapped through the border on that path too). */
  const bool vec_dst = (vec & VEC_DST) != 0;
  const bool fast = (vec & VEC_SRC) != 0 && PLINTH_LITTLE_ENDIAN && 2 * x0 + 2 * STRIP_PX <= src_width;
  /* Two ifs, not if / else: a warp with a partial strip runs its word lanes first, so that the
   * gather lane then finds its rows in L1. */
  if (fast) {
    down_strip(true, src, src_offset, src_step, src_width, src_height, dst, dst_offset, dst_step, dst_width, dst_height, x0, y0,
               vec_dst);
  }
  if (!fast) {
    down_strip(false, src, src_offset, src_step, src_width, src_height, dst, dst_offset, dst_step, dst_width, dst_height, x0,
               y0, vec_dst);
  }
}

/* pyrUp's source coordinate for position 2c of the upsampled grid: OpenCV maps 2c through
 * reflect_101 on twice the length and halves it (c = -1 gives 1, c = len gives len - 1). */
INLINE int up_index(int c, int len) { return border_index(2 * c, 2 * len, BORDER_REFLECT_101) / 2; }

INLINE uint gather_up(GLOBAL const uchar* row, int x, int n, int width) {
  uint v = 0u;
  for (int k = 0; k < n; ++k) v |= (uint)row[up_index(x + k, width)] << (8 * k);
  return v;
}

#if STRIP_CN == 1
/* Raw bytes of one source row for a pyrUp strip at source column x0 (x0 - 1 .. x0 + 8):
 * raw[0] bits 0-7 = the left byte, raw[1..2] = 8 bytes, raw[3] bits 0-7 = the right byte. On the
 * word path hl and hr are the border-mapped columns of the left and right bytes. */
INLINE void up_fetch(uint* raw, GLOBAL const uchar* row, int x0, bool fast, int width, int hl, int hr) {
  if (fast) {
    const uint2 w = *(GLOBAL const uint2*)(row + x0);
    raw[0] = (uint)row[hl];
    raw[1] = w.x;
    raw[2] = w.y;
    raw[3] = (uint)row[hr];
  } else {
    raw[0] = gather_up(row, x0 - 1, 1, width);
    raw[1] = gather_up(row, x0, 4, width);
    raw[2] = gather_up(row, x0 + 4, 4, width);
    raw[3] = gather_up(row, x0 + 8, 1, width);
  }
}

/* Horizontal sums of one source row, s_c the byte at x0 + c: ev[m] = (even(2m), even(2m + 1))
 * with even(c) = s_{c-1} + 6 s_c + s_{c+1} (at most 8 * 255); od[m] = (odd(2m), odd(2m + 1)) / 4
 * with odd(c) = 4 (s_c + s_{c+1}); the factor 4 is taken into the rounding. */
INLINE void up_hsum(const uint* raw, uint* ev, uint* od) {
  uint a[6]; /* a[1 + m] = (s_2m, s_2m+1) */
  a[0] = byte_perm(raw[0], 0u, 0x4044u); /* high lane s_{-1} */
  a[1] = byte_perm(raw[1], 0u, 0x4140u);
  a[2] = byte_perm(raw[1], 0u, 0x4342u);
  a[3] = byte_perm(raw[2], 0u, 0x4140u);
  a[4] = byte_perm(raw[2], 0u, 0x4342u);
  a[5] = raw[3] & 0xFFu; /* low lane s_8 */
  uint am[5];            /* am[m] = (s_2m-1, s_2m) */
  UNROLL
  for (int m = 0; m < 5; ++m) am[m] = byte_perm(a[m], a[m + 1], 0x5432u);
  UNROLL
  for (int m = 0; m < 4; ++m) {
    ev[m] = a[1 + m] * 6u + am[m] + am[m + 1];
    od[m] = a[1 + m] + am[m + 1];
  }
}

/* The 4 output words of a row from the rounded even-column sums e and odd-column sums o (results
 * in bytes 0 and 2 of each lane pair): word m interleaves e[m] and o[m]. */
INLINE void up_pack(const uint* e, const uint* o, uint* out) {
  UNROLL
  for (int m = 0; m < 4; ++m) out[m] = byte_perm(e[m], o[m], 0x6240u);
}
#else
/* Pixels x0 - 1 .. x0 + 2 of one source row (4 bytes each) for a pyrUp strip of the 2 source
 * pixels at x0: one left (pixel hl, border-mapped on the word path), two (an 8-byte word), one
 * right (pixel hr). */
INLINE void up_fetch(uint* raw, GLOBAL const uchar* row, int x0, bool fast, int width, int hl, int hr) {
  if (fast) {
    const uint2 w = *(GLOBAL const uint2*)(row + 4 * x0);
    raw[0] = *(GLOBAL const uint*)(row + 4 * hl);
    raw[1] = w.x;
    raw[2] = w.y;
    raw[3] = *(GLOBAL const uint*)(row + 4 * hr);
  } else {
    UNROLL
    for (int i = 0; i < 4; ++i) {
      const int x = 4 * up_index(x0 - 1 + i, width);
      raw[i] = (uint)row[x] | ((uint)row[x + 1] << 8) | ((uint)row[x + 2] << 16) | ((uint)row[x + 3] << 24);
    }
  }
}

/* Horizontal sums at the strip's 2 source pixels c = 0, 1 (P, C, N the pixels at x0 + c - 1 ..
 * x0 + c + 1): ev[2c] = channels 0 and 2 of P + 6C + N, ev[2c + 1] channels 1 and 3; od the same
 * of C + N (the odd output pixel over 4). */
INLINE void up_hsum(const uint* raw, uint* ev, uint* od) {
  UNROLL
  for (int c = 0; c < 2; ++c) {
    const uint p = raw[c], q = raw[c + 1], n = raw[c + 2];
    ev[2 * c] = even_lanes(q) * 6u + even_lanes(p) + even_lanes(n);
    ev[2 * c + 1] = odd_lanes(q) * 6u + odd_lanes(p) + odd_lanes(n);
    od[2 * c] = even_lanes(q) + even_lanes(n);
    od[2 * c + 1] = odd_lanes(q) + odd_lanes(n);
  }
}

/* The 4 output pixels of a row: even(0), odd(0), even(1), odd(1), each from its channels 0, 2
 * word and its channels 1, 3 word. */
INLINE void up_pack(const uint* e, const uint* o, uint* out) {
  out[0] = byte_perm(e[0], e[1], 0x6240u);
  out[1] = byte_perm(o[0], o[1], 0x6240u);
  out[2] = byte_perm(e[2], e[3], 0x6240u);
  out[3] = byte_perm(o[2], o[3], 0x6240u);
}
#endif

#define UP_LOADS (UP_STRIP_ROWS + 2)

/* One pyrUp strip; two copies as down_strip's (word path: rows in registers, loads in flight
 * together, rows and halo columns border-mapped so that edge strips load words too; gather
 * path: a row at a time). */
INLINE void up_strip(const bool fast, GLOBAL const uchar* src, int src_offset, int src_step, int src_width, int src_height,
                     GLOBAL uchar* dst, int dst_offset, int dst_step, int x0, int y0, bool vec_dst) {
  uint ev[UP_LOADS][4], od[UP_LOADS][4];
  if (fast) {
    const int hl = up_index(x0 - 1, src_width), hr = up_index(x0 + STRIP_PX, src_width);
    const bool rows_in = y0 >= 1 && y0 + UP_STRIP_ROWS < src_height;
    UNROLL
    for (int i = 0; i < UP_LOADS; ++i) {
      uint raw[4];
      const int y = y0 - 1 + i;
      const int sy = rows_in ? y : up_index(y, src_height);
      up_fetch(raw, src + src_offset + sy * src_step, x0, true, src_width, hl, hr);
      up_hsum(raw, ev[i], od[i]);
    }
  } else {
    /* Their own arrays, as down_strip's gather path: ev and od stay in registers. */
    uint gev[UP_LOADS][4], god[UP_LOADS][4];
#pragma unroll 1
    for (int i = 0; i < UP_LOADS; ++i) {
      uint raw[4];
      up_fetch(raw, src + src_offset + up_index(y0 - 1 + i, src_height) * src_step, x0, false, src_width, 0, 0);
      up_hsum(raw, gev[i], god[i]);
    }
    UNROLL
    for (int i = 0; i < UP_LOADS; ++i) {
      UNROLL
      for (int m = 0; m < 4; ++m) {
        ev[i][m] = gev[i][m];
        od[i][m] = god[i][m];
      }
    }
  }
  const int dst_width = 2 * src_width;
  UNROLL
  for (int t = 0; t < UP_STRIP_ROWS; ++t) {
    if (y0 + t >= src_height) break;
    uint e0[4], o0[4], e1[4], o1[4];
    UNROLL
    for (int m = 0; m < 4; ++m) {
      /* Row 2y: (p + 6c + n + 32) >> 6 for even columns, (4 (p + 6c + n) + 32) >> 6 =
       * (p + 6c + n + 8) >> 4 for odd ones; row 2y + 1: (4 (c + n) + 32) >> 6 = (c + n + 8) >> 4
       * and (16 (c + n) + 32) >> 6 = (c + n + 2) >> 2. Lanes stay below 2^14, results below 2^8. */
      e0[m] = ((ev[t][m] + ev[t + 2][m] + ev[t + 1][m] * 6u + 0x00200020u) >> 6) & 0x00FF00FFu;
      o0[m] = ((od[t][m] + od[t + 2][m] + od[t + 1][m] * 6u + 0x00080008u) >> 4) & 0x00FF00FFu;
      e1[m] = ((ev[t + 1][m] + ev[t + 2][m] + 0x00080008u) >> 4) & 0x00FF00FFu;
      o1[m] = ((od[t + 1][m] + od[t + 2][m] + 0x00020002u) >> 2) & 0x00FF00FFu;
    }
    uint even_row[4], odd_row[4];
    up_pack(e0, o0, even_row);
    up_pack(e1, o1, odd_row);
    GLOBAL uchar* out0 = dst + dst_offset + 2 * (y0 + t) * dst_step + 2 * x0 * STRIP_CN;
    GLOBAL uchar* out1 = out0 + dst_step;
    if (vec_dst && x0 + STRIP_PX <= src_width) {
      *(GLOBAL uint4*)out0 = VEC4(uint4, even_row[0], even_row[1], even_row[2], even_row[3]);
      *(GLOBAL uint4*)out1 = VEC4(uint4, odd_row[0], odd_row[1], odd_row[2], odd_row[3]);
    } else {
      UNROLL
      for (int k = 0; k < 2 * STRIP_COLS; ++k) {
        if (2 * x0 + k / STRIP_CN < dst_width) {
          out0[k] = (uchar)(even_row[k >> 2] >> (8 * (k & 3)));
          out1[k] = (uchar)(odd_row[k >> 2] >> (8 * (k & 3)));
        }
      }
    }
  }
}

/* src_width in pixels. */
KERNEL REQD_GROUP_SIZE(STRIP_GX, UP_STRIP_GY, 1) void pyr_up_strips(int src_width, int src_height, int vec,
                                                                  CONST_IMAGE_PARAM(uchar, src), IMAGE_PARAM(uchar, dst)) {
  const int x0 = GLOBAL_ID(0) * STRIP_PX;
  const int y0 = GLOBAL_ID(1) * UP_STRIP_ROWS;
  if (x0 >= src_width || y0 >= src_height) return;
  const bool vec_dst = (vec & VEC_DST) != 0;
  /* Words straight from memory when the strip's 8-byte word of each row lies inside the image
   * (halo columns and rows mapped through the border on that path too). */
  const bool fast = (vec & VEC_SRC) != 0 && PLINTH_LITTLE_ENDIAN && x0 + STRIP_PX <= src_width;
  if (fast) up_strip(true, src, src_offset, src_step, src_width, src_height, dst, dst_offset, dst_step, x0, y0, vec_dst);
  if (!fast) up_strip(false, src, src_offset, src_step, src_width, src_height, dst, dst_offset, dst_step, x0, y0, vec_dst);
}
#endif /* STRIPS */

/* ---- subsampled: KLT's level step, f32 in and out ------------------------------------------
 * out(x, y) = sum_j g[j] sum_i g[i] in(S x + S/2 + i - RADIUS, S y + S/2 + j - RADIUS), borders
 * mapped; each work-group filters the rows it needs at its output columns into local memory.
 * WEIGHTS is the list of the TAPS weights g[0..2 RADIUS] as exact hexadecimal floats. Two images
 * of one size may go in one launch (a tracker's two frames): groups of the global range's third
 * dimension 1 read src_b and write dst_b; a launch of one image has a third dimension of 1. */
#ifdef SUBSAMPLING
#define S SUBSAMPLING
#define TAPS (2 * RADIUS + 1)
#define SROWS (S * (GY - 1) + TAPS)

CONSTANT_MEM float g[TAPS] = {WEIGHTS};

KERNEL REQD_GROUP_SIZE(GX, GY, 1) void subsample(int src_width, int src_height, int dst_width, int dst_height,
                                                 CONST_IMAGE_PARAM(float, src_a), IMAGE_PARAM(float, dst_a),
                                                 CONST_IMAGE_PARAM(float, src_b), IMAGE_PARAM(float, dst_b)) {
  LOCAL_MEM float rows[SROWS * GX];
  const bool second = GROUP_ID(2) == 1;
  GLOBAL const float* src = second ? src_b : src_a;
  GLOBAL float* dst = second ? dst_b : dst_a;
  const int src_offset = second ? src_b_offset : src_a_offset, src_step = second ? src_b_step : src_a_step;
  const int dst_offset = second ? dst_b_offset : dst_a_offset, dst_step = second ? dst_b_step : dst_a_step;
  const int lx = LOCAL_ID(0), ly = LOCAL_ID(1);
  const int ox0 = GROUP_ID(0) * GX, oy0 = GROUP_ID(1) * GY;
  const int cx = S * (ox0 + lx) + S / 2;
  /* Loops of compile-time length, unrolled, so that a work-item's row loads are in flight
   * together instead of one tap's latency after another; columns inside the image skip the
   * border mapping (the sums keep their order either way). */
  const bool inside_x = cx - RADIUS >= 0 && cx + RADIUS < src_width;
  UNROLL
  for (int t = 0; t < (SROWS + GY - 1) / GY; ++t) {
    const int i = ly + t * GY;
    if (i < SROWS) {
      const int yy = border_index(S * oy0 + S / 2 - RADIUS + i, src_height, BORDER);
      GLOBAL const float* row = src + src_offset + yy * src_step;
      float sum = 0.0f;
      if (inside_x) {
        UNROLL
        for (int k = 0; k < TAPS; ++k) sum += g[k] * row[cx - RADIUS + k];
      } else {
        for (int k = 0; k < TAPS; ++k) sum += g[k] * row[border_index(cx - RADIUS + k, src_width, BORDER)];
      }
      rows[i * GX + lx] = sum;
    }
  }
  BARRIER_LOCAL();
  const int x = ox0 + lx, y = oy0 + ly;
  if (x >= dst_width || y >= dst_height) return;
  float sum = 0.0f;
  UNROLL
  for (int k = 0; k < TAPS; ++k) sum += g[k] * rows[(S * ly + k) * GX + lx];
  dst[dst_offset + y * dst_step + x] = sum;
}

/* Levels 0 of a tracker's two u8 frames, as f32, in one launch (the third dimension picks the
 * frame as in subsample); a value converts exactly, as convert_to's does. */
KERNEL void to_float_pair(int width, int height, CONST_IMAGE_PARAM(uchar, src_a), IMAGE_PARAM(float, dst_a),
                          CONST_IMAGE_PARAM(uchar, src_b), IMAGE_PARAM(float, dst_b)) {
  const int x = GLOBAL_ID(0), y = GLOBAL_ID(1);
  if (x >= width || y >= height) return;
  if (GROUP_ID(2) == 1) {
    dst_b[dst_b_offset + y * dst_b_step + x] = (float)src_b[src_b_offset + y * src_b_step + x];
  } else {
    dst_a[dst_a_offset + y * dst_a_step + x] = (float)src_a[src_a_offset + y * src_a_step + x];
  }
}
#endif
