/* Method seed of calc_optical_flow_pyr_lk: the case study's translation KLT. Host side:
 * src/ops/pyr_lk_seed.cpp. docs/tracking.md describes it. No options. */
#include "common/dialect.h"

/* Translation KLT on the subsampled pyramid (float levels), gradient sum of both images, one
 * pyramid level per launch. N x M mapping: N = win_w work-items per feature, each summing a
 * column of M = win_h rows; FPG = 64 / N features per 64-wide work-group. Column 0 of each feature
 * adds the N partial sums, solves the 2x2 system and moves the feature; every work-item keeps
 * looping until all features of the group are done, so that barriers stay uniform. The state
 * d (displacement in this level's pixels) comes in and goes out as next_pts - prev_pts in level-0
 * pixels; to_level maps level-0 positions to this level (level i samples level i - 1 at
 * S x + S / 2). */
#define SEED_GROUP 64

INLINE float bilinear_f(CONST_IMAGE_PARAM(float, img), int width, int height, float x, float y) {
  x = clamp(x, 0.0f, (float)(width - 1));
  y = clamp(y, 0.0f, (float)(height - 1));
  const int x0 = min((int)x, width - 2 < 0 ? 0 : width - 2), y0 = min((int)y, height - 2 < 0 ? 0 : height - 2);
  const int x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1);
  const float ax = x - (float)x0, ay = y - (float)y0;
  const float top = IMAGE_AT(img, x0, y0) * (1.0f - ax) + IMAGE_AT(img, x1, y0) * ax;
  const float bottom = IMAGE_AT(img, x0, y1) * (1.0f - ax) + IMAGE_AT(img, x1, y1) * ax;
  return top * (1.0f - ay) + bottom * ay;
}

/* The bilinear samples of img at (x0 + gx, y0 + gy) into grid (grid_w wide, grid_n in all); the
 * feature's win_w work-items (col) take every win_w-th. */
INLINE void fill_grid(CONST_IMAGE_PARAM(float, img), int width, int height, float x0, float y0, LOCAL float* grid, int col,
                      int win_w, int grid_w, int grid_n) {
  for (int g = col, gx = col, gy = 0; g < grid_n; g += win_w) {
    grid[g] = bilinear_f(img, img_offset, img_step, width, height, x0 + (float)gx, y0 + (float)gy);
    gx += win_w;
    if (gx >= grid_w) {
      gx -= grid_w;
      ++gy;
    }
  }
}

KERNEL REQD_GROUP_SIZE(SEED_GROUP, 1, 1) void seed_klt_level(
    int npoints, int level, int max_level, int step, float level_scale, int win_w, int win_h, int max_count,
    float eps_sq, int width, int height, CONST_IMAGE_PARAM(float, I), CONST_IMAGE_PARAM(float, J),
    CONST_ARRAY_PARAM(float, prev_pts), ARRAY_PARAM(float, next_pts), ARRAY_PARAM(uchar, status), ARRAY_PARAM(float, err),
    int has_err, LOCAL_PARAM(float, tmpl), LOCAL_PARAM(float, jgrid)) {
  LOCAL_MEM float part[SEED_GROUP * 5];
  LOCAL_MEM float pos[SEED_GROUP * 4]; /* per feature: u.x, u.y (window centre in I), d.x, d.y */
  LOCAL_MEM int state[SEED_GROUP];     /* per feature: 0 moving, 1 converged, 2 lost */
  LOCAL_MEM int all_done;
  LOCAL_MEM float total[SEED_GROUP * 5]; /* per feature: the five sums over its columns */
  const int lid = LOCAL_ID(0);
  const int fpg = SEED_GROUP / win_w;
  const int f = lid / win_w, col = lid % win_w;
  const int feature = GROUP_ID(0) * fpg + f;
  const bool member = f < fpg && feature < npoints;
  const float hw = (float)(win_w - 1) * 0.5f, hh = (float)(win_h - 1) * 0.5f;
  const float centre = (float)(step / 2);
  if (lid < fpg) {
    const int q = GROUP_ID(0) * fpg + lid;
    int st = 2;
    if (q < npoints) {
      const float px = ARRAY_AT(prev_pts, 2 * q), py = ARRAY_AT(prev_pts, 2 * q + 1);
      float ux = px, uy = py;
      for (int i = 0; i < level; ++i) {
        ux = (ux - centre) / (float)step;
        uy = (uy - centre) / (float)step;
      }
      const bool alive = level == max_level || ARRAY_AT(status, q) != 0;
      if (level == max_level) ARRAY_AT(status, q) = 1;
      const bool finite = fabs(px) < 1e9f && fabs(py) < 1e9f;
      pos[4 * lid] = ux;
      pos[4 * lid + 1] = uy;
      pos[4 * lid + 2] = level == max_level ? 0.0f : (ARRAY_AT(next_pts, 2 * q) - px) * level_scale;
      pos[4 * lid + 3] = level == max_level ? 0.0f : (ARRAY_AT(next_pts, 2 * q + 1) - py) * level_scale;
      st = alive && finite ? 0 : 2;
      if (!finite) {
        ARRAY_AT(status, q) = 0;
        if (has_err) ARRAY_AT(err, q) = 0.0f;
      }
    }
    state[lid] = st;
  }
  BARRIER_LOCAL();
  /* The samples of I and J are taken once per use on the feature's (win_w + 2) x (win_h + 2) grid
   * (the window and a ring of one pixel) in local memory, shared by its work-items: a pixel's
   * value and its central differences come from the grid instead of five bilinear samples. */
  const int grid_w = win_w + 2, grid_h = win_h + 2, grid_n = grid_w * grid_h;
  LOCAL float* grid = jgrid + (member ? f : 0) * grid_n;
  /* The template's samples do not move during a level: I, I(x + 1) - I(x - 1) and
   * I(y + 1) - I(y - 1) of each row of this work-item's column, made once (tmpl: three planes of
   * win_h rows of SEED_GROUP). The iterations then sample only J. */
  if (member) {
    const float x0 = pos[4 * f] - hw - 1.0f, y0 = pos[4 * f + 1] - hh - 1.0f;
    fill_grid(I, I_offset, I_step, width, height, x0, y0, grid, col, win_w, grid_w, grid_n);
  }
  BARRIER_LOCAL();
  if (member) {
    for (int r = 0; r < win_h; ++r) {
      const int c = (r + 1) * grid_w + col + 1;
      tmpl[r * SEED_GROUP + lid] = grid[c];
      tmpl[(win_h + r) * SEED_GROUP + lid] = grid[c + 1] - grid[c - 1];
      tmpl[(2 * win_h + r) * SEED_GROUP + lid] = grid[c + grid_w] - grid[c - grid_w];
    }
  }
  BARRIER_LOCAL(); /* the iterations reuse the grid */
  for (int it = 0; it < max_count; ++it) {
    float gxx = 0.0f, gxy = 0.0f, gyy = 0.0f, ex = 0.0f, ey = 0.0f;
    const bool moving = member && state[f] == 0;
    if (moving) {
      const float x0 = pos[4 * f] - hw + pos[4 * f + 2] - 1.0f, y0 = pos[4 * f + 1] - hh + pos[4 * f + 3] - 1.0f;
      fill_grid(J, J_offset, J_step, width, height, x0, y0, grid, col, win_w, grid_w, grid_n);
    }
    BARRIER_LOCAL();
    if (moving) {
      for (int r = 0; r < win_h; ++r) {
        const int c = (r + 1) * grid_w + col + 1; /* this pixel in the grid */
        const float diff = tmpl[r * SEED_GROUP + lid] - grid[c];
        const float gx = 0.5f * (tmpl[(win_h + r) * SEED_GROUP + lid] + grid[c + 1] - grid[c - 1]);
        const float gy = 0.5f * (tmpl[(2 * win_h + r) * SEED_GROUP + lid] + grid[c + grid_w] - grid[c - grid_w]);
        gxx += gx * gx;
        gxy += gx * gy;
        gyy += gy * gy;
        ex += diff * gx;
        ey += diff * gy;
      }
    }
    part[5 * lid] = gxx;
    part[5 * lid + 1] = gxy;
    part[5 * lid + 2] = gyy;
    part[5 * lid + 3] = ex;
    part[5 * lid + 4] = ey;
    BARRIER_LOCAL();
    /* Each of the five sums over the feature's columns by its own work-item, columns in order. */
    if (member && state[f] == 0) {
      for (int k = col; k < 5; k += win_w) {
        float acc = 0.0f;
        for (int c = 0; c < win_w; ++c) acc += part[5 * (lid - col + c) + k];
        total[5 * f + k] = acc;
      }
    }
    BARRIER_LOCAL();
    if (member && col == 0 && state[f] == 0) {
      float s[5];
      for (int k = 0; k < 5; ++k) s[k] = total[5 * f + k];
      const float det = s[0] * s[2] - s[1] * s[1];
      if (!(det >= 0.01f)) {
        state[f] = 2; /* flat window: Birchfield's KLT_SMALL_DET */
      } else {
        /* The gradient sum of both images is twice either gradient: a full step is 2 Z^-1 e. */
        const float sx = 2.0f * (s[2] * s[3] - s[1] * s[4]) / det;
        const float sy = 2.0f * (s[0] * s[4] - s[1] * s[3]) / det;
        pos[4 * f + 2] += sx;
        pos[4 * f + 3] += sy;
        const float vx = pos[4 * f] + pos[4 * f + 2], vy = pos[4 * f + 1] + pos[4 * f + 3];
        if (!(vx - hw >= 0.0f && vy - hh >= 0.0f && vx + hw <= (float)(width - 1) && vy + hh <= (float)(height - 1))) {
          state[f] = 2;
        } else if (sx * sx + sy * sy <= eps_sq) {
          state[f] = 1;
        }
      }
    }
    BARRIER_LOCAL();
    if (lid == 0) {
      int done = 1;
      for (int k = 0; k < fpg; ++k) done &= state[k] != 0;
      all_done = done;
    }
    BARRIER_LOCAL();
    if (all_done) break;
  }
  /* Level 0: the residual, mean |I - J| over the window (0-255 units); too large means lost. */
  float resid = 0.0f;
  if (level == 0 && member && state[f] != 2) {
    const float ux = pos[4 * f] - hw + (float)col, dx = pos[4 * f + 2], dy = pos[4 * f + 3];
    for (int r = 0; r < win_h; ++r) {
      const float uy = pos[4 * f + 1] - hh + (float)r;
      resid += fabs(tmpl[r * SEED_GROUP + lid] - bilinear_f(J, J_offset, J_step, width, height, ux + dx, uy + dy));
    }
  }
  part[5 * lid] = resid;
  BARRIER_LOCAL();
  if (member && col == 0) {
    if (state[f] == 2) {
      ARRAY_AT(status, feature) = 0;
    }
    const float px = ARRAY_AT(prev_pts, 2 * feature), py = ARRAY_AT(prev_pts, 2 * feature + 1);
    /* Lost points keep their last estimate. */
    ARRAY_AT(next_pts, 2 * feature) = px + pos[4 * f + 2] / level_scale;
    ARRAY_AT(next_pts, 2 * feature + 1) = py + pos[4 * f + 3] / level_scale;
    if (level == 0) {
      float e = 0.0f;
      for (int c = 0; c < win_w; ++c) e += part[5 * (lid + c)];
      e /= (float)(win_w * win_h);
      if (state[f] != 2 && e > 10.0f) ARRAY_AT(status, feature) = 0; /* Birchfield's max_residue */
      if (has_err) ARRAY_AT(err, feature) = state[f] == 2 ? 0.0f : e;
    }
  }
}

