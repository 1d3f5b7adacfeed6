// cvt_color against cv::cvtColor: RGB family to grey (u8, u16, f32) and NV12 to grey / RGB(A) / BGR(A).
#include <opencv2/imgproc.hpp>

#include "plinth/color.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

struct GrayCase {
  ColorConversion code;
  int cv_code;
  int channels;
};

constexpr GrayCase kGray[] = {
    {ColorConversion::rgb_to_gray, cv::COLOR_RGB2GRAY, 3},
    {ColorConversion::bgr_to_gray, cv::COLOR_BGR2GRAY, 3},
    {ColorConversion::rgba_to_gray, cv::COLOR_RGBA2GRAY, 4},
    {ColorConversion::bgra_to_gray, cv::COLOR_BGRA2GRAY, 4},
};

TEST(Color, ToGrayMatchesOpenCV) {
  const Size sizes[] = {{1, 1}, {13, 5}, {67, 9}, {300, 17}};
  std::uint32_t seed = 1;
  for (const GrayCase& c : kGray) {
    for (Depth depth : {Depth::u8, Depth::u16, Depth::f32}) {
      for (Size size : sizes) {
        for (bool views : {false, true}) {
          SCOPED_TRACE(std::string(to_string(c.code)) + " " + std::string(to_string(depth)) + " " +
                       std::to_string(size.width) + "x" + std::to_string(size.height) + (views ? " views" : ""));
          const HostImage src = random_image(size.width, size.height, Format{depth, c.channels}, seed++);
          cv::Mat want;
          cv::cvtColor(as_mat(src), want, c.cv_code);
          DeviceImage d_src = views ? upload_padded(src, 3, 1) : queue().upload(src);
          DeviceImage dst = poisoned_view(size.width, size.height, Format{depth, 1}, views ? 1 : 0, views ? 2 : 0, 0xAB);
          cvt_color(queue(), d_src, dst, c.code).wait();
          if (depth == Depth::f32) {
            // OpenCV's vector loop fuses like ours; its scalar tail (the last width % 8 pixels of
            // a row) rounds each product, so those may differ in the last bit.
            EXPECT_TRUE(images_near(from_mat(want), queue().download(dst), 1e-6, 1e-3));
          } else {
            EXPECT_TRUE(images_equal(from_mat(want), queue().download(dst)));
          }
        }
      }
    }
  }
}

struct Nv12Case {
  ColorConversion code;
  int cv_code;
  int channels;
};

constexpr Nv12Case kNv12[] = {
    {ColorConversion::nv12_to_gray, cv::COLOR_YUV2GRAY_NV12, 1},
    {ColorConversion::nv12_to_rgb, cv::COLOR_YUV2RGB_NV12, 3},
    {ColorConversion::nv12_to_bgr, cv::COLOR_YUV2BGR_NV12, 3},
    {ColorConversion::nv12_to_rgba, cv::COLOR_YUV2RGBA_NV12, 4},
    {ColorConversion::nv12_to_bgra, cv::COLOR_YUV2BGRA_NV12, 4},
};

Nv12Frame random_frame(Size size, std::uint32_t seed) {
  return Nv12Frame{random_image(size.width, size.height, Format{Depth::u8, 1}, seed),
                   random_image(size.width / 2, size.height / 2, Format{Depth::u8, 2}, seed + 1000)};
}

TEST(Color, Nv12MatchesOpenCV) {
  const Size sizes[] = {{2, 2}, {14, 6}, {62, 10}, {258, 34}};
  std::uint32_t seed = 50;
  for (const Nv12Case& c : kNv12) {
    for (Size size : sizes) {
      SCOPED_TRACE(std::string(to_string(c.code)) + " " + std::to_string(size.width) + "x" + std::to_string(size.height));
      const Nv12Frame frame = random_frame(size, seed++);
      cv::Mat want;
      cv::cvtColor(as_mat(pack_nv12(frame)), want, c.cv_code);
      // Separate planes inside padded buffers, and an output view.
      DeviceNv12Frame d_frame{upload_padded(frame.y, 2, 1), upload_padded(frame.uv, 1, 3)};
      DeviceImage dst = poisoned_view(size.width, size.height, Format{Depth::u8, c.channels}, 3, 1, 0x77);
      cvt_color(queue(), d_frame, dst, c.code).wait();
      EXPECT_TRUE(images_equal(from_mat(want), queue().download(dst)));
      // A packed W x 3H/2 frame split into device views.
      const DeviceImage packed = queue().upload(pack_nv12(frame));
      DeviceImage dst2;
      cvt_color(queue(), nv12_planes(context(), packed), dst2, c.code).wait();
      EXPECT_TRUE(images_equal(from_mat(want), queue().download(dst2)));
    }
  }
}

// Every (Y, U, V) corner of the saturation: Y 0..255 against extreme chroma.
TEST(Color, Nv12Extremes) {
  Nv12Frame frame = make_nv12_frame(Size{256, 8});
  for (int y = 0; y < 8; ++y) {
    for (int x = 0; x < 256; ++x) frame.y.at<std::uint8_t>(x, y) = static_cast<std::uint8_t>(x);
  }
  const std::uint8_t chroma[] = {0, 255, 128, 16, 240};
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 128; ++x) {
      frame.uv.at<std::uint8_t>(x, y, 0) = chroma[(x + y) % 5];
      frame.uv.at<std::uint8_t>(x, y, 1) = chroma[(x / 5 + 2 * y) % 5];
    }
  }
  cv::Mat want;
  cv::cvtColor(as_mat(pack_nv12(frame)), want, cv::COLOR_YUV2BGR_NV12);
  EXPECT_TRUE(images_equal(from_mat(want), cvt_color(queue(), frame, ColorConversion::nv12_to_bgr)));
}

TEST(Color, Errors) {
  const DeviceImage rgb = queue().upload(random_image(8, 8, Format{Depth::u8, 3}, 1));
  const DeviceImage gray = queue().upload(random_image(8, 8, Format{Depth::u8, 1}, 2));
  const DeviceImage s16 = queue().upload(random_image(8, 8, Format{Depth::s16, 3}, 3));
  DeviceImage dst;
  EXPECT_TRUE(throws_code([&] { cvt_color(queue(), gray, dst, ColorConversion::rgb_to_gray); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { cvt_color(queue(), rgb, dst, ColorConversion::rgba_to_gray); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { cvt_color(queue(), s16, dst, ColorConversion::rgb_to_gray); }, ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([&] { cvt_color(queue(), rgb, dst, ColorConversion::nv12_to_rgb); }, ErrorCode::invalid_argument));
  DeviceImage wrong(context(), 8, 8, Format{Depth::u8, 3});
  EXPECT_TRUE(throws_code([&] { cvt_color(queue(), rgb, wrong, ColorConversion::rgb_to_gray); }, ErrorCode::invalid_argument));
  // NV12 frames with planes of the wrong shape.
  DeviceNv12Frame frame = make_device_nv12_frame(context(), Size{8, 8});
  EXPECT_TRUE(throws_code([&] { cvt_color(queue(), frame, dst, ColorConversion::rgb_to_gray); }, ErrorCode::invalid_argument));
  frame.uv = DeviceImage(context(), 4, 3, Format{Depth::u8, 2});
  EXPECT_TRUE(throws_code([&] { cvt_color(queue(), frame, dst, ColorConversion::nv12_to_rgb); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([] { parse_color_conversion("rgb2gray"); }, ErrorCode::invalid_argument));
  EXPECT_EQ(parse_color_conversion("nv12_to_bgra"), ColorConversion::nv12_to_bgra);
}

}  // namespace
}  // namespace plinth::test
