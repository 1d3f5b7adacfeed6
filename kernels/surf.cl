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

/* One sample of the descriptor window: window row i, column j of a win x win window centred on the
 * keypoint along its direction (bilinear, rounded to u8; the nearest clamped pixel at the border),
 * or, upright, the whole pixel of the window rotated by 270 degrees. */
INLINE float window_sample(CONST_IMAGE_PARAM(uchar, img), int width, int height, float cx, float cy, float off, float sin_dir,
                           float cos_dir, int upright, int ux, int uy, int i, int j) {
  if (upright) {
    const int x = clamp(ux + i, 0, width - 1);
    const int y = clamp(uy - j, 0, height - 1);
    return (float)IMAGE_AT(img, x, y);
  }
  const float v = off + (float)i;
  const float u = off + (float)j;
  const float px = cx + u * cos_dir + v * sin_dir;
  const float py = cy - u * sin_dir + v * cos_dir;
  const int ix = surf_floor(px);
  const int iy = surf_floor(py);
  if (ix >= 0 && ix < width - 1 && iy >= 0 && iy < height - 1) {
    const float a = px - (float)ix;
    const float b = py - (float)iy;
    const float p00 = (float)IMAGE_AT(img, ix, iy);
    const float p01 = (float)IMAGE_AT(img, ix + 1, iy);
    const float p10 = (float)IMAGE_AT(img, ix, iy + 1);
    const float p11 = (float)IMAGE_AT(img, ix + 1, iy + 1);
    const float t = p00 * (1.0f - a) * (1.0f - b) + p01 * a * (1.0f - b) + p10 * (1.0f - a) * b + p11 * a * b;
    return (float)clamp(surf_round(t), 0, 255);
  }
  const int x = clamp(surf_round(px), 0, width - 1);
  const int y = clamp(surf_round(py), 0, height - 1);
  return (float)IMAGE_AT(img, x, y);
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
  GLOBAL const float* k = keypoints + kp * SURF_KP_FIELDS;
  const float cx = k[SURF_KP_X];
  const float cy = k[SURF_KP_Y];
  const float s = SURF_DIV(k[SURF_KP_SIZE] * 1.2f, 9.0f);
  const int win = (int)((float)SURF_PATCH1 * s);
  const float off = SURF_DIV(-(float)(win - 1), 2.0f);
  float sin_a = 0.0f;
  float cos_a = 1.0f;
  surf_sincos_deg(k[SURF_KP_ANGLE], &sin_a, &cos_a);
  const float sin_dir = -sin_a;
  const float cos_dir = cos_a;
  const int ux = surf_round(cx + off);
  const int uy = surf_round(cy - off);
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
  BARRIER_LOCAL();
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
  BARRIER_LOCAL();
  const int dim = SURF_CELLS * SURF_CELLS * per_cell;
  if (lid == 0) {
    /* As the reference: float squares summed in double, the scale in double. */
    double square = 0.0;
    for (int e = 0; e < dim; ++e) square += (double)(cells[e] * cells[e]);
    norm_scale[0] = (float)(1.0 / (sqrt(square) + (double)1.1920929e-07f));
  }
  BARRIER_LOCAL();
  for (int e = lid; e < dim; e += SURF_DESC_GROUP) desc[kp * dim + e] = cells[e] * norm_scale[0];
}
