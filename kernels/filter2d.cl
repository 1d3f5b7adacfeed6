/* Non-separable linear filter (cv::filter2D, direct form). Host side: src/ops/filter2d.cpp.
 * Every output is delta plus the kernel's coefficients times the border-extended source in
 * row-major kernel order, each step one fma: the order of OpenCV's Filter2D / FilterVec_8u, so
 * that u8 results round exactly as OpenCV's (half to even, saturated). Options:
 *   SRC_T/SRC_DEPTH, DST_T/DST_DEPTH, CN   types and channels
 *   KW, KH                                 kernel size (fused only; the direct kernel takes them at run time)
 *   fused: GX, GY (work-group), PXP, PYP (outputs per work-item); the tile is (GX * PXP) x (GY * PYP).
 *   tiled_rows: TR_GX, TR_GY (work-group), TR_PX, TR_PY (outputs per work-item), TR_TP (tile pitch,
 *   elements, a multiple of 4), TR_KP (coefficient row pitch, a multiple of 4), KW, KH. */
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
#if !defined(PXP) && !defined(TR_PX)
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
#if defined(PXP) && !defined(TR_PX)
#define TWP (GX * PXP)
#define TH (GY * PYP)
KERNEL REQD_GROUP_SIZE(GX, GY, 1) void filter2d_fused(int width, int height, int ax, int ay, int border, float delta,
                                                       COEF_PARAM, CONST_IMAGE_PARAM(SRC_T, src),
                                                       IMAGE_PARAM(DST_T, dst), int tile_pitch, LOCAL_PARAM(SRC_T, tile)) {
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

/* ---- tiled_rows: each tile row loaded once for every output row it feeds ----------------------
 * The source tile of the work-group and the kernel's coefficients (rows padded to TR_KP) sit in
 * local memory. A work-item owns TR_PX x TR_PY outputs (all channels). It walks the TR_PY + KH - 1
 * tile rows its outputs read, loads each row's (TR_PX + KW - 1) * CN values once (4-element vector
 * loads: neighbouring work-items read neighbouring banks), and applies to each of its output rows
 * p the kernel row t - p, whose coefficients come as broadcast vector loads. Each output still
 * adds its products in row-major kernel order (kernel rows ascend with t, columns within a row),
 * so results equal the other methods'. */
#ifdef TR_PX
#define TR_TW (TR_GX * TR_PX)
#define TR_TH (TR_GY * TR_PY)
#define TR_NE (TR_PX * CN)                      /* outputs per row of a work-item's block */
#define TR_NIN ((TR_PX + KW - 1) * CN)          /* tile values per row it reads */
#define TR_NV ((TR_NIN + 3) / 4)                /* 4-element vectors per row it loads */
#define TR_CAT_(a, b) a##b
#define TR_CAT(a, b) TR_CAT_(a, b)
#define TR_V4 TR_CAT(SRC_T, 4)

/* A source value as float. u8 goes through its bits (2^23 + v, minus 2^23: exact), sparing the
 * integer-to-float unit, which runs at a fraction of the multiply-add rate. */
INLINE float tr_float(SRC_T v) {
#if SRC_DEPTH == DEPTH_U8
  return as_float(0x4B000000u | (uint)v) - 8388608.0f;
#else
  return (float)v;
#endif
}

KERNEL REQD_GROUP_SIZE(TR_GX, TR_GY, 1) void filter2d_tiled_rows(int width, int height, int ax, int ay, int border,
                                                                 float delta, COEF_PARAM,
                                                                 CONST_IMAGE_PARAM(SRC_T, src),
                                                                 IMAGE_PARAM(DST_T, dst), LOCAL_PARAM(SRC_T, tile),
                                                                 LOCAL_PARAM(float, kbuf)) {
  (void)coef_step;
  const int lx = LOCAL_ID(0);
  const int ly = LOCAL_ID(1);
  const int lid = ly * TR_GX + lx;
  const int x0 = GROUP_ID(0) * TR_TW;
  const int y0 = GROUP_ID(1) * TR_TH;

  /* Coefficients, each kernel row padded with zeros to TR_KP. */
  CONSTANT float* k = coef + coef_offset;
  for (int i = lid; i < KH * TR_KP; i += TR_GX * TR_GY) {
    const int j = i / TR_KP;
    const int c = i - j * TR_KP;
    kbuf[i] = c < KW ? k[j * KW + c] : 0.0f;
  }
  /* The source tile, four loads in flight per work-item; past the tile's last vector the row is
   * padded (values never used). */
  const int tw = (TR_TW + KW - 1) * CN;
  const int nrows = TR_TH + KH - 1;
  const int count = nrows * TR_TP;
  for (int i0 = lid; i0 < count; i0 += 4 * TR_GX * TR_GY) {
    SRC_T v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const int i = i0 + u * TR_GX * TR_GY;
      v[u] = (SRC_T)0;
      if (i < count) {
        const int ty = i / TR_TP;
        const int e = i - ty * TR_TP;
        const int yi = border_index(y0 - ay + ty, height, border);
        const int tx = e / CN;
        const int xi = border_index(x0 - ax + tx, width, border);
        if (e < tw && yi >= 0 && xi >= 0) v[u] = IMAGE_AT(src, xi * CN + (e - tx * CN), yi);
      }
    }
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const int i = i0 + u * TR_GX * TR_GY;
      if (i < count) tile[i] = v[u];
    }
  }
  BARRIER_LOCAL();

  float acc[TR_PY][TR_NE];
#pragma unroll
  for (int p = 0; p < TR_PY; ++p) {
#pragma unroll
    for (int i = 0; i < TR_NE; ++i) acc[p][i] = delta;
  }
  LOCAL const SRC_T* base = tile + (ly * TR_PY) * TR_TP + lx * TR_NE;
  /* Not unrolled: the body is already up to TR_PY * KW * TR_NE multiply-adds. */
#pragma unroll 1
  for (int t = 0; t < TR_PY + KH - 1; ++t) {
    float in[TR_NV * 4];
    /* vload4: local arguments carry no alignment promise beyond their element type. */
    LOCAL const SRC_T* row = base + t * TR_TP;
#pragma unroll
    for (int q = 0; q < TR_NV; ++q) {
      const TR_V4 w = vload4(q, row);
      in[4 * q] = tr_float(w.s0);
      in[4 * q + 1] = tr_float(w.s1);
      in[4 * q + 2] = tr_float(w.s2);
      in[4 * q + 3] = tr_float(w.s3);
    }
#pragma unroll
    for (int p = 0; p < TR_PY; ++p) {
      const int j = t - p;
      if (j < 0 || j >= KH) continue;
      LOCAL const float* kr = kbuf + j * TR_KP;
#pragma unroll
      for (int i4 = 0; i4 < (KW + 3) / 4; ++i4) {
        const float4 c4 = vload4(i4, kr);
        const float cs[4] = {c4.s0, c4.s1, c4.s2, c4.s3};
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          const int i = 4 * i4 + u;
          if (i < KW) {
#pragma unroll
            for (int q = 0; q < TR_NE; ++q) acc[p][q] = fma(in[i * CN + q], cs[u], acc[p][q]);
          }
        }
      }
    }
  }

#pragma unroll
  for (int p = 0; p < TR_PY; ++p) {
    const int y = y0 + ly * TR_PY + p;
    if (y >= height) continue;
#pragma unroll
    for (int q = 0; q < TR_PX; ++q) {
      const int x = x0 + lx * TR_PX + q;
      if (x >= width) continue;
#pragma unroll
      for (int c = 0; c < CN; ++c) IMAGE_AT(dst, x * CN + c, y) = STORE(acc[p][q * CN + c]);
    }
  }
}
#endif
