/* SURF on the integral image (docs/features.md, "SURF"): Hessian responses of every layer of an
 * octave, the maxima of its middle layers with their interpolation (appended to a list with an
 * atomic counter), the orientation of each keypoint and its descriptor. The shapes and the float
 * functions shared with the host's CPU reference are in surf_shape.h; the arithmetic follows the
 * reference step for step (FP_CONTRACT is off, as on the host). */
#define PLINTH_NEED_FP64
#include "common/dialect.h"
/* Float division correctly rounded, as the host's (through double; the descriptor's norm is taken in double too). */
#define SURF_DIV(a, b) ((float)((double)(a) / (double)(b)))
#include "surf_shape.h"

INLINE int box_sum(CONST_IMAGE_PARAM(int, sum), int x, int y, GLOBAL const int* b) {
  return IMAGE_AT(sum, x + b[0], y + b[1]) + IMAGE_AT(sum, x + b[2], y + b[3]) - IMAGE_AT(sum, x + b[0], y + b[3]) -
         IMAGE_AT(sum, x + b[2], y + b[1]);
}

/* The determinant and trace of the Hessian for the layers first .. first + GLOBAL_SIZE(2) - 1 of an octave
 * (global z: the layer), on the octave's grid; 0 outside the filled region, as the reference. The
 * boxes of one pattern share their area, so the weighted sum is the integer combination times w
 * (exactly what the reference's double sum rounds to while |combination| < 2^24). */
KERNEL void surf_hessian(CONST_IMAGE_PARAM(int, sum), GLOBAL const int* layers, GLOBAL const float* weights, int first,
                         GLOBAL float* det, GLOBAL float* trace) {
  const int l = first + GLOBAL_ID(2);
  GLOBAL const int* t = layers + l * SURF_LAYER_INTS;
  const int rows = t[SURF_L_ROWS];
  const int cols = t[SURF_L_COLS];
  const int j = GLOBAL_ID(0);
  const int i = GLOBAL_ID(1);
  if (i >= rows || j >= cols) return;
  const int at = t[SURF_L_OFFSET] + i * cols + j;
  const int fi = i - t[SURF_L_FILL_MARGIN];
  const int fj = j - t[SURF_L_FILL_MARGIN];
  if (fi < 0 || fj < 0 || fi >= t[SURF_L_FILL_ROWS] || fj >= t[SURF_L_FILL_COLS]) {
    det[at] = 0.0f;
    trace[at] = 0.0f;
    return;
  }
  const int step = t[SURF_L_STEP];
  const int x = fj * step;
  const int y = fi * step;
  const int nxx = box_sum(sum, sum_offset, sum_step, x, y, t + SURF_L_DXX) - 2 * box_sum(sum, sum_offset, sum_step, x, y, t + SURF_L_DXX + 4) +
                  box_sum(sum, sum_offset, sum_step, x, y, t + SURF_L_DXX + 8);
  const int nyy = box_sum(sum, sum_offset, sum_step, x, y, t + SURF_L_DYY) - 2 * box_sum(sum, sum_offset, sum_step, x, y, t + SURF_L_DYY + 4) +
                  box_sum(sum, sum_offset, sum_step, x, y, t + SURF_L_DYY + 8);
  const int nxy = box_sum(sum, sum_offset, sum_step, x, y, t + SURF_L_DXY) - box_sum(sum, sum_offset, sum_step, x, y, t + SURF_L_DXY + 4) -
                  box_sum(sum, sum_offset, sum_step, x, y, t + SURF_L_DXY + 8) + box_sum(sum, sum_offset, sum_step, x, y, t + SURF_L_DXY + 12);
  GLOBAL const float* w = weights + l * SURF_LAYER_FLOATS;
  const float fx = (float)nxx * w[0];
  const float fy = (float)nyy * w[1];
  const float fxy = (float)nxy * w[2];
  const float prod = 0.81f * fxy;
  det[at] = fx * fy - prod * fxy;
  trace[at] = fx + fy;
}

/* surf_hessian's values, SURF_HESS_ROWS rows of one layer per work-item (global y: the row group),
 * with the layer's box table read once for them all, and Dxx and Dyy from 8 reads each: their
 * three boxes share edges (the table's corners are scaled from shared corners of the 9 x 9
 * pattern, so they coincide; the host checks it), so with D(X) = S(X, Y2) - S(X, Y1) the pattern
 * B0 - 2 B1 + B2 = (D(X1) - D(X0)) - 2 (D(X2) - D(X1)) + (D(X3) - D(X2)) = (D(X3) - D(X0)) + 3 (D(X1) - D(X2)).
 * The same integer as surf_hessian's 12 reads (integer arithmetic is exact), times the same float
 * weight: det and trace are bit-identical. */
KERNEL void surf_hessian_rows(CONST_IMAGE_PARAM(int, sum), GLOBAL const int* layers, GLOBAL const float* weights, int first,
                              GLOBAL float* det, GLOBAL float* trace) {
  const int l = first + GLOBAL_ID(2);
  GLOBAL const int* t = layers + l * SURF_LAYER_INTS;
  const int rows = t[SURF_L_ROWS];
  const int cols = t[SURF_L_COLS];
  const int j = GLOBAL_ID(0);
  const int i0 = GLOBAL_ID(1) * SURF_HESS_ROWS;
  if (i0 >= rows || j >= cols) return;
  const int offset = t[SURF_L_OFFSET];
  const int margin = t[SURF_L_FILL_MARGIN];
  const int fill_rows = t[SURF_L_FILL_ROWS];
  const int step = t[SURF_L_STEP];
  const int fj = j - margin;
  const int column_filled = fj >= 0 && fj < t[SURF_L_FILL_COLS];
  /* Dxx: columns X0 < X1 < X2 < X3 of the three boxes, rows Y1, Y2; Dyy: rows Y0 < ... < Y3, columns X1, X2. */
  const int xx0 = t[SURF_L_DXX + 0], xx1 = t[SURF_L_DXX + 2], xx2 = t[SURF_L_DXX + 6], xx3 = t[SURF_L_DXX + 10];
  const int xy1 = t[SURF_L_DXX + 1], xy2 = t[SURF_L_DXX + 3];
  const int yy0 = t[SURF_L_DYY + 1], yy1 = t[SURF_L_DYY + 3], yy2 = t[SURF_L_DYY + 7], yy3 = t[SURF_L_DYY + 11];
  const int yx1 = t[SURF_L_DYY + 0], yx2 = t[SURF_L_DYY + 2];
  int b[16];
  for (int k = 0; k < 16; ++k) b[k] = t[SURF_L_DXY + k];
  GLOBAL const float* w = weights + l * SURF_LAYER_FLOATS;
  const float wxx = w[0];
  const float wyy = w[1];
  const float wxy = w[2];
  for (int r = 0; r < SURF_HESS_ROWS; ++r) {
    const int i = i0 + r;
    if (i >= rows) break;
    const int at = offset + i * cols + j;
    const int fi = i - margin;
    if (!column_filled || fi < 0 || fi >= fill_rows) {
      det[at] = 0.0f;
      trace[at] = 0.0f;
      continue;
    }
    const int x = fj * step;
    const int y = fi * step;
    GLOBAL const int* top = sum + sum_offset + (y + xy1) * sum_step + x;
    GLOBAL const int* bottom = sum + sum_offset + (y + xy2) * sum_step + x;
    const int d0 = bottom[xx0] - top[xx0];
    const int d1 = bottom[xx1] - top[xx1];
    const int d2 = bottom[xx2] - top[xx2];
    const int d3 = bottom[xx3] - top[xx3];
    const int nxx = (d3 - d0) + 3 * (d1 - d2);
    GLOBAL const int* base = sum + sum_offset + y * sum_step + x;
    const int e0 = base[yy0 * sum_step + yx2] - base[yy0 * sum_step + yx1];
    const int e1 = base[yy1 * sum_step + yx2] - base[yy1 * sum_step + yx1];
    const int e2 = base[yy2 * sum_step + yx2] - base[yy2 * sum_step + yx1];
    const int e3 = base[yy3 * sum_step + yx2] - base[yy3 * sum_step + yx1];
    const int nyy = (e3 - e0) + 3 * (e1 - e2);
    int nxy = 0;
    for (int k = 0; k < 4; ++k) {
      const int v = base[b[4 * k + 1] * sum_step + b[4 * k]] + base[b[4 * k + 3] * sum_step + b[4 * k + 2]] -
                    base[b[4 * k + 3] * sum_step + b[4 * k]] - base[b[4 * k + 1] * sum_step + b[4 * k + 2]];
      nxy += (k == 0 || k == 3) ? v : -v;
    }
    const float fx = (float)nxx * wxx;
    const float fy = (float)nyy * wyy;
    const float fxy = (float)nxy * wxy;
    const float prod = 0.81f * fxy;
    det[at] = fx * fy - prod * fxy;
    trace[at] = fx + fy;
  }
}

/* The maxima of the middle layers mid0 .. mid0 + (global z) of one octave above the threshold and
 * above their 26 neighbours, interpolated; each survivor is appended to `keypoints` (SURF_KP_FIELDS
 * floats) at a slot drawn from `count`; slots past `capacity` are counted, not written. */
KERNEL void surf_extrema(GLOBAL const int* layers, GLOBAL const float* det, GLOBAL const float* trace, int mid0, int octave,
                         float threshold, int capacity, GLOBAL uint* count, GLOBAL float* keypoints) {
  const int mid = mid0 + GLOBAL_ID(2);
  GLOBAL const int* t = layers + mid * SURF_LAYER_INTS;
  GLOBAL const int* below = t - SURF_LAYER_INTS;
  GLOBAL const int* above = t + SURF_LAYER_INTS;
  const int rows = t[SURF_L_ROWS];
  const int cols = t[SURF_L_COLS];
  const int step = t[SURF_L_STEP];
  const int size = t[SURF_L_SIZE];
  const int margin = (above[SURF_L_SIZE] / 2) / step + 1;
  const int j = GLOBAL_ID(0);
  const int i = GLOBAL_ID(1);
  if (i < margin || j < margin || i >= rows - margin || j >= cols - margin) return;
  const float v = det[t[SURF_L_OFFSET] + i * cols + j];
  if (!(v > threshold)) return;
  float n[27];
  int is_max = 1;
  for (int d = 0; d < 3; ++d) {
    GLOBAL const float* layer = det + (d == 0 ? below : d == 1 ? t : above)[SURF_L_OFFSET];
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) {
        const float u = layer[(i - 1 + r) * cols + (j - 1 + c)];
        n[d * 9 + r * 3 + c] = u;
        if (!(d == 1 && r == 1 && c == 1) && !(v > u)) is_max = 0;
      }
    }
  }
  if (!is_max) return;
  float x[3];
  if (!surf_interpolate_offset(n, x)) return;
  const int sum_y = step * (i - (size / 2) / step);
  const int sum_x = step * (j - (size / 2) / step);
  float kx = (float)sum_x + (float)(size - 1) * 0.5f;
  float ky = (float)sum_y + (float)(size - 1) * 0.5f;
  kx += x[0] * (float)step;
  ky += x[1] * (float)step;
  const float ksize = (float)surf_round((float)size + x[2] * (float)(size - below[SURF_L_SIZE]));
  const float tr = trace[t[SURF_L_OFFSET] + i * cols + j];
  const uint slot = ATOMIC_INC(count);
  if (slot >= (uint)capacity) return;
  GLOBAL float* k = keypoints + slot * SURF_KP_FIELDS;
  k[SURF_KP_X] = kx;
  k[SURF_KP_Y] = ky;
  k[SURF_KP_SIZE] = ksize;
  k[SURF_KP_RESPONSE] = v;
  k[SURF_KP_ANGLE] = -1.0f;
  k[SURF_KP_OCTAVE] = (float)octave;
  k[SURF_KP_CLASS] = (float)((tr > 0.0f) - (tr < 0.0f));
  k[7] = 0.0f;
}

/* The orientation of keypoint GROUP_ID(0) (work-groups past the list's count, or its capacity,
 * have nothing to do: the grid is sized for the capacity, so that no count is read back first):
 * Haar responses of size 4s at the 113 grid points of
 * radius 6s, Gaussian-weighted; the 60-degree window (72 positions) of the largest summed vector
 * gives the angle. keep[k] = 0 when the filter exceeds the integral image or no response lies
 * inside it (the keypoint is dropped). upright: the angle is 270 and only the size is checked. */
KERNEL REQD_GROUP_SIZE(SURF_ORI_GROUP, 1, 1) void surf_orientation(CONST_IMAGE_PARAM(int, sum), int sum_w, int sum_h,
                                                                    GLOBAL float* keypoints, GLOBAL const int* offsets,
                                                                    GLOBAL const float* table, int upright, GLOBAL const uint* count,
                                                                    int capacity, GLOBAL int* keep) {
  LOCAL_MEM float xs[SURF_ORI_SAMPLES];
  LOCAL_MEM float ys[SURF_ORI_SAMPLES];
  LOCAL_MEM int degrees[SURF_ORI_SAMPLES];
  LOCAL_MEM int valid[SURF_ORI_SAMPLES];
  LOCAL_MEM float mods[SURF_ORI_POSITIONS];
  LOCAL_MEM float wx[SURF_ORI_POSITIONS];
  LOCAL_MEM float wy[SURF_ORI_POSITIONS];
  const int kp = GROUP_ID(0);
  const int lid = LOCAL_ID(0);
  if ((uint)kp >= count[0] || kp >= capacity) return;
  GLOBAL float* k = keypoints + kp * SURF_KP_FIELDS;
  const float cx = k[SURF_KP_X];
  const float cy = k[SURF_KP_Y];
  const float s = SURF_DIV(k[SURF_KP_SIZE] * 1.2f, 9.0f);
  const int wav = 2 * surf_round(2.0f * s);
  if (sum_h < wav || sum_w < wav) {
    if (lid == 0) keep[kp] = 0;
    return;
  }
  if (upright) {
    if (lid == 0) {
      k[SURF_KP_ANGLE] = 270.0f;
      keep[kp] = 1;
    }
    return;
  }
  const int half_wav = wav / 2;
  const float w = SURF_DIV(1.0f, (float)(half_wav * wav));
  for (int q = lid; q < SURF_ORI_SAMPLES; q += SURF_ORI_GROUP) {
    const int x = surf_round(cx + (float)offsets[2 * q] * s - (float)(wav - 1) * 0.5f);
    const int y = surf_round(cy + (float)offsets[2 * q + 1] * s - (float)(wav - 1) * 0.5f);
    const int ok = !(y < 0 || y >= sum_h - wav || x < 0 || x >= sum_w - wav);
    valid[q] = ok;
    if (ok) {
      const int left = IMAGE_AT(sum, x, y) + IMAGE_AT(sum, x + half_wav, y + wav) - IMAGE_AT(sum, x, y + wav) - IMAGE_AT(sum, x + half_wav, y);
      const int right = IMAGE_AT(sum, x + half_wav, y) + IMAGE_AT(sum, x + wav, y + wav) - IMAGE_AT(sum, x + half_wav, y + wav) -
                        IMAGE_AT(sum, x + wav, y);
      const int top = IMAGE_AT(sum, x, y) + IMAGE_AT(sum, x + wav, y + half_wav) - IMAGE_AT(sum, x, y + half_wav) - IMAGE_AT(sum, x + wav, y);
      const int bottom = IMAGE_AT(sum, x, y + half_wav) + IMAGE_AT(sum, x + wav, y + wav) - IMAGE_AT(sum, x, y + wav) -
                         IMAGE_AT(sum, x + wav, y + half_wav);
      const float a = table[SURF_TABLE_ORI + q];
      const float vx = ((float)(right - left) * w) * a;
      const float vy = ((float)(top - bottom) * w) * a;
      xs[q] = vx;
      ys[q] = vy;
      degrees[q] = surf_round(surf_atan2_deg(vy, vx));
    }
  }
  BARRIER_LOCAL();
  if (lid < SURF_ORI_POSITIONS) {
    const int start = lid * SURF_ORI_STEP;
    float sx = 0.0f;
    float sy = 0.0f;
    for (int q = 0; q < SURF_ORI_SAMPLES; ++q) {
      if (!valid[q]) continue;
      const int d0 = degrees[q] - start;
      const int d = d0 < 0 ? -d0 : d0;
      if (d < SURF_ORI_WIN / 2 || d > 360 - SURF_ORI_WIN / 2) {
        sx += xs[q];
        sy += ys[q];
      }
    }
    mods[lid] = sx * sx + sy * sy;
    wx[lid] = sx;
    wy[lid] = sy;
  }
  BARRIER_LOCAL();
  if (lid == 0) {
    int any = 0;
    for (int q = 0; q < SURF_ORI_SAMPLES; ++q) any |= valid[q];
    float best = 0.0f;
    float bx = 0.0f;
    float by = 0.0f;
    for (int p = 0; p < SURF_ORI_POSITIONS; ++p) {
      if (mods[p] > best) {
        best = mods[p];
        bx = wx[p];
        by = wy[p];
      }
    }
    k[SURF_KP_ANGLE] = surf_atan2_deg(-by, bx);
    keep[kp] = any;
  }
}

/* A keypoint's descriptor window (both descriptor kernels): centre, side win = (int)(21 s), the
 * offset of its first sample from the centre, the direction's sine and cosine, and the upright
 * window's first pixel. */
typedef struct {
  float cx, cy, off, sin_dir, cos_dir;
  int win, ux, uy;
} SurfWindow;

INLINE SurfWindow surf_window(GLOBAL const float* k) {
  SurfWindow g;
  g.cx = k[SURF_KP_X];
  g.cy = k[SURF_KP_Y];
  const float s = SURF_DIV(k[SURF_KP_SIZE] * 1.2f, 9.0f);
  g.win = (int)((float)SURF_PATCH1 * s);
  g.off = SURF_DIV(-(float)(g.win - 1), 2.0f);
  float sin_a = 0.0f;
  float cos_a = 1.0f;
  surf_sincos_deg(k[SURF_KP_ANGLE], &sin_a, &cos_a);
  g.sin_dir = -sin_a;
  g.cos_dir = cos_a;
  g.ux = surf_round(g.cx + g.off);
  g.uy = surf_round(g.cy - g.off);
  return g;
}

/* One sample of the descriptor window: window row i, column j of a win x win window centred on the
 * keypoint along its direction (bilinear, rounded to u8; the nearest clamped pixel at the border),
 * or, upright, the whole pixel of the window rotated by 270 degrees. floor and rint give
 * surf_floor's and surf_round's values in this range (in one instruction each on most devices). */
INLINE uchar strip_sample(CONST_IMAGE_PARAM(uchar, img), int width, int height, float cx, float cy, float off, float sin_dir,
                          float cos_dir, int upright, int ux, int uy, int i, int j) {
  if (upright) {
    const int x = clamp(ux + i, 0, width - 1);
    const int y = clamp(uy - j, 0, height - 1);
    return IMAGE_AT(img, x, y);
  }
  const float v = off + (float)i;
  const float u = off + (float)j;
  const float px = cx + u * cos_dir + v * sin_dir;
  const float py = cy - u * sin_dir + v * cos_dir;
  const int ix = (int)floor(px);
  const int iy = (int)floor(py);
  if (ix >= 0 && ix < width - 1 && iy >= 0 && iy < height - 1) {
    const float a = px - (float)ix;
    const float b = py - (float)iy;
    const float p00 = (float)IMAGE_AT(img, ix, iy);
    const float p01 = (float)IMAGE_AT(img, ix + 1, iy);
    const float p10 = (float)IMAGE_AT(img, ix, iy + 1);
    const float p11 = (float)IMAGE_AT(img, ix + 1, iy + 1);
    const float t = p00 * (1.0f - a) * (1.0f - b) + p01 * a * (1.0f - b) + p10 * (1.0f - a) * b + p11 * a * b;
    return (uchar)clamp((int)rint(t), 0, 255);
  }
  const int x = clamp((int)rint(px), 0, width - 1);
  const int y = clamp((int)rint(py), 0, height - 1);
  return IMAGE_AT(img, x, y);
}

INLINE float window_sample(CONST_IMAGE_PARAM(uchar, img), int width, int height, float cx, float cy, float off, float sin_dir,
                           float cos_dir, int upright, int ux, int uy, int i, int j) {
  return (float)strip_sample(img, img_offset, img_step, width, height, cx, cy, off, sin_dir, cos_dir, upright, ux, uy, i, j);
}

/* The area-resampling span of output sample d over a window of win samples (the reference's
 * AreaSpan): first sample, count, and the interval [f1, f2) in window samples. */
INLINE void area_span(int d, int win, int* first, int* count, float* f1, float* f2, float* scale) {
  *scale = SURF_DIV((float)win, (float)SURF_PATCH1);
  *f1 = (float)d * *scale;
  const float hi = (float)(d + 1) * *scale;
  *f2 = hi < (float)win ? hi : (float)win;
  *first = surf_floor(*f1);
  int last = surf_floor(*f2);
  if ((float)last == *f2) --last;
  *count = last - *first + 1;
}

/* A window sample's weight: its overlap with [f1, f2) over scale; `full` is 1 / scale, the weight
 * of every sample inside (the same value, without a division per sample). */
INLINE float area_weight(int index, float f1, float f2, float scale, float full) {
  const float lo = f1 > (float)index ? f1 : (float)index;
  const float hi = f2 < (float)(index + 1) ? f2 : (float)(index + 1);
  const float part = hi - lo;
  return part == 1.0f ? full : SURF_DIV(part, scale);
}

/* The descriptor's last steps, shared by both descriptor kernels (barrier-free pieces: the
 * kernels put the barriers between them). From the 21 x 21 patch: differences weighted by the
 * patch Gaussian (work-items in turn); the 4 x 4 cells' sums (work-items 0..15, a cell each); the
 * scale to unit length (one work-item: float squares summed in double in order, as the reference). */
INLINE void patch_differences(LOCAL const float* patch, LOCAL float* dxs, LOCAL float* dys, GLOBAL const float* table, int lid) {
  for (int q = lid; q < SURF_PATCH * SURF_PATCH; q += SURF_DESC_GROUP) {
    const int i = q / SURF_PATCH;
    const int j = q - i * SURF_PATCH;
    const float dw = table[SURF_TABLE_DESC + q];
    const float p00 = patch[i * SURF_PATCH1 + j];
    const float p01 = patch[i * SURF_PATCH1 + j + 1];
    const float p10 = patch[(i + 1) * SURF_PATCH1 + j];
    const float p11 = patch[(i + 1) * SURF_PATCH1 + j + 1];
    dxs[q] = (p01 - p00 + p11 - p10) * dw;
    dys[q] = (p10 - p00 + p11 - p01) * dw;
  }
}

INLINE void cell_sums(LOCAL const float* dxs, LOCAL const float* dys, LOCAL float* cells, int extended, int lid) {
  const int per_cell = extended ? 8 : 4;
  if (lid < SURF_CELLS * SURF_CELLS) {
    const int ci = lid / SURF_CELLS;
    const int cj = lid - ci * SURF_CELLS;
    float v[8];
    for (int e = 0; e < 8; ++e) v[e] = 0.0f;
    for (int y = ci * SURF_CELL; y < ci * SURF_CELL + SURF_CELL; ++y) {
      for (int x = cj * SURF_CELL; x < cj * SURF_CELL + SURF_CELL; ++x) {
        const float tx = dxs[y * SURF_PATCH + x];
        const float ty = dys[y * SURF_PATCH + x];
        if (extended) {
          const int bx = ty >= 0.0f ? 0 : 2;
          const int by = tx >= 0.0f ? 4 : 6;
          v[bx] += tx;
          v[bx + 1] += fabs(tx);
          v[by] += ty;
          v[by + 1] += fabs(ty);
        } else {
          v[0] += tx;
          v[1] += ty;
          v[2] += fabs(tx);
          v[3] += fabs(ty);
        }
      }
    }
    for (int e = 0; e < per_cell; ++e) cells[lid * per_cell + e] = v[e];
  }
}

INLINE float unit_scale(LOCAL const float* cells, int dim) {
  double square = 0.0;
  for (int e = 0; e < dim; ++e) square += (double)(cells[e] * cells[e]);
  return (float)(1.0 / (sqrt(square) + (double)1.1920929e-07f));
}

/* The descriptor of one keypoint (DIM 64 or 128 floats at desc + kp * DIM): the window
 * area-resampled to 21 x 21, differences weighted by the patch Gaussian, 4 x 4 cells, unit length.
 * Keypoints with keep 0 are skipped (the host drops their rows), as are work-groups past the list.
 * Work-groups take the list from its end: the octaves appended their keypoints in turn, so the
 * largest windows (a group's work grows with the window's area) start first instead of last. */
KERNEL REQD_GROUP_SIZE(SURF_DESC_GROUP, 1, 1) void surf_descriptor(CONST_IMAGE_PARAM(uchar, img), int width, int height,
                                                                  GLOBAL const float* keypoints, GLOBAL const int* keep,
                                                                  GLOBAL const float* table, int upright, int extended,
                                                                  GLOBAL const uint* count, int capacity, GLOBAL float* desc) {
  LOCAL_MEM float patch[SURF_PATCH1 * SURF_PATCH1];
  LOCAL_MEM float dxs[SURF_PATCH * SURF_PATCH];
  LOCAL_MEM float dys[SURF_PATCH * SURF_PATCH];
  LOCAL_MEM float cells[SURF_CELLS * SURF_CELLS * 8];
  LOCAL_MEM float norm_scale[1];
  const int listed = (int)min(count[0], (uint)capacity);
  const int kp = listed - 1 - (int)GROUP_ID(0);
  const int lid = LOCAL_ID(0);
  if (kp < 0 || !keep[kp]) return;
  const SurfWindow g = surf_window(keypoints + kp * SURF_KP_FIELDS);
  const float cx = g.cx, cy = g.cy, off = g.off, sin_dir = g.sin_dir, cos_dir = g.cos_dir;
  const int win = g.win, ux = g.ux, uy = g.uy;
  for (int p = lid; p < SURF_PATCH1 * SURF_PATCH1; p += SURF_DESC_GROUP) {
    const int py = p / SURF_PATCH1;
    const int px = p - py * SURF_PATCH1;
    int fy, ny, fx, nx;
    float y1, y2, x1, x2, scale;
    area_span(py, win, &fy, &ny, &y1, &y2, &scale);
    area_span(px, win, &fx, &nx, &x1, &x2, &scale);
    const float full = SURF_DIV(1.0f, scale);
    /* Only a span's first and last samples overlap it partly: every sample between weighs `full`
     * (area_weight's own value there), so the row's weights are taken once, not per sample. */
    const float x_first = area_weight(fx, x1, x2, scale, full);
    const float x_last = area_weight(fx + nx - 1, x1, x2, scale, full);
    float acc = 0.0f;
    for (int a = 0; a < ny; ++a) {
      float racc = 0.0f;
      for (int b = 0; b < nx; ++b) {
        const float value = window_sample(img, img_offset, img_step, width, height, cx, cy, off, sin_dir, cos_dir, upright, ux, uy,
                                          fy + a, fx + b);
        racc += (b == 0 ? x_first : (b == nx - 1 ? x_last : full)) * value;
      }
      acc += area_weight(fy + a, y1, y2, scale, full) * racc;
    }
    patch[p] = (float)clamp(surf_round(acc), 0, 255);
  }
  BARRIER_LOCAL();
  patch_differences(patch, dxs, dys, table, lid);
  BARRIER_LOCAL();
  cell_sums(dxs, dys, cells, extended, lid);
  BARRIER_LOCAL();
  const int dim = SURF_CELLS * SURF_CELLS * (extended ? 8 : 4);
  if (lid == 0) norm_scale[0] = unit_scale(cells, dim);
  BARRIER_LOCAL();
  for (int e = lid; e < dim; e += SURF_DESC_GROUP) desc[kp * dim + e] = cells[e] * norm_scale[0];
}


/* surf_descriptor's result (bit for bit: every sum in the reference's order) with the window
 * sampled by the whole group in strips instead of per patch pixel. Per pass, the group stages a
 * strip of window samples (u8) in local memory, each sample computed once, a warp on a block of
 * 8 columns x 4 rows (neighbouring image pixels, so its loads share cache lines: the per-pixel kernel
 * had each lane s pixels from the next); then the horizontal sums of the strip's rows over each
 * patch column's span (racc of the reference: the same for every patch row using that window row);
 * then each patch pixel's work-item adds its span's rows of the strip to its own sum (acc), in
 * increasing row order across the passes. Passes run over window rows; a window wider than the
 * strip (only where the parameters allow filters beyond about 5,800 pixels) is done in runs of patch
 * columns. Keypoints with keep 0 and groups past the list are skipped; groups take the list from
 * its end, as surf_descriptor. */
KERNEL REQD_GROUP_SIZE(SURF_DESC_GROUP, 1, 1) void surf_descriptor_strips(CONST_IMAGE_PARAM(uchar, img), int width, int height,
                                                                         GLOBAL const float* keypoints, GLOBAL const int* keep,
                                                                         GLOBAL const float* table, int upright, int extended,
                                                                         GLOBAL const uint* count, int capacity, GLOBAL float* desc) {
  LOCAL_MEM uchar strip[SURF_STRIP_BYTES];
  LOCAL_MEM float row_sums[SURF_STRIP_ROWS * SURF_PATCH1];
  LOCAL_MEM int col_first[SURF_PATCH1];
  LOCAL_MEM int col_count[SURF_PATCH1];
  LOCAL_MEM float col_w_first[SURF_PATCH1];
  LOCAL_MEM float col_w_last[SURF_PATCH1];
  LOCAL_MEM float patch[SURF_PATCH1 * SURF_PATCH1];
  LOCAL_MEM float dxs[SURF_PATCH * SURF_PATCH];
  LOCAL_MEM float dys[SURF_PATCH * SURF_PATCH];
  LOCAL_MEM float cells[SURF_CELLS * SURF_CELLS * 8];
  LOCAL_MEM float norm_scale[1];
  const int listed = (int)min(count[0], (uint)capacity);
  const int kp = listed - 1 - (int)GROUP_ID(0);
  const int lid = LOCAL_ID(0);
  if (kp < 0 || !keep[kp]) return;
  const SurfWindow g = surf_window(keypoints + kp * SURF_KP_FIELDS);
  const float cx = g.cx, cy = g.cy, off = g.off, sin_dir = g.sin_dir, cos_dir = g.cos_dir;
  const int win = g.win, ux = g.ux, uy = g.uy;
  const float scale = SURF_DIV((float)win, (float)SURF_PATCH1);
  const float full = SURF_DIV(1.0f, scale);
  if (lid < SURF_PATCH1) {
    int first, n;
    float x1, x2, unused;
    area_span(lid, win, &first, &n, &x1, &x2, &unused);
    col_first[lid] = first;
    col_count[lid] = n;
    col_w_first[lid] = area_weight(first, x1, x2, scale, full);
    col_w_last[lid] = area_weight(first + n - 1, x1, x2, scale, full);
  }
  /* This work-item's patch pixel (work-items 441..447 have none) and its span of window rows. */
  const int own = lid < SURF_PATCH1 * SURF_PATCH1;
  const int py = lid / SURF_PATCH1;
  const int px = lid - py * SURF_PATCH1;
  int fy = 0, ny = 0;
  float y1 = 0.0f, y2 = 0.0f, unused_scale;
  if (own) area_span(py, win, &fy, &ny, &y1, &y2, &unused_scale);
  float acc = 0.0f;
  const int warp = lid >> 5;
  const int lane = lid & 31;
  BARRIER_LOCAL();
  for (int q0 = 0; q0 < SURF_PATCH1;) {
    /* The longest run of patch columns from q0 whose window columns fit the strip (all 21 unless
     * the window is wider than SURF_STRIP_BYTES). */
    const int c0 = col_first[q0];
    int q1 = q0 + 1;
    while (q1 < SURF_PATCH1 && col_first[q1] + col_count[q1] - c0 <= SURF_STRIP_BYTES) ++q1;
    const int cw = col_first[q1 - 1] + col_count[q1 - 1] - c0;
    const int nq = q1 - q0;
    const int strip_rows = min(SURF_STRIP_BYTES / cw, SURF_STRIP_ROWS);
    const int tiles_x = (cw + 7) >> 3;
    /* Horizontal sums: work-item (hr, hq) does patch column q0 + hq for rows hr, hr + hstride, ... */
    const int hstride = SURF_DESC_GROUP / nq;
    const int hr = lid / nq;
    const int hq = lid - hr * nq;
    const int h_first = col_first[q0 + hq] - c0;
    const int h_count = col_count[q0 + hq];
    const float h_w_first = col_w_first[q0 + hq];
    const float h_w_last = col_w_last[q0 + hq];
    for (int r0 = 0; r0 < win; r0 += strip_rows) {
      const int rows = min(strip_rows, win - r0);
      /* Tiles in row-major order, warp w taking tiles w, w + 14, ...: (tile row, tile column)
       * advanced without a division per tile. */
      int tile_row = 0;
      int tile_col = warp;
      while (tile_col >= tiles_x) {
        tile_col -= tiles_x;
        ++tile_row;
      }
      for (; (tile_row << 2) < rows;) {
        const int r = (tile_row << 2) + (lane >> 3);
        const int c = (tile_col << 3) + (lane & 7);
        if (r < rows && c < cw) {
          strip[r * cw + c] =
              strip_sample(img, img_offset, img_step, width, height, cx, cy, off, sin_dir, cos_dir, upright, ux, uy, r0 + r, c0 + c);
        }
        tile_col += SURF_DESC_GROUP / 32;
        while (tile_col >= tiles_x) {
          tile_col -= tiles_x;
          ++tile_row;
        }
      }
      BARRIER_LOCAL();
      if (hr < hstride) {
        for (int r = hr; r < rows; r += hstride) {
          LOCAL const uchar* row = strip + r * cw + h_first;
          float racc = 0.0f;
          for (int b = 0; b < h_count; ++b) racc += (b == 0 ? h_w_first : (b == h_count - 1 ? h_w_last : full)) * (float)row[b];
          row_sums[r * nq + hq] = racc;
        }
      }
      BARRIER_LOCAL();
      if (own && px >= q0 && px < q1) {
        const int a_end = min(ny, r0 + rows - fy);
        for (int a = max(0, r0 - fy); a < a_end; ++a) {
          acc += area_weight(fy + a, y1, y2, scale, full) * row_sums[(fy + a - r0) * nq + (px - q0)];
        }
      }
      /* The next pass's staging may overwrite the strip (its row sums are done: the barrier above),
       * and its row sums wait for the barrier after that staging, by which these additions are done. */
    }
    q0 = q1;
  }
  if (own) patch[lid] = (float)clamp(surf_round(acc), 0, 255);
  BARRIER_LOCAL();
  patch_differences(patch, dxs, dys, table, lid);
  BARRIER_LOCAL();
  cell_sums(dxs, dys, cells, extended, lid);
  BARRIER_LOCAL();
  const int dim = SURF_CELLS * SURF_CELLS * (extended ? 8 : 4);
  if (lid == 0) norm_scale[0] = unit_scale(cells, dim);
  BARRIER_LOCAL();
  for (int e = lid; e < dim; e += SURF_DESC_GROUP) desc[kp * dim + e] = cells[e] * norm_scale[0];
}
