/* keep_busy: computes for `steps` steps and touches no memory but one word per work-item, so that
 * an in-order queue stays busy while the host enqueues the commands behind it. The benchmark puts
 * one before each timed run (bench/keep_busy_filler.cpp): a run's events then span its device work
 * alone, not the host's launch latency, as the NPP peer's filler does for NPP. It leaves the
 * caches as they were (a memset filler would leave dirty lines that the timed run writes back).
 * Host side: src/ops/keep_busy.cpp. Each work-item runs xorshift32 (13, 17, 5) from
 * 0x9E3779B9 ^ its index (never 0, the generator's fixed point) and stores the result, which the
 * tests check against the same recurrence on the host. */
#include "common/dialect.h"

KERNEL void keep_busy(ARRAY_PARAM(uint, out), int count, uint steps) {
  const int i = GLOBAL_ID(0);
  if (i >= count) return;
  uint x = 0x9E3779B9u ^ (uint)i;
  for (uint s = 0; s < steps; ++s) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
  }
  ARRAY_AT(out, i) = x;
}
