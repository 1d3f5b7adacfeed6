// NV12 frames: RGB -> NV12 against cv::cvtColor(RGB2YUV_I420), raw files, plane views.
#include <opencv2/imgproc.hpp>

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "plinth/nv12.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

// OpenCV's I420 (Y, then the U plane, then the V plane) rearranged as NV12.
Nv12Frame expected_from_rgb(const HostImage& rgb, int cv_code) {
  cv::Mat i420;
  cv::cvtColor(as_mat(rgb), i420, cv_code);
  const int w = rgb.width(), h = rgb.height();
  Nv12Frame frame = make_nv12_frame(rgb.size());
  for (int y = 0; y < h; ++y) std::memcpy(frame.y.row(y), i420.ptr(y), static_cast<std::size_t>(w));
  const std::uint8_t* u = i420.ptr(h);
  const std::uint8_t* v = u + (w / 2) * (h / 2);
  for (int y = 0; y < h / 2; ++y) {
    for (int x = 0; x < w / 2; ++x) {
      frame.uv.at<std::uint8_t>(x, y, 0) = u[y * (w / 2) + x];
      frame.uv.at<std::uint8_t>(x, y, 1) = v[y * (w / 2) + x];
    }
  }
  return frame;
}

TEST(Nv12, FromRgbMatchesOpenCV) {
  struct Case {
    int channels;
    bool bgr;
    int cv_code;
  };
  const Case cases[] = {{3, false, cv::COLOR_RGB2YUV_I420}, {3, true, cv::COLOR_BGR2YUV_I420},
                        {4, false, cv::COLOR_RGBA2YUV_I420}, {4, true, cv::COLOR_BGRA2YUV_I420}};
  std::uint32_t seed = 1;
  for (const Case& c : cases) {
    for (Size size : {Size{2, 2}, Size{18, 6}, Size{130, 34}}) {
      SCOPED_TRACE(std::to_string(c.channels) + (c.bgr ? " bgr " : " rgb ") + std::to_string(size.width));
      const HostImage rgb = random_image(size.width, size.height, Format{Depth::u8, c.channels}, seed++);
      const Nv12Frame want = expected_from_rgb(rgb, c.cv_code);
      const Nv12Frame got = nv12_from_rgb(rgb, c.bgr);
      EXPECT_TRUE(images_equal(want.y, got.y));
      EXPECT_TRUE(images_equal(want.uv, got.uv));
    }
  }
  EXPECT_TRUE(throws_code([] { nv12_from_rgb(HostImage(5, 4, Format{Depth::u8, 3})); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([] { nv12_from_rgb(HostImage(4, 4, Format{Depth::u8, 1})); }, ErrorCode::unsupported_type));
}

class Nv12Files : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("plinth_nv12_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

Nv12Frame random_frame(Size size, std::uint32_t seed) {
  return Nv12Frame{random_image(size.width, size.height, Format{Depth::u8, 1}, seed),
                   random_image(size.width / 2, size.height / 2, Format{Depth::u8, 2}, seed + 1)};
}

TEST_F(Nv12Files, RoundTripAndFrames) {
  const Size size{22, 10};
  const Nv12Frame a = random_frame(size, 1), b = random_frame(size, 3);
  write_nv12(path("two.nv12"), a);
  write_nv12(path("two.nv12"), b, true);
  EXPECT_EQ(std::filesystem::file_size(path("two.nv12")), 2u * 22 * 10 * 3 / 2);
  EXPECT_EQ(count_nv12_frames(path("two.nv12"), size), 2);
  const Nv12Frame a2 = read_nv12(path("two.nv12"), size, 0);
  const Nv12Frame b2 = read_nv12(path("two.nv12"), size, 1);
  EXPECT_TRUE(images_equal(a.y, a2.y));
  EXPECT_TRUE(images_equal(a.uv, a2.uv));
  EXPECT_TRUE(images_equal(b.y, b2.y));
  EXPECT_TRUE(images_equal(b.uv, b2.uv));
  // The raw layout: Y rows, then UV rows, no padding.
  std::ifstream in(path("two.nv12"), std::ios::binary);
  std::vector<char> bytes(22 * 15);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  EXPECT_EQ(static_cast<std::uint8_t>(bytes[22 * 3 + 5]), a.y.at<std::uint8_t>(5, 3));
  EXPECT_EQ(static_cast<std::uint8_t>(bytes[22 * 10 + 22 * 2 + 7]), a.uv.at<std::uint8_t>(3, 2, 1));
}

TEST_F(Nv12Files, Errors) {
  const Size size{8, 4};
  write_nv12(path("one.nv12"), random_frame(size, 5));
  EXPECT_TRUE(throws_code([&] { read_nv12(path("one.nv12"), Size{10, 4}); }, ErrorCode::format));
  EXPECT_TRUE(throws_code([&] { read_nv12(path("one.nv12"), Size{7, 4}); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { read_nv12(path("one.nv12"), size, 1); }, ErrorCode::out_of_range));
  EXPECT_TRUE(throws_code([&] { read_nv12(path("missing.nv12"), size); }, ErrorCode::io));
  { std::ofstream empty(path("empty.nv12")); }
  EXPECT_TRUE(throws_code([&] { read_nv12(path("empty.nv12"), size); }, ErrorCode::format));
  EXPECT_TRUE(throws_code([&] { write_nv12(path("no/such/dir.nv12"), random_frame(size, 6)); }, ErrorCode::io));
  Nv12Frame bad = random_frame(size, 7);
  bad.uv = HostImage(4, 2, Format{Depth::u8, 1});
  EXPECT_TRUE(throws_code([&] { write_nv12(path("bad.nv12"), bad); }, ErrorCode::invalid_argument));
  // Appending to a FIFO without a reader waited for one for ever.
  ASSERT_EQ(::mkfifo(path("fifo.nv12").c_str(), 0600), 0);
  EXPECT_TRUE(throws_code([&] { write_nv12(path("fifo.nv12"), random_frame(size, 8), true); }, ErrorCode::io));
}

TEST(Nv12, PlanesOfAPackedFrame) {
  const Nv12Frame frame = random_frame(Size{12, 8}, 9);
  const HostImage packed = pack_nv12(frame);
  EXPECT_EQ(packed.height(), 12);
  const Nv12Frame views = nv12_planes(packed);
  EXPECT_TRUE(images_equal(frame.y, views.y));
  EXPECT_TRUE(images_equal(frame.uv, views.uv));
  const DeviceNv12Frame d = nv12_planes(context(), queue().upload(packed));
  EXPECT_TRUE(images_equal(frame.y, queue().download(d.y)));
  EXPECT_TRUE(images_equal(frame.uv, queue().download(d.uv)));
  const Nv12Frame back = download_nv12(queue(), upload_nv12(queue(), frame));
  EXPECT_TRUE(images_equal(frame.uv, back.uv));
  EXPECT_TRUE(throws_code([] { nv12_planes(HostImage(12, 13, Format{Depth::u8, 1})); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([] { nv12_planes(HostImage(12, 12, Format{Depth::u16, 1})); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([] { make_nv12_frame(Size{3, 2}); }, ErrorCode::invalid_argument));
}

}  // namespace
}  // namespace plinth::test
