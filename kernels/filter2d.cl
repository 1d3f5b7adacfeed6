/* Non-separable linear filter (cv::filter2D, direct form). Host side: src/ops/filter2d.cpp.
 * Every output is delta plus the kernel's coefficients times the border-extended source in
 * row-major kernel order, each step one fma: the order of OpenCV's Filter2D / FilterVec_8u, so
 * that u8 results round exactly as OpenCV's (half to even, saturated). Options:
 *   SRC_T/SRC_DEPTH, DST_T/DST_DEPTH, CN   types and channels
 *   KW, KH                                 kernel size (fused only; the direct kernel takes them at run time)
 *   fused: GX, GY (work-group), PXP, PYP (outputs per work-item); the tile is (GX * PXP) x (GY * PYP). */
#include "common/dialect.h"
#include "common/types.h"
#include "common/border.h"
#include "common/filter_tile.h"

#if DST_DEPTH == DEPTH_U8
#define STORE(v) convert_uchar_sat_rte(v)
#elif DST_DEPTH == DEPTH_S16
#define STORE(v) convert_short_sat_rte(v)
#else
#define STORE(v) (v)
#endif

/* The coefficient "image": one row of kw * kh floats in constant memory. */
#define COEF_PARAM CONSTANT float* coef, int coef_offset, int coef_step

/* ---- direct: one work-item per output element (the plain reference) ------------------------- */
#ifndef PXP
KERNEL void filter2d_direct(int width, int height, int kw, int kh, int ax, int ay, int border, float delta,
                            COEF_PARAM, CONST_IMAGE_PARAM(SRC_T, src), IMAGE_PARAM(DST_T, dst)) {
  (void)coef_step;
  const int e = GLOBAL_ID(0);
  const int y = GLOBAL_ID(1);
  if (e >= width * CN || y >= height) return;
  const int x = e / CN;
  const int c = e - x * CN;
  CONSTANT float* k = coef + coef_offset;
  float s = delta;
  for (int j = 0; j < kh; ++j) {
    const int yi = border_index(y - ay + j, height, border);
    for (int i = 0; i < kw; ++i) {
      const int xi = border_index(x - ax + i, width, border);
      const float v = (yi < 0 || xi < 0) ? 0.0f : (float)IMAGE_AT(src, xi * CN + c, yi);
      s = fma(v, k[j * kw + i], s);
    }
  }
  IMAGE_AT(dst, e, y) = STORE(s);
}
#endif

/* ---- fused: the source tile in local memory, a PXP x PYP block of outputs per work-item -------
 * For each kernel row j the work-item keeps that row's KW coefficients in registers and, for each
 * of its PYP output rows, streams the PXP + KW - 1 tile values it needs once, feeding all PXP
 * outputs: one local load per PXP multiply-adds. */
#ifdef PXP
#define TWP (GX * PXP)
#define TH (GY * PYP)
KERNEL REQD_GROUP_SIZE(GX, GY, 1) void filter2d_fused(int width, int height, int ax, int ay, int border, float delta,
                                                       COEF_PARAM, CONST_IMAGE_PARAM(SRC_T, src),
                                                       IMAGE_PARAM(DST_T, dst), int tile_pitch, LOCAL SRC_T* tile) {
  (void)coef_step;
  const int lx = LOCAL_ID(0);
  const int ly = LOCAL_ID(1);
  const int x0 = GROUP_ID(0) * TWP;
  const int y0 = GROUP_ID(1) * TH;
  load_tile(tile, tile_pitch, TWP + KW - 1, TH + KH - 1, x0 - ax, y0 - ay, width, height, border, src, src_offset,
            src_step, lx, ly, GX, GY);
  BARRIER_LOCAL();

  const int xb = lx * PXP;
  const int yb = ly * PYP;
  CONSTANT float* k = coef + coef_offset;
  float acc[PYP][PXP * CN];
#pragma unroll
  for (int p = 0; p < PYP; ++p) {
#pragma unroll
    for (int i = 0; i < PXP * CN; ++i) acc[p][i] = delta;
  }
  for (int j = 0; j < KH; ++j) {
    float kr[KW];
#pragma unroll
    for (int i = 0; i < KW; ++i) kr[i] = k[j * KW + i];
#pragma unroll
    for (int p = 0; p < PYP; ++p) {
      LOCAL const SRC_T* in = tile + (yb + p + j) * tile_pitch + xb * CN;
#pragma unroll
      for (int i = 0; i < PXP + KW - 1; ++i) {
#pragma unroll
        for (int c = 0; c < CN; ++c) {
          const float v = (float)in[i * CN + c];
#pragma unroll
          for (int q = 0; q < PXP; ++q) {
            const int kk = i - q;
            if (kk >= 0 && kk < KW) acc[p][q * CN + c] = fma(v, kr[kk], acc[p][q * CN + c]);
          }
        }
      }
    }
  }
#pragma unroll
  for (int p = 0; p < PYP; ++p) {
    const int y = y0 + yb + p;
    if (y >= height) continue;
#pragma unroll
    for (int q = 0; q < PXP; ++q) {
      const int x = x0 + xb + q;
      if (x >= width) continue;
#pragma unroll
      for (int c = 0; c < CN; ++c) IMAGE_AT(dst, x * CN + c, y) = STORE(acc[p][q * CN + c]);
    }
  }
}
#endif
