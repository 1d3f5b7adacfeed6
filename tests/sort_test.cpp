// sort_keys and sort_pairs against std::stable_sort: every method, key type and order, sizes from
// 1 to past several tiles, heavy duplicates, the special floats, values carried, in place, errors.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "support/test_support.hpp"

namespace plinth::test {
namespace {

// The order the library documents, written for clarity: u32 and s32 by value; f32 by IEEE
// totalOrder with every NaN after +inf (ties between NaNs: equal).
int key_class(float f) { return std::isnan(f) ? 1 : 0; }
bool less_key(Depth depth, std::uint32_t a, std::uint32_t b) {
  switch (depth) {
    case Depth::s32: return static_cast<std::int32_t>(a) < static_cast<std::int32_t>(b);
    case Depth::f32: {
      const float fa = std::bit_cast<float>(a), fb = std::bit_cast<float>(b);
      if (key_class(fa) != key_class(fb)) return key_class(fa) < key_class(fb);
      if (std::isnan(fa)) return false;
      if (fa != fb) return fa < fb;
      return std::signbit(fa) && !std::signbit(fb);  // -0.0 before +0.0
    }
    default: return a < b;
  }
}

std::uint32_t canonical(Depth depth, std::uint32_t bits) {
  return depth == Depth::f32 && std::isnan(std::bit_cast<float>(bits)) ? 0x7FC00000u : bits;
}

// Expected keys and values: a stable sort of the indices.
void reference(Depth depth, SortOrder order, const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values,
               std::vector<std::uint32_t>& keys_out, std::vector<std::uint32_t>& values_out) {
  std::vector<std::size_t> idx(keys.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    return order == SortOrder::ascending ? less_key(depth, keys[a], keys[b]) : less_key(depth, keys[b], keys[a]);
  });
  keys_out.resize(keys.size());
  values_out.resize(keys.size());
  for (std::size_t i = 0; i < idx.size(); ++i) {
    keys_out[i] = canonical(depth, keys[idx[i]]);
    values_out[i] = values[idx[i]];
  }
}

// Random keys of the depth; `distinct` > 0 draws from that many values only (duplicates), and
// f32 keys include the special values.
std::vector<std::uint32_t> random_keys(Depth depth, std::size_t n, std::uint32_t seed, std::uint32_t distinct = 0) {
  std::mt19937 engine(seed);
  const auto rng = [&] { return static_cast<std::uint32_t>(engine()); };
  std::vector<std::uint32_t> pool;
  if (distinct > 0) {
    for (std::uint32_t i = 0; i < distinct; ++i) pool.push_back(rng());
  }
  std::vector<std::uint32_t> keys(n);
  const float specials[] = {-0.0f, 0.0f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest(), 1.0f, -1.0f};
  std::uniform_real_distribution<float> real(-1000.0f, 1000.0f);
  for (auto& k : keys) {
    if (depth == Depth::f32) {
      const std::uint32_t r = rng() % 16;
      if (r < 3) k = std::bit_cast<std::uint32_t>(specials[rng() % std::size(specials)]);
      else k = std::bit_cast<std::uint32_t>(distinct > 0 ? static_cast<float>(static_cast<int>(pool[rng() % distinct] % 64) - 32) : real(engine));
    } else {
      k = distinct > 0 ? pool[rng() % distinct] : rng();
    }
  }
  // A NaN with a payload, which must come back canonical.
  if (depth == Depth::f32 && n > 3) keys[n / 2] = 0xFFC01234u;
  return keys;
}

DeviceArray upload_words(const std::vector<std::uint32_t>& v, Depth depth) {
  DeviceArray a(queue().context(), static_cast<std::int64_t>(v.size()), Format{depth, 1});
  upload_array(queue(), v.data(), v.size() * 4, a).wait();
  return a;
}

DeviceArray poisoned(std::size_t n, Depth depth) {
  DeviceArray a(queue().context(), static_cast<std::int64_t>(n), Format{depth, 1});
  fill_array_bytes(queue(), a, 0xA5).wait();
  return a;
}

std::vector<std::uint32_t> download_words(const DeviceArray& a) { return download_array<std::uint32_t>(queue(), a); }

::testing::AssertionResult same(const std::vector<std::uint32_t>& want, const std::vector<std::uint32_t>& got) {
  if (want.size() != got.size()) return ::testing::AssertionFailure() << "size " << got.size() << " != " << want.size();
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (want[i] != got[i]) {
      return ::testing::AssertionFailure() << "first difference at " << i << " of " << want.size() << ": got 0x" << std::hex
                                           << got[i] << ", want 0x" << want[i];
    }
  }
  return ::testing::AssertionSuccess();
}

void check_sort(SortMethod method, Depth depth, SortOrder order, const std::vector<std::uint32_t>& keys) {
  SCOPED_TRACE(std::string(to_string(method)) + " " + std::string(to_string(depth)) + " " + std::string(to_string(order)) +
               " n=" + std::to_string(keys.size()));
  std::vector<std::uint32_t> values(keys.size());
  std::iota(values.begin(), values.end(), 0x1000u);
  std::vector<std::uint32_t> want_keys, want_values;
  reference(depth, order, keys, values, want_keys, want_values);

  const DeviceArray d_keys = upload_words(keys, depth);
  const DeviceArray d_values = upload_words(values, Depth::s32);
  const DeviceArray out_keys = poisoned(keys.size(), depth);
  const DeviceArray out_values = poisoned(keys.size(), Depth::s32);
  sort_pairs(queue(), d_keys, d_values, out_keys, out_values, order, method).wait();
  EXPECT_TRUE(same(want_keys, download_words(out_keys))) << "pairs: keys";
  EXPECT_TRUE(same(want_values, download_words(out_values))) << "pairs: values";
  EXPECT_TRUE(same(keys, download_words(d_keys))) << "the input changed";

  const DeviceArray only_keys = poisoned(keys.size(), depth);
  sort_keys(queue(), d_keys, only_keys, order, method).wait();
  EXPECT_TRUE(same(want_keys, download_words(only_keys))) << "keys only";
}

const SortMethod kMethods[] = {SortMethod::automatic, SortMethod::radix, SortMethod::merge, SortMethod::network};
const Depth kKeyDepths[] = {Depth::u32, Depth::s32, Depth::f32};
const SortOrder kOrders[] = {SortOrder::ascending, SortOrder::descending};

TEST(Sort, SmallAndOddSizesEveryMethodTypeAndOrder) {
  std::uint32_t seed = 1;
  for (std::size_t n : {1u, 2u, 3u, 7u, 31u, 255u, 257u, 1000u, 2047u, 2048u, 2049u}) {
    for (SortMethod m : kMethods) {
      for (Depth d : kKeyDepths) {
        for (SortOrder o : kOrders) check_sort(m, d, o, random_keys(d, n, seed++));
      }
    }
  }
}

TEST(Sort, PrimesPastSeveralTiles) {
  std::uint32_t seed = 100;
  for (std::size_t n : {4099u, 10007u, 65537u}) {
    for (SortMethod m : kMethods) {
      for (Depth d : kKeyDepths) {
        for (SortOrder o : kOrders) check_sort(m, d, o, random_keys(d, n, seed++));
      }
    }
  }
}

TEST(Sort, HeavyDuplicatesStayStable) {
  std::uint32_t seed = 200;
  for (std::uint32_t distinct : {1u, 2u, 5u}) {
    for (SortMethod m : kMethods) {
      for (Depth d : kKeyDepths) {
        for (SortOrder o : kOrders) check_sort(m, d, o, random_keys(d, 20011, seed++, distinct));
      }
    }
  }
}

// The radix sort at a million keys (512 tiles); the pair methods, which do O(n log^2 n) work and
// cost PoCL most, past many of their tiles and merge passes.
TEST(Sort, OneMillionKeys) {
  std::uint32_t seed = 300;
  check_sort(SortMethod::radix, Depth::f32, SortOrder::descending, random_keys(Depth::f32, 1u << 20, seed++));
  check_sort(SortMethod::radix, Depth::s32, SortOrder::ascending, random_keys(Depth::s32, 1000003, seed++));
  for (SortMethod m : {SortMethod::merge, SortMethod::network}) {
    check_sort(m, Depth::f32, SortOrder::descending, random_keys(Depth::f32, 262147, seed++));
  }
}

TEST(Sort, SpecialFloatsInTotalOrder) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> keys = {1.0f, -0.0f, 0.0f, inf, -inf, std::nanf(""), -2.5f, 0.0f, -0.0f, -inf};
  std::vector<std::uint32_t> bits;
  for (float f : keys) bits.push_back(std::bit_cast<std::uint32_t>(f));
  // Written by hand from the documented order: -inf, -inf, -2.5, -0, -0, +0, +0, 1, inf, NaN.
  const std::vector<float> want = {-inf, -inf, -2.5f, -0.0f, -0.0f, 0.0f, 0.0f, 1.0f, inf};
  for (SortMethod m : kMethods) {
    SCOPED_TRACE(std::string(to_string(m)));
    const DeviceArray d = upload_words(bits, Depth::f32);
    const DeviceArray out = poisoned(bits.size(), Depth::f32);
    sort_keys(queue(), d, out, SortOrder::ascending, m).wait();
    const auto got = download_words(out);
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], std::bit_cast<std::uint32_t>(want[i])) << i;
    EXPECT_EQ(got.back(), 0x7FC00000u);
  }
}

TEST(Sort, InPlace) {
  std::uint32_t seed = 400;
  for (SortMethod m : kMethods) {
    for (std::size_t n : {5u, 3001u, 40000u}) {
      SCOPED_TRACE(std::string(to_string(m)) + " n=" + std::to_string(n));
      const auto keys = random_keys(Depth::u32, n, seed++, 50);
      std::vector<std::uint32_t> values(n);
      std::iota(values.begin(), values.end(), 7u);
      std::vector<std::uint32_t> want_keys, want_values;
      reference(Depth::u32, SortOrder::descending, keys, values, want_keys, want_values);
      const DeviceArray k = upload_words(keys, Depth::u32);
      const DeviceArray v = upload_words(values, Depth::u32);
      sort_pairs(queue(), k, v, k, v, SortOrder::descending, m).wait();
      EXPECT_TRUE(same(want_keys, download_words(k)));
      EXPECT_TRUE(same(want_values, download_words(v)));
    }
  }
}

TEST(Sort, SlicesOfALargerArray) {
  const auto keys = random_keys(Depth::s32, 5000, 500);
  const DeviceArray all = upload_words(keys, Depth::s32);
  const DeviceArray out_all = poisoned(6000, Depth::s32);
  const DeviceArray in = all.slice(13, 4000), out = out_all.slice(999, 4000);
  for (SortMethod m : kMethods) {
    SCOPED_TRACE(std::string(to_string(m)));
    sort_keys(queue(), in, out, SortOrder::ascending, m).wait();
    std::vector<std::uint32_t> part(keys.begin() + 13, keys.begin() + 13 + 4000), want_keys, want_values;
    reference(Depth::s32, SortOrder::ascending, part, part, want_keys, want_values);
    EXPECT_TRUE(same(want_keys, download_words(out)));
  }
}

TEST(SortErrors, BadArguments) {
  const DeviceArray keys = poisoned(100, Depth::f32);
  const DeviceArray out = poisoned(100, Depth::f32);
  const DeviceArray u8(queue().context(), 100, Format{Depth::u8, 1});
  const DeviceArray shorter = poisoned(99, Depth::f32);
  const DeviceArray values = poisoned(100, Depth::u32);
  const DeviceArray values_out = poisoned(100, Depth::u32);
  EXPECT_TRUE(throws_code([&] { sort_keys(queue(), u8, u8); }, ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([&] { sort_keys(queue(), keys, shorter); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { sort_keys(queue(), keys, values); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { sort_keys(queue(), keys, DeviceArray()); }, ErrorCode::invalid_argument));
  // Partial overlap of input and output.
  const DeviceArray big = poisoned(200, Depth::f32);
  EXPECT_TRUE(throws_code([&] { sort_keys(queue(), big.slice(0, 100), big.slice(50, 100)); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { sort_pairs(queue(), keys, values, out, out); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { sort_pairs(queue(), keys, u8, out, u8); }, ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([&] { sort_pairs(queue(), keys, values, out, values_out.slice(0, 99)); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { sort_pairs(queue(), keys, values, values, values_out); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { sort_keys(queue(), keys, out, SortOrder::ascending, static_cast<SortMethod>(42)); },
                          ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { parse_sort_method("quick"); }, ErrorCode::invalid_argument));
  for (const SortMethodInfo& m : sort_methods()) EXPECT_EQ(parse_sort_method(m.name), m.method);
}

}  // namespace
}  // namespace plinth::test
