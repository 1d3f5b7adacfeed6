/* Warp-level primitives over 32 consecutive work-items, for uint or ulong values (pick with
 * the _u32 / _u64 suffix). With hardware shuffles (dialect.h) they work in registers; otherwise
 * they go through `slots`, a LOCAL array of one element per work-item, and contain work-group
 * barriers: then every work-item of the group must call them, the same number of times. */
#ifndef PLINTH_SCAN_H
#define PLINTH_SCAN_H

#if HAS_WARP_SHUFFLE
INLINE ulong warp_shuffle_up_u64(ulong v, int delta) {
  return (ulong)warp_shuffle_up_u32((uint)v, delta) | (ulong)warp_shuffle_up_u32((uint)(v >> 32), delta) << 32;
}
INLINE ulong warp_shuffle_xor_u64(ulong v, int mask) {
  return (ulong)warp_shuffle_xor_u32((uint)v, mask) | (ulong)warp_shuffle_xor_u32((uint)(v >> 32), mask) << 32;
}
INLINE ulong warp_shuffle_idx_u64(ulong v, int lane) {
  return (ulong)warp_shuffle_idx_u32((uint)v, lane) | (ulong)warp_shuffle_idx_u32((uint)(v >> 32), lane) << 32;
}
#define PLINTH_WARP_OPS(T, S)                                                        \
  INLINE T warp_up_##S(T v, int delta, int lane, LOCAL T* slots) {                 \
    (void)slots;                                                                   \
    const T r = warp_shuffle_up_##S(v, delta);                                     \
    return lane >= delta ? r : (T)0;                                               \
  }                                                                                \
  INLINE T warp_get_##S(T v, int from, LOCAL T* slots) {                           \
    (void)slots;                                                                   \
    return warp_shuffle_idx_##S(v, from);                                          \
  }                                                                                \
  INLINE T warp_exclusive_scan_##S(T v, int lane, LOCAL T* slots) {                \
    T x = v;                                                                       \
    for (int d = 1; d < 32; d <<= 1) x += warp_up_##S(x, d, lane, slots);         \
    return x - v;                                                                  \
  }                                                                                \
  /* Sum of lanes 0 .. lane (a predicated add a step: no selects). */              \
  INLINE T warp_inclusive_scan_##S(T v, int lane, LOCAL T* slots) {                \
    (void)slots;                                                                   \
    for (int d = 1; d < 32; d <<= 1) {                                             \
      const T r = warp_shuffle_up_##S(v, d);                                       \
      if (lane >= d) v += r;                                                       \
    }                                                                              \
    return v;                                                                      \
  }                                                                                \
  /* Sum over the warp, in every lane. */                                          \
  INLINE T warp_sum_##S(T v, LOCAL T* slots) {                                     \
    (void)slots;                                                                   \
    for (int m = 16; m > 0; m >>= 1) v += warp_shuffle_xor_##S(v, m);              \
    return v;                                                                      \
  }
#else
#define PLINTH_WARP_OPS(T, S)                                                        \
  /* Value of lane - delta (0 below lane 0). */                                    \
  INLINE T warp_up_##S(T v, int delta, int lane, LOCAL T* slots) {                 \
    const int id = LOCAL_ID(0);                                                    \
    slots[id] = v;                                                                 \
    BARRIER_LOCAL();                                                               \
    const T r = lane >= delta ? slots[id - delta] : (T)0;                          \
    BARRIER_LOCAL();                                                               \
    return r;                                                                      \
  }                                                                                \
  INLINE T warp_get_##S(T v, int from, LOCAL T* slots) {                           \
    const int id = LOCAL_ID(0);                                                    \
    slots[id] = v;                                                                 \
    BARRIER_LOCAL();                                                               \
    const T r = slots[(id & ~31) + from];                                          \
    BARRIER_LOCAL();                                                               \
    return r;                                                                      \
  }                                                                                \
  INLINE T warp_exclusive_scan_##S(T v, int lane, LOCAL T* slots) {                \
    const int id = LOCAL_ID(0);                                                    \
    slots[id] = v;                                                                 \
    BARRIER_LOCAL();                                                               \
    T sum = 0;                                                                     \
    for (int l = 0; l < lane; ++l) sum += slots[(id & ~31) + l];                   \
    BARRIER_LOCAL();                                                               \
    return sum;                                                                    \
  }                                                                                \
  INLINE T warp_inclusive_scan_##S(T v, int lane, LOCAL T* slots) {                \
    return warp_exclusive_scan_##S(v, lane, slots) + v;                            \
  }                                                                                \
  INLINE T warp_sum_##S(T v, LOCAL T* slots) {                                     \
    const int id = LOCAL_ID(0);                                                    \
    slots[id] = v;                                                                 \
    BARRIER_LOCAL();                                                               \
    T sum = 0;                                                                     \
    for (int l = 0; l < 32; ++l) sum += slots[(id & ~31) + l];                     \
    BARRIER_LOCAL();                                                               \
    return sum;                                                                    \
  }
#endif

PLINTH_WARP_OPS(uint, u32)
PLINTH_WARP_OPS(ulong, u64)

/* Inclusive scans of four values per work-item at once (side by side, which keeps the registers of
 * a tight kernel lower than four scans one after the other, and the additions predicated). */
INLINE uint4 warp_inclusive_scan4_u32(uint4 v, int lane, LOCAL uint* slots) {
#if HAS_WARP_SHUFFLE
  (void)slots;
  for (int d = 1; d < 32; d <<= 1) {
    const uint4 r = VEC4(uint4, warp_shuffle_up_u32(v.x, d), warp_shuffle_up_u32(v.y, d), warp_shuffle_up_u32(v.z, d),
                         warp_shuffle_up_u32(v.w, d));
    if (lane >= d) v += r;
  }
  return v;
#else
  return VEC4(uint4, warp_inclusive_scan_u32(v.x, lane, slots), warp_inclusive_scan_u32(v.y, lane, slots),
              warp_inclusive_scan_u32(v.z, lane, slots), warp_inclusive_scan_u32(v.w, lane, slots));
#endif
}

#endif
