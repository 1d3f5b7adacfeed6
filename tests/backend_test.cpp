// Device selection by backend, the CUDA backend's errors where CUDA is missing, NVRTC's build
// log, and CUDA interop (device pointers with a pitch, a user's stream, event timing) on a
// CUDA device.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "backend/cuda/api.hpp"
#include "core/backend.hpp"
#include "core/launch.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

// A launch keeps its first 32 arguments inline and moves them into a vector at the 33rd: every
// argument must come out in order across that switch (kernels of more than 64 parameters exist).
TEST(Backend, LaunchArgumentsKeepTheirOrderPastTheInlineOnes) {
  for (const std::size_t count : {std::size_t{0}, std::size_t{1}, detail::KernelArgs::kInline, detail::KernelArgs::kInline + 1,
                                  std::size_t{70}}) {
    detail::KernelArgs args;
    for (std::size_t i = 0; i < count; ++i) {
      detail::KernelArg a;
      a.size = i;
      a.bytes[0] = static_cast<std::byte>(i);
      args.push_back(a);
    }
    const std::span<const detail::KernelArg> view = args.view();
    ASSERT_EQ(view.size(), count);
    for (std::size_t i = 0; i < count; ++i) {
      EXPECT_EQ(view[i].size, i) << count;
      EXPECT_EQ(view[i].bytes[0], static_cast<std::byte>(i)) << count;
    }
  }
}

TEST(Backend, DevicesNameTheirBackend) {
  for (const DeviceInfo& d : list_devices()) {
    EXPECT_TRUE(d.backend == "cuda" || d.backend == "opencl") << d.name;
    const DeviceInfo chosen = select_device(d.backend + ":" + std::to_string(d.index));
    EXPECT_EQ(chosen.backend, d.backend);
    EXPECT_EQ(chosen.index, d.index);
    EXPECT_EQ(chosen.name, d.name);
  }
}

TEST(Backend, CudaAskedForByNameNeverFallsBack) {
  const std::string why = backend_unavailable("cuda");
  if (why.empty()) {
    EXPECT_EQ(select_device("cuda").backend, "cuda");
    return;
  }
  try {
    select_device("cuda:0");
    FAIL() << "cuda:0 was selected although CUDA is unavailable (" << why << ")";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::device);
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
  EXPECT_TRUE(throws_code([] { Context c("cuda"); }, ErrorCode::device));
}

TEST(Backend, NvrtcReportsTheBuildLog) {
  std::string why;
  const cuda::Nvrtc* rtc = cuda::nvrtc(&why);
  if (rtc == nullptr) GTEST_SKIP() << why;
  try {
    cuda::compile(*rtc, "extern \"C\" __global__ void k(int* p) { p[0] = undeclared_name; }", cuda::base_options(90),
                  "probe.cl", true, nullptr);
    FAIL() << "a kernel with an undeclared name compiled";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kernel_build);
    EXPECT_NE(std::string(e.what()).find("undeclared_name"), std::string::npos) << e.what();
  }
}

// On CUDA: an image's device pointer wrapped again with its pitch reads the same pixels, a
// queue adopted from plinth's own stream runs work, and events time with CUDA events.
TEST(Backend, CudaInterop) {
  if (context().device().backend != "cuda") GTEST_SKIP() << "not a CUDA device";
  const HostImage host = random_image(37, 11, Format{Depth::u8, 3}, 5);
  DeviceImage owned = upload_padded(host, 3, 2);
  DeviceImage wrapped = DeviceImage::wrap(context(), owned.native(), owned.width(), owned.height(), owned.format(),
                                          owned.pitch(), owned.offset());
  EXPECT_TRUE(images_equal(host, queue().download(wrapped)));
  EXPECT_TRUE(throws_code(
      [&] { DeviceImage::wrap(context(), reinterpret_cast<void*>(std::uintptr_t{16}), 4, 4, Format{}, 4); },
      ErrorCode::invalid_argument));

  Queue adopted = Queue::from_native(context(), queue().native());
  EXPECT_EQ(adopted.native(), queue().native());
  DeviceImage copy(context(), host.width(), host.height(), host.format());
  adopted.set_timing(true);
  const Event e = adopted.copy(wrapped, copy);
  e.wait();
  EXPECT_GE(e.elapsed_us(), 0.0);
  EXPECT_TRUE(images_equal(host, adopted.download(copy)));
}

// Timing off (a new queue's default): commands get no device events, yet their Events wait, give
// a native handle and refuse timestamps with the one-line error; timing on: timestamps in order.
// Either way, a kernel called again with other images (its arguments then only partly set
// again) computes on the new ones.
TEST(Backend, EventsWithAndWithoutTiming) {
  Queue q(context());
  EXPECT_FALSE(q.timing());
  const HostImage a = random_image(33, 7, Format{Depth::u8, 1}, 1), b = random_image(33, 7, Format{Depth::u8, 1}, 2);
  const DeviceImage da = q.upload(a), db = q.upload(b);
  DeviceImage out(context(), 33, 7, Format{Depth::f32, 1});
  const Event pending = convert_to(q, da, out, Depth::f32);
  pending.wait();
  EXPECT_NE(pending.last()->native(), nullptr);
  EXPECT_TRUE(throws_code([&] { (void)pending.elapsed_us(); }, ErrorCode::invalid_argument));
  HostImage expected(33, 7, Format{Depth::f32, 1});
  for (int y = 0; y < 7; ++y) {
    for (int x = 0; x < 33; ++x) expected.at<float>(x, y) = static_cast<float>(b.at<std::uint8_t>(x, y));
  }
  (void)convert_to(q, db, out, Depth::f32);  // the same kernel, one argument changed
  EXPECT_TRUE(images_equal(expected, q.download(out)));

  q.set_timing(true);
  const Event first = convert_to(q, da, out, Depth::f32);
  const Event second = convert_to(q, db, out, Depth::f32);
  EXPECT_GE(first.elapsed_us(), 0.0);
  EXPECT_LE(first.start_ns(), second.end_ns());
  EXPECT_TRUE(images_equal(expected, q.download(out)));
}

}  // namespace
}  // namespace plinth::test
