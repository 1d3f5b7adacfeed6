// top_k against a std::partial_sort of (key, index) with the documented tie rule: every key
// type, both orders, k = 1, k = n and in between, heavy ties, special floats, and errors.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "support/test_support.hpp"

namespace plinth::test {
namespace {

// The documented order, written for clarity (as in sort_test.cpp): f32 in totalOrder, NaN last.
bool less_key(Depth depth, std::uint32_t a, std::uint32_t b) {
  switch (depth) {
    case Depth::s32: return static_cast<std::int32_t>(a) < static_cast<std::int32_t>(b);
    case Depth::f32: {
      const float fa = std::bit_cast<float>(a), fb = std::bit_cast<float>(b);
      if (std::isnan(fa) || std::isnan(fb)) return !std::isnan(fa) && std::isnan(fb);
      if (fa != fb) return fa < fb;
      return std::signbit(fa) && !std::signbit(fb);
    }
    default: return a < b;
  }
}

void check_top_k(Depth depth, SortOrder order, const std::vector<std::uint32_t>& keys, int k) {
  SCOPED_TRACE(std::string(to_string(depth)) + " " + std::string(to_string(order)) + " n=" + std::to_string(keys.size()) +
               " k=" + std::to_string(k));
  std::vector<std::uint32_t> idx(keys.size());
  std::iota(idx.begin(), idx.end(), 0u);
  // Best first; equal keys by ascending index.
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](std::uint32_t a, std::uint32_t b) {
    const bool before = order == SortOrder::descending ? less_key(depth, keys[b], keys[a]) : less_key(depth, keys[a], keys[b]);
    const bool after = order == SortOrder::descending ? less_key(depth, keys[a], keys[b]) : less_key(depth, keys[b], keys[a]);
    return before || (!after && a < b);
  });
  const auto n = static_cast<std::int64_t>(keys.size());
  DeviceArray d_keys(queue().context(), n, Format{depth, 1});
  upload_array(queue(), keys.data(), keys.size() * 4, d_keys).wait();
  DeviceArray out_keys(queue().context(), k + 3, Format{depth, 1});
  DeviceArray out_idx(queue().context(), k + 3, Format{Depth::u32, 1});
  fill_array_bytes(queue(), out_keys, 0xA5).wait();
  fill_array_bytes(queue(), out_idx, 0xA5).wait();
  top_k(queue(), d_keys, k, out_keys, out_idx, order).wait();
  const auto got_keys = download_array<std::uint32_t>(queue(), out_keys);
  const auto got_idx = download_array<std::uint32_t>(queue(), out_idx);
  for (int i = 0; i < k; ++i) {
    const std::uint32_t want_key = depth == Depth::f32 && std::isnan(std::bit_cast<float>(keys[idx[i]])) ? 0x7FC00000u : keys[idx[i]];
    ASSERT_EQ(got_idx[i], idx[i]) << "rank " << i;
    ASSERT_EQ(got_keys[i], want_key) << "rank " << i;
  }
  EXPECT_EQ(got_idx[k], 0xA5A5A5A5u) << "wrote past k";
}

std::vector<std::uint32_t> random_keys(Depth depth, std::size_t n, std::uint32_t seed, std::uint32_t distinct) {
  std::mt19937 engine(seed);
  std::vector<std::uint32_t> keys(n);
  for (auto& key : keys) {
    const auto r = static_cast<std::uint32_t>(engine());
    if (depth == Depth::f32) {
      const float specials[] = {-0.0f, 0.0f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                                std::numeric_limits<float>::quiet_NaN()};
      const float f = r % 13 == 0 ? specials[r % 5] : static_cast<float>(static_cast<int>(r % distinct) - static_cast<int>(distinct / 2)) * 0.5f;
      key = std::bit_cast<std::uint32_t>(f);
    } else {
      key = distinct > 0 ? r % distinct * 0x01010101u : r;
    }
  }
  return keys;
}

TEST(TopK, SizesKindsOrdersAndTies) {
  std::uint32_t seed = 1;
  for (Depth d : {Depth::u32, Depth::s32, Depth::f32}) {
    for (SortOrder o : {SortOrder::descending, SortOrder::ascending}) {
      for (std::size_t n : {1u, 2u, 37u, 2048u, 5003u, 70001u}) {
        for (std::uint32_t distinct : {3u, 1000u, 0u}) {
          if (distinct == 0 && d == Depth::f32) continue;
          const auto keys = random_keys(d, n, seed++, distinct);
          const int nk = static_cast<int>(n);
          for (int k : {1, std::min(nk, 10), std::min(nk, 1000), nk}) check_top_k(d, o, keys, k);
        }
      }
    }
  }
}

TEST(TopK, AllKeysEqualTakesTheFirstIndices) {
  const std::vector<std::uint32_t> keys(10000, 42u);
  check_top_k(Depth::u32, SortOrder::descending, keys, 77);
  check_top_k(Depth::u32, SortOrder::ascending, keys, 10000);
}

TEST(TopKSlow, OneMillionKeys) {
  check_top_k(Depth::f32, SortOrder::descending, random_keys(Depth::f32, 1u << 20, 99, 1u << 20), 1000);
}

TEST(TopKErrors, BadArguments) {
  DeviceArray keys(queue().context(), 100, Format{Depth::f32, 1});
  DeviceArray out(queue().context(), 100, Format{Depth::f32, 1});
  DeviceArray idx(queue().context(), 100, Format{Depth::u32, 1});
  DeviceArray f_idx(queue().context(), 100, Format{Depth::f32, 1});
  EXPECT_TRUE(throws_code([&] { top_k(queue(), keys, 101, out, idx); }, ErrorCode::out_of_range));
  EXPECT_TRUE(throws_code([&] { top_k(queue(), keys, 0, out, idx); }, ErrorCode::out_of_range));
  EXPECT_TRUE(throws_code([&] { top_k(queue(), keys, 10, out.slice(0, 9), idx); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { top_k(queue(), keys, 10, out, f_idx); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { top_k(queue(), keys, 10, keys, idx); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { top_k(queue(), idx, 10, idx, idx); }, ErrorCode::invalid_argument));
}

}  // namespace
}  // namespace plinth::test
