/* Bilinear resizing of 8-bit images, bit-exact with OpenCV 4.6's cv::resize(INTER_LINEAR).
 * Host side: src/ops/resize.cpp. Needs double precision for OpenCV's coordinate arithmetic.
 *
 * OpenCV's rules (imgproc/src/resize.cpp), per destination element:
 *   same size                 copy
 *   source exactly 2x both    2x2 box: (a + b + c + d + 2) >> 2, and for two channels the
 *                             float path cvRound((a + b + c + d) * 0.25f) (ties to even)
 *   otherwise                 scale = 1 / (dst / src) in double; fx = (float)((dx + 0.5) * scale - 0.5);
 *                             sx = floor(fx); fx -= sx; sx < 0 -> sx = 0, fx = 0;
 *                             sx + 1 >= src width -> the element is src[sx'] * 2048 with sx' = min(sx, w - 1);
 *                             weights a0 = rint((1 - fx) * 2048), a1 = rint(fx * 2048);
 *                             h(row) = s[sx] * a0 + s[sx + 1] * a1 (exact in int);
 *                             rows sy, sy + 1 clamped to the image (fy is not clamped);
 *                             out = ((b0 * (h0 >> 4)) >> 16) + ((b1 * (h1 >> 4)) >> 16) + 2) >> 2. */
#include "common/dialect.h"

INLINE int resize_h(GLOBAL const uchar* row, int sx, int a0, int a1, int edge, int cn) {
  /* sx is already in elements (pixel * cn + channel). */
  if (edge) return (int)row[sx] * 2048;
  return (int)row[sx] * a0 + (int)row[sx + cn] * a1;
}

/* One destination element (channel c of pixel dx in row dy). */
INLINE uchar resize_linear_element(GLOBAL const uchar* src, int src_offset, int src_step, int sw, int sh, int cn, int dw,
                                   int dh, int dx, int dy, int c) {
  if (dw == sw && dh == sh) return src[src_offset + dy * src_step + dx * cn + c];
  if (sw == 2 * dw && sh == 2 * dh) {
    GLOBAL const uchar* r0 = src + src_offset + (2 * dy) * src_step + 2 * dx * cn + c;
    GLOBAL const uchar* r1 = r0 + src_step;
    const int s = (int)r0[0] + (int)r0[cn] + (int)r1[0] + (int)r1[cn];
    if (cn == 2) return (uchar)((s + 1 + ((s >> 2) & 1)) >> 2);
    return (uchar)((s + 2) >> 2);
  }
  const double scale_x = 1.0 / ((double)dw / (double)sw);
  const double scale_y = 1.0 / ((double)dh / (double)sh);

  float fx = (float)(((double)dx + 0.5) * scale_x - 0.5);
  int sx = (int)floor(fx);
  fx -= (float)sx;
  int edge = 0;
  if (sx < 0) {
    fx = 0.f;
    sx = 0;
  }
  if (sx + 1 >= sw) {
    edge = 1;
    sx = sw - 1;
    fx = 0.f;
  }
  const int a0 = convert_int_sat_rte((1.f - fx) * 2048.f);
  const int a1 = convert_int_sat_rte(fx * 2048.f);

  float fy = (float)(((double)dy + 0.5) * scale_y - 0.5);
  const int sy = (int)floor(fy);
  fy -= (float)sy;
  const int b0 = convert_int_sat_rte((1.f - fy) * 2048.f);
  const int b1 = convert_int_sat_rte(fy * 2048.f);
  const int y0 = clamp(sy, 0, sh - 1);
  const int y1 = clamp(sy + 1, 0, sh - 1);

  const int e = sx * cn + c;
  const int h0 = resize_h(src + src_offset + y0 * src_step, e, a0, a1, edge, cn);
  const int h1 = resize_h(src + src_offset + y1 * src_step, e, a0, a1, edge, cn);
  const int v = (((b0 * (h0 >> 4)) >> 16) + ((b1 * (h1 >> 4)) >> 16) + 2) >> 2;
  return convert_uchar_sat(v);
}

/* INTER_LINEAR_EXACT (resize_bitExact with 8-bit fixed-point weights): the source coordinate
 * f = (dx + 0.5) * (1 / (dst / src)) - 0.5 in double; i = floor(f); a1 = rint((f - i) * 256),
 * a0 = 256 - a1; i < 0 (or a one-pixel source) takes pixel 0, i >= w - 1 takes pixel w - 1 (both
 * as value * 256); h = a0 * s[i] + a1 * s[i + 1]; rows likewise (the first or last row alone
 * gives (h + 128) >> 8), else out = (h0 * b0 + h1 * b1 + 32768) >> 16. Same-size copies and the
 * 2x2 box for exact halving (not for two channels) as in cv::resize. */
INLINE void exact_coeff(int d, int dsize, int ssize, int* offset, int* w1, int* region) {
  const double scale = 1.0 / ((double)dsize / (double)ssize);
  const double f = scale * ((double)d + 0.5) - 0.5;
  const int i = (int)floor(f);
  if (i >= 0 && ssize > 1) {
    if (i < ssize - 1) {
      *offset = i;
      *w1 = convert_int_rte((f - (double)i) * 256.0);
      *region = 0;
    } else {
      *offset = ssize - 1;
      *w1 = 0;
      *region = 1;
    }
  } else {
    *offset = 0;
    *w1 = 0;
    *region = -1;
  }
}

INLINE int exact_h(GLOBAL const uchar* row, int sx, int a1, int region, int cn, int c) {
  if (region != 0) return (int)row[sx * cn + c] << 8;
  return (256 - a1) * (int)row[sx * cn + c] + a1 * (int)row[(sx + 1) * cn + c];
}

INLINE uchar resize_exact_element(GLOBAL const uchar* src, int src_offset, int src_step, int sw, int sh, int cn, int dw,
                                  int dh, int dx, int dy, int c) {
  if (dw == sw && dh == sh) return src[src_offset + dy * src_step + dx * cn + c];
  if (sw == 2 * dw && sh == 2 * dh && cn != 2) {
    GLOBAL const uchar* r0 = src + src_offset + (2 * dy) * src_step + 2 * dx * cn + c;
    GLOBAL const uchar* r1 = r0 + src_step;
    return (uchar)(((int)r0[0] + (int)r0[cn] + (int)r1[0] + (int)r1[cn] + 2) >> 2);
  }
  int sx, a1, rx, sy, b1, ry;
  exact_coeff(dx, dw, sw, &sx, &a1, &rx);
  exact_coeff(dy, dh, sh, &sy, &b1, &ry);
  GLOBAL const uchar* base = src + src_offset;
  if (ry != 0) {
    const int h = exact_h(base + (ry < 0 ? 0 : sh - 1) * src_step, sx, a1, rx, cn, c);
    return convert_uchar_sat((h + 128) >> 8);
  }
  const int h0 = exact_h(base + sy * src_step, sx, a1, rx, cn, c);
  const int h1 = exact_h(base + (sy + 1) * src_step, sx, a1, rx, cn, c);
  return convert_uchar_sat((int)(((uint)h0 * (uint)(256 - b1) + (uint)h1 * (uint)b1 + 32768u) >> 16));
}

/* Global (dst width * channels, dst height). */
KERNEL void resize_linear_u8(int exact, int sw, int sh, int cn, int dw, int dh, CONST_IMAGE_PARAM(uchar, src),
                             IMAGE_PARAM(uchar, dst)) {
  const int e = GLOBAL_ID(0);
  const int dy = GLOBAL_ID(1);
  if (e >= dw * cn || dy >= dh) return;
  const int dx = e / cn;
  const int c = e - dx * cn;
  IMAGE_AT(dst, e, dy) = exact ? resize_exact_element(src, src_offset, src_step, sw, sh, cn, dw, dh, dx, dy, c)
                               : resize_linear_element(src, src_offset, src_step, sw, sh, cn, dw, dh, dx, dy, c);
}

/* Several sizes of one single-channel source into one buffer with INTER_LINEAR_EXACT, one launch
 * (the cascade's pyramid). The host (src/ops/resize_jobs.cpp) computes every coefficient with
 * OpenCV's double arithmetic and reduces copies, exact halving and edges to one blend:
 *   h(row) = (256 - a) * row[x0] + a * row[x1];  out = (h(y0) * (256 - b) + h(y1) * b + 32768) >> 16.
 * table: jobs as int4 (width, destination offset, first column record, first row), from
 * rows_at (in int4) one int4 per destination row (job, y0, y1, b), and the column records
 * x0 | (x1 - x0) << 22 | a << 23, each job's starting on a multiple of 4. Global: (widest / 4
 * rounded up, rows); a work-item writes 4 neighbouring pixels of one row. */
KERNEL void resize_exact_jobs(int rows, int rows_at, int dst_step, CONST_IMAGE_PARAM(uchar, src),
                              GLOBAL uchar* RESTRICT dst, GLOBAL const int4* RESTRICT table) {
  const int q = GLOBAL_ID(0);
  const int r = GLOBAL_ID(1);
  if (r >= rows) return;
  const int4 row = table[rows_at + r];
  const int4 job = table[row.x];
  const int dx = 4 * q;
  if (dx >= job.x) return;
  const uint4 c = as_uint4(((GLOBAL const int4*)((GLOBAL const int*)table + job.z))[q]);
  GLOBAL const uchar* s0 = src + src_offset + row.y * src_step;
  GLOBAL const uchar* s1 = src + src_offset + row.z * src_step;
  const uint b1 = (uint)row.w, b0 = 256u - b1;
  uint cs[4] = {c.x, c.y, c.z, c.w};
  uchar out[4];
  for (int k = 0; k < 4; ++k) {
    const int x0 = (int)(cs[k] & 0x3fffffu);
    const int x1 = x0 + (int)((cs[k] >> 22) & 1u);
    const uint a1 = cs[k] >> 23, a0 = 256u - a1;
    const uint h0 = a0 * (uint)s0[x0] + a1 * (uint)s0[x1];
    const uint h1 = a0 * (uint)s1[x0] + a1 * (uint)s1[x1];
    out[k] = convert_uchar_sat((h0 * b0 + h1 * b1 + 32768u) >> 16);
  }
  const int at = job.y + (r - job.w) * dst_step + dx;
  const int n = min(4, job.x - dx);
  if (n == 4 && (at & 3) == 0) {
    *(GLOBAL uchar4*)(dst + at) = VEC4(uchar4, out[0], out[1], out[2], out[3]);
  } else {
    for (int k = 0; k < n; ++k) dst[at + k] = out[k];
  }
}
