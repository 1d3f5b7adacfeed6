/* SURF: the shapes and the small float functions that the host (src/ops/surf.cpp, the CPU
 * reference src/ops/surf_reference.cpp) and the kernels (surf.cl) both use. Plain #defines and
 * functions in the subset of C that C++ and OpenCL C share (no built-ins), so that the CPU
 * reference and the device compute angles bit for bit alike. docs/features.md ("SURF"). */
#ifndef PLINTH_SURF_SHAPE_H
#define PLINTH_SURF_SHAPE_H

#ifdef __cplusplus
#define SURF_INLINE inline
#else
#define SURF_INLINE INLINE
#endif
/* A correctly rounded float division. The host's is; OpenCL's float division may be off by a few
 * ulp, so surf.cl defines this through double first (exact: 53 >= 2 * 24 + 2), which keeps the
 * device's arithmetic equal to the reference's. */
#ifndef SURF_DIV
#define SURF_DIV(a, b) ((a) / (b))
#endif

/* Filter size of layer 0 of octave 0 and the growth per layer (OpenCV's 9 and 6). */
#define SURF_SIZE0 9
#define SURF_SIZE_INC 6
/* Orientation: samples on the integer grid of radius 6 (in units of s), 113 of them; a window of
 * 60 degrees slid in steps of 5 (72 positions); Gaussian sigma 2.5 (weights from the host). */
#define SURF_ORI_RADIUS 6
#define SURF_ORI_SAMPLES 113
#define SURF_ORI_WIN 60
#define SURF_ORI_STEP 5
#define SURF_ORI_POSITIONS 72
/* Descriptor: a patch of 20 x 20 samples of size s (a 21 x 21 resampled window gives the
 * differences), 4 x 4 cells of 5 x 5; Gaussian sigma 3.3 (weights from the host). */
#define SURF_PATCH 20
#define SURF_PATCH1 21
#define SURF_CELLS 4
#define SURF_CELL 5
/* One keypoint on the device: 8 floats (x, y, size, response, angle, octave, class_id, spare). */
#define SURF_KP_FIELDS 8
#define SURF_KP_X 0
#define SURF_KP_Y 1
#define SURF_KP_SIZE 2
#define SURF_KP_RESPONSE 3
#define SURF_KP_ANGLE 4
#define SURF_KP_OCTAVE 5
#define SURF_KP_CLASS 6
/* The weights' table uploaded by the host: orientation sample weights, then the patch weights. */
#define SURF_TABLE_ORI 0
#define SURF_TABLE_DESC SURF_ORI_SAMPLES
#define SURF_TABLE_SIZE (SURF_ORI_SAMPLES + SURF_PATCH * SURF_PATCH)
/* The layer table (ints per layer): where the layer's responses start in the stack, its grid,
 * filter size and step, the filled region, then the boxes (x1, y1, x2, y2) of Dxx (3), Dyy (3) and
 * Dxy (4). A float table holds wxx, wyy, wxy per layer (SURF_LAYER_FLOATS). */
#define SURF_LAYER_INTS 48
#define SURF_L_OFFSET 0
#define SURF_L_ROWS 1
#define SURF_L_COLS 2
#define SURF_L_STEP 3
#define SURF_L_SIZE 4
#define SURF_L_FILL_MARGIN 5
#define SURF_L_FILL_ROWS 6
#define SURF_L_FILL_COLS 7
#define SURF_L_DXX 8
#define SURF_L_DYY 20
#define SURF_L_DXY 32
#define SURF_LAYER_FLOATS 4
/* Work-group sizes of the orientation and descriptor kernels (one keypoint per work-group). The
 * descriptor's group has a work-item for each of the 21 x 21 patch pixels (448 = 14 warps): a pixel
 * area-resamples about s x s window samples in sequence, s up to about 30 for the largest filters,
 * and with 128 work-items the largest keypoints' groups ran 3.4 such chains each (H100: 2.4 of the
 * 2.9 ms of a 1080p image in ncu). */
#define SURF_ORI_GROUP 128
#define SURF_DESC_GROUP 448
/* The strip descriptor (surf_descriptor_strips): window samples are staged in local memory as u8,
 * SURF_STRIP_BYTES of them per pass (rows of the window, or of a run of patch columns' window
 * columns when a row is wider), and the horizontal sums of up to SURF_STRIP_ROWS window rows per
 * pass. The largest window the parameters allow (filter (9 + 6 * 9) << 7 = 8064, interpolated up to
 * 8832: s = 1177.6, a patch column spans at most 1179 window columns) fits one column's span. */
#define SURF_STRIP_BYTES 16384
#define SURF_STRIP_ROWS 128
/* The row Hessian (surf_hessian_rows): one work-item computes this many rows of one layer, so that
 * the layer's box table is read once for all of them. */
#define SURF_HESS_ROWS 4

/* atan(t) for 0 <= t <= 1 in radians: Abramowitz and Stegun 4.4.49 (error below 2e-8), in Horner
 * form, operations in a fixed order. */
SURF_INLINE float surf_atan01(float t) {
  const float t2 = t * t;
  float p = 0.0028662257f;
  p = p * t2 - 0.0161657367f;
  p = p * t2 + 0.0429096138f;
  p = p * t2 - 0.0752896400f;
  p = p * t2 + 0.1065626393f;
  p = p * t2 - 0.1420889944f;
  p = p * t2 + 0.1999355085f;
  p = p * t2 - 0.3333314528f;
  p = p * t2 + 1.0f;
  return p * t;
}

/* The direction of (x, y) in degrees, 0 <= angle < 360 (0 for the zero vector), as OpenCV's
 * phase / fastAtan2 define it (atan2(y, x) taken into [0, 360)). */
SURF_INLINE float surf_atan2_deg(float y, float x) {
  const float ax = x < 0.0f ? -x : x;
  const float ay = y < 0.0f ? -y : y;
  if (ax == 0.0f && ay == 0.0f) return 0.0f;
  float a = ay <= ax ? surf_atan01(SURF_DIV(ay, ax)) : surf_atan01(SURF_DIV(ax, ay));
  a = a * 57.295779513082321f;
  if (ay > ax) a = 90.0f - a;
  if (x < 0.0f) a = 180.0f - a;
  if (y < 0.0f) a = 360.0f - a;
  if (a >= 360.0f) a = 0.0f;
  return a;
}

/* sin and cos of an angle in degrees (0 <= deg <= 360): reduced to [-45, 45] degrees, then Taylor
 * polynomials (error below 1e-8 there). */
SURF_INLINE void surf_sincos_deg(float deg, float* s, float* c) {
  const int q = (int)SURF_DIV(deg + 45.0f, 90.0f);
  const float r = (deg - (float)(q * 90)) * 0.017453292519943295f;
  const float r2 = r * r;
  float sp = -2.75573192e-06f;
  sp = sp * r2 + 1.98412698e-04f;
  sp = sp * r2 - 8.33333333e-03f;
  sp = sp * r2 + 1.66666667e-01f;
  const float sr = r - r * r2 * sp;
  float cp = 2.75573192e-07f;
  cp = cp * r2 - 2.48015873e-05f;
  cp = cp * r2 + 1.38888889e-03f;
  cp = cp * r2 - 4.16666667e-02f;
  cp = cp * r2 + 0.5f;
  const float cr = 1.0f - r2 * cp;
  const int k = q & 3;
  *s = k == 0 ? sr : k == 1 ? cr : k == 2 ? -sr : -cr;
  *c = k == 0 ? cr : k == 1 ? -sr : k == 2 ? -cr : sr;
}

/* Round half to even (cvRound), for values well inside the int range, without built-ins: adding
 * and subtracting 1.5 * 2^23 rounds a float of magnitude below 2^22 in the current (nearest-even)
 * mode. */
SURF_INLINE int surf_round(float v) {
  const float magic = 12582912.0f;
  const float r = (v + magic) - magic;
  return (int)r;
}

/* floor for values well inside the int range. */
SURF_INLINE int surf_floor(float v) {
  const int i = (int)v;
  return (float)i > v ? i - 1 : i;
}

/* The 3-D quadratic interpolation of a maximum (Brown and Lowe): n holds the 3 x 3 x 3 responses,
 * n[l * 9 + r * 3 + c] (layer l below / at / above, row r, column c; the maximum at 13). Solves
 * H x = -g (central differences) by Gaussian elimination with partial pivoting, as a 3 x 3 LU
 * decomposition does; returns 1 and the offset (x, y, scale) when the system is regular, the
 * offset is not 0 and no coordinate moves by more than 1; else 0. */
SURF_INLINE int surf_interpolate_offset(const float* n, float* x) {
  float a[9];
  float b[3];
  b[0] = SURF_DIV(-(n[9 + 5] - n[9 + 3]), 2.0f);
  b[1] = SURF_DIV(-(n[9 + 7] - n[9 + 1]), 2.0f);
  b[2] = SURF_DIV(-(n[18 + 4] - n[4]), 2.0f);
  a[0] = n[9 + 3] - 2.0f * n[9 + 4] + n[9 + 5];
  a[1] = SURF_DIV(n[9 + 8] - n[9 + 6] - n[9 + 2] + n[9 + 0], 4.0f);
  a[2] = SURF_DIV(n[18 + 5] - n[18 + 3] - n[5] + n[3], 4.0f);
  a[3] = a[1];
  a[4] = n[9 + 1] - 2.0f * n[9 + 4] + n[9 + 7];
  a[5] = SURF_DIV(n[18 + 7] - n[18 + 1] - n[7] + n[1], 4.0f);
  a[6] = a[2];
  a[7] = a[5];
  a[8] = n[4] - 2.0f * n[9 + 4] + n[18 + 4];
  for (int i = 0; i < 3; ++i) {
    int k = i;
    for (int j = i + 1; j < 3; ++j) {
      const float vj = a[j * 3 + i] < 0.0f ? -a[j * 3 + i] : a[j * 3 + i];
      const float vk = a[k * 3 + i] < 0.0f ? -a[k * 3 + i] : a[k * 3 + i];
      if (vj > vk) k = j;
    }
    const float pivot = a[k * 3 + i] < 0.0f ? -a[k * 3 + i] : a[k * 3 + i];
    if (pivot < 10.0f * 1.1920929e-07f) return 0;
    if (k != i) {
      for (int c = 0; c < 3; ++c) {
        const float t = a[i * 3 + c];
        a[i * 3 + c] = a[k * 3 + c];
        a[k * 3 + c] = t;
      }
      const float t = b[i];
      b[i] = b[k];
      b[k] = t;
    }
    const float d = SURF_DIV(-1.0f, a[i * 3 + i]);
    for (int j = i + 1; j < 3; ++j) {
      const float alpha = a[j * 3 + i] * d;
      for (int c = i + 1; c < 3; ++c) a[j * 3 + c] = a[j * 3 + c] + alpha * a[i * 3 + c];
      b[j] = b[j] + alpha * b[i];
    }
    a[i * 3 + i] = -d;
  }
  for (int i = 2; i >= 0; --i) {
    float s = b[i];
    for (int c = i + 1; c < 3; ++c) s = s - a[i * 3 + c] * b[c];
    b[i] = s * a[i * 3 + i];
  }
  x[0] = b[0];
  x[1] = b[1];
  x[2] = b[2];
  const int moved = b[0] != 0.0f || b[1] != 0.0f || b[2] != 0.0f;
  const int near = (b[0] <= 1.0f && b[0] >= -1.0f) && (b[1] <= 1.0f && b[1] >= -1.0f) && (b[2] <= 1.0f && b[2] >= -1.0f);
  return moved && near;
}

#endif
