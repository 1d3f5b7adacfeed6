/* Median filter (cv::medianBlur) and its variants. Host side: src/ops/median.cpp. Options:
 *   SRC_T / SRC_DEPTH   element type (u8, u16, s16, f32)
 *   CN                  channels, 1-4; the network kernels treat a pixel as a vector of CN values,
 *                       so one exchange sorts every channel at once (the case study's point)
 *   KSIZE               window side (odd); R is its radius, M the rank of the median
 *   BORDER              border code of common/border.h; border_value is the constant border's value
 *   TW                  outputs per work-item along x (median_columns3)
 *   PACKED_ROWS         output rows per work-item of median_sorted_rows_packed (even; u8, CN 1, 2, 4)
 *   TILE_X, TILE_Y      outputs per work-item of median_tiled (a network of median_networks.h)
 *   TILE_PAIRS          median_tiled_packed instead: two tiles per work-item in 16-bit lanes (u8, u16)
 *   HIST_BITS           8 or 16 bits per histogram bin (median_histogram)
 * Every variant selects the element of rank M (0-based) among the KSIZE * KSIZE window values,
 * so all of them agree bit for bit. */
#include "common/dialect.h"
#include "common/types.h"
#include "common/border.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#define R (KSIZE / 2)
#define N (KSIZE * KSIZE)
#define M (N / 2)

#if CN == 1
#define PIX SRC_T
#define LOAD_PIX(row, x) ((row)[x])
#define STORE_PIX(v, row, x) ((row)[x] = (v))
#else
#define PIX CAT(SRC_T, CN)
#define LOAD_PIX(row, x) CAT(vload, CN)(x, row)
#define STORE_PIX(v, row, x) CAT(vstore, CN)(v, x, row)
#endif

/* Compare and exchange: afterwards a <= b (channel by channel). */
#define CAS(a, b)              \
  {                            \
    const PIX lo_ = min(a, b); \
    b = max(a, b);             \
    a = lo_;                   \
  }

/* The start of source row y after border mapping; 0 when the row is the constant border. */
INLINE GLOBAL const SRC_T* source_row(GLOBAL const SRC_T* src, int src_offset, int src_step, int y, int height) {
  const int yy = border_index(y, height, BORDER);
  return yy < 0 ? (GLOBAL const SRC_T*)0 : src + src_offset + yy * src_step;
}

/* Pixel x of a mapped row, with the border applied along x. */
INLINE PIX fetch_pixel(GLOBAL const SRC_T* row, int x, int width, PIX fill) {
  if (row == 0) return fill;
  const int xx = border_index(x, width, BORDER);
  return xx < 0 ? fill : LOAD_PIX(row, xx);
}

/* ---- plain: one channel of one output per work-item, the whole window sorted or counted ---- */
KERNEL void median_plain(int width, int height, float border_value, CONST_IMAGE_PARAM(SRC_T, src),
                         IMAGE_PARAM(SRC_T, dst)) {
  const int x = GLOBAL_ID(0);
  const int y = GLOBAL_ID(1);
  const int c = GLOBAL_ID(2);
  if (x >= width || y >= height) return;
  const SRC_T fill = (SRC_T)border_value;
#if SRC_DEPTH == DEPTH_U8
  uint count[256];
  for (int i = 0; i < 256; ++i) count[i] = 0;
  for (int dy = -R; dy <= R; ++dy) {
    const int yy = border_index(y + dy, height, BORDER);
    for (int dx = -R; dx <= R; ++dx) {
      const int xx = border_index(x + dx, width, BORDER);
      ++count[(yy < 0 || xx < 0) ? fill : IMAGE_AT(src, xx * CN + c, yy)];
    }
  }
  int seen = 0, value = 0;
  while (seen + (int)count[value] <= M) seen += (int)count[value++];
  IMAGE_AT(dst, x * CN + c, y) = (SRC_T)value;
#else
  SRC_T v[N];
  int n = 0;
  for (int dy = -R; dy <= R; ++dy) {
    const int yy = border_index(y + dy, height, BORDER);
    for (int dx = -R; dx <= R; ++dx) {
      const int xx = border_index(x + dx, width, BORDER);
      const SRC_T value = (yy < 0 || xx < 0) ? fill : IMAGE_AT(src, xx * CN + c, yy);
      int i = n++;
      for (; i > 0 && v[i - 1] > value; --i) v[i] = v[i - 1];
      v[i] = value;
    }
  }
  IMAGE_AT(dst, x * CN + c, y) = v[M];
#endif
}

/* ---- network: per output, an exchange network on the window held in registers ----------- */
KERNEL void median_network(int width, int height, float border_value, CONST_IMAGE_PARAM(SRC_T, src),
                           IMAGE_PARAM(SRC_T, dst)) {
  const int x = GLOBAL_ID(0);
  const int y = GLOBAL_ID(1);
  if (x >= width || y >= height) return;
  const PIX fill = SPLAT(PIX, (SRC_T)border_value);
  const bool inside = x >= R && x < width - R && y >= R && y < height - R;
  PIX v[N];
#pragma unroll
  for (int dy = 0; dy < KSIZE; ++dy) {
    GLOBAL const SRC_T* row = source_row(src, src_offset, src_step, y + dy - R, height);
#pragma unroll
    for (int dx = 0; dx < KSIZE; ++dx) {
      v[dy * KSIZE + dx] = inside ? LOAD_PIX(row, x + dx - R) : fetch_pixel(row, x + dx - R, width, fill);
    }
  }
#if KSIZE == 3
  /* The case study's 22 exchanges (Knuth's 9-input sorting network less the three that cannot
   * reach the middle): the median ends in v[4]. */
  CAS(v[1], v[2]) CAS(v[4], v[5]) CAS(v[7], v[8]) CAS(v[0], v[1]) CAS(v[3], v[4]) CAS(v[6], v[7])
  CAS(v[1], v[2]) CAS(v[4], v[5]) CAS(v[7], v[8]) CAS(v[3], v[6]) CAS(v[4], v[7]) CAS(v[5], v[8])
  CAS(v[0], v[3]) CAS(v[1], v[4]) CAS(v[2], v[5]) CAS(v[3], v[6]) CAS(v[4], v[7]) CAS(v[1], v[3])
  CAS(v[2], v[6]) CAS(v[2], v[3]) CAS(v[4], v[6]) CAS(v[3], v[4])
  const PIX median = v[4];
#else
  /* Forgetful selection: keep M + 2 values; repeatedly move the smallest to v[0] and the largest
   * to v[w - 1] (neither can be the median: each has M + 1 values on its other side), drop both
   * and take the next input into v[0]. Pairs are ordered first, so that the minimum and the
   * maximum each come from one half. After M rounds three values remain and the middle one, v[1],
   * is the median. The loops have fill bounds and fill-foldable guards, so they unroll
   * into a fixed network in registers. */
#define WSET (M + 2)
#pragma unroll
  for (int s = 0; s < M; ++s) {
    const int w = WSET - s;
#pragma unroll
    for (int i = 0; i + 1 < WSET; i += 2) {
      if (i + 1 < w) CAS(v[i], v[i + 1])
    }
#pragma unroll
    for (int i = 2; i < WSET; i += 2) {
      if (i < w) CAS(v[0], v[i])
    }
#pragma unroll
    for (int i = 1; i < WSET; i += 2) {
      if (i < w - 1) CAS(v[i], v[w - 1])
    }
    if (s + 1 < M) v[0] = v[WSET + s];
  }
  const PIX median = v[1];
#endif
  GLOBAL SRC_T* out = dst + IMAGE_INDEX(dst, 0, y);
  STORE_PIX(median, out, x);
}

/* ---- sorted_columns (3x3): columns sorted once, shared by TW neighbouring outputs --------- */
/* With every column of the window sorted into (lo, mid, hi), the median of the nine is
 * med3(max of the three lo, med3 of the three mid, min of the three hi). */
INLINE PIX med3(PIX a, PIX b, PIX c) { return max(min(a, b), min(max(a, b), c)); }

#ifdef TW
KERNEL void median_columns3(int width, int height, float border_value, CONST_IMAGE_PARAM(SRC_T, src),
                            IMAGE_PARAM(SRC_T, dst)) {
  const int x0 = GLOBAL_ID(0) * TW;
  const int y = GLOBAL_ID(1);
  if (x0 >= width || y >= height) return;
  const PIX fill = SPLAT(PIX, (SRC_T)border_value);
  GLOBAL const SRC_T* r0 = source_row(src, src_offset, src_step, y - 1, height);
  GLOBAL const SRC_T* r1 = source_row(src, src_offset, src_step, y, height);
  GLOBAL const SRC_T* r2 = source_row(src, src_offset, src_step, y + 1, height);
  const bool inside = x0 >= 1 && x0 + TW < width && r0 != 0 && r2 != 0;
  PIX lo[TW + 2], mid[TW + 2], hi[TW + 2];
#pragma unroll
  for (int j = 0; j < TW + 2; ++j) {
    const int x = x0 - 1 + j;
    PIX a, b, c;
    if (inside) {
      a = LOAD_PIX(r0, x);
      b = LOAD_PIX(r1, x);
      c = LOAD_PIX(r2, x);
    } else {
      a = fetch_pixel(r0, x, width, fill);
      b = fetch_pixel(r1, x, width, fill);
      c = fetch_pixel(r2, x, width, fill);
    }
    CAS(a, b) CAS(b, c) CAS(a, b)
    lo[j] = a;
    mid[j] = b;
    hi[j] = c;
  }
  GLOBAL SRC_T* out = dst + IMAGE_INDEX(dst, 0, y);
#pragma unroll
  for (int t = 0; t < TW; ++t) {
    if (x0 + t < width) {
      const PIX top = max(max(lo[t], lo[t + 1]), lo[t + 2]);
      const PIX bottom = min(min(hi[t], hi[t + 1]), hi[t + 2]);
      STORE_PIX(med3(top, med3(mid[t], mid[t + 1], mid[t + 2]), bottom), out, x0 + t);
    }
  }
}
#endif

/* ---- sorted_rows_packed (3x3, u8, 1, 2 or 4 channels): sorted row triples, two values per word -- */
/* The transpose of sorted_columns with two values in each 32-bit register. A work-item does the
 * 8 neighbouring bytes x0 * CN .. x0 * CN + 7 of each of PACKED_ROWS rows: PACKED_PIXELS = 8 / CN
 * pixels. Its 4 words o[j] (j 0-3) hold two of those values each as unsigned 16-bit lanes, each
 * value v as v * 257 (its byte in both halves: order kept, and either byte of a result is the
 * answer), so one min_u16x2 / max_u16x2 of common/dialect.h orders two values; on sm_90 the
 * three-input min3 / max3 are one instruction (VIMNMX3.U16x2) each. The lanes of word j:
 *   CN 1: pixels x0 + j and x0 + 4 + j;
 *   CN 2: channels 0 and 1 of pixel x0 + j;
 *   CN 4: channels 0 and 1 (j 0, 1) or 2 and 3 (j 2, 3) of pixel x0 + (j & 1).
 * A lane's horizontal neighbours (the same channel of pixels x - 1 and x + 1) then sit in the
 * same lane of the neighbouring words of a row: byte_perm builds those words from the row's
 * two words and the words that hold pixels x0 - 1 and x0 + PACKED_PIXELS.
 * Each source row's horizontal triples (x - 1, x, x + 1) are sorted once into (lo, mid, hi) and
 * reused by the 3 output rows that read them; the output is med3(max3 of the 3 rows' lo, med3
 * of their mid, min3 of their hi). The middle of three is their sum less the smallest and the
 * largest, in plain 32-bit arithmetic: exact, since each lane's true result is one of its three
 * values, whatever carries pass between lanes on the way. */
#ifdef PACKED_ROWS
#if SRC_DEPTH != DEPTH_U8 || (CN != 1 && CN != 2 && CN != 4) || KSIZE != 3 || PACKED_ROWS % 2 != 0
#error "median_sorted_rows_packed: u8, 1, 2 or 4 channels, 3x3, an even PACKED_ROWS"
#endif
#define PACKED_PIXELS (8 / CN)

/* The middle of three values (lanes as above) from their sum, least and greatest: the two
 * differences as multiply-adds by an opaque 0xFFFFFFFF (m1), so that they issue on the FMA pipe,
 * which this kernel barely uses otherwise, not on the integer ALU pipe that the min/max and
 * byte_perm instructions fill (docs/filters.md). */
INLINE uint mid_of3_u16x2(uint a, uint b, uint c, uint lo, uint hi, uint m1) {
  return imad_u32(hi, m1, imad_u32(lo, m1, a + b + c));
}

INLINE uint med3_u16x2(uint a, uint b, uint c, uint m1) {
  return mid_of3_u16x2(a, b, c, min3_u16x2(a, b, c), max3_u16x2(a, b, c), m1);
}

/* Bytes [e, e + 4) of a mapped row (row != 0; e counts channels) as a little-endian word: one
 * word load where `direct`, else byte by byte through the border (`fill` for the constant
 * border's columns). common/border.h's border_word without the fill: given a fill parameter
 * there, NVRTC compiled the box and separable `tiled` kernels to 2-4% more instructions and the
 * 3x3 Gaussian to 34 registers instead of 32, so the two stay apart. */
INLINE uint packed_row_word(GLOBAL const uchar* row, int e, int width, uint fill, bool direct) {
  if (direct) return *(GLOBAL const uint*)(row + e);
  uint w = 0u;
#pragma unroll
  for (int t = 0; t < 4; ++t) {
    const int px = (e + t) / CN;
    const int xi = border_index(px, width, BORDER);
    w |= (xi < 0 ? fill : (uint)row[xi * CN + (e + t - px * CN)]) << (8 * t);
  }
  return w;
}

/* The CN bytes of pixel x (inside the row) in the low bytes of a word, byte by byte. */
INLINE uint packed_pixel(GLOBAL const uchar* row, int x) {
  uint w = 0u;
#pragma unroll
  for (int c = 0; c < CN; ++c) w |= (uint)row[x * CN + c] << (8 * c);
  return w;
}

/* One source row's sorted triples for the 4 words of a work-item (lanes as above): lo[j],
 * mid[j], hi[j] of each lane's pixels x - 1, x, x + 1, from the row's bytes x0 * CN .. + 3 (w0)
 * and + 4 .. + 7 (w1) and the neighbour pixels x0 - 1 in wl and x0 + PACKED_PIXELS in wr, at the
 * bytes that sel_l and sel_r pick (CN 1: byte sel_l & 3 of wl, byte (sel_r >> 8) & 3 of wr;
 * CN 2: bytes sel & 3 and sel & 3 + 1; CN 4: the whole word). */
INLINE void packed_sorted_row(uint wl, uint w0, uint w1, uint wr, uint sel_l, uint sel_r, uint m1, uint* lo,
                              uint* mid, uint* hi) {
  /* Word j's triple is (a[j], b[j], c[j]): the same lanes one pixel left, centre, one right. */
  uint a[4], b[4], c[4];
#if CN == 1
  uint t[6];
  t[0] = byte_perm(wl, w0, sel_l);   /* pixels x0 - 1 and x0 + 3 */
  t[1] = byte_perm(w0, w1, 0x4400u); /* x0 and x0 + 4 */
  t[2] = byte_perm(w0, w1, 0x5511u);
  t[3] = byte_perm(w0, w1, 0x6622u);
  t[4] = byte_perm(w0, w1, 0x7733u);
  t[5] = byte_perm(w1, wr, sel_r); /* x0 + 4 and x0 + 8 */
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    a[j] = t[j];
    b[j] = t[j + 1];
    c[j] = t[j + 2];
  }
#elif CN == 2
  uint t[6];
  t[0] = byte_perm(wl, wl, sel_l);   /* pixel x0 - 1, channels 0 and 1 */
  t[1] = byte_perm(w0, w1, 0x1100u); /* x0 */
  t[2] = byte_perm(w0, w1, 0x3322u);
  t[3] = byte_perm(w0, w1, 0x5544u);
  t[4] = byte_perm(w0, w1, 0x7766u);
  t[5] = byte_perm(wr, wr, sel_r); /* x0 + 4 */
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    a[j] = t[j];
    b[j] = t[j + 1];
    c[j] = t[j + 2];
  }
#else
  /* Channels 0, 1 (t) and 2, 3 (u) of pixels x0 - 1 .. x0 + 2. */
  uint t[4], u[4];
  t[0] = byte_perm(wl, wl, 0x1100u);
  u[0] = byte_perm(wl, wl, 0x3322u);
  t[1] = byte_perm(w0, w0, 0x1100u);
  u[1] = byte_perm(w0, w0, 0x3322u);
  t[2] = byte_perm(w1, w1, 0x1100u);
  u[2] = byte_perm(w1, w1, 0x3322u);
  t[3] = byte_perm(wr, wr, 0x1100u);
  u[3] = byte_perm(wr, wr, 0x3322u);
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    a[j] = t[j];
    b[j] = t[j + 1];
    c[j] = t[j + 2];
    a[j + 2] = u[j];
    b[j + 2] = u[j + 1];
    c[j + 2] = u[j + 2];
  }
#endif
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    lo[j] = min3_u16x2(a[j], b[j], c[j]);
    hi[j] = max3_u16x2(a[j], b[j], c[j]);
    mid[j] = mid_of3_u16x2(a[j], b[j], c[j], lo[j], hi[j], m1);
  }
}

/* Output row y from its 4 words o[j] (lanes as above): two words at `words` where `fast`, else
 * through checks. */
INLINE void packed_store_row(GLOBAL uchar* dst, int dst_offset, int dst_step, GLOBAL uint* words, int x0, int y,
                             int width, int height, bool fast, bool store_words, const uint* o) {
#if CN == 1
  const uint t01 = byte_perm(o[0], o[1], 0x6240u); /* pixels x0, x0 + 1, x0 + 4, x0 + 5 */
  const uint t23 = byte_perm(o[2], o[3], 0x6240u);
  const uint a = byte_perm(t01, t23, 0x5410u); /* x0 .. x0 + 3 */
  const uint b = byte_perm(t01, t23, 0x7632u); /* x0 + 4 .. x0 + 7 */
#elif CN == 2
  const uint a = byte_perm(o[0], o[1], 0x6420u); /* pixels x0, x0 + 1 */
  const uint b = byte_perm(o[2], o[3], 0x6420u); /* x0 + 2, x0 + 3 */
#else
  const uint a = byte_perm(o[0], o[2], 0x6420u); /* pixel x0 */
  const uint b = byte_perm(o[1], o[3], 0x6420u); /* x0 + 1 */
#endif
  if (fast) {
    words[0] = a;
    words[1] = b;
  } else if (y < height) {
    GLOBAL uchar* out = dst + IMAGE_INDEX(dst, x0 * CN, y);
    if (store_words) {
      ((GLOBAL uint*)out)[0] = a;
      ((GLOBAL uint*)out)[1] = b;
    } else {
#pragma unroll
      for (int t = 0; t < 8; ++t) {
        if (x0 + t / CN < width) out[t] = (uchar)((t < 4 ? a : b) >> (8 * (t & 3)));
      }
    }
  }
}

/* A work-item's PACKED_ROWS x 8 output bytes. `fast` (a constant where it is inlined): every source
 * row inside the image, the PACKED_PIXELS pixels inside the row, source and destination rows on 4-byte
 * boundaries: per source row four word loads (the 8 pixels and the words that hold the
 * neighbours left and right, wherever the border puts them), per output row two word stores,
 * the walk unrolled. Otherwise each row and pixel goes through the border, in a loop. */
INLINE void packed_rows_body(int width, int height, float border_value, CONST_IMAGE_PARAM(uchar, src),
                             IMAGE_PARAM(uchar, dst), int x0, int y0, bool fast) {
  const uint fill = (uint)(uchar)border_value;
  const uint fill4 = fill * 0x01010101u;
  const int xl = border_index(x0 - 1, width, BORDER);
  const int xr = border_index(x0 + PACKED_PIXELS, width, BORDER);
  /* Under the constant border a neighbour column can be outside (xl or xr -1): fill. */
  const bool has_l = BORDER != BORDER_CONSTANT || xl >= 0;
  const bool has_r = BORDER != BORDER_CONSTANT || xr >= 0;
  const int xlw = has_l ? xl : x0;
  const int xrw = has_r ? xr : x0;
  /* Generic path: words where the PACKED_PIXELS pixels lie inside a row on a 4-byte boundary. */
  const bool load_words = PLINTH_LITTLE_ENDIAN && x0 + PACKED_PIXELS <= width && ((src_offset | src_step) & 3) == 0;
  const bool store_words = PLINTH_LITTLE_ENDIAN && x0 + PACKED_PIXELS <= width && ((dst_offset | dst_step) & 3) == 0;
  /* Fast path: the words of source row i at in_words + i * in_step, the neighbours' words dl and
   * dr words from the pixels' first; output row i at out_words + i * out_step. */
  const int e0 = x0 * CN; /* a multiple of 8 */
  GLOBAL const uint* in_words = (GLOBAL const uint*)(src + src_offset + (y0 - 1) * src_step + e0);
  GLOBAL uint* out_words = (GLOBAL uint*)(dst + dst_offset + y0 * dst_step + e0);
  const int in_step = src_step >> 2;
  const int out_step = dst_step >> 2;
  const int el = xlw * CN, er = xrw * CN; /* the neighbours' first bytes */
  const int dl = fast ? (el >> 2) - (e0 >> 2) : 0;
  const int dr = fast ? (er >> 2) - (e0 >> 2) : 0;
  /* The neighbours' bytes within their words (the border path puts them at byte 0). */
  const uint bl = fast ? (uint)(el & 3) : 0u;
  const uint br = fast ? (uint)(er & 3) : 0u;
#if CN == 1
  const uint sel_l = 0x7700u | (bl * 0x11u);
  const uint sel_r = (4u + br) * 0x1100u;
#elif CN == 2
  const uint sel_l = bl * 0x11u + (bl + 1u) * 0x1100u;
  const uint sel_r = br * 0x11u + (br + 1u) * 0x1100u;
#else
  const uint sel_l = 0u, sel_r = 0u; /* whole words */
#endif
  const uint m1 = opaque_u32(0xFFFFFFFFu, src_step); /* see mid_of3_u16x2 */

  /* Source row i (0: y0 - 1) sorted into lo, mid, hi. */
#define PACKED_ROW(i, lo, mid, hi)                                                                    \
  {                                                                                                   \
    uint wl = fill4, w0, w1, wr = fill4;                                                              \
    if (fast) {                                                                                       \
      GLOBAL const uint* row = in_words + (i) * in_step;                                              \
      if (has_l) wl = row[dl];                                                                        \
      if (has_r) wr = row[dr];                                                                        \
      w0 = row[0];                                                                                    \
      w1 = row[1];                                                                                    \
    } else {                                                                                          \
      GLOBAL const uchar* row = source_row(src, src_offset, src_step, y0 - 1 + (i), height);          \
      if (row == 0) {                                                                                 \
        w0 = w1 = fill4;                                                                              \
      } else {                                                                                        \
        if (has_l) wl = packed_pixel(row, xl);                                                        \
        if (has_r) wr = packed_pixel(row, xr);                                                        \
        w0 = packed_row_word(row, e0, width, fill, load_words);                                   \
        w1 = packed_row_word(row, e0 + 4, width, fill, load_words);                               \
      }                                                                                               \
    }                                                                                                 \
    packed_sorted_row(wl, w0, w1, wr, sel_l, sel_r, m1, lo, mid, hi);                                 \
  }
  /* Output rows r and r + 1 from the sorted source rows r .. r + 3 (A, B, C, D). The two share
   * B and C: their mid ordered once (mn, mx), each row's med3 of mid is then mid of A or D
   * clamped to [mn, mx]. */
#define PACKED_PAIR(r)                                                                                \
  {                                                                                                   \
    PACKED_ROW((r) + 2, lo_c, mid_c, hi_c)                                                            \
    PACKED_ROW((r) + 3, lo_d, mid_d, hi_d)                                                            \
    uint o0[4], o1[4];                                                                                \
    UNROLL for (int j = 0; j < 4; ++j) {                                                              \
      const uint mn = min_u16x2(mid_b[j], mid_c[j]);                                                  \
      const uint mx = max_u16x2(mid_b[j], mid_c[j]);                                                  \
      o0[j] = med3_u16x2(max3_u16x2(lo_a[j], lo_b[j], lo_c[j]), max_u16x2(mn, min_u16x2(mx, mid_a[j])), \
                         min3_u16x2(hi_a[j], hi_b[j], hi_c[j]), m1);                           \
      o1[j] = med3_u16x2(max3_u16x2(lo_b[j], lo_c[j], lo_d[j]), max_u16x2(mn, min_u16x2(mx, mid_d[j])), \
                         min3_u16x2(hi_b[j], hi_c[j], hi_d[j]), m1);                           \
    }                                                                                                 \
    packed_store_row(dst, dst_offset, dst_step, out_words + (r) * out_step, x0, y0 + (r), width, height, fast, \
                     store_words, o0);                                                                \
    packed_store_row(dst, dst_offset, dst_step, out_words + ((r) + 1) * out_step, x0, y0 + (r) + 1, width, height, \
                     fast, store_words, o1);                                                          \
    UNROLL for (int j = 0; j < 4; ++j) {                                                              \
      lo_a[j] = lo_c[j];                                                                              \
      mid_a[j] = mid_c[j];                                                                            \
      hi_a[j] = hi_c[j];                                                                              \
      lo_b[j] = lo_d[j];                                                                              \
      mid_b[j] = mid_d[j];                                                                            \
      hi_b[j] = hi_d[j];                                                                              \
    }                                                                                                 \
  }
  uint lo_a[4], mid_a[4], hi_a[4], lo_b[4], mid_b[4], hi_b[4], lo_c[4], mid_c[4], hi_c[4], lo_d[4], mid_d[4], hi_d[4];
  PACKED_ROW(0, lo_a, mid_a, hi_a)
  PACKED_ROW(1, lo_b, mid_b, hi_b)
  if (fast) {
    UNROLL for (int r = 0; r < PACKED_ROWS; r += 2) PACKED_PAIR(r)
  } else {
    const int rows = min(PACKED_ROWS, height - y0);
#pragma unroll 1
    for (int r = 0; r < rows; r += 2) PACKED_PAIR(r)
  }
#undef PACKED_PAIR
#undef PACKED_ROW
}

KERNEL void median_sorted_rows_packed(int width, int height, float border_value, CONST_IMAGE_PARAM(uchar, src),
                                      IMAGE_PARAM(uchar, dst)) {
  const int x0 = GLOBAL_ID(0) * PACKED_PIXELS;
  const int y0 = GLOBAL_ID(1) * PACKED_ROWS;
  if (x0 >= width || y0 >= height) return;
  const bool fast = PLINTH_LITTLE_ENDIAN && x0 + PACKED_PIXELS <= width && y0 >= 1 && y0 + PACKED_ROWS + 1 <= height &&
                    ((src_offset | src_step | dst_offset | dst_step) & 3) == 0;
  if (fast) {
    packed_rows_body(width, height, border_value, src, src_offset, src_step, dst, dst_offset, dst_step, x0, y0, true);
  } else {
    packed_rows_body(width, height, border_value, src, src_offset, src_step, dst, dst_offset, dst_step, x0, y0, false);
  }
}
#endif

/* ---- tiled: TILE_X x TILE_Y outputs per work-item from one shared, pruned network ----------- */
/* The network (kernels/median_networks.h, written by scripts/gen_median_networks.py) sorts each
 * column piece once and merges the windows' common parts hierarchically, dropping every value
 * that can no longer be a median. Work-item e of dimension 0 does channel e % CN of tile e / CN,
 * so that a warp's loads stay within a few cache lines for every channel count. Values are held
 * as 32-bit numbers (VAL_T): one min or max instruction each. */
#ifdef TILE_X
#ifdef TILE_PAIRS
/* tiled_packed: the same network on two tiles at once, one value of each in the 16-bit lanes of
 * a 32-bit word, so that one min_u16x2 / max_u16x2 of common/dialect.h (one instruction on
 * NVIDIA sm_90 and newer) orders both. */
#if SRC_DEPTH != DEPTH_U8 && SRC_DEPTH != DEPTH_U16
#error "median_tiled_packed: u8 or u16"
#endif
#define VAL_T uint
#define MN(a, b) min_u16x2(a, b)
#define MX(a, b) max_u16x2(a, b)
#else
#if SRC_DEPTH == DEPTH_F32
#define VAL_T float
#elif SRC_DEPTH == DEPTH_S16
#define VAL_T int
#else
#define VAL_T uint
#endif
#define MN(a, b) min(a, b)
#define MX(a, b) max(a, b)
#endif
#include "median_networks.h"

#define TILE_W (TILE_X + KSIZE - 1)
#define TILE_H (TILE_Y + KSIZE - 1)

/* Channel c of source rows y0 - R .. y0 - R + rows - 1, columns x0 - R .. x0 - R + TILE_W - 1, into
 * p row-major (`rows` a constant where it is inlined): plain loads where they all lie inside the
 * image, else through the border. */
INLINE void tile_source(CONST_IMAGE_PARAM(SRC_T, src), int width, int height, float border_value, int x0, int y0, int c,
                        int rows, VAL_T* p) {
  if (x0 >= R && x0 + TILE_X + R <= width && y0 >= R && y0 - R + rows <= height) {
    GLOBAL const SRC_T* base = src + src_offset + (y0 - R) * src_step + (x0 - R) * CN + c;
#pragma unroll
    for (int i = 0; i < rows; ++i) {
#pragma unroll
      for (int j = 0; j < TILE_W; ++j) p[i * TILE_W + j] = (VAL_T)base[i * src_step + j * CN];
    }
  } else {
    const VAL_T fill = (VAL_T)((SRC_T)border_value);
    int column[TILE_W];
#pragma unroll
    for (int j = 0; j < TILE_W; ++j) column[j] = border_index(x0 - R + j, width, BORDER);
#pragma unroll
    for (int i = 0; i < rows; ++i) {
      GLOBAL const SRC_T* row = source_row(src, src_offset, src_step, y0 - R + i, height);
#pragma unroll
      for (int j = 0; j < TILE_W; ++j) {
        p[i * TILE_W + j] = (row == 0 || column[j] < 0) ? fill : (VAL_T)row[column[j] * CN + c];
      }
    }
  }
}

/* A tile's outputs o (TILE_Y rows of TILE_X, channel c) at (x0, y0); whole tiles store without
 * per-output checks. */
INLINE void tile_store(IMAGE_PARAM(SRC_T, dst), int width, int height, int x0, int y0, int c, const VAL_T* o) {
  const bool whole = x0 + TILE_X <= width && y0 + TILE_Y <= height;
#pragma unroll
  for (int i = 0; i < TILE_Y; ++i) {
    if (whole || y0 + i < height) {
      GLOBAL SRC_T* out = dst + IMAGE_INDEX(dst, c, y0 + i) + x0 * CN;
#pragma unroll
      for (int j = 0; j < TILE_X; ++j) {
        if (whole || x0 + j < width) out[j * CN] = (SRC_T)o[i * TILE_X + j];
      }
    }
  }
}

#ifdef TILE_PAIRS
/* Two tiles a work-item: A at rows y0 .. y0 + TILE_Y - 1 in the low lanes, B just below it in the
 * high lanes. Their windows read rows y0 - R .. y0 + 2 TILE_Y + R - 1, the last TILE_H for B, so
 * a work-item loads TILE_H + TILE_Y rows for 2 TILE_Y output rows. */
KERNEL void median_tiled_packed(int width, int height, float border_value, CONST_IMAGE_PARAM(SRC_T, src),
                                IMAGE_PARAM(SRC_T, dst)) {
  const int e = GLOBAL_ID(0);
  const int tile = e / CN;
  const int c = e - tile * CN;
  const int x0 = tile * TILE_X;
  const int y0 = GLOBAL_ID(1) * (2 * TILE_Y);
  if (x0 >= width || y0 >= height) return;
  uint v[(TILE_H + TILE_Y) * TILE_W]; /* the rows both tiles read */
  tile_source(src, src_offset, src_step, width, height, border_value, x0, y0, c, TILE_H + TILE_Y, v);
  uint p[TILE_H * TILE_W];
#pragma unroll
  for (int k = 0; k < TILE_H * TILE_W; ++k) p[k] = v[k] | (v[k + TILE_Y * TILE_W] << 16);
  uint o[TILE_X * TILE_Y], lane[TILE_X * TILE_Y];
  median_tile_network(p, o);
#pragma unroll
  for (int k = 0; k < TILE_X * TILE_Y; ++k) lane[k] = o[k] & 0xFFFFu;
  tile_store(dst, dst_offset, dst_step, width, height, x0, y0, c, lane);
#pragma unroll
  for (int k = 0; k < TILE_X * TILE_Y; ++k) lane[k] = o[k] >> 16;
  tile_store(dst, dst_offset, dst_step, width, height, x0, y0 + TILE_Y, c, lane);
}
#else
KERNEL void median_tiled(int width, int height, float border_value, CONST_IMAGE_PARAM(SRC_T, src),
                         IMAGE_PARAM(SRC_T, dst)) {
  const int e = GLOBAL_ID(0);
  const int tile = e / CN;
  const int c = e - tile * CN;
  const int x0 = tile * TILE_X;
  const int y0 = GLOBAL_ID(1) * TILE_Y;
  if (x0 >= width || y0 >= height) return;
  VAL_T p[TILE_H * TILE_W];
  tile_source(src, src_offset, src_step, width, height, border_value, x0, y0, c, TILE_H, p);
  VAL_T o[TILE_X * TILE_Y];
  median_tile_network(p, o);
  tile_store(dst, dst_offset, dst_step, width, height, x0, y0, c, o);
}
#endif /* TILE_PAIRS */
#endif

/* ---- histogram (u8): one work-item per column element walks down a band of rows ----------- */
/* Each work-item keeps the 256-bin histogram of its window in local memory, several bins per
 * 32-bit word: word w holds bins w, w + BIN_WORDS, ... in fields of HIST_BITS bits. Work-item l
 * owns words at bins[w * group_size + l], so it always hits its own bank. Moving down a row
 * removes the top row's KSIZE values and adds the new bottom row's; the median is tracked from
 * the previous one (med and below = the number of window values < med), which usually moves by
 * a few steps only. */
#ifdef HIST_BITS
#if HIST_BITS == 8
#define BIN_WORDS 64
#define BIN_MASK 0xFFu
#define BIN_SHIFT(v) (((v) >> 6) << 3)
#else
#define BIN_WORDS 128
#define BIN_MASK 0xFFFFu
#define BIN_SHIFT(v) (((v) >> 7) << 4)
#endif
#define BIN_WORD(v) ((v) & (BIN_WORDS - 1))
#define BIN(h, lsize, v) (int)(((h)[BIN_WORD(v) * (lsize)] >> BIN_SHIFT(v)) & BIN_MASK)

/* Adds (delta = 1) or removes (delta = 0xFFFFFFFF) the KSIZE values of one window row and returns
 * how many of them are below med. */
INLINE int histogram_row(LOCAL uint* h, int lsize, GLOBAL const uchar* row, int x, int c, int width, bool inside_x,
                         uchar fill, int med, uint delta) {
  int below = 0;
#pragma unroll 8
  for (int dx = -R; dx <= R; ++dx) {
    int v;
    if (row == 0) {
      v = fill;
    } else if (inside_x) {
      v = row[(x + dx) * CN + c];
    } else {
      const int xx = border_index(x + dx, width, BORDER);
      v = xx < 0 ? fill : row[xx * CN + c];
    }
    h[BIN_WORD(v) * lsize] += delta << BIN_SHIFT(v);
    below += v < med;
  }
  return below;
}

KERNEL void median_histogram(int width, int height, int rows_per_item, float border_value,
                             CONST_IMAGE_PARAM(uchar, src), IMAGE_PARAM(uchar, dst), LOCAL_PARAM(uint, bins)) {
  const int e = GLOBAL_ID(0);
  const int lsize = LOCAL_SIZE(0);
  if (e >= width * CN) return; /* no barrier follows: every work-item works on its own bins */
  LOCAL uint* h = bins + LOCAL_ID(0);
  const int x = e / CN;
  const int c = e - x * CN;
  const int y0 = GROUP_ID(1) * rows_per_item;
  const int y1 = min(y0 + rows_per_item, height);
  const uchar fill = (uchar)border_value;
  const bool inside_x = x >= R && x < width - R;
  for (int w = 0; w < BIN_WORDS; ++w) h[w * lsize] = 0u;

  /* Start the search at the first centre value, usually close to the median: climbing from 0
   * would cost up to 255 steps per band. */
  int med = IMAGE_AT(src, e, y0), below = 0;
  for (int dy = -R; dy <= R; ++dy) {
    below += histogram_row(h, lsize, source_row(src, src_offset, src_step, y0 + dy, height), x, c, width, inside_x, fill,
                           med, 1u);
  }
  for (int y = y0; y < y1; ++y) {
    if (y > y0) {
      below -= histogram_row(h, lsize, source_row(src, src_offset, src_step, y - R - 1, height), x, c, width, inside_x,
                             fill, med, 0xFFFFFFFFu);
      below += histogram_row(h, lsize, source_row(src, src_offset, src_step, y + R, height), x, c, width, inside_x,
                             fill, med, 1u);
    }
    while (below > M) {
      --med;
      below -= BIN(h, lsize, med);
    }
    for (int n = BIN(h, lsize, med); below + n <= M; n = BIN(h, lsize, med)) {
      below += n;
      ++med;
    }
    IMAGE_AT(dst, e, y) = (uchar)med;
  }
}
#endif
