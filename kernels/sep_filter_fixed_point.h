/* The 8-bit fixed-point separable kernels' shared parts (sep_filter_tiled.cl,
 * sep_filter_wide_rows.cl): their tap arguments and OpenCV's rounding of a sum. The including file
 * includes sep_filter_modes.h and defines MODE. */
#ifndef PLINTH_SEP_FILTER_FIXED_POINT_H
#define PLINTH_SEP_FILTER_FIXED_POINT_H

/* Nine u32 taps each way as kernel arguments (unused ones 0), gathered into arrays. */
#define KPARAMS(p) uint p##0, uint p##1, uint p##2, uint p##3, uint p##4, uint p##5, uint p##6, uint p##7, uint p##8
#define KLIST(p) p##0, p##1, p##2, p##3, p##4, p##5, p##6, p##7, p##8

/* The sum s = S + 2^15 whose byte 2 (s >> 16) is the output of element e: S / 2^16 rounded half
 * up. SEP_MODE_BITEXACT's vector lanes (elements below `tail`) round half to even: a tie
 * (S % 2^16 = 2^15, so s % 2^16 = 0) whose half-up result s >> 16 is odd takes one less. */
INLINE uint fixed_point_round(uint s, int e, int tail) {
#if MODE == SEP_MODE_BITEXACT
  if (e < tail && (s & 0x1FFFFu) == 0x10000u) s -= 1u;
#else
  (void)e;
  (void)tail;
#endif
  return s;
}

#endif
