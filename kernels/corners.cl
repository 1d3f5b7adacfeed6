/* Corner responses (cv::cornerMinEigenVal, cv::cornerHarris) and the candidate and minDistance
 * stages of cv::goodFeaturesToTrack, reproducing OpenCV 4.6's CPU arithmetic bit for bit
 * (docs/tracking.md, "Corners"). Aperture (1, 3, 5, 7; -1 Scharr), window, border
 * (kernels/common/border.h's code) and response (0 minimum eigenvalue, 1 Harris) are kernel
 * arguments, so that one program serves every case; GROUP (build option) is the work-group size of
 * corners_max, SOBEL_TW x SOBEL_TH (build options) the tile of corners_sobel; the running sums'
 * options are listed where they are used.
 * FP_CONTRACT is off (dialect.h); where OpenCV's AVX2 code fuses a multiply-add, fma() says so. */
#define PLINTH_NEED_FP64
#include "common/dialect.h"
#include "common/border.h"

/* Integer taps of OpenCV's derivative (order 1) and smoothing kernels (getDerivKernels), by
 * aperture: Scharr (-1), 1, 3, 5, 7. Each row: the taps, centred in 7 slots. */
CONSTANT_MEM int kTaps[5][2][7] = {
    {{0, 0, -1, 0, 1, 0, 0}, {0, 0, 3, 10, 3, 0, 0}},         /* Scharr */
    {{0, 0, -1, 0, 1, 0, 0}, {0, 0, 0, 1, 0, 0, 0}},          /* 1 */
    {{0, 0, -1, 0, 1, 0, 0}, {0, 0, 1, 2, 1, 0, 0}},          /* 3 */
    {{0, -1, -2, 0, 2, 1, 0}, {0, 1, 4, 6, 4, 1, 0}},         /* 5 */
    {{-1, -4, -5, 0, 5, 4, 1}, {1, 6, 15, 20, 15, 6, 1}},     /* 7 */
};
INLINE int aperture_row(int ksize) { return ksize < 0 ? 0 : ksize / 2 + 1; }
INLINE int deriv_taps(int ksize) { return ksize == 5 ? 5 : ksize == 7 ? 7 : 3; }
INLINE int smooth_taps(int ksize) { return ksize == 1 ? 1 : ksize == 5 ? 5 : ksize == 7 ? 7 : 3; }

/* OpenCV's row filter (RowFilter<uchar, float, RowVec_8u32f>, AVX2) on a row of the tile: a
 * multiply-add chain from the leftmost tap. With integer taps every step is exact; with scaled
 * taps the fma matters. `v` points at the output pixel's column; taps reach v[-r] .. v[r]. */
INLINE float row_filter(LOCAL const float* v, int taps, CONSTANT const int* k, float scale, int scaled) {
  const int r = taps / 2;
  float acc = 0.0f;
  for (int i = 0; i < taps; ++i) {
    const float coef = scaled ? (float)k[3 - r + i] * scale : (float)k[3 - r + i];
    acc = i == 0 ? coef * v[i - r] : fma(coef, v[i - r], acc);
  }
  return acc;
}

/* OpenCV's column filter (SymmColumnSmallFilter for 3 taps, SymmColumnFilter otherwise, AVX2
 * forms) over the row-pass results rows[0 .. col_taps-1] (centred on the output row). */
INLINE float column_filter(const float* rows, int col_taps, CONSTANT const int* ck, float scale, int scaled) {
  const int rc = col_taps / 2;
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

/* Tiles of the derivative pass (SOBEL_TW x SOBEL_TH, build options) and their halo (the largest
 * aperture's radius). */
#define SOBEL_HALO 3
#define SOBEL_ROWS (SOBEL_TH + 2 * SOBEL_HALO)
#define SOBEL_COLS (SOBEL_TW + 2 * SOBEL_HALO)

/* dx and dy of every pixel, as cv::Sobel(src, CV_32F, dx, dy, ksize, scale) (Scharr for -1):
 * each work-group loads its tile of source pixels with the halo once (border applied), runs both
 * row passes once per (row, column) of the tile — the derivative taps unscaled for d/dx, the
 * smoothing taps scaled for d/dy; rows outside a constant border are 0 — and then both column
 * passes per pixel. The smoothing kernel carries the scale: the column one for d/dx, the row one
 * for d/dy. */
KERNEL REQD_GROUP_SIZE(SOBEL_TW, SOBEL_TH, 1) void corners_sobel(int width, int height, int border, int ksize, float scale,
                                                               CONST_IMAGE_PARAM(uchar, src), IMAGE_PARAM(float, dx),
                                                               IMAGE_PARAM(float, dy)) {
  LOCAL_MEM float pixels[SOBEL_ROWS][SOBEL_COLS];
  LOCAL_MEM float row_d[SOBEL_ROWS][SOBEL_TW];
  LOCAL_MEM float row_s[SOBEL_ROWS][SOBEL_TW];
  const int lx = LOCAL_ID(0);
  const int ly = LOCAL_ID(1);
  const int lid = ly * SOBEL_TW + lx;
  const int x0 = GROUP_ID(0) * SOBEL_TW;
  const int y0 = GROUP_ID(1) * SOBEL_TH;
  for (int i = lid; i < SOBEL_ROWS * SOBEL_COLS; i += SOBEL_TW * SOBEL_TH) {
    const int r = i / SOBEL_COLS;
    const int c = i % SOBEL_COLS;
    const int xx = border_index(x0 - SOBEL_HALO + c, width, border);
    const int yy = border_index(y0 - SOBEL_HALO + r, height, border);
    pixels[r][c] = (xx < 0 || yy < 0) ? 0.0f : (float)IMAGE_AT(src, xx, yy);
  }
  BARRIER_LOCAL();
  CONSTANT const int* deriv = kTaps[aperture_row(ksize)][0];
  CONSTANT const int* smooth = kTaps[aperture_row(ksize)][1];
  for (int i = lid; i < SOBEL_ROWS * SOBEL_TW; i += SOBEL_TW * SOBEL_TH) {
    const int r = i / SOBEL_TW;
    const int c = i % SOBEL_TW;
    const int outside = border_index(y0 - SOBEL_HALO + r, height, border) < 0;
    LOCAL const float* v = &pixels[r][c + SOBEL_HALO];
    row_d[r][c] = outside ? 0.0f : row_filter(v, deriv_taps(ksize), deriv, scale, 0);
    row_s[r][c] = outside ? 0.0f : row_filter(v, smooth_taps(ksize), smooth, scale, 1);
  }
  BARRIER_LOCAL();
  const int x = x0 + lx;
  const int y = y0 + ly;
  if (x >= width || y >= height) return;
  float rows[7];
  const int cx = smooth_taps(ksize);
  for (int i = 0; i < cx; ++i) rows[i] = row_d[ly + SOBEL_HALO - cx / 2 + i][lx];
  IMAGE_AT(dx, x, y) = column_filter(rows, cx, smooth, scale, 1);
  const int cy = deriv_taps(ksize);
  for (int i = 0; i < cy; ++i) rows[i] = row_s[ly + SOBEL_HALO - cy / 2 + i][lx];
  IMAGE_AT(dy, x, y) = column_filter(rows, cy, deriv, scale, 0);
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

/* Product `channel` (dx*dx, dx*dy, dy*dy in f32) at column px of row y as a double; 0 outside a
 * constant border. */
#define PRODUCT_AT(px, y, channel) \
  ((border_index((px), width, border) < 0) ? 0.0 \
                                           : (double)product(dx, dx_offset, dx_step, dy, dy_offset, dy_step, border_index((px), width, border), (y), (channel)))

/* ---- The running sums ----
 * OpenCV's running sums (the row pass for windows other than 3 and 5, and always the column pass)
 * are chains of double additions: each sum depends on every one before it, and rounding inside a
 * chain can carry far (docs/tracking.md), so each chain runs in OpenCV's order, one work-item per
 * chain. What made the plain form slow is the wait on memory at every step; here a work-group
 * takes a strip of chains and loads each tile of their inputs into local memory at once (all
 * WALK_THREADS work-items), then its walkers run their chains through the tile at arithmetic
 * speed. Build options: MAX_BLOCK, the largest window; WALK_THREADS, the work-group size; WALK_COLS,
 * the columns of a column-pass work-group; ROW_STRIP, the rows of a row-pass one (3 chains each). */
/* Tiles: WALK_TILE output rows (column pass), ROW_TILE sums (row pass). */
#define WALK_TILE 64
#define WALK_TILE_ROWS (WALK_TILE + MAX_BLOCK - 1)
#define ROW_TILE 128
#define ROW_TILE_COLS (ROW_TILE + MAX_BLOCK)

/* The row pass for other windows (RowSum's running form): `s += (ST)src[i + ksize] - (ST)src[i]`
 * along the whole row. A tile holds dx and dy of the strip's rows at the columns its steps read
 * (x0 - 1 - anchor onwards; borders applied, 0 outside a constant one); walker (row, channel)
 * forms the products as PRODUCT_AT does. */
KERNEL REQD_GROUP_SIZE(WALK_THREADS, 1, 1) void corners_row_sums_running(int width, int height, int border, int block,
                                                                         CONST_IMAGE_PARAM(float, dx), CONST_IMAGE_PARAM(float, dy),
                                                                         IMAGE_PARAM(double, sums)) {
  LOCAL_MEM float tile_dx[ROW_STRIP * ROW_TILE_COLS];
  LOCAL_MEM float tile_dy[ROW_STRIP * ROW_TILE_COLS];
  const int lid = LOCAL_ID(0);
  const int y0 = GROUP_ID(0) * ROW_STRIP;
  const int rows = min(ROW_STRIP, height - y0);
  const int anchor = block / 2;
  const int r = min(lid / 3, ROW_STRIP - 1);  /* walkers: lid < rows * 3 */
  const int channel = lid % 3;
  LOCAL const float* u = &tile_dx[r * ROW_TILE_COLS];
  LOCAL const float* v = &tile_dy[r * ROW_TILE_COLS];
#define TILE_PRODUCT(j) ((double)(channel == 0 ? u[j] * u[j] : channel == 1 ? u[j] * v[j] : v[j] * v[j]))
  double s = 0.0;
  for (int x0 = 0; x0 < width; x0 += ROW_TILE) {
    const int outputs = min(ROW_TILE, width - x0);
    const int span = outputs + block;
    BARRIER_LOCAL();
    for (int i = lid; i < rows * span; i += WALK_THREADS) {
      const int row = i / span;
      const int j = i - row * span;
      const int xx = border_index(x0 - 1 - anchor + j, width, border);
      tile_dx[row * ROW_TILE_COLS + j] = xx < 0 ? 0.0f : IMAGE_AT(dx, xx, y0 + row);
      tile_dy[row * ROW_TILE_COLS + j] = xx < 0 ? 0.0f : IMAGE_AT(dy, xx, y0 + row);
    }
    BARRIER_LOCAL();
    if (lid < rows * 3) {
      int t = 0;
      if (x0 == 0) {
        /* The first sum: the window at x = 0 from 0, left to right (columns -anchor ...). */
        for (int i = 0; i < block; ++i) s += TILE_PRODUCT(i + 1);
        IMAGE_AT(sums, channel, y0 + r) = s;
        t = 1;
      }
      /* Steps in fours whose products are formed before their additions, then the rest. */
      for (; t + 4 <= outputs; t += 4) {
        double delta[4];
        UNROLL for (int j = 0; j < 4; ++j) delta[j] = TILE_PRODUCT(t + j + block) - TILE_PRODUCT(t + j);
        UNROLL for (int j = 0; j < 4; ++j) {
          s += delta[j];
          IMAGE_AT(sums, (x0 + t + j) * 3 + channel, y0 + r) = s;
        }
      }
      for (; t < outputs; ++t) {
        s += TILE_PRODUCT(t + block) - TILE_PRODUCT(t);
        IMAGE_AT(sums, (x0 + t) * 3 + channel, y0 + r) = s;
      }
    }
  }
#undef TILE_PRODUCT
}

/* The column pass (ColumnSum<double, float>): a running sum down each column of row sums over the
 * whole image, then the response. A tile holds the strip's row sums from row y0 - anchor on
 * (borders applied, 0 outside a constant one): the leaving row of output y0 + t is tile row t, the
 * entering one tile row t + block - 1. One walker per column keeps only the chain and leaves the
 * three sums of each output in local memory; then every work-item of the group computes responses.
 * With `direct` (windows 3 and 5) the tile's row sums are formed here from dx and dy, and no row
 * sums go through global memory.
 * Several work-groups share a compute unit, so that one loads while another walks. */
KERNEL REQD_GROUP_SIZE(WALK_THREADS, 1, 1) void corners_column_response(int width, int height, int border, int block, int harris, int avx_end,
                                                                        int sse_end, float kf, double kd, int direct,
                                                                        CONST_IMAGE_PARAM(float, dx), CONST_IMAGE_PARAM(float, dy),
                                                                        CONST_IMAGE_PARAM(double, sums), IMAGE_PARAM(float, dst)) {
  LOCAL_MEM double tile[WALK_TILE_ROWS * WALK_COLS * 3];
  LOCAL_MEM float covs[WALK_TILE * WALK_COLS * 3];
  const int lid = LOCAL_ID(0);
  const int x0 = GROUP_ID(0) * WALK_COLS;
  const int cols = min(WALK_COLS, width - x0);
  const int anchor = block / 2;
  LOCAL const double* mine = &tile[min(lid, WALK_COLS - 1) * 3];
  double run[3] = {0.0, 0.0, 0.0};
  for (int y0 = 0; y0 < height; y0 += WALK_TILE) {
    const int outputs = min(WALK_TILE, height - y0);
    const int values = (outputs + block - 1) * cols * 3;
    BARRIER_LOCAL();
    for (int i = lid; i < values; i += WALK_THREADS) {
      const int row = i / (cols * 3);
      const int k = i - row * cols * 3;
      const int yy = border_index(y0 - anchor + row, height, border);
      double value = 0.0;
      if (yy >= 0 && direct) {
        /* Windows 3 and 5: OpenCV's box filter sums each row's window left to right (RowSum<float,
         * double>), independent of its neighbours. */
        const int x = x0 + k / 3;
        const int channel = k % 3;
        value = PRODUCT_AT(x - anchor, yy, channel);
        for (int j = 1; j < block; ++j) value = value + PRODUCT_AT(x - anchor + j, yy, channel);
      } else if (yy >= 0) {
        value = IMAGE_AT(sums, x0 * 3 + k, yy);
      }
      tile[row * WALK_COLS * 3 + k] = value;
    }
    BARRIER_LOCAL();
    if (lid < cols) {
      if (y0 == 0) {
        /* OpenCV's start: the sum of the first block - 1 rows, from 0. */
        for (int row = 0; row < block - 1; ++row)
          for (int c = 0; c < 3; ++c) run[c] += mine[row * WALK_COLS * 3 + c];
      }
      /* Steps in fours whose tile reads are issued before their additions (the reads do not
       * depend on the chain), then the rest one by one. */
      int t = 0;
      for (; t + 4 <= outputs; t += 4) {
        double enter[4][3], leave[4][3];
        UNROLL for (int j = 0; j < 4; ++j) {
          UNROLL for (int c = 0; c < 3; ++c) {
            enter[j][c] = mine[(t + j + block - 1) * WALK_COLS * 3 + c];
            leave[j][c] = mine[(t + j) * WALK_COLS * 3 + c];
          }
        }
        UNROLL for (int j = 0; j < 4; ++j) {
          UNROLL for (int c = 0; c < 3; ++c) {
            const double s0 = run[c] + enter[j][c];
            covs[((t + j) * WALK_COLS + lid) * 3 + c] = (float)s0;
            run[c] = s0 - leave[j][c];
          }
        }
      }
      for (; t < outputs; ++t) {
        UNROLL for (int c = 0; c < 3; ++c) {
          const double s0 = run[c] + mine[(t + block - 1) * WALK_COLS * 3 + c];
          covs[(t * WALK_COLS + lid) * 3 + c] = (float)s0;
          run[c] = s0 - mine[t * WALK_COLS * 3 + c];
        }
      }
    }
    BARRIER_LOCAL();
    for (int i = lid; i < outputs * WALK_COLS; i += WALK_THREADS) {
      const int t = i / WALK_COLS;
      const int col = i - t * WALK_COLS;
      const int x = x0 + col;
      const int y = y0 + t;
      LOCAL const float* cov = &covs[i * 3];
      if (col < cols) IMAGE_AT(dst, x, y) = response(cov[0], cov[1], cov[2], harris, y * width + x, avx_end, sse_end, kf, kd);
    }
  }
}
#undef PRODUCT_AT

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
                        CONST_IMAGE_PARAM(uchar, mask), ARRAY_PARAM(int, max_key)) {
  LOCAL_MEM int partial[GROUP];
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
  if (lid == 0 && partial[0] != INT_MIN) ATOMIC_MAX(&ARRAY_AT(max_key, 0), partial[0]);
}

/* OpenCV's thresholded response: kept where above quality * max (threshold TOZERO, in float). */
INLINE float thresholded(CONST_IMAGE_PARAM(float, response), int x, int y, float thresh) {
  const float v = IMAGE_AT(response, x, y);
  return v > thresh ? v : 0.0f;
}

/* The place of pixel (x, y) in cell-major order for cells of `cell` pixels: bands of `cell` rows
 * top to bottom, in each band the cells left to right, in each cell its rows. Every cell's pixels
 * are contiguous, cells in the order cy * grid_w + cx. */
INLINE int cell_major_slot(int x, int y, int width, int height, int cell) {
  const int top = y / cell * cell;
  const int left = x / cell * cell;
  const int band = min(cell, height - top);
  const int cell_w = min(cell, width - left);
  return top * width + left * band + (y - top) * cell_w + (x - left);
}

/* Candidates: interior pixels whose thresholded response is non-zero and equals the maximum of its
 * 3x3 neighbourhood (cv::dilate), where the mask is set. Written for every pixel p, in reversed
 * order (slot n - 1 - p), as a flag and p: a stable compaction then lists the candidates by
 * descending pixel index, corners_keys gives each its response, and a stable descending sort by
 * response keeps that order among equal responses, OpenCV's tie rule. Where cell > 0 (a minDistance pass
 * follows), the flag and p also go to the pixel's cell-major slot, so that a second compaction
 * lists the candidates cell by cell. words[0]: corners_max's key. */
KERNEL void corners_candidates(int width, int height, int has_mask, double quality, int cell, CONST_IMAGE_PARAM(float, response),
                               CONST_IMAGE_PARAM(uchar, mask), CONST_ARRAY_PARAM(int, words), ARRAY_PARAM(uchar, flags),
                               ARRAY_PARAM(uint, indices), ARRAY_PARAM(uchar, cell_flags),
                               ARRAY_PARAM(uint, cell_indices)) {
  const int x = GLOBAL_ID(0);
  const int y = GLOBAL_ID(1);
  if (x >= width || y >= height) return;
  const int p = y * width + x;
  const int slot = width * height - 1 - p;
  const int key = ARRAY_AT(words, 0);
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
  ARRAY_AT(indices, slot) = (uint)p;
  if (cell > 0) {
    const int c = cell_major_slot(x, y, width, height, cell);
    ARRAY_AT(cell_flags, c) = (uchar)candidate;
    ARRAY_AT(cell_indices, c) = (uint)p;
  }
}

/* The sort keys of the compacted candidates: each one's response (a candidate's thresholded
 * response is its response). */
KERNEL void corners_keys(int count, int width, CONST_IMAGE_PARAM(float, response), CONST_ARRAY_PARAM(uint, indices),
                         ARRAY_PARAM(float, keys)) {
  const int i = GLOBAL_ID(0);
  if (i >= count) return;
  const uint p = ARRAY_AT(indices, i);
  ARRAY_AT(keys, i) = IMAGE_AT(response, (int)(p % (uint)width), (int)(p / (uint)width));
}

/* ---- goodFeaturesToTrack's minDistance pass ----
 * OpenCV walks the candidates in order (rank 0 the strongest) and keeps one when no kept corner
 * lies closer than minDistance, searching the 3x3 cells of round(minDistance) around it. The kept
 * set is the lexicographically first maximal independent set of the "closer than" graph, which
 * rounds by priority reproduce: a candidate is kept once no candidate of lower rank within reach is
 * kept or undecided, dropped once one is kept. States (u8): 2 undecided, 1 kept, 0 dropped, so that
 * a compaction with the states as flags lists the kept candidates in rank order. */
#define STATE_DROPPED 0
#define STATE_KEPT 1
#define STATE_UNDECIDED 2

/* ranks[p] = the rank of the candidate at pixel p (read only at candidate pixels). */
KERNEL void corners_ranks(int count, CONST_ARRAY_PARAM(uint, ordered), ARRAY_PARAM(uint, ranks)) {
  const int i = GLOBAL_ID(0);
  if (i < count) ARRAY_AT(ranks, (int)ARRAY_AT(ordered, i)) = (uint)i;
}

INLINE int cell_of(uint p, int width, int cell, int grid_w) {
  const int x = (int)(p % (uint)width);
  const int y = (int)(p / (uint)width);
  return y / cell * grid_w + x / cell;
}

/* Each cell's range [begin, end) in the cell-major candidate list; the host zeroes both first
 * (empty cells). */
KERNEL void corners_cell_ranges(int count, int width, int cell, int grid_w, CONST_ARRAY_PARAM(uint, by_cell), ARRAY_PARAM(uint, begin),
                                ARRAY_PARAM(uint, end)) {
  const int k = GLOBAL_ID(0);
  if (k >= count) return;
  const int c = cell_of(ARRAY_AT(by_cell, k), width, cell, grid_w);
  if (k == 0 || cell_of(ARRAY_AT(by_cell, k - 1), width, cell, grid_w) != c) ARRAY_AT(begin, c) = (uint)k;
  if (k == count - 1 || cell_of(ARRAY_AT(by_cell, k + 1), width, cell, grid_w) != c) ARRAY_AT(end, c) = (uint)(k + 1);
}

/* The state candidate `rank` can take now: dropped if a kept candidate of lower rank lies closer
 * than minDistance, undecided if only undecided ones do, else kept. OpenCV's test: the squared
 * distance in float, compared in double with minDistance squared. */
INLINE int decide(int rank, int width, int cell, int grid_w, int grid_h, double min_sq, GLOBAL const uint* ordered, int ordered_offset,
                  GLOBAL const uint* ranks, int ranks_offset, GLOBAL const uint* by_cell, int by_cell_offset, GLOBAL const uint* begin,
                  int begin_offset, GLOBAL const uint* end, int end_offset, GLOBAL const uchar* state, int state_offset) {
  const uint p = ARRAY_AT(ordered, rank);
  const int x = (int)(p % (uint)width);
  const int y = (int)(p / (uint)width);
  const int cx = x / cell;
  const int cy = y / cell;
  int blocked = 0;
  for (int gy = max(0, cy - 1); gy <= min(grid_h - 1, cy + 1); ++gy) {
    for (int gx = max(0, cx - 1); gx <= min(grid_w - 1, cx + 1); ++gx) {
      const int c = gy * grid_w + gx;
      const uint e = ARRAY_AT(end, c);
      for (uint k = ARRAY_AT(begin, c); k < e; ++k) {
        const uint q = ARRAY_AT(by_cell, k);
        const uint other = ARRAY_AT(ranks, q);
        if (other >= (uint)rank) continue;
        const float fx = (float)x - (float)(int)(q % (uint)width);
        const float fy = (float)y - (float)(int)(q / (uint)width);
        if (!((double)(fx * fx + fy * fy) < min_sq)) continue;
        const int s = ARRAY_AT(state, other);
        if (s == STATE_KEPT) return STATE_DROPPED;
        if (s == STATE_UNDECIDED) blocked = 1;
      }
    }
  }
  return blocked ? STATE_UNDECIDED : STATE_KEPT;
}

#define DECIDE_ARGS                                                                                                           \
  width, cell, grid_w, grid_h, min_sq, ordered, ordered_offset, ranks, ranks_offset, by_cell, by_cell_offset, begin, begin_offset, \
      end, end_offset, state, state_offset

/* One round: every undecided candidate takes the state it can; those still undecided are counted
 * in undecided[round]. A round after one that left none undecided does nothing. States change
 * only from undecided to final, so reading a neighbour's state while it changes is harmless: either
 * value leads to a correct decision or to another round. */
KERNEL void corners_distance_round(int count, int width, int cell, int grid_w, int grid_h, double min_sq, int round,
                                   CONST_ARRAY_PARAM(uint, ordered), CONST_ARRAY_PARAM(uint, ranks), CONST_ARRAY_PARAM(uint, by_cell),
                                   CONST_ARRAY_PARAM(uint, begin), CONST_ARRAY_PARAM(uint, end), ARRAY_PARAM(uchar, state),
                                   ARRAY_PARAM(uint, undecided)) {
  const int i = GLOBAL_ID(0);
  if (i >= count || (round > 0 && ARRAY_AT(undecided, round - 1) == 0)) return;
  if (ARRAY_AT(state, i) != STATE_UNDECIDED) return;
  const int s = decide(i, DECIDE_ARGS);
  if (s == STATE_UNDECIDED) {
    ATOMIC_INC(&ARRAY_AT(undecided, round));
  } else {
    ARRAY_AT(state, i) = (uchar)s;
  }
}

/* After the last launched round: if any candidate is still undecided, one work-group of GROUP
 * work-items goes on with rounds of its own (barriers between them) until none is. Each such
 * round decides at least the undecided candidate of lowest rank, so it ends. */
KERNEL REQD_GROUP_SIZE(GROUP, 1, 1) void corners_distance_finish(int count, int width, int cell, int grid_w, int grid_h, double min_sq, int rounds,
                                                                 CONST_ARRAY_PARAM(uint, ordered), CONST_ARRAY_PARAM(uint, ranks),
                                                                 CONST_ARRAY_PARAM(uint, by_cell), CONST_ARRAY_PARAM(uint, begin),
                                                                 CONST_ARRAY_PARAM(uint, end), ARRAY_PARAM(uchar, state),
                                                                 CONST_ARRAY_PARAM(uint, undecided)) {
  LOCAL_MEM int left;
  if (ARRAY_AT(undecided, rounds - 1) == 0) return;
  const int lid = LOCAL_ID(0);
  do {
    BARRIER_ALL();
    if (lid == 0) left = 0;
    BARRIER_ALL();
    for (int i = lid; i < count; i += GROUP) {
      if (ARRAY_AT(state, i) != STATE_UNDECIDED) continue;
      const int s = decide(i, DECIDE_ARGS);
      if (s == STATE_UNDECIDED) {
        left = 1;
      } else {
        ARRAY_AT(state, i) = (uchar)s;
      }
    }
    BARRIER_ALL();
  } while (left != 0);
}
#undef DECIDE_ARGS

/* The corner list: the first min(count, limit) pixel indices of `kept` as (x, y) floats, and that
 * number into out_count[0]. count[0]: the kept candidates' number. */
KERNEL void corners_points(int width, int limit, CONST_ARRAY_PARAM(uint, kept), CONST_ARRAY_PARAM(uint, count), ARRAY_PARAM(float, points),
                           ARRAY_PARAM(uint, out_count)) {
  const int i = GLOBAL_ID(0);
  const int n = min((int)ARRAY_AT(count, 0), limit);
  if (i == 0) ARRAY_AT(out_count, 0) = (uint)n;
  if (i >= n) return;
  const uint p = ARRAY_AT(kept, i);
  ARRAY_AT(points, 2 * i) = (float)(int)(p % (uint)width);
  ARRAY_AT(points, 2 * i + 1) = (float)(int)(p / (uint)width);
}
