// DeviceArray: transfers, slices, copies, fills, adoption of a user's buffer, and its errors.
#include <cmath>
#include <numeric>
#include <vector>

#include "plinth/array.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

std::vector<std::uint32_t> counting(std::size_t n, std::uint32_t start) {
  std::vector<std::uint32_t> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

TEST(Array, UploadDownloadRoundTrip) {
  const auto values = counting(1001, 7);
  DeviceArray a = upload_array<std::uint32_t>(queue(), values);
  EXPECT_EQ(a.size(), 1001);
  EXPECT_EQ(a.depth(), Depth::u32);
  EXPECT_EQ(a.bytes(), 1001u * 4u);
  EXPECT_EQ(download_array<std::uint32_t>(queue(), a), values);
}

TEST(Array, SliceSharesMemoryAndTransfersItsRangeOnly) {
  DeviceArray a = upload_array<std::uint32_t>(queue(), counting(100, 0));
  DeviceArray s = a.slice(10, 5);
  EXPECT_EQ(s.size(), 5);
  EXPECT_EQ(s.offset(), 40u);
  EXPECT_EQ(s.offset_elements(), 10);
  EXPECT_EQ(s.native(), a.native());
  EXPECT_EQ(download_array<std::uint32_t>(queue(), s), counting(5, 10));
  const std::vector<std::uint32_t> twos(5, 2);
  upload_array(queue(), twos.data(), 20, s).wait();
  auto all = download_array<std::uint32_t>(queue(), a);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(all[i], i >= 10 && i < 15 ? 2u : static_cast<std::uint32_t>(i)) << i;
}

TEST(Array, CopyAndFill) {
  DeviceArray a = upload_array<float>(queue(), std::vector<float>{1.5f, -2.0f, 3.25f});
  DeviceArray b(context(), 3, Format{Depth::f32, 1});
  fill_array_bytes(queue(), b, 0xff).wait();
  for (float v : download_array<float>(queue(), b)) EXPECT_TRUE(std::isnan(v));
  copy_array(queue(), a, b).wait();
  EXPECT_EQ(download_array<float>(queue(), b), (std::vector<float>{1.5f, -2.0f, 3.25f}));
}

TEST(Array, WrapsAUsersBuffer) {
  DeviceArray owner = upload_array<std::uint32_t>(queue(), counting(64, 100));
  DeviceArray view = DeviceArray::wrap(context(), owner.native(), 8, Format{Depth::u32, 1}, 16 * 4);
  EXPECT_EQ(download_array<std::uint32_t>(queue(), view), counting(8, 116));
}

TEST(Array, Errors) {
  auto code = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode::internal;
  };
  EXPECT_EQ(code([] { DeviceArray(context(), 0, Format{Depth::u8, 1}); }), ErrorCode::out_of_range);
  EXPECT_EQ(code([] { DeviceArray(context(), max_array_elements + 1, Format{Depth::u8, 1}); }), ErrorCode::out_of_range);
  EXPECT_EQ(code([] { DeviceArray(context(), 4, Format{Depth::u8, 5}); }), ErrorCode::invalid_argument);
  // 64 GiB: refused before allocating where it exceeds the device's largest allocation (PoCL, OpenCL).
  if (static_cast<std::uint64_t>(max_array_elements) * 32 > context().device().max_allocation) {
    EXPECT_EQ(code([] { DeviceArray(context(), max_array_elements, Format{Depth::f64, 4}); }), ErrorCode::out_of_memory);
  }
  DeviceArray a(context(), 10, Format{Depth::s32, 1});
  EXPECT_EQ(code([&] { (void)a.slice(8, 3); }), ErrorCode::out_of_range);
  EXPECT_EQ(code([&] { (void)a.slice(-1, 2); }), ErrorCode::out_of_range);
  std::vector<std::int32_t> host(9);
  EXPECT_EQ(code([&] { download_array(queue(), a, host.data(), host.size() * 4); }), ErrorCode::invalid_argument);
  EXPECT_EQ(code([&] { copy_array(queue(), a.slice(0, 5), a.slice(3, 5)); }), ErrorCode::invalid_argument);
  EXPECT_EQ(code([&] { upload_array(queue(), nullptr, 40, a); }), ErrorCode::invalid_argument);
  EXPECT_EQ(code([&] { DeviceArray::wrap(context(), a.native(), 11, Format{Depth::s32, 1}); }), ErrorCode::out_of_range);
}

}  // namespace
}  // namespace plinth::test
