// Device selection by backend, the CUDA backend's errors where CUDA is missing, NVRTC's build
// log, and CUDA interop (device pointers with a pitch, a user's stream, event timing) on a
// CUDA device.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "backend/cuda/api.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

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
  const Event e = adopted.copy(wrapped, copy);
  e.wait();
  EXPECT_GE(e.elapsed_us(), 0.0);
  EXPECT_TRUE(images_equal(host, adopted.download(copy)));
}

}  // namespace
}  // namespace plinth::test
