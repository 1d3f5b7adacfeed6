// keep_busy (the benchmark's filler, kernels/keep_busy.cl) against the same recurrence on the host.
#include <cstdint>
#include <vector>

#include "ops/keep_busy.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

std::uint32_t xorshift_steps(std::uint32_t x, std::uint32_t steps) {
  for (std::uint32_t s = 0; s < steps; ++s) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
  }
  return x;
}

TEST(KeepBusy, ComputesXorshiftFromEachIndex) {
  for (const std::int64_t n : {1, 32, 45}) {
    for (const std::uint32_t steps : {0u, 1u, 7u, 5000u}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " steps=" + std::to_string(steps));
      DeviceArray all(queue().context(), n + 3, Format{Depth::u32, 1});
      fill_array_bytes(queue(), all, 0xA5).wait();
      DeviceArray out = all.slice(2, n);
      detail::keep_busy(queue(), out, steps).wait();
      const auto got = download_array<std::uint32_t>(queue(), all);
      ASSERT_EQ(got[0], 0xA5A5A5A5u);
      ASSERT_EQ(got[1], 0xA5A5A5A5u);
      for (std::int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(got[static_cast<std::size_t>(i + 2)], xorshift_steps(0x9E3779B9u ^ static_cast<std::uint32_t>(i), steps)) << i;
      }
      ASSERT_EQ(got.back(), 0xA5A5A5A5u) << "written past the array";
    }
  }
}

TEST(KeepBusy, Errors) {
  DeviceArray wrong_depth(queue().context(), 4, Format{Depth::s32, 1});
  EXPECT_THROW(detail::keep_busy(queue(), wrong_depth, 1), Error);
  DeviceArray empty;
  EXPECT_THROW(detail::keep_busy(queue(), empty, 1), Error);
  DeviceArray too_many(queue().context(), 1025, Format{Depth::u32, 1});
  EXPECT_THROW(detail::keep_busy(queue(), too_many, 1), Error);
}

}  // namespace
}  // namespace plinth::test
