// Device memory the device refuses: an Error(out_of_memory) that names the size, never a crash or
// a device error. On PoCL: sizes above the device's largest allocation. On a real GPU (run once by
// hand, docs/RELIABILITY.md): PLINTH_GPU_OOM_TEST=1 allocates and uses buffers until the device
// refuses one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/context_state.hpp"
#include "support/test_support.hpp"

namespace plinth {
namespace {

::testing::AssertionResult out_of_memory_naming(const Error& e, std::uint64_t bytes) {
  if (e.code() != ErrorCode::out_of_memory) {
    return ::testing::AssertionFailure() << "code '" << to_string(e.code()) << "': " << e.what();
  }
  if (std::string(e.what()).find(std::to_string(bytes)) == std::string::npos) {
    return ::testing::AssertionFailure() << "does not name " << bytes << " bytes: " << e.what();
  }
  return ::testing::AssertionSuccess();
}

TEST(DeviceMemory, AboveTheLargestAllocationIsOutOfMemoryNamingTheSize) {
  const DeviceInfo& info = test::context().device();
  ASSERT_GT(info.max_allocation, 0u);
  // The backend itself, below every check of the core: the size refused (NVIDIA's OpenCL driver
  // would hand such a buffer out; the backend refuses it first).
  const std::uint64_t too_big = info.max_allocation + 4096;
  try {
    (void)detail::context_state(test::context())->device->allocate(static_cast<std::size_t>(too_big));
    ADD_FAILURE() << "the device allocated " << too_big << " bytes, above its largest allocation " << info.max_allocation;
  } catch (const Error& e) {
    EXPECT_TRUE(out_of_memory_naming(e, too_big));
  }
  // A DeviceImage above the largest allocation (f64 x 4 channels: 32 bytes a pixel), where the
  // image size limits allow one.
  const std::uint64_t rows = info.max_allocation / (std::uint64_t{32} * 32768) + 1;
  if (rows * 32768 * 4 <= static_cast<std::uint64_t>(max_image_elements) && rows <= max_image_dimension) {
    try {
      DeviceImage image(test::context(), 32768, static_cast<int>(rows), Format{Depth::f64, 4});
      ADD_FAILURE() << "allocated a " << rows << "-row image above the largest allocation";
    } catch (const Error& e) {
      EXPECT_TRUE(out_of_memory_naming(e, rows * 32768 * 32));
    }
  }
}

// Page-locked host images (plain memory where the backend has no such thing): the constructor's
// pitch, uploads and downloads through them, views, and memory that outlives the context it was
// pinned for (the image keeps the device, whose driver frees it, alive).
TEST(DeviceMemory, PageLockedHostImagesCarryPixelsAndOutliveTheirContext) {
  const Format format{Depth::u8, 3};
  HostImage in;
  HostImage out;
  {
    Context context;
    Queue queue(context);
    in = HostImage::page_locked(context, 37, 5, format);
    out = HostImage::page_locked(context, 37, 5, format);
    EXPECT_EQ(in.pitch(), HostImage(37, 5, format).pitch());
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(in.data()) % 64, 0u);
    for (int y = 0; y < 5; ++y) {
      for (int x = 0; x < 37 * 3; ++x) in.row(y)[x] = static_cast<std::byte>(y * 131 + x);
    }
    DeviceImage device(context, 37, 5, format);
    queue.upload(in, device);
    queue.download(device, out).wait();
    const HostImage part = HostImage::page_locked(context, 7, 2, format);
    queue.download(device.view({3, 2, 7, 2}), part).wait();
    for (int y = 0; y < 2; ++y) {
      EXPECT_EQ(std::memcmp(part.row(y), in.row(y + 2) + 9, 21), 0) << "row " << y;
    }
  }
  for (int y = 0; y < 5; ++y) EXPECT_EQ(std::memcmp(out.row(y), in.row(y), in.row_bytes()), 0) << "row " << y;
  out = HostImage();  // freed after its context is gone
  try {
    (void)HostImage::page_locked(test::context(), 0, 5, format);
    ADD_FAILURE() << "a 0x5 image was allocated";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::out_of_range) << e.what();
  }
}

// Uploads from ordinary (pageable) memory, queued back to back before any is waited for: views
// whose rows are pitched, tight rows into pitched device rows, a row of 70,000 bytes, 4.4 MB.
TEST(DeviceMemory, UploadsFromOrdinaryMemoryArriveWhole) {
  struct Shape {
    int width, height;
    Format format;
  };
  const Shape shapes[] = {{1000, 300, {Depth::u8, 1}}, {70000, 3, {Depth::u8, 1}}, {333, 250, {Depth::u8, 3}},
                          {17, 5, {Depth::u16, 2}},    {640, 480, {Depth::u8, 1}}, {1100, 1000, {Depth::f32, 1}}};
  std::vector<HostImage> sources;
  std::vector<DeviceImage> uploaded;
  std::uint32_t seed = 71;
  for (const Shape& shape : shapes) {
    const HostImage wider = test::random_image(shape.width + 3, shape.height, shape.format, seed++);
    sources.push_back(wider.view({2, 0, shape.width, shape.height}));
    sources.push_back(test::random_image(shape.width, shape.height, shape.format, seed++));
  }
  for (const HostImage& host : sources) {
    uploaded.emplace_back(test::context(), host.width(), host.height(), host.format());
    test::queue().upload(host, uploaded.back());
  }
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const HostImage back = test::queue().download(uploaded[i]);
    for (int y = 0; y < back.height(); ++y) {
      ASSERT_EQ(std::memcmp(back.row(y), sources[i].row(y), back.row_bytes()), 0)
          << "image " << i << " (" << back.width() << "x" << back.height() << "), row " << y;
    }
  }
}

// Whether `got` holds `before` with the region `at` replaced by `source`'s region `from` (same size).
::testing::AssertionResult holds_view(const HostImage& got, const HostImage& before, Rect at, const HostImage& source,
                                      Rect from) {
  const std::size_t es = got.format().pixel_size();
  const std::size_t left = static_cast<std::size_t>(at.x) * es, width = static_cast<std::size_t>(at.width) * es;
  for (int y = 0; y < got.height(); ++y) {
    const bool inside = y >= at.y && y < at.y + at.height;
    const std::size_t keep = inside ? left : got.row_bytes();
    if (std::memcmp(got.row(y), before.row(y), keep) != 0) {
      return ::testing::AssertionFailure() << "row " << y << " changed left of the view";
    }
    if (!inside) continue;
    if (std::memcmp(got.row(y) + left, source.row(y - at.y + from.y) + static_cast<std::size_t>(from.x) * es, width) != 0) {
      return ::testing::AssertionFailure() << "row " << y << " of the view differs";
    }
    if (std::memcmp(got.row(y) + left + width, before.row(y) + left + width, got.row_bytes() - left - width) != 0) {
      return ::testing::AssertionFailure() << "row " << y << " changed right of the view";
    }
  }
  return ::testing::AssertionSuccess();
}

// Views both ways through ordinary (pageable) memory, from 1 byte to 6.6 MB, rows of 1.1 MB among
// them (on CUDA, uploads from 1 MiB go through the queue's staging in chunks of 256 KiB, or not
// where a row is longer): downloads of device views (pitched source rows) into host views
// (pitched destination rows), uploads of host views into device views; the bytes outside the
// destination view keep their values.
TEST(DeviceMemory, ViewsThroughOrdinaryMemoryArriveWholeAndAlone) {
  struct Shape {
    int width, height;
    Format format;
  };
  const Shape shapes[] = {{1, 1, {Depth::u8, 1}},      {1000, 300, {Depth::u8, 1}}, {1100, 1000, {Depth::f32, 1}},
                          {1500, 1100, {Depth::u8, 4}}, {70000, 3, {Depth::f32, 4}}, {333, 250, {Depth::u8, 3}}};
  std::uint32_t seed = 91;
  for (const Shape& shape : shapes) {
    const std::string name = std::to_string(shape.width) + "x" + std::to_string(shape.height);
    const HostImage source = test::random_image(shape.width + 5, shape.height + 2, shape.format, seed++);
    const DeviceImage device = test::queue().upload(source);
    const HostImage whole = test::queue().download(device);
    for (int y = 0; y < source.height(); ++y) {
      ASSERT_EQ(std::memcmp(whole.row(y), source.row(y), source.row_bytes()), 0) << name << " whole, row " << y;
    }
    const Rect from{3, 1, shape.width, shape.height};
    const Rect at{4, 2, shape.width, shape.height};
    const HostImage before = test::random_image(shape.width + 9, shape.height + 4, shape.format, seed++);
    // The device view into a view of a host image.
    HostImage wider = before.clone();
    HostImage target = wider.view(at);
    test::queue().download(device.view(from), target).wait();
    EXPECT_TRUE(holds_view(wider, before, at, source, from)) << name << " download";
    // The host view into a view of a device image.
    DeviceImage into = test::queue().upload(before);
    test::queue().upload(source.view(from), into.view(at)).wait();
    EXPECT_TRUE(holds_view(test::queue().download(into), before, at, source, from)) << name << " upload";
  }
}

// Allocates images of a quarter of the largest allocation (at most 1 GiB) and fills each, which
// makes the driver really allocate it, until the device refuses; that refusal must be
// out_of_memory naming a size. Off unless PLINTH_GPU_OOM_TEST=1 (it takes the whole device
// memory): the lead runs it once on the H100.
TEST(DeviceMemory, AllocatingUntilTheDeviceRefusesIsOutOfMemory) {
  const char* enabled = std::getenv("PLINTH_GPU_OOM_TEST");
  if (enabled == nullptr || std::string(enabled) != "1") GTEST_SKIP() << "set PLINTH_GPU_OOM_TEST=1 to run";
  const DeviceInfo& info = test::context().device();
  const std::uint64_t chunk = std::min<std::uint64_t>(info.max_allocation / 4, std::uint64_t{1} << 30);
  const int width = 16384;
  const int height = static_cast<int>(chunk / width);
  const std::uint64_t bytes = static_cast<std::uint64_t>(width) * height;
  // Far more than the device's memory: a device that never refuses fails the test.
  const std::uint64_t limit = info.global_memory / bytes * 2 + 8;
  std::vector<DeviceImage> held;
  for (std::uint64_t i = 0; i < limit; ++i) {
    try {
      held.emplace_back(test::context(), width, height, Format{Depth::u8, 1});
      test::queue().fill_bytes(held.back(), static_cast<std::uint8_t>(i)).wait();
    } catch (const Error& e) {
      std::printf("refused after %zu images of %llu bytes (%.1f GiB held): %s\n", held.size(),
                  static_cast<unsigned long long>(bytes), static_cast<double>(held.size() * bytes) / (1 << 30), e.what());
      EXPECT_EQ(e.code(), ErrorCode::out_of_memory) << e.what();
      EXPECT_NE(std::string(e.what()).find(" bytes"), std::string::npos) << e.what();
      return;
    }
  }
  ADD_FAILURE() << "the device never refused, after " << held.size() << " images of " << bytes << " bytes";
}

}  // namespace
}  // namespace plinth
