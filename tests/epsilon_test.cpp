// epsilon_filter against a CPU reference written from docs/epsilon_filter.md, with OpenCV's
// borderInterpolate as the definition of the border modes.
#include <opencv2/core.hpp>

#include "support/test_support.hpp"

namespace plinth::test {
namespace {

int cv_border(BorderMode mode) {
  switch (mode) {
    case BorderMode::constant: return cv::BORDER_CONSTANT;
    case BorderMode::replicate: return cv::BORDER_REPLICATE;
    case BorderMode::reflect: return cv::BORDER_REFLECT;
    case BorderMode::reflect_101: return cv::BORDER_REFLECT_101;
    case BorderMode::wrap: return cv::BORDER_WRAP;
  }
  return -1;
}

// The window value at (x, y), which may lie outside the image.
int value_at(const HostImage& src, int x, int y, const EpsilonOptions& o) {
  if (x < 0 || y < 0 || x >= src.width() || y >= src.height()) {
    if (o.border == BorderMode::constant) return o.border_value;
    x = cv::borderInterpolate(x, src.width(), cv_border(o.border));
    y = cv::borderInterpolate(y, src.height(), cv_border(o.border));
  }
  return src.at<std::uint8_t>(x, y);
}

// out = floor((S + floor(n / 2)) / n) over the neighbours v with |v - centre| <= threshold.
HostImage reference(const HostImage& src, const EpsilonOptions& o) {
  HostImage out(src.width(), src.height(), src.format());
  const int r = o.window / 2;
  for (int y = 0; y < src.height(); ++y) {
    for (int x = 0; x < src.width(); ++x) {
      const int centre = src.at<std::uint8_t>(x, y);
      int sum = 0, count = 0;
      for (int dy = -r; dy <= r; ++dy) {
        for (int dx = -r; dx <= r; ++dx) {
          const int v = value_at(src, x + dx, y + dy, o);
          if (std::abs(v - centre) <= o.threshold) {
            sum += v;
            ++count;
          }
        }
      }
      out.at<std::uint8_t>(x, y) = static_cast<std::uint8_t>((sum + count / 2) / count);
    }
  }
  return out;
}

HostImage run(const HostImage& src, const EpsilonOptions& o, bool views) {
  const DeviceImage d_src = views ? upload_padded(src, 5, 3) : queue().upload(src);
  DeviceImage dst = poisoned_view(src.width(), src.height(), src.format(), views ? 3 : 0, views ? 2 : 0, 0x3C);
  epsilon_filter(queue(), d_src, dst, o).wait();
  return queue().download(dst);
}

// A noisy image with edges: smooth ramps plus blocks and noise, where thresholds matter.
HostImage test_plane(int width, int height, std::uint32_t seed) {
  HostImage img = random_image(width, height, Format{Depth::u8, 1}, seed, 0, 30);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const int base = ((x / 7 + y / 5) % 2) * 150 + (x * 3 + y) % 60;
      img.at<std::uint8_t>(x, y) = static_cast<std::uint8_t>(std::min(255, base + img.at<std::uint8_t>(x, y)));
    }
  }
  return img;
}

TEST(Epsilon, MatchesReference) {
  std::uint32_t seed = 1;
  for (EpsilonMethod method : {EpsilonMethod::plain, EpsilonMethod::tiled, EpsilonMethod::blocked, EpsilonMethod::pairs}) {
    for (int window : {1, 3, 5, 9, 11, 31}) {
      if (method == EpsilonMethod::pairs && window > 5) continue;  // wider ones: PairsAcrossTiles
      for (int threshold : {0, 12, 40, 255}) {
        for (Size size : {Size{1, 1}, Size{37, 23}, Size{300, 19}}) {
          SCOPED_TRACE(std::string(to_string(method)) + " window " + std::to_string(window) + " threshold " +
                       std::to_string(threshold) + " " + std::to_string(size.width) + "x" + std::to_string(size.height));
          const HostImage src = test_plane(size.width, size.height, seed++);
          EpsilonOptions o;
          o.window = window;
          o.threshold = threshold;
          o.method = method;
          EXPECT_TRUE(images_equal(reference(src, o), run(src, o, (seed & 1) != 0)));
        }
      }
    }
  }
}

// blocked's work-groups own 128 x 32 outputs (4 x 4 per work-item; 2 or 1 rows from 11x11 and 17x17
// on): a plane of several tiles each way with partial ones, for every row count.
TEST(Epsilon, BlockedAcrossTiles) {
  std::uint32_t seed = 50;
  for (int window : {3, 11, 17}) {
    SCOPED_TRACE("window " + std::to_string(window));
    const HostImage src = test_plane(261, 77, seed++);
    EpsilonOptions o;
    o.window = window;
    o.threshold = 25;
    o.method = EpsilonMethod::blocked;
    EXPECT_TRUE(images_equal(reference(src, o), run(src, o, true)));
  }
}

// pairs' work-groups own 128 x 64 outputs in strips of 4 x 8 per work-item: planes of several tiles
// each way with partial ones, every window it runs, every threshold class (none, some, all count),
// with odd offsets and pitches (element loads, byte stores) and, for 3x3 and 5x5, word-aligned rows
// (aligned word loads and stores inside the image). Each window and alignment is one more program
// for PoCL to compile (4 to 18 s each on CI's cores), hence not every pairing.
TEST(Epsilon, PairsAcrossTiles) {
  std::uint32_t seed = 70;
  for (int window : {3, 5, 7, 9, 11}) {
    for (int threshold : {0, 9, 30, 255}) {
      for (bool views : {false, true}) {
        if (window > 5 && !views) continue;
        SCOPED_TRACE("window " + std::to_string(window) + " threshold " + std::to_string(threshold) +
                     (views ? " view" : ""));
        const HostImage src = test_plane(window == 3 ? 300 : 260, window == 3 ? 150 : 70, seed++);
        EpsilonOptions o;
        o.window = window;
        o.threshold = threshold;
        o.method = EpsilonMethod::pairs;
        EXPECT_TRUE(images_equal(reference(src, o), run(src, o, views)));
      }
    }
  }
  // A plane whose values sit near the threshold everywhere: many even counts, so rounding ties.
  HostImage flat(200, 66, Format{Depth::u8, 1});
  for (int y = 0; y < 66; ++y) {
    for (int x = 0; x < 200; ++x) flat.at<std::uint8_t>(x, y) = static_cast<std::uint8_t>(100 + ((x * 7 + y * 3) % 5) * 3);
  }
  for (int window : {3, 5, 11}) {
    EpsilonOptions o;
    o.window = window;
    o.threshold = 6;
    o.method = EpsilonMethod::pairs;
    EXPECT_TRUE(images_equal(reference(flat, o), run(flat, o, window == 11))) << "flat window " << window;
  }
}

TEST(Epsilon, BorderModes) {
  std::uint32_t seed = 100;
  for (BorderMode border : {BorderMode::constant, BorderMode::replicate, BorderMode::reflect, BorderMode::reflect_101,
                            BorderMode::wrap}) {
    for (EpsilonMethod method : {EpsilonMethod::plain, EpsilonMethod::tiled, EpsilonMethod::blocked, EpsilonMethod::pairs}) {
      // The plain kernel shares the border code; two modes suffice for it.
      if (method == EpsilonMethod::plain && border != BorderMode::constant && border != BorderMode::wrap) continue;
      for (Size size : {Size{2, 3}, Size{133, 17}}) {
        SCOPED_TRACE(std::string(to_string(border)) + " " + std::string(to_string(method)) + " " + std::to_string(size.width));
        const HostImage src = test_plane(size.width, size.height, seed++);
        EpsilonOptions o;
        o.window = method == EpsilonMethod::pairs ? 5 : 7;  // pairs: a cheaper program for PoCL to build
        o.threshold = 60;
        o.border = border;
        o.border_value = 90;
        o.method = method;
        EXPECT_TRUE(images_equal(reference(src, o), run(src, o, true)));
      }
    }
  }
}

// Threshold 0 keeps every pixel (only its equals are averaged), and a threshold of 255 is a box
// mean rounded half up.
TEST(Epsilon, Extremes) {
  const HostImage src = test_plane(64, 16, 7);
  EpsilonOptions o;
  o.window = 5;
  o.threshold = 0;
  EXPECT_TRUE(images_equal(src, run(src, o, false)));
  o.threshold = 255;
  o.border = BorderMode::replicate;
  HostImage box(64, 16, src.format());
  for (int y = 0; y < 16; ++y) {
    for (int x = 0; x < 64; ++x) {
      int sum = 0;
      for (int dy = -2; dy <= 2; ++dy) {
        for (int dx = -2; dx <= 2; ++dx) sum += src.at<std::uint8_t>(std::clamp(x + dx, 0, 63), std::clamp(y + dy, 0, 15));
      }
      box.at<std::uint8_t>(x, y) = static_cast<std::uint8_t>((sum + 12) / 25);
    }
  }
  EXPECT_TRUE(images_equal(box, run(src, o, false)));
}

TEST(Epsilon, Nv12FrameKeepsChroma) {
  Nv12Frame frame{test_plane(46, 30, 11), random_image(23, 15, Format{Depth::u8, 2}, 12)};
  EpsilonOptions o;
  o.window = 3;
  o.threshold = 25;
  const Nv12Frame out = epsilon_filter(queue(), frame, o);
  EXPECT_TRUE(images_equal(reference(frame.y, o), out.y));
  EXPECT_TRUE(images_equal(frame.uv, out.uv));
  // Device frames, with an allocated destination and in-place chroma.
  DeviceNv12Frame d = upload_nv12(queue(), frame);
  DeviceNv12Frame d_out{DeviceImage(), d.uv};
  epsilon_filter(queue(), d, d_out, o).wait();
  EXPECT_TRUE(images_equal(reference(frame.y, o), queue().download(d_out.y)));
}

TEST(Epsilon, Errors) {
  const DeviceImage y = queue().upload(test_plane(8, 8, 1));
  const DeviceImage rgb = queue().upload(random_image(8, 8, Format{Depth::u8, 3}, 2));
  DeviceImage dst;
  const auto with = [](int window, int threshold) {
    EpsilonOptions o;
    o.window = window;
    o.threshold = threshold;
    return o;
  };
  EXPECT_TRUE(throws_code([&] { epsilon_filter(queue(), y, dst, with(4, 10)); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { epsilon_filter(queue(), y, dst, with(33, 10)); }, ErrorCode::out_of_range));
  EXPECT_TRUE(throws_code([&] { epsilon_filter(queue(), y, dst, with(3, 256)); }, ErrorCode::out_of_range));
  EXPECT_TRUE(throws_code([&] { epsilon_filter(queue(), y, dst, with(3, -1)); }, ErrorCode::out_of_range));
  EXPECT_TRUE(throws_code([&] { epsilon_filter(queue(), rgb, dst, with(3, 10)); }, ErrorCode::unsupported_type));
  DeviceImage same = y;
  EXPECT_TRUE(throws_code([&] { epsilon_filter(queue(), y, same, with(3, 10)); }, ErrorCode::invalid_argument));
  DeviceNv12Frame bad{y, DeviceImage(context(), 3, 4, Format{Depth::u8, 2})};
  DeviceNv12Frame out;
  EXPECT_TRUE(throws_code([&] { epsilon_filter(queue(), bad, out, with(3, 10)); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([] { parse_epsilon_method("fast"); }, ErrorCode::invalid_argument));
  EpsilonOptions wide = with(13, 10);
  wide.method = EpsilonMethod::pairs;
  EXPECT_TRUE(throws_code([&] { epsilon_filter(queue(), y, dst, wide); }, ErrorCode::invalid_argument));
}

}  // namespace
}  // namespace plinth::test
