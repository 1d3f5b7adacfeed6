/* Corner responses (cv::cornerMinEigenVal, cv::cornerHarris) and the candidate stage of
 * cv::goodFeaturesToTrack, reproducing OpenCV 4.6's CPU arithmetic bit for bit (docs/tracking.md,
 * "Corners"). Aperture (1, 3, 5, 7; -1 Scharr), window, border (kernels/common/border.h's code)
 * and response (0 minimum eigenvalue, 1 Harris) are kernel arguments, so that one program serves
 * every case; GROUP (build option) is the work-group size of corners_max.
 * FP_CONTRACT is off (dialect.h); where OpenCV's AVX2 code fuses a multiply-add, fma() says so. */
#define PLINTH_NEED_FP64
#include "common/dialect.h"
#include "common/border.h"

/* Integer taps of OpenCV's derivative (order 1) and smoothing kernels (getDerivKernels), by
 * aperture: Scharr (-1), 1, 3, 5, 7. Each row: the taps, centred in 7 slots. */
CONSTANT int kTaps[5][2][7] = {
    {{0, 0, -1, 0, 1, 0, 0}, {0, 0, 3, 10, 3, 0, 0}},         /* Scharr */
    {{0, 0, -1, 0, 1, 0, 0}, {0, 0, 0, 1, 0, 0, 0}},          /* 1 */
    {{0, 0, -1, 0, 1, 0, 0}, {0, 0, 1, 2, 1, 0, 0}},          /* 3 */
    {{0, -1, -2, 0, 2, 1, 0}, {0, 1, 4, 6, 4, 1, 0}},         /* 5 */
    {{-1, -4, -5, 0, 5, 4, 1}, {1, 6, 15, 20, 15, 6, 1}},     /* 7 */
};
INLINE int aperture_row(int ksize) { return ksize < 0 ? 0 : ksize / 2 + 1; }
INLINE int deriv_taps(int ksize) { return ksize == 5 ? 5 : ksize == 7 ? 7 : 3; }
INLINE int smooth_taps(int ksize) { return ksize == 1 ? 1 : ksize == 5 ? 5 : ksize == 7 ? 7 : 3; }

INLINE float src_at(CONST_IMAGE_PARAM(uchar, src), int x, int y, int width, int height, int border) {
  const int xx = border_index(x, width, border);
  const int yy = border_index(y, height, border);
  if (xx < 0 || yy < 0) return 0.0f;
  return (float)IMAGE_AT(src, xx, yy);
}

/* OpenCV's row filter (RowFilter<uchar, float, RowVec_8u32f>, AVX2): a multiply-add chain from the
 * leftmost tap. With integer taps every step is exact; with scaled taps the fma matters. */
INLINE float row_filter(CONST_IMAGE_PARAM(uchar, src), int x, int y, int width, int height, int border, int taps,
                        CONSTANT const int* k, float scale, int scaled) {
  const int r = taps / 2;
  float acc = 0.0f;
  for (int i = 0; i < taps; ++i) {
    const float coef = scaled ? (float)k[3 - r + i] * scale : (float)k[3 - r + i];
    const float v = src_at(src, src_offset, src_step, x - r + i, y, width, height, border);
    acc = i == 0 ? coef * v : fma(coef, v, acc);
  }
  return acc;
}

/* One Sobel derivative at (x, y) as cv::Sobel(src, CV_32F, dx, dy, ksize, scale): the row pass on
 * every source row the column kernel covers (rows outside a constant border are 0), then OpenCV's
 * column filter (SymmColumnSmallFilter for 3 taps, SymmColumnFilter otherwise, AVX2 forms). The
 * smoothing kernel carries the scale: the column one for d/dx, the row one for d/dy. */
INLINE float derivative(CONST_IMAGE_PARAM(uchar, src), int x, int y, int width, int height, int border, int ksize,
                        float scale, int along_x) {
  const int row_taps = along_x ? deriv_taps(ksize) : smooth_taps(ksize);
  const int col_taps = along_x ? smooth_taps(ksize) : deriv_taps(ksize);
  CONSTANT const int* deriv = kTaps[aperture_row(ksize)][0];
  CONSTANT const int* smooth = kTaps[aperture_row(ksize)][1];
  CONSTANT const int* rk = along_x ? deriv : smooth;
  CONSTANT const int* ck = along_x ? smooth : deriv;  /* centred: tap i of n at ck[3 - n/2 + i] */
  const int rc = col_taps / 2;
  float rows[7];
  for (int i = 0; i < col_taps; ++i) {
    const int yy = border_index(y - rc + i, height, border);
    rows[i] = yy < 0 ? 0.0f : row_filter(src, src_offset, src_step, x, yy, width, height, border, row_taps, rk, scale, !along_x);
  }
  const int scaled = along_x;
  const float k0 = scaled ? (float)ck[3] * scale : (float)ck[3];
  if (col_taps == 1) return rows[0] * k0;
  const int symmetric = ck[3 - rc] == ck[3 + rc];
  if (col_taps == 3) {
    const float k1 = scaled ? (float)ck[4] * scale : (float)ck[4];
    if (symmetric) return fma(rows[0] + rows[2], k1, rows[1] * k0);
    return (rows[2] - rows[0]) * k1;
  }
  float s = symmetric ? rows[rc] * k0 : 0.0f;
  for (int i = 1; i <= rc; ++i) {
    const float ki = scaled ? (float)ck[3 + i] * scale : (float)ck[3 + i];
    s = symmetric ? fma(rows[rc + i] + rows[rc - i], ki, s) : fma(rows[rc + i] - rows[rc - i], ki, s);
  }
  return s;
}

/* dx and dy of every pixel (cv::Sobel / cv::Scharr with OpenCV's corner scale). */
KERNEL void corners_sobel(int width, int height, int border, int ksize, float scale, CONST_IMAGE_PARAM(uchar, src),
                          IMAGE_PARAM(float, dx), IMAGE_PARAM(float, dy)) {
  const int x = GLOBAL_ID(0);
  const int y = GLOBAL_ID(1);
  if (x >= width || y >= height) return;
  IMAGE_AT(dx, x, y) = derivative(src, src_offset, src_step, x, y, width, height, border, ksize, scale, 1);
  IMAGE_AT(dy, x, y) = derivative(src, src_offset, src_step, x, y, width, height, border, ksize, scale, 0);
}

/* The response from the three window sums, as calcMinEigenVal / calcHarris. OpenCV walks the image
 * as one line of width*height pixels: 8 at a time in AVX (k * (ac * ac)), then one group of 4 in
 * SSE ((k * ac) * ac), then the last few in double. `linear` is the pixel's place on that line. */
INLINE float response(float a, float b, float c, int harris, int linear, int avx_end, int sse_end, float kf, double kd) {
  if (harris) {
    if (linear < avx_end) {
      const float ac = a + c;
      return (a * c - b * b) - kf * (ac * ac);
    }
    if (linear < sse_end) {
      const float ac = a + c;
      return (a * c - b * b) - (kf * ac) * ac;
    }
    const double ac = (double)(a + c);
    return (float)((double)(a * c - b * b) - kd * ac * ac);
  }
  const float ha = a * 0.5f;
  const float hc = c * 0.5f;
  const float t = ha - hc;
  /* sqrt through double: correctly rounded for a float argument, as SSE's sqrtps. */
  return (ha + hc) - (float)sqrt((double)(b * b + t * t));
}

INLINE float product(CONST_IMAGE_PARAM(float, dx), CONST_IMAGE_PARAM(float, dy), int x, int y, int channel) {
  const float u = IMAGE_AT(dx, x, y);
  const float v = IMAGE_AT(dy, x, y);
  return channel == 0 ? u * u : channel == 1 ? u * v : v * v;
}

/* Steps of a running sum whose loads are issued together. */
#define CHAIN_BATCH 8

#define PRODUCT_AT(px, y, channel) \
  ((border_index((px), width, border) < 0) ? 0.0 \
                                           : (double)product(dx, dx_offset, dx_step, dy, dy_offset, dy_step, border_index((px), width, border), (y), (channel)))

/* OpenCV's box filter, row pass (RowSum<float, double> on the 3-channel products), windows of 3 and
 * 5: each sum left to right, independent of its neighbours. One work-item per (pixel, channel). */
KERNEL void corners_row_sums_direct(int width, int height, int border, int block, CONST_IMAGE_PARAM(float, dx), CONST_IMAGE_PARAM(float, dy),
                                    IMAGE_PARAM(double, sums)) {
  const int x = GLOBAL_ID(0);
  const int y = GLOBAL_ID(1);
  const int channel = GLOBAL_ID(2);
  if (x >= width || y >= height) return;
  const int anchor = block / 2;
  double s = PRODUCT_AT(x - anchor, y, channel);
  for (int i = 1; i < block; ++i) s = s + PRODUCT_AT(x - anchor + i, y, channel);
  IMAGE_AT(sums, x * 3 + channel, y) = s;
}

/* The row pass for other windows: a running sum along the row (add the entering value minus the
 * leaving one), so each sum depends on all before it. One work-item per (row, channel). */
KERNEL void corners_row_sums_running(int width, int height, int border, int block, CONST_IMAGE_PARAM(float, dx), CONST_IMAGE_PARAM(float, dy),
                                     IMAGE_PARAM(double, sums)) {
  const int y = GLOBAL_ID(0);
  const int channel = GLOBAL_ID(1);
  if (y >= height) return;
  const int anchor = block / 2;
  double s = 0.0;
  for (int i = 0; i < block; ++i) s += PRODUCT_AT(i - anchor, y, channel);
  IMAGE_AT(sums, channel, y) = s;
  /* The loads of a batch of CHAIN_BATCH steps are issued before the chain uses them, so that the
   * walk waits on memory once per batch rather than once per step. */
  for (int x0 = 0; x0 + 1 < width; x0 += CHAIN_BATCH) {
    double enter[CHAIN_BATCH], leave[CHAIN_BATCH];
    UNROLL for (int j = 0; j < CHAIN_BATCH; ++j) {
      const int x = min(x0 + j, width - 2);
      enter[j] = PRODUCT_AT(x + block - anchor, y, channel);
      leave[j] = PRODUCT_AT(x - anchor, y, channel);
    }
    UNROLL for (int j = 0; j < CHAIN_BATCH; ++j) {
      if (x0 + j + 1 >= width) break;
      s += enter[j] - leave[j];
      IMAGE_AT(sums, (x0 + j + 1) * 3 + channel, y) = s;
    }
  }
}
#undef PRODUCT_AT

/* The column pass (ColumnSum<double, float>): a running sum down each column of row sums over the
 * whole image, then the response. One work-item per column. */
KERNEL void corners_column_response(int width, int height, int border, int block, int harris, int avx_end, int sse_end, float kf, double kd,
                                    CONST_IMAGE_PARAM(double, sums), IMAGE_PARAM(float, dst)) {
  const int x = GLOBAL_ID(0);
  if (x >= width) return;
  const int anchor = block / 2;
  double run[3] = {0.0, 0.0, 0.0};
  for (int k = 0; k < block - 1; ++k) {
    const int yy = border_index(k - anchor, height, border);
    for (int c = 0; c < 3; ++c) run[c] += yy < 0 ? 0.0 : IMAGE_AT(sums, x * 3 + c, yy);
  }
  /* Loads batched as in corners_row_sums_running. */
  for (int y0 = 0; y0 < height; y0 += CHAIN_BATCH) {
    double enter[CHAIN_BATCH][3], leave[CHAIN_BATCH][3];
    UNROLL for (int j = 0; j < CHAIN_BATCH; ++j) {
      const int y = min(y0 + j, height - 1);
      const int yp = border_index(y + block - 1 - anchor, height, border);
      const int ym = border_index(y - anchor, height, border);
      UNROLL for (int c = 0; c < 3; ++c) {
        enter[j][c] = yp < 0 ? 0.0 : IMAGE_AT(sums, x * 3 + c, yp);
        leave[j][c] = ym < 0 ? 0.0 : IMAGE_AT(sums, x * 3 + c, ym);
      }
    }
    UNROLL for (int j = 0; j < CHAIN_BATCH; ++j) {
      const int y = y0 + j;
      if (y >= height) break;
      float cov[3];
      UNROLL for (int c = 0; c < 3; ++c) {
        const double s0 = run[c] + enter[j][c];
        cov[c] = (float)s0;
        run[c] = s0 - leave[j][c];
      }
      IMAGE_AT(dst, x, y) = response(cov[0], cov[1], cov[2], harris, y * width + x, avx_end, sse_end, kf, kd);
    }
  }
}

/* ---- goodFeaturesToTrack's candidate stage ---- */

/* Floats as ints that order like the floats (for atomic max): negative values flip their
 * magnitude bits. The map is its own inverse. */
INLINE int ordered_from_float(float f) {
  const int i = as_int(f);
  return i >= 0 ? i : i ^ 0x7fffffff;
}
INLINE float float_from_ordered(int i) { return as_float(i >= 0 ? i : i ^ 0x7fffffff); }

/* The largest response where the mask is set (cv::minMaxLoc's maxVal), into max_key[0] as an
 * ordered int; the host sets it to INT_MIN first (no pixel: OpenCV's 0). 1-D launch of groups of
 * GROUP work-items, each striding over the pixels. */
KERNEL void corners_max(int width, int height, int has_mask, CONST_IMAGE_PARAM(float, response),
                        CONST_IMAGE_PARAM(uchar, mask), GLOBAL int* max_key) {
  LOCAL int partial[GROUP];
  int best = INT_MIN;
  const int total = width * height;
  for (int i = GLOBAL_ID(0); i < total; i += GLOBAL_SIZE(0)) {
    const int x = i % width;
    const int y = i / width;
    if (has_mask && IMAGE_AT(mask, x, y) == 0) continue;
    const float v = IMAGE_AT(response, x, y);
    if (isnan(v)) continue;
    best = max(best, ordered_from_float(v));
  }
  const int lid = LOCAL_ID(0);
  partial[lid] = best;
  BARRIER_LOCAL();
  for (int s = GROUP / 2; s > 0; s >>= 1) {
    if (lid < s) partial[lid] = max(partial[lid], partial[lid + s]);
    BARRIER_LOCAL();
  }
  if (lid == 0 && partial[0] != INT_MIN) ATOMIC_MAX(max_key, partial[0]);
}

/* OpenCV's thresholded response: kept where above quality * max (threshold TOZERO, in float). */
INLINE float thresholded(CONST_IMAGE_PARAM(float, response), int x, int y, float thresh) {
  const float v = IMAGE_AT(response, x, y);
  return v > thresh ? v : 0.0f;
}

/* Candidates: interior pixels whose thresholded response is non-zero and equals the maximum of its
 * 3x3 neighbourhood (cv::dilate), where the mask is set. Written for every pixel p, in reversed
 * order (slot n - 1 - p), as a flag, the thresholded response and p: a stable compaction then
 * lists the candidates by descending pixel index, and a stable descending sort by response keeps
 * that order among equal responses, OpenCV's tie rule. words[0]: corners_max's key. */
KERNEL void corners_candidates(int width, int height, int has_mask, double quality, CONST_IMAGE_PARAM(float, response),
                               CONST_IMAGE_PARAM(uchar, mask), GLOBAL const int* words, ARRAY_PARAM(uchar, flags),
                               ARRAY_PARAM(float, keys), ARRAY_PARAM(uint, indices)) {
  const int x = GLOBAL_ID(0);
  const int y = GLOBAL_ID(1);
  if (x >= width || y >= height) return;
  const int p = y * width + x;
  const int slot = width * height - 1 - p;
  const int key = words[0];
  const double max_value = key == INT_MIN ? 0.0 : (double)float_from_ordered(key);
  const float thresh = (float)(max_value * quality);
  int candidate = 0;
  float v = 0.0f;
  if (x >= 1 && y >= 1 && x < width - 1 && y < height - 1 && (!has_mask || IMAGE_AT(mask, x, y) != 0)) {
    v = thresholded(response, response_offset, response_step, x, y, thresh);
    if (v != 0.0f) {
      float m = v;
      for (int j = -1; j <= 1; ++j)
        for (int i = -1; i <= 1; ++i) m = fmax(m, thresholded(response, response_offset, response_step, x + i, y + j, thresh));
      candidate = v == m;
    }
  }
  ARRAY_AT(flags, slot) = (uchar)candidate;
  ARRAY_AT(keys, slot) = v;
  ARRAY_AT(indices, slot) = (uint)p;
}
