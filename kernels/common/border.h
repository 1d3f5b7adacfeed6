/* Border handling with OpenCV's semantics (cv::borderInterpolate). The host passes BORDER as one
 * of the codes below (the order of plinth::BorderMode). border_index maps a coordinate outside
 * [0, len) into it; for BORDER_CONSTANT it returns -1 and the caller uses the constant. */
#ifndef PLINTH_BORDER_H
#define PLINTH_BORDER_H

#define BORDER_CONSTANT 0
#define BORDER_REPLICATE 1
#define BORDER_REFLECT 2
#define BORDER_REFLECT_101 3
#define BORDER_WRAP 4

INLINE int border_index(int p, int len, int mode) {
  if ((unsigned)p < (unsigned)len) return p;
  if (mode == BORDER_CONSTANT) return -1;
  if (mode == BORDER_REPLICATE) return p < 0 ? 0 : len - 1;
  if (mode == BORDER_WRAP) {
    p %= len;
    return p < 0 ? p + len : p;
  }
  if (len == 1) return 0;
  /* Reflections fold repeatedly, as OpenCV does, so radii larger than the image work. */
  const int delta = mode == BORDER_REFLECT_101 ? 1 : 0;
  do {
    if (p < 0)
      p = -p - 1 + delta;
    else
      p = len - 1 - (p - len) - delta;
  } while ((unsigned)p >= (unsigned)len);
  return p;
}

/* The 4 u8 elements [e, e + 4) of a row of `cn`-channel pixels (`cn` a constant) as one
 * little-endian word: one word load where `direct` (the caller knows the 4 lie inside the row
 * and that it may load words there: rows on 4-byte boundaries, a little-endian device), else
 * element by element through the border (0 for columns outside under BORDER_CONSTANT). */
INLINE uint border_word(GLOBAL const uchar* row, int e, int width, int cn, int border, bool direct) {
  if (direct) return *(GLOBAL const uint*)(row + e);
  uint w = 0u;
#pragma unroll
  for (int t = 0; t < 4; ++t) {
    const int ee = e + t;
    const int px = (ee >= 0 ? ee : ee - (cn - 1)) / cn; /* floor division */
    const int xi = border_index(px, width, border);
    if (xi >= 0) w |= (uint)row[xi * cn + (ee - px * cn)] << (8 * t);
  }
  return w;
}

#endif
