/* Box filter (cv::boxFilter / cv::blur). Host side: src/ops/box_filter*.cpp; rules in
 * docs/filters.md. Options:
 *   SRC_T/SRC_DEPTH, DST_T/DST_DEPTH  element types
 *   CN                               channels (1-4)
 *   ACC_INT                          1: window sums are exact integers (uint, wrapping like OpenCV's int)
 *                                    0: window sums are ACC_T (double, or float without fp64)
 *   OUT_MODE                         how a window sum becomes an output element, OpenCV's column filter:
 *     OUT_FIXED   u8 -> u8, area <= 256, normalized: ((s + DD) * DS) >> 23
 *     OUT_SAT     no scaling: saturate(s)
 *     OUT_SCALE   int sums with a scale: float product in OpenCV's SIMD lanes (elements below
 *                 simd_end), double product in its scalar tail; rounded half to even
 *     OUT_DOUBLE  double sums (f32 sources, large u16 areas): saturate(s * scale_d)
 *   HAS_FP64                         the double tail and double sums exist
 *   LX, NCOL                         (local_scan) work-group size, element columns per work-item
 *   KW, RUN_PX                       (registers) window width, output pixels per work-item
 *   VS_VL, KW, AX, VS_ALIGNED        (vector_strips) elements per vector, window width, anchor
 *                                    column, rows of src and dst start on VS_VL-element boundaries
 *   DIRECT, TWO_PASS                 select those variants' kernels (each program holds one variant)
 * The `tiled` variant is a program of its own: box_filter_tiled.cl. */
#include "box_filter_convert.h"
#include "common/vector_words.h"

/* ---- direct: one work-item per output element sums its whole window (the plain reference) --- */
#ifdef DIRECT
KERNEL void box_filter_direct(int width, int height, int kw, int kh, int ax, int ay, int border, CONVERT_PARAMS,
                              CONST_IMAGE_PARAM(SRC_T, src), IMAGE_PARAM(DST_T, dst)) {
  const int e = GLOBAL_ID(0);
  const int y = GLOBAL_ID(1);
  if (e >= width * CN || y >= height) return;
  const int x = e / CN;
  const int c = e % CN;
  ACC_T s = (ACC_T)0;
  for (int j = 0; j < kh; ++j) {
    for (int i = 0; i < kw; ++i) {
      s += load_src(src, src_offset, src_step, x - ax + i, c, y - ay + j, width, height, border);
    }
  }
  IMAGE_AT(dst, e, y) = box_convert(s, e, CONVERT_ARGS);
}
#endif

/* ---- local_scan: one launch, cost independent of the kernel size --------------------------------
 * A work-group owns a strip of TWP output pixels (twp) and strip_rows output rows. Each work-item
 * keeps the vertical window sums V of NCOL element columns of the strip's extended width
 * ((twp + kw - 1) * CN elements) in registers and slides them down one row at a time (add the
 * entering row, subtract the leaving one). Every R rows (a chunk) the sums go to local memory, where a
 * per-channel prefix sum along each row turns them into horizontal window sums by one
 * subtraction each. Integer sums wrap modulo 2^32 and are exact (every true sum fits). */
#ifdef LX
KERNEL REQD_GROUP_SIZE(LX, 1, 1) void box_filter_local_scan(int width, int height, int kw, int kh, int ax, int ay,
                                                          int border, int twp, int strip_rows, int R, int pitch, int nrun,
                                                          int run_px, CONVERT_PARAMS, CONST_IMAGE_PARAM(SRC_T, src),
                                                          IMAGE_PARAM(DST_T, dst), LOCAL_PARAM(ACC_T, vbuf),
                                                          LOCAL_PARAM(ACC_T, totals)) {
  const int lid = LOCAL_ID(0);
  const int x0 = GROUP_ID(0) * twp;
  const int y0 = GROUP_ID(1) * strip_rows;
  const int y_end = min(y0 + strip_rows, height);
  const int ext_px = twp + kw - 1;
  const int ext = ext_px * CN;

  /* Source element index of each owned column (-1: outside, constant border). */
  int col_src[NCOL];
  ACC_T v[NCOL];
  for (int m = 0; m < NCOL; ++m) {
    const int j = lid + m * LX;
    const int xi = border_index(x0 - ax + j / CN, width, border);
    col_src[m] = (j < ext && xi >= 0) ? xi * CN + j % CN : -1;
    v[m] = (ACC_T)0;
  }
  for (int i = 0; i < kh; ++i) {
    const int yi = border_index(y0 - ay + i, height, border);
    if (yi < 0) continue;
    const int base = src_offset + yi * src_step;
    for (int m = 0; m < NCOL; ++m) {
      if (col_src[m] >= 0) v[m] += (ACC_T)src[base + col_src[m]];
    }
  }

  for (int yc = y0; yc < y_end; yc += R) {
    const int rows = min(R, y_end - yc);
    /* 1. vertical sums of the chunk's rows into local memory */
    for (int r = 0; r < rows; ++r) {
      const int y = yc + r;
      if (y > y0) {
        const int y_in = border_index(y - ay + kh - 1, height, border);
        const int y_out = border_index(y - ay - 1, height, border);
        for (int m = 0; m < NCOL; ++m) {
          if (col_src[m] < 0) continue;
          if (y_in >= 0) v[m] += (ACC_T)src[src_offset + y_in * src_step + col_src[m]];
          if (y_out >= 0) v[m] -= (ACC_T)src[src_offset + y_out * src_step + col_src[m]];
        }
      }
      for (int m = 0; m < NCOL; ++m) {
        const int j = lid + m * LX;
        if (j < ext) vbuf[r * pitch + j] = v[m];
      }
    }
    BARRIER_LOCAL();

    /* 2. each work-item scans one run of run_px pixels of one row, per channel, in place */
    const int runs = R * nrun;
    for (int t = lid; t < runs; t += LX) {
      const int r = t % R;
      const int q = t / R;
      ACC_T acc[CN];
      for (int c = 0; c < CN; ++c) acc[c] = (ACC_T)0;
      if (r < rows) {
        const int p_begin = q * run_px;
        const int p_end = min(p_begin + run_px, ext_px);
        LOCAL ACC_T* row = vbuf + r * pitch;
        for (int p = p_begin; p < p_end; ++p) {
          for (int c = 0; c < CN; ++c) {
            acc[c] += row[p * CN + c];
            row[p * CN + c] = acc[c];
          }
        }
      }
      for (int c = 0; c < CN; ++c) totals[(r * nrun + q) * CN + c] = acc[c];
    }
    BARRIER_LOCAL();

    /* 3. exclusive prefix of the run totals, one work-item per (row, channel) */
    for (int t = lid; t < R * CN; t += LX) {
      const int r = t / CN;
      const int c = t % CN;
      ACC_T sum = (ACC_T)0;
      for (int q = 0; q < nrun; ++q) {
        const ACC_T total = totals[(r * nrun + q) * CN + c];
        totals[(r * nrun + q) * CN + c] = sum;
        sum += total;
      }
    }
    BARRIER_LOCAL();

    /* 4. window sum = prefix at the window's last pixel - prefix before its first */
    const int out_px = min(twp, width - x0);
    const int row_e = out_px * CN;
    const int count = rows * row_e;
    for (int t = lid; t < count; t += LX) {
      const int r = t / row_e;
      const int e = t - r * row_e;
      const int p = e / CN;
      const int c = e - p * CN;
      const int last = p + kw - 1;
      LOCAL const ACC_T* row = vbuf + r * pitch;
      LOCAL const ACC_T* tot = totals + r * nrun * CN;
      ACC_T s = row[last * CN + c] + tot[(last / run_px) * CN + c];
      if (p > 0) s -= row[(p - 1) * CN + c] + tot[((p - 1) / run_px) * CN + c];
      const int out_e = x0 * CN + e;
      IMAGE_AT(dst, out_e, yc + r) = box_convert(s, out_e, CONVERT_ARGS);
    }
    BARRIER_LOCAL();
  }
}
#endif

/* ---- two_pass_8x8: the Adreno case study, exact ---------------------------------------------
 * Pass 1 stores the 2x2 sums T(p, q) = sum of the border-extended source over [p, p+1] x [q, q+1]
 * for p in [-7, width + 6), q in [-7, height + 6) (index p + 7) as ushort; pass 2 adds the 16
 * sums T(x - ax + 2u, y - ay + 2v), u, v < 4: the exact 8x8 window sum, 20 reads instead of 64. */
#ifdef TWO_PASS
KERNEL void box_filter_2x2(int width, int height, int border, CONST_IMAGE_PARAM(SRC_T, src), GLOBAL ushort* t,
                           int t_step) {
  const int e = GLOBAL_ID(0);
  const int j = GLOBAL_ID(1);
  if (e >= (width + 13) * CN || j >= height + 13) return;
  const int p = e / CN - 7;
  const int c = e % CN;
  const int q = j - 7;
  uint s = 0;
  for (int b = 0; b < 2; ++b) {
    for (int a = 0; a < 2; ++a) s += load_src(src, src_offset, src_step, p + a, c, q + b, width, height, border);
  }
  t[j * t_step + e] = (ushort)s;
}

KERNEL void box_filter_8x8_from_2x2(int width, int height, int ax, int ay, CONVERT_PARAMS, GLOBAL const ushort* t,
                                    int t_step, IMAGE_PARAM(DST_T, dst)) {
  const int e = GLOBAL_ID(0);
  const int y = GLOBAL_ID(1);
  if (e >= width * CN || y >= height) return;
  const int x = e / CN;
  const int c = e % CN;
  uint s = 0;
  for (int v = 0; v < 4; ++v) {
    GLOBAL const ushort* row = t + (y - ay + 2 * v + 7) * t_step;
    for (int u = 0; u < 4; ++u) s += row[(x - ax + 2 * u + 7) * CN + c];
  }
  IMAGE_AT(dst, e, y) = box_convert(s, e, CONVERT_ARGS);
}
#endif

/* ---- registers: small windows, no local memory ------------------------------------------------
 * Each work-item owns RUN_PX neighbouring output pixels of a strip of strip_rows rows. It keeps
 * the vertical window sums of the (RUN_PX + KW - 1) * CN element columns its outputs read in
 * registers, slides them down one row at a time (entering row added, leaving row subtracted,
 * both read with vector loads where the columns lie inside the image), and slides the horizontal
 * window along its run: per output two adds, whatever the window. Options: KW (window width),
 * RUN_PX. No barriers: work-items past the image simply return. */
#ifdef RUN_PX
#define NE ((RUN_PX + KW - 1) * CN)

/* v[i] += sign * source element i of the run's columns in row y (border-mapped). */
INLINE void add_row(ACC_T* v, GLOBAL const SRC_T* src, int src_offset, int src_step, int y, int px0, int width,
                    int height, int border, bool interior, int sign) {
  const int yi = border_index(y, height, border);
  if (yi < 0) return;
  GLOBAL const SRC_T* row = src + src_offset + yi * src_step;
  if (interior) {
    GLOBAL const SRC_T* p = row + px0 * CN;
    SRC_T buf[NE];
#pragma unroll
    for (int i = 0; i + 16 <= NE; i += 16) vstore16(vload16(0, p + i), 0, buf + i);
#pragma unroll
    for (int i = NE / 16 * 16; i < NE; ++i) buf[i] = p[i];
#pragma unroll
    for (int i = 0; i < NE; ++i) {
      if (sign > 0) {
        v[i] += (ACC_T)buf[i];
      } else {
        v[i] -= (ACC_T)buf[i];
      }
    }
    return;
  }
#pragma unroll
  for (int i = 0; i < NE; ++i) {
    const int xi = border_index(px0 + i / CN, width, border);
    if (xi < 0) continue;
    const ACC_T value = (ACC_T)row[xi * CN + i % CN];
    if (sign > 0) {
      v[i] += value;
    } else {
      v[i] -= value;
    }
  }
}

KERNEL void box_filter_registers(int width, int height, int kh, int ax, int ay, int border, int strip_rows,
                                 CONVERT_PARAMS, CONST_IMAGE_PARAM(SRC_T, src), IMAGE_PARAM(DST_T, dst)) {
  const int run = GLOBAL_ID(0);
  const int x0 = run * RUN_PX;  /* first output pixel */
  if (x0 >= width) return;
  const int px0 = x0 - ax;      /* first column pixel */
  const bool interior = px0 >= 0 && px0 + RUN_PX + KW - 1 <= width;
  const int y0 = GLOBAL_ID(1) * strip_rows;
  const int y_end = min(y0 + strip_rows, height);
  const int out_px = min(RUN_PX, width - x0);

  ACC_T v[NE];
#pragma unroll
  for (int i = 0; i < NE; ++i) v[i] = (ACC_T)0;
  for (int i = 0; i < kh; ++i) add_row(v, src, src_offset, src_step, y0 - ay + i, px0, width, height, border, interior, 1);

  for (int y = y0; y < y_end; ++y) {
    if (y > y0) {
      add_row(v, src, src_offset, src_step, y - ay + kh - 1, px0, width, height, border, interior, 1);
      add_row(v, src, src_offset, src_step, y - ay - 1, px0, width, height, border, interior, -1);
    }
    DST_T out[RUN_PX * CN];
#pragma unroll
    for (int c = 0; c < CN; ++c) {
      ACC_T s = (ACC_T)0;
#pragma unroll
      for (int i = 0; i < KW; ++i) s += v[i * CN + c];
#pragma unroll
      for (int p = 0; p < RUN_PX; ++p) {
        if (p > 0) s += v[(p + KW - 1) * CN + c] - v[(p - 1) * CN + c];
        out[p * CN + c] = box_convert(s, (x0 + p) * CN + c, CONVERT_ARGS);
      }
    }
    GLOBAL DST_T* drow = dst + dst_offset + y * dst_step + x0 * CN;
    if (out_px == RUN_PX) {
#pragma unroll
      for (int i = 0; i + 16 <= RUN_PX * CN; i += 16) vstore16(vload16(0, out + i), 0, drow + i);
#pragma unroll
      for (int i = RUN_PX * CN / 16 * 16; i < RUN_PX * CN; ++i) drow[i] = out[i];
    } else {
      for (int i = 0; i < out_px * CN; ++i) drow[i] = out[i];
    }
  }
}
#endif

/* ---- vector_strips: small windows, aligned vector loads, no local memory -------------------
 * A work-item owns VL consecutive elements of a row (one vector: 4 to 16 bytes) and a strip of
 * strip_rows rows. Each row it loads its own vector plus the halo vectors on either side that its
 * windows reach (LH left, RH right, from KW, AX, CN), so a warp reads whole contiguous segments and
 * neighbouring work-items never wait on each other. The vertical window sums of the held element
 * columns stay in registers and slide down (entering row added, leaving row subtracted; the rows of
 * the next step are loaded before this step's outputs are computed), the horizontal sums slide
 * along the VL outputs (two operations each after the first of each channel), and the VL outputs
 * leave as one vector store. Work-items whose columns reach outside the image (or rows that are
 * not vector aligned) fetch element by element through the border instead. */
#ifdef VS_VL
#define VL VS_VL
#if SRC_DEPTH == DEPTH_U8
#define EPW 4 /* elements per 32-bit word */
#elif SRC_DEPTH == DEPTH_U16
#define EPW 2
#else
#define EPW 1
#endif
#define WPV (VL / EPW)              /* words per vector: 1, 2 or 4 */
#define HL (AX * CN)                /* halo elements a window reaches on the left */
#define HR ((KW - 1 - AX) * CN)     /* and on the right */
#define LH ((HL + VL - 1) / VL)     /* halo vectors */
#define RH ((HR + VL - 1) / VL)
#define NQ (LH + 1 + RH)            /* vectors loaded per row */
#define NWORDS (NQ * WPV)
#define NCOL (NQ * VL)              /* element columns held */
#define FIRST (LH * VL - HL)        /* first held column a window reads */
#define LAST (LH * VL + VL + HR)    /* one past the last */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define DVT CAT(DST_T, VL)
#define DVLOAD CAT(vload, VL)

/* Element t (0 .. EPW-1) of a 32-bit word holding EPW source elements (little-endian devices). */
INLINE ACC_T vs_elem(uint w, int t) {
#if SRC_DEPTH == DEPTH_U8
  return (ACC_T)((w >> (8 * t)) & 0xFFu);
#elif SRC_DEPTH == DEPTH_U16
  return (ACC_T)((w >> (16 * t)) & 0xFFFFu);
#else
  (void)t;
  return (ACC_T)as_float(w);
#endif
}

INLINE uint vs_bits(SRC_T value, int t) {
#if SRC_DEPTH == DEPTH_F32
  (void)t;
  return as_uint(value);
#else
  return (uint)value << (8 * (int)sizeof(SRC_T) * t);
#endif
}

/* w = the words of the held columns of row y (held column 0 is element e_first of the row). */
INLINE void vs_fetch(uint* w, GLOBAL const SRC_T* src, int src_offset, int src_step, int y, int width, int height,
                     int e_first, int border, bool fast) {
  const int yi = border_index(y, height, border);
#pragma unroll
  for (int i = 0; i < NWORDS; ++i) w[i] = 0u;
  if (yi < 0) return;
  GLOBAL const SRC_T* row = src + src_offset + yi * src_step;
#if VS_ALIGNED && PLINTH_LITTLE_ENDIAN
  if (fast) {
    LOAD_VECTOR_WORDS(w, row + e_first, NQ, WPV);
    return;
  }
#else
  (void)fast;
#endif
#pragma unroll
  for (int i = FIRST; i < LAST; ++i) {
    const int ee = e_first + i;
    const int px = (ee >= 0 ? ee : ee - (CN - 1)) / CN; /* floor division */
    const int xi = border_index(px, width, border);
    if (xi >= 0) w[i / EPW] |= vs_bits(row[xi * CN + (ee - px * CN)], i % EPW);
  }
}

/* u8 sources with integer sums keep the vertical sums two to a 32-bit word: pe[q] holds columns
 * 4q and 4q + 2 of the held words, po[q] columns 4q + 1 and 4q + 3, 16 bits each (at most 255
 * rows of 255: below 2^16). One add-subtract updates two columns; carries never cross, since
 * every 16-bit result is a true sum in range and 32-bit arithmetic is exact modulo 2^32. With
 * four channels and windows of at most 257 pixels (VS_HPACK, from the host), the horizontal sums
 * stay packed too: a pixel's even (odd) word holds its channels 0 and 2 (1 and 3). */
#if SRC_DEPTH == DEPTH_U8 && ACC_INT
#define VS_PACKED 1
#else
#define VS_PACKED 0
#endif
#define VS_WORD_USED(q) (4 * (q) + 4 > FIRST && 4 * (q) < LAST)
#define VS_EVEN(w) ((w) & 0x00FF00FFu)
#define VS_ODD(w) (((w) >> 8) & 0x00FF00FFu)

#if VS_PACKED
INLINE void vs_add(uint* pe, uint* po, const uint* w) {
#pragma unroll
  for (int q = 0; q < NWORDS; ++q) {
    if (VS_WORD_USED(q)) {
      pe[q] += VS_EVEN(w[q]);
      po[q] += VS_ODD(w[q]);
    }
  }
}
INLINE void vs_slide(uint* pe, uint* po, const uint* wi, const uint* wo) {
#pragma unroll
  for (int q = 0; q < NWORDS; ++q) {
    if (VS_WORD_USED(q)) {
      pe[q] += VS_EVEN(wi[q]) - VS_EVEN(wo[q]);
      po[q] += VS_ODD(wi[q]) - VS_ODD(wo[q]);
    }
  }
}
#else
INLINE void vs_add(ACC_T* v, const uint* w) {
#pragma unroll
  for (int c = FIRST; c < LAST; ++c) v[c] += vs_elem(w[c / EPW], c % EPW);
}
INLINE void vs_slide(ACC_T* v, const uint* wi, const uint* wo) {
#pragma unroll
  for (int c = FIRST; c < LAST; ++c) {
    v[c] += vs_elem(wi[c / EPW], c % EPW);
    v[c] -= vs_elem(wo[c / EPW], c % EPW);
  }
}
#endif

KERNEL void box_filter_vector_strips(int width, int height, int kh, int ay, int border, int strip_rows,
                                     CONVERT_PARAMS, CONST_IMAGE_PARAM(SRC_T, src), IMAGE_PARAM(DST_T, dst)) {
  const int row_e = width * CN;
  const int e0 = GLOBAL_ID(0) * VL; /* first output element */
  if (e0 >= row_e) return;
  const int e_first = e0 - LH * VL;
  const bool fast = e_first >= 0 && e_first + NCOL <= row_e;
  const int y0 = GLOBAL_ID(1) * strip_rows;
  if (y0 >= height) return;
  const int y_end = min(y0 + strip_rows, height);

#if VS_PACKED
  uint pe[NWORDS];
  uint po[NWORDS];
#pragma unroll
  for (int q = 0; q < NWORDS; ++q) {
    pe[q] = 0u;
    po[q] = 0u;
  }
#define VS_ADD(w) vs_add(pe, po, w)
#define VS_SLIDE(wi, wo) vs_slide(pe, po, wi, wo)
#else
  ACC_T v[NCOL];
#pragma unroll
  for (int i = 0; i < NCOL; ++i) v[i] = (ACC_T)0;
#define VS_ADD(w) vs_add(v, w)
#define VS_SLIDE(wi, wo) vs_slide(v, wi, wo)
#endif
  uint win[NWORDS];
  uint wout[NWORDS];
  /* The first window, two rows per step so that twice the loads are in flight. */
  int r = 0;
  for (; r + 1 < kh; r += 2) {
    vs_fetch(win, src, src_offset, src_step, y0 - ay + r, width, height, e_first, border, fast);
    vs_fetch(wout, src, src_offset, src_step, y0 - ay + r + 1, width, height, e_first, border, fast);
    VS_ADD(win);
    VS_ADD(wout);
  }
  if (r < kh) {
    vs_fetch(win, src, src_offset, src_step, y0 - ay + r, width, height, e_first, border, fast);
    VS_ADD(win);
  }
  /* The rows entering and leaving at the next step, loaded one step ahead. */
  if (y0 + 1 < y_end) {
    vs_fetch(win, src, src_offset, src_step, y0 + kh - ay, width, height, e_first, border, fast);
    vs_fetch(wout, src, src_offset, src_step, y0 - ay, width, height, e_first, border, fast);
  }

  DST_T out[VL];
  for (int y = y0; y < y_end; ++y) {
    if (y > y0) {
      VS_SLIDE(win, wout);
      if (y + 1 < y_end) {
        vs_fetch(win, src, src_offset, src_step, y + kh - ay, width, height, e_first, border, fast);
        vs_fetch(wout, src, src_offset, src_step, y - ay, width, height, e_first, border, fast);
      }
    }
#if VS_PACKED && defined(VS_HPACK)
    /* Four channels: pixel m's window covers words base + m - AX .. + KW - 1. */
    {
      const int base = LH * VL / 4;
      uint se = 0u;
      uint so = 0u;
#pragma unroll
      for (int m = 0; m < VL / 4; ++m) {
        if (m == 0) {
#pragma unroll
          for (int i = 0; i < KW; ++i) {
            se += pe[base - AX + i];
            so += po[base - AX + i];
          }
        } else {
          se += pe[base + m - AX + KW - 1] - pe[base + m - 1 - AX];
          so += po[base + m - AX + KW - 1] - po[base + m - 1 - AX];
        }
        out[4 * m] = box_convert(se & 0xFFFFu, e0 + 4 * m, CONVERT_ARGS);
        out[4 * m + 1] = box_convert(so & 0xFFFFu, e0 + 4 * m + 1, CONVERT_ARGS);
        out[4 * m + 2] = box_convert(se >> 16, e0 + 4 * m + 2, CONVERT_ARGS);
        out[4 * m + 3] = box_convert(so >> 16, e0 + 4 * m + 3, CONVERT_ARGS);
      }
    }
#else
    {
#if VS_PACKED
      /* The columns one by one for the horizontal sums. */
      uint v[NCOL];
#pragma unroll
      for (int i = FIRST; i < LAST; ++i) {
        const uint w = (i % 2 == 0) ? pe[i / 4] : po[i / 4];
        v[i] = (w >> (16 * ((i % 4) / 2))) & 0xFFFFu;
      }
#endif
      ACC_T s[VL];
#pragma unroll
      for (int j = 0; j < VL; ++j) {
        if (j < CN) {
          ACC_T t = (ACC_T)0;
#pragma unroll
          for (int i = 0; i < KW; ++i) t += v[LH * VL + j - HL + i * CN];
          s[j] = t;
        } else {
          s[j] = s[j - CN] + v[LH * VL + j + HR] - v[LH * VL + j - CN - HL];
        }
        out[j] = box_convert(s[j], e0 + j, CONVERT_ARGS);
      }
    }
#endif
    GLOBAL DST_T* drow = dst + dst_offset + y * dst_step + e0;
#if VS_ALIGNED
    if (e0 + VL <= row_e) {
      *(GLOBAL DVT*)drow = DVLOAD(0, out);
      continue;
    }
#endif
#pragma unroll
    for (int j = 0; j < VL; ++j) {
      if (e0 + j < row_e) drow[j] = out[j];
    }
  }
}
#endif
