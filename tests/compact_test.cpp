// compact against a plain loop: all, none and random flags, sizes around the tile, offsets, errors.
#include <random>
#include <vector>

#include "support/test_support.hpp"

namespace plinth::test {
namespace {

void check_compact(const std::vector<std::uint32_t>& values, const std::vector<std::uint8_t>& flags, bool sliced) {
  SCOPED_TRACE("n=" + std::to_string(values.size()) + (sliced ? " sliced" : ""));
  std::vector<std::uint32_t> want;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (flags[i] != 0) want.push_back(values[i]);
  }
  const auto n = static_cast<std::int64_t>(values.size());
  const int pad = sliced ? 5 : 0;
  DeviceArray v_all(queue().context(), n + pad, Format{Depth::f32, 1});
  DeviceArray f_all(queue().context(), n + pad, Format{Depth::u8, 1});
  DeviceArray out_all(queue().context(), n + 2 * pad + 1, Format{Depth::f32, 1});
  DeviceArray count_all(queue().context(), 3, Format{Depth::u32, 1});
  const DeviceArray v = v_all.slice(pad, n), f = f_all.slice(pad, n), out = out_all.slice(2 * pad, n + 1);
  const DeviceArray count = count_all.slice(sliced ? 1 : 0, 1);
  upload_array(queue(), values.data(), values.size() * 4, v).wait();
  upload_array(queue(), flags.data(), flags.size(), f).wait();
  fill_array_bytes(queue(), out_all, 0xA5).wait();
  fill_array_bytes(queue(), count_all, 0xA5).wait();
  compact(queue(), v, f, out, count).wait();
  const auto got = download_array<std::uint32_t>(queue(), out);
  const auto got_count = download_array<std::uint32_t>(queue(), count);
  ASSERT_EQ(got_count[0], want.size());
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << i;
  for (std::size_t i = want.size(); i < got.size(); ++i) ASSERT_EQ(got[i], 0xA5A5A5A5u) << "written past the count at " << i;
}

TEST(Compact, AllNoneAndRandomFlags) {
  std::mt19937 engine(7);
  for (std::size_t n : {1u, 2u, 255u, 2048u, 2049u, 10007u, 300001u}) {
    std::vector<std::uint32_t> values(n);
    for (auto& x : values) x = static_cast<std::uint32_t>(engine());
    for (int pattern = 0; pattern < 4; ++pattern) {
      std::vector<std::uint8_t> flags(n);
      for (auto& x : flags) {
        const auto r = static_cast<std::uint32_t>(engine());
        x = pattern == 0 ? 1 : pattern == 1 ? 0 : pattern == 2 ? static_cast<std::uint8_t>(r % 2 * (r >> 8)) : (r % 97 == 0 ? 200 : 0);
      }
      check_compact(values, flags, pattern == 2);
    }
  }
}

TEST(CompactErrors, BadArguments) {
  DeviceArray v(queue().context(), 100, Format{Depth::u32, 1});
  DeviceArray f(queue().context(), 100, Format{Depth::u8, 1});
  DeviceArray out(queue().context(), 100, Format{Depth::u32, 1});
  DeviceArray count(queue().context(), 1, Format{Depth::u32, 1});
  DeviceArray u16(queue().context(), 100, Format{Depth::u16, 1});
  EXPECT_TRUE(throws_code([&] { compact(queue(), u16, f, u16, count); }, ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([&] { compact(queue(), v, f.slice(0, 99), out, count); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { compact(queue(), v, f, out.slice(0, 99), count); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { compact(queue(), v, f, out, out.slice(0, 1)); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { compact(queue(), v, f, v, count); }, ErrorCode::invalid_argument));
}

}  // namespace
}  // namespace plinth::test
