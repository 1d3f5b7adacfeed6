/* Aligned vector loads taken apart into 32-bit words, for kernels that unpack narrow elements
 * themselves (box_filter.cl's vector_strips, sep_filter.cl's fused_direct). */
#ifndef PLINTH_VECTOR_WORDS_H
#define PLINTH_VECTOR_WORDS_H

/* w[0 .. NV * WPV) = the NV vectors of WPV (1, 2 or 4; a constant) words at p, which is aligned to
 * a vector. */
#define LOAD_VECTOR_WORDS(w, p, NV, WPV)                              \
  do {                                                                \
    UNROLL                                                            \
    for (int q_ = 0; q_ < (NV); ++q_) {                               \
      if ((WPV) == 4) {                                               \
        const uint4 v_ = ((GLOBAL const uint4*)(p))[q_];              \
        (w)[4 * q_] = v_.s0;                                          \
        (w)[4 * q_ + 1] = v_.s1;                                      \
        (w)[4 * q_ + 2] = v_.s2;                                      \
        (w)[4 * q_ + 3] = v_.s3;                                      \
      } else if ((WPV) == 2) {                                        \
        const uint2 v_ = ((GLOBAL const uint2*)(p))[q_];              \
        (w)[2 * q_] = v_.s0;                                          \
        (w)[2 * q_ + 1] = v_.s1;                                      \
      } else {                                                        \
        (w)[q_] = ((GLOBAL const uint*)(p))[q_];                      \
      }                                                               \
    }                                                                 \
  } while (0)

#endif
