/* Integral images: pieces shared by the one-launch tile methods, `tiled` (integral_tiled.cl) and
 * `resident` (integral_resident.cl). A lane holds 4 columns of a tile row; the includer defines
 * SRC_T (with SRC_VEC_OK) and QUAD_ROWS, the rows a lane loads at once (8 in both). */
#ifndef PLINTH_INTEGRAL_TILES_H
#define PLINTH_INTEGRAL_TILES_H

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define SRC_T4 CAT(SRC_T, 4)

/* Stores: integer outputs take the low bits of the accumulator; float outputs (only when they
 * hold every partial sum exactly) its signed value. */
#define STORE_AS(T, DEPTH, a)                       \
  ((DEPTH) == DEPTH_S32   ? (T)as_int((uint)(a))   \
   : (DEPTH) == DEPTH_U32 ? (T)(uint)(a)           \
   : (DEPTH) == DEPTH_S64 ? (T)as_long((ulong)(a)) \
   : (DEPTH) == DEPTH_U64 ? (T)(ulong)(a)          \
                          : (T)(long)(a))

/* The lane's 4 source elements of the warp's QUAD_ROWS rows from yw, zero outside the image;
 * `whole`: inside the image, one channel, aligned rows: vector loads without checks. Elsewhere
 * every load is unconditional too, from an address clamped into the image, and masked after, so
 * that all of a lane's loads are in flight at once: behind bounds checks NVIDIA's compiler issued
 * them one at a time and waited on each, and the tiles of a partial last row of tiles took
 * several times as long as the others, at the end of the launch (measured on the H100). */
INLINE void load_rows(GLOBAL const SRC_T* src, int src_offset, int src_step, int width, int height, int channels,
                      int b, int c, int xb, int yw, bool whole, SRC_T4* raw) {
  GLOBAL const SRC_T* plane = src + src_offset + b * height * src_step;
  if (whole) {
    GLOBAL const SRC_T4* quads = (GLOBAL const SRC_T4*)(plane + yw * src_step + xb);
    UNROLL
    for (int j = 0; j < QUAD_ROWS; ++j) raw[j] = quads[j * (src_step / 4)];
  } else if (SRC_VEC_OK && xb + 3 < width) {
    UNROLL
    for (int j = 0; j < QUAD_ROWS; ++j) {
      const SRC_T4 v = *(GLOBAL const SRC_T4*)(plane + min(yw + j, height - 1) * src_step + xb);
      raw[j] = yw + j < height ? v : SPLAT(SRC_T4, 0);
    }
  } else {
    const int last = width - 1;
    const int i0 = min(xb, last) * channels + c, i1 = min(xb + 1, last) * channels + c;
    const int i2 = min(xb + 2, last) * channels + c, i3 = min(xb + 3, last) * channels + c;
    UNROLL
    for (int j = 0; j < QUAD_ROWS; ++j) {
      GLOBAL const SRC_T* row = plane + min(yw + j, height - 1) * src_step;
      const SRC_T e0 = row[i0], e1 = row[i1], e2 = row[i2], e3 = row[i3];
      const bool in = yw + j < height;
      raw[j] = VEC4(SRC_T4, in && xb < width ? e0 : 0, in && xb + 1 < width ? e1 : 0, in && xb + 2 < width ? e2 : 0,
                    in && xb + 3 < width ? e3 : 0);
    }
  }
}

/* The totals of the warp's QUAD_ROWS rows from t[j], each lane's part of row j: lane `lane` ends
 * with the total of row WARP_ROW_OF(lane) in `total`. With shuffles and 8 rows, a transposing
 * reduction (4 + 2 + 1 + 1 + 1 shuffles, not 8 x 5): each step halves the rows a lane holds and
 * doubles the lanes they cover. */
#if HAS_WARP_SHUFFLE && QUAD_ROWS == 8
#define WARP_ROW_OF(l) (((l) >> 4 & 1) * 4 + ((l) >> 3 & 1) * 2 + ((l) >> 2 & 1))
#define WARP_ROW_OWNER(l) (((l) & 3) == 0)
#define WARP_ROW_TOTALS(S, ACC, t, total, slots)                                                    \
  do {                                                                                              \
    UNROLL                                                                                          \
    for (int m_ = 4; m_ >= 1; m_ >>= 1) {                                                           \
      const bool hi_ = (lane & (4 * m_)) != 0;                                                      \
      UNROLL                                                                                        \
      for (int k_ = 0; k_ < m_; ++k_) {                                                             \
        const ACC give_ = hi_ ? t[k_] : t[k_ + m_], keep_ = hi_ ? t[k_ + m_] : t[k_];               \
        t[k_] = keep_ + CAT(warp_shuffle_xor_, S)(give_, 4 * m_);                                   \
      }                                                                                             \
    }                                                                                               \
    total = t[0] + CAT(warp_shuffle_xor_, S)(t[0], 2);                                              \
    total += CAT(warp_shuffle_xor_, S)(total, 1);                                                   \
  } while (0)
#else
#define WARP_ROW_OF(l) (l)
#define WARP_ROW_OWNER(l) ((l) < QUAD_ROWS)
#define WARP_ROW_TOTALS(S, ACC, t, total, slots)                                                    \
  do {                                                                                              \
    UNROLL                                                                                          \
    for (int j_ = 0; j_ < QUAD_ROWS; ++j_) {                                                        \
      const ACC total_ = CAT(warp_sum_, S)(t[j_], slots);                                           \
      if (lane == j_) total = total_;                                                               \
    }                                                                                               \
  } while (0)
#endif

#endif
