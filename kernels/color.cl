/* Colour conversions equal to cv::cvtColor. Host side: src/ops/color.cpp. Options:
 *   SRC_T / SRC_DEPTH   element type (rgb_to_gray: u8, u16, f32; nv12: u8)
 *   SCN                 source channels of rgb_to_gray (3 or 4)
 *   RIDX                0: the source is R, G, B(, A); 2: B, G, R(, A)
 *   DCN                 destination channels of nv12_to_rgb (3 or 4)
 *   PX                  pixels per work-item along x (rgb_to_gray) */
#include "common/dialect.h"
#include "common/types.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* ---- RGB family to grey ------------------------------------------------------------------ */
#ifdef SCN
#define VLOAD_PIX CAT(vload, SCN)
#define PIX_T CAT(SRC_T, SCN)

#if SRC_DEPTH == DEPTH_F32
/* OpenCV: fma(c2, w2, fma(c1, w1, c0 * w0)) with w = (0.299, 0.587, 0.114) in source order. */
#if RIDX == 0
#define W0 0.299f
#define W2 0.114f
#else
#define W0 0.114f
#define W2 0.299f
#endif
INLINE float gray_of(PIX_T p) { return fma(p.s2, W2, fma(p.s1, 0.587f, p.s0 * W0)); }
#else
/* 15-bit fixed point, rounded: (w0 c0 + w1 c1 + w2 c2 + 2^14) >> 15, in unsigned 32 bits. */
#if RIDX == 0
#define W0 9798u
#define W2 3735u
#else
#define W0 3735u
#define W2 9798u
#endif
INLINE SRC_T gray_of(PIX_T p) {
  return (SRC_T)(((uint)p.s0 * W0 + (uint)p.s1 * 19235u + (uint)p.s2 * W2 + 16384u) >> 15);
}
#endif

KERNEL void rgb_to_gray(int width, int height, CONST_IMAGE_PARAM(SRC_T, src), IMAGE_PARAM(SRC_T, dst)) {
  const int x0 = GLOBAL_ID(0) * PX;
  const int y = GLOBAL_ID(1);
  if (x0 >= width || y >= height) return;
  GLOBAL const SRC_T* in = src + IMAGE_INDEX(src, 0, y);
  GLOBAL SRC_T* out = dst + IMAGE_INDEX(dst, 0, y);
  if (x0 + PX <= width) {
    CAT(SRC_T, PX) g;
#if PX == 4
    g = VEC4(CAT(SRC_T, PX), gray_of(VLOAD_PIX(x0, in)), gray_of(VLOAD_PIX(x0 + 1, in)), gray_of(VLOAD_PIX(x0 + 2, in)),
             gray_of(VLOAD_PIX(x0 + 3, in)));
#else
#error "PX must be 4"
#endif
    CAT(vstore, PX)(g, 0, out + x0);
  } else {
    for (int x = x0; x < width; ++x) out[x] = gray_of(VLOAD_PIX(x, in));
  }
}
#endif

/* ---- NV12 to RGB(A) / BGR(A): OpenCV's 20-bit integer path ------------------------------ */
#ifdef DCN
#define CY 1220542
#define CUB 2116026
#define CUG (-409993)
#define CVG (-852492)
#define CVR 1673527
#define HALF (1 << 19)

INLINE uchar nv12_channel(int y, int uv) { return convert_uchar_sat((y + uv) >> 20); }

/* A pixel's bytes, first in the low byte (with four channels, alpha 255 in the top byte). */
INLINE uint pixel_word(int yv, int ruv, int guv, int buv) {
  const int yy = max(yv - 16, 0) * CY;
  const uint r = nv12_channel(yy, ruv), g = nv12_channel(yy, guv), b = nv12_channel(yy, buv);
  return (RIDX == 0 ? r | (g << 8) | (b << 16) : b | (g << 8) | (r << 16)) | (DCN == 4 ? 0xFF000000u : 0u);
}

/* Pixel x of a row, byte by byte (rows on any boundary). */
INLINE void store_rgb(GLOBAL uchar* row, int x, uint p) {
#pragma unroll
  for (int c = 0; c < DCN; ++c) row[x * DCN + c] = (uchar)(p >> (8 * c));
}

/* A row's two pixels of a block: one 8-byte store (four channels) or three 2-byte stores (three). */
INLINE void store_pair(GLOBAL uchar* row, int bx, uint p0, uint p1) {
#if DCN == 4
  *(GLOBAL uint2*)(row + 8 * bx) = VEC2(uint2, p0, p1);
#else
  GLOBAL ushort* out = (GLOBAL ushort*)(row + 6 * bx);
  out[0] = (ushort)p0;
  out[1] = (ushort)((p0 >> 16) | (p1 << 8));
  out[2] = (ushort)(p1 >> 8);
#endif
}

/* One work-item per 2x2 block, which shares one U, V pair. Into rows that start on 8-byte (four
 * channels) or 2-byte (three) boundaries, a row's two pixels go out in one or three stores instead
 * of eight or six byte stores; elsewhere byte by byte. */
KERNEL void nv12_to_rgb(int width, int height, CONST_IMAGE_PARAM(uchar, luma), CONST_IMAGE_PARAM(uchar, chroma),
                        IMAGE_PARAM(uchar, dst)) {
  const int bx = GLOBAL_ID(0);
  const int by = GLOBAL_ID(1);
  if (2 * bx >= width || 2 * by >= height) return;
  const uchar2 uv = vload2(bx, chroma + IMAGE_INDEX(chroma, 0, by));
  const int u = (int)uv.x - 128, v = (int)uv.y - 128;
  const int ruv = HALF + CVR * v;
  const int guv = HALF + CVG * v + CUG * u;
  const int buv = HALF + CUB * u;
  const uchar2 y0 = vload2(bx, luma + IMAGE_INDEX(luma, 0, 2 * by));
  const uchar2 y1 = vload2(bx, luma + IMAGE_INDEX(luma, 0, 2 * by + 1));
  GLOBAL uchar* row0 = dst + IMAGE_INDEX(dst, 0, 2 * by);
  GLOBAL uchar* row1 = dst + IMAGE_INDEX(dst, 0, 2 * by + 1);
  const uint p00 = pixel_word(y0.x, ruv, guv, buv), p01 = pixel_word(y0.y, ruv, guv, buv);
  const uint p10 = pixel_word(y1.x, ruv, guv, buv), p11 = pixel_word(y1.y, ruv, guv, buv);
#if PLINTH_LITTLE_ENDIAN
  if (((dst_offset | dst_step) & (DCN == 4 ? 7 : 1)) == 0) {
    store_pair(row0, bx, p00, p01);
    store_pair(row1, bx, p10, p11);
    return;
  }
#endif
  store_rgb(row0, 2 * bx, p00);
  store_rgb(row0, 2 * bx + 1, p01);
  store_rgb(row1, 2 * bx, p10);
  store_rgb(row1, 2 * bx + 1, p11);
}
#endif
