/* Keys as order words: 32-bit unsigned words whose ascending order is the requested order of the
 * keys, so that every method sorts plain uint. `kind` is a SORT_KEY_* of sort_layout.h and
 * `descending` 0 or 1, both kernel arguments (uniform branches cost nothing beside the memory
 * traffic, and one program serves every key type and order). f32 keys follow IEEE 754 totalOrder
 * (-inf < ... < -0.0 < +0.0 < ... < +inf), with every NaN, whatever its sign and payload, after
 * +inf; a NaN key comes back as the canonical quiet NaN 0x7FC00000 (docs/sort.md). Descending
 * order complements the word, so equal keys stay equal and a stable ascending sort of the words
 * is a stable descending sort of the keys. */
#ifndef PLINTH_SORT_KEYS_H
#define PLINTH_SORT_KEYS_H

#define SORT_CANONICAL_NAN 0x7FC00000u

INLINE uint order_word(uint bits, int kind, int descending) {
  uint w = bits;
  if (kind == SORT_KEY_S32) {
    w = bits ^ 0x80000000u;
  } else if (kind == SORT_KEY_F32) {
    w = (bits & 0x7FFFFFFFu) > 0x7F800000u ? 0xFFFFFFFFu : (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
  }
  return descending ? ~w : w;
}

INLINE uint key_bits(uint w, int kind, int descending) {
  if (descending) w = ~w;
  if (kind == SORT_KEY_S32) return w ^ 0x80000000u;
  if (kind == SORT_KEY_F32) return w == 0xFFFFFFFFu ? SORT_CANONICAL_NAN : (w & 0x80000000u) ? (w & 0x7FFFFFFFu) : ~w;
  return w;
}

#endif
