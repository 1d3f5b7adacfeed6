// Integral images against OpenCV 4.6's cv::integral (the specification) and, for plinth's own
// additions (count, u32 / 64-bit outputs, wrap-around), against references written here.
#include <opencv2/imgproc.hpp>

#include <cstring>
#include <tuple>

#include "ops/integral_plan.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

constexpr IntegralMethod kFastMethods[] = {IntegralMethod::tiled, IntegralMethod::single_pass, IntegralMethod::block_4x4,
                                           IntegralMethod::blelloch, IntegralMethod::blocked_scan};

// Runs plinth on a padded view of src into poisoned output views, downloads the outputs.
IntegralImages run_plinth(const HostImage& src, bool sq, bool tilted, Depth sum_depth, Depth sq_depth,
                          IntegralMethod method, int batch = 1) {
  const DeviceImage d_src = upload_padded(src, 3, 2);
  const int w = src.width() + 1, h = batch * (src.height() / batch + 1);
  DeviceImage sum = poisoned_view(w, h, Format{sum_depth, src.channels()}, 5, 1, 0xCD);
  DeviceImage sqsum = sq ? poisoned_view(w, h, Format{sq_depth, src.channels()}, 1, 3, 0xCD) : DeviceImage();
  DeviceImage tilt = tilted ? poisoned_view(w, h, Format{sum_depth, src.channels()}, 2, 2, 0xCD) : DeviceImage();
  IntegralOptions options;
  options.method = method;
  options.batch = batch;
  integral(queue(), d_src, IntegralOutputs{&sum, sq ? &sqsum : nullptr, tilted ? &tilt : nullptr}, options).wait();
  IntegralImages out;
  out.sum = queue().download(sum);
  if (sq) out.sqsum = queue().download(sqsum);
  if (tilted) out.tilted = queue().download(tilt);
  return out;
}

// The sum alone, into a poisoned view, by `options`.
HostImage run_plinth_sum(const HostImage& src, Depth depth, const IntegralOptions& options) {
  const DeviceImage d_src = upload_padded(src, 3, 2);
  const int h = options.batch * (src.height() / options.batch + 1);
  DeviceImage sum = poisoned_view(src.width() + 1, h, Format{depth, src.channels()}, 5, 1, 0xCD);
  integral(queue(), d_src, sum, options).wait();
  return queue().download(sum);
}

// --- Every depth combination OpenCV accepts, every channel count, sizes around the tiles ----

struct Combo {
  Depth src, sum, sq;
};

constexpr Combo kOpenCvCombos[] = {
    {Depth::u8, Depth::s32, Depth::f64},  {Depth::u8, Depth::s32, Depth::s32}, {Depth::u8, Depth::s32, Depth::f32},
    {Depth::u8, Depth::f32, Depth::f64},  {Depth::u8, Depth::f32, Depth::f32}, {Depth::u8, Depth::f64, Depth::f64},
    {Depth::u16, Depth::f64, Depth::f64}, {Depth::s16, Depth::f64, Depth::f64}, {Depth::f32, Depth::f32, Depth::f64},
    {Depth::f32, Depth::f32, Depth::f32}, {Depth::f32, Depth::f64, Depth::f64}, {Depth::f64, Depth::f64, Depth::f64},
};

class IntegralVsOpenCV : public ::testing::TestWithParam<std::tuple<Combo, int>> {};

TEST_P(IntegralVsOpenCV, SumSquaredAndTiltedAreBitExact) {
  const auto [combo, channels] = GetParam();
  for (auto [w, h] : {std::pair{1, 1}, {7, 3}, {37, 23}, {131, 67}, {300, 161}}) {
    const HostImage src = random_image(w, h, Format{combo.src, channels}, static_cast<std::uint32_t>(w * 7 + h));
    cv::Mat sum, sq, tilted;
    cv::integral(as_mat(src), sum, sq, tilted, cv_depth(combo.sum), cv_depth(combo.sq));
    const IntegralImages got = run_plinth(src, true, true, combo.sum, combo.sq, IntegralMethod::automatic);
    EXPECT_TRUE(images_equal(from_mat(sum), got.sum)) << "sum " << w << "x" << h;
    EXPECT_TRUE(images_equal(from_mat(sq), got.sqsum)) << "sqsum " << w << "x" << h;
    EXPECT_TRUE(images_equal(from_mat(tilted), got.tilted)) << "tilted " << w << "x" << h;
  }
}

INSTANTIATE_TEST_SUITE_P(AllDepths, IntegralVsOpenCV,
                         ::testing::Combine(::testing::ValuesIn(kOpenCvCombos), ::testing::Values(1, 3)));
INSTANTIATE_TEST_SUITE_P(Channels, IntegralVsOpenCV,
                         ::testing::Combine(::testing::Values(kOpenCvCombos[0], kOpenCvCombos[8]),
                                            ::testing::Values(2, 4)));

// --- Every method gives the same, OpenCV's, result --------------------------------------------

TEST(IntegralMethods, EveryMethodMatchesOpenCV) {
  for (IntegralMethod method : {IntegralMethod::row_column, IntegralMethod::tiled, IntegralMethod::single_pass, IntegralMethod::block_4x4,
                                IntegralMethod::blelloch, IntegralMethod::blocked_scan}) {
    for (auto [w, h, cn] : {std::tuple{1, 1, 1}, {5, 9, 1}, {128, 64, 1}, {131, 127, 1}, {613, 601, 1}, {67, 45, 3}}) {
      const HostImage src = random_image(w, h, Format{Depth::u8, cn}, static_cast<std::uint32_t>(w + h));
      cv::Mat sum, sq;
      cv::integral(as_mat(src), sum, sq, CV_32S, CV_64F);
      const IntegralImages got = run_plinth(src, true, false, Depth::s32, Depth::f64, method);
      EXPECT_TRUE(images_equal(from_mat(sum), got.sum)) << to_string(method) << " sum " << w << "x" << h << "x" << cn;
      EXPECT_TRUE(images_equal(from_mat(sq), got.sqsum)) << to_string(method) << " sqsum " << w << "x" << h;
    }
  }
}

TEST(IntegralMethods, SixteenBitSourcesAndOrderFreeFloats) {
  // u16 / s16 into f64 are exact in any order; every method must agree with OpenCV.
  for (IntegralMethod method : kFastMethods) {
    for (Depth depth : {Depth::u16, Depth::s16}) {
      const HostImage src = random_image(203, 77, Format{depth, 1}, 11);
      cv::Mat sum, sq;
      cv::integral(as_mat(src), sum, sq, CV_64F, CV_64F);
      const IntegralImages got = run_plinth(src, true, false, Depth::f64, Depth::f64, method);
      EXPECT_TRUE(images_equal(from_mat(sum), got.sum)) << to_string(method) << " " << to_string(depth);
      EXPECT_TRUE(images_equal(from_mat(sq), got.sqsum)) << to_string(method) << " " << to_string(depth);
    }
  }
}

// resident computes the sum (or count) alone: padded views and aligned images, integer sources
// into s32, u32 or f64, channels, batches, the count, and sizes around its blocks (128 columns by
// 64 to 128 rows; ResidentTakesEveryBlockShape makes sure each shape runs).
TEST(IntegralMethods, ResidentSumsMatchOpenCV) {
  IntegralOptions options;
  options.method = IntegralMethod::resident;
  for (auto [w, h, cn] : {std::tuple{1, 1, 1}, {4, 1, 1}, {5, 9, 1}, {128, 128, 1}, {129, 129, 1}, {613, 601, 1},
                          {1000, 333, 1}, {67, 45, 3}, {300, 70, 4}, {17000, 40, 1}, {100, 4500, 1}, {2100, 2000, 1}}) {
    const HostImage src = random_image(w, h, Format{Depth::u8, cn}, static_cast<std::uint32_t>(w * 3 + h));
    cv::Mat sum;
    cv::integral(as_mat(src), sum, CV_32S);
    EXPECT_TRUE(images_equal(from_mat(sum), run_plinth_sum(src, Depth::s32, options)))
        << w << "x" << h << "x" << cn << " padded";
    DeviceImage d_sum;
    integral(queue(), queue().upload(src), d_sum, options).wait();
    EXPECT_TRUE(images_equal(from_mat(sum), queue().download(d_sum))) << w << "x" << h << "x" << cn << " aligned";
  }
  for (Depth depth : {Depth::u8, Depth::u16, Depth::s16}) {  // f64 sums, exact in any order
    const HostImage src = random_image(203, 77, Format{depth, 2}, 12);
    cv::Mat sum;
    cv::integral(as_mat(src), sum, CV_64F);
    EXPECT_TRUE(images_equal(from_mat(sum), run_plinth_sum(src, Depth::f64, options))) << to_string(depth);
  }
  const int n = 3, w = 211, h = 97;
  const HostImage stack = random_image(w, n * h, Format{Depth::u8, 1}, 41);
  IntegralOptions batched = options;
  batched.batch = n;
  const HostImage got = run_plinth_sum(stack, Depth::u32, batched);
  for (int i = 0; i < n; ++i) {
    cv::Mat sum;
    cv::integral(as_mat(stack.view(Rect{0, i * h, w, h})), sum, CV_32S);
    const HostImage expected = from_mat(sum);
    EXPECT_TRUE(images_equal(HostImage::wrap(expected.data(), w + 1, h + 1, Format{Depth::u32, 1},
                                             expected.pitch()),
                             got.view(Rect{0, i * (h + 1), w + 1, h + 1})))
        << "batch image " << i;
  }
  const HostImage mask_src = random_image(157, 91, Format{Depth::u8, 1}, 31, 0, 3);
  cv::Mat mask = (as_mat(mask_src) != 0) / 255, count;
  cv::integral(mask, count, CV_32S);
  EXPECT_TRUE(images_equal(from_mat(count), integral_count(queue(), mask_src, options)));
  // A squared sum is tiled's: resident refuses it before anything is enqueued, tilted included.
  const DeviceImage d_stack = queue().upload(stack);
  EXPECT_TRUE(throws_code([&] { DeviceImage s, sq; integral(queue(), d_stack, s, sq, options); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { DeviceImage s, sq, t; integral(queue(), d_stack, s, sq, t, options); },
                          ErrorCode::invalid_argument));
}

// resident's three u8 block shapes (detail::resident_shape), each at a size that takes it on this
// device: 64-row blocks all at once, 128-row blocks of 8 warps all at once, and more blocks than
// that (4 warps), three columns of blocks and a partial last row of them.
TEST(IntegralMethods, ResidentTakesEveryBlockShape) {
  const unsigned units = queue().context().device().compute_units;
  const int at_once = 4 * static_cast<int>(std::max(units, 1u)), rows = at_once / 3;
  IntegralOptions options;
  options.method = IntegralMethod::resident;
  for (auto [h, warps, rows_per_warp] : {std::tuple{64 - 37, 8, 8}, {128 * rows - 37, 8, 16}, {128 * (rows + 1) - 37, 4, 32}}) {
    const int w = 300;
    const detail::ResidentShape shape = detail::resident_shape(1, 1, w, h, units);
    ASSERT_EQ(shape.warps, warps) << w << "x" << h;
    ASSERT_EQ(shape.rows_per_warp, rows_per_warp) << w << "x" << h;
    const HostImage src = random_image(w, h, Format{Depth::u8, 1}, static_cast<std::uint32_t>(h));
    cv::Mat sum;
    cv::integral(as_mat(src), sum, CV_32S);
    DeviceImage d_sum;
    integral(queue(), queue().upload(src), d_sum, options).wait();
    EXPECT_TRUE(images_equal(from_mat(sum), queue().download(d_sum))) << w << "x" << h;
  }
}

// cluster (the CUDA backend on sm_90 and newer): sizes around its strips of 128 columns and its
// bands (1 to 16 a strip, 1 to 6 rows a warp), rows left of a strip in 0 to 3 pieces of 512
// bytes (the packed scan for at most one), padded views (byte loads) and aligned images (word and
// 16-byte loads), s32 and u32 outputs, and the count. Elsewhere, and for what it does not take, a
// clear refusal.
TEST(IntegralMethods, ClusterSumsMatchOpenCV) {
  IntegralOptions options;
  options.method = IntegralMethod::cluster;
  const HostImage small = random_image(64, 48, Format{Depth::u8, 1}, 3);
  const DeviceInfo& device = queue().context().device();
  if (device.backend != "cuda" || device.nvidia_arch < 90) {
    EXPECT_TRUE(throws_code([&] { DeviceImage s; integral(queue(), queue().upload(small), s, options); },
                            ErrorCode::invalid_argument));
    GTEST_SKIP() << "cluster needs the CUDA backend on an NVIDIA GPU of compute capability 9.0 or newer";
  }
  for (auto [w, h] : {std::pair{1, 1}, {4, 1}, {5, 9}, {128, 128}, {129, 129}, {640, 480}, {613, 601}, {1000, 333},
                      {1664, 768}, {300, 700}, {127, 513}, {641, 130}}) {
    const HostImage src = random_image(w, h, Format{Depth::u8, 1}, static_cast<std::uint32_t>(w * 7 + h));
    cv::Mat sum;
    cv::integral(as_mat(src), sum, CV_32S);
    const HostImage expected = from_mat(sum);
    EXPECT_TRUE(images_equal(expected, run_plinth_sum(src, Depth::s32, options))) << w << "x" << h << " padded";
    DeviceImage d_sum;
    integral(queue(), queue().upload(src), d_sum, options).wait();
    EXPECT_TRUE(images_equal(expected, queue().download(d_sum))) << w << "x" << h << " aligned";
    EXPECT_TRUE(images_equal(HostImage::wrap(expected.data(), w + 1, h + 1, Format{Depth::u32, 1}, expected.pitch()),
                             run_plinth_sum(src, Depth::u32, options)))
        << w << "x" << h << " u32";
  }
  const DeviceImage d_small = queue().upload(small);
  const Size largest = kIntegralClusterMaxSize;
  ASSERT_EQ(largest, (Size{1664, 768}));  // the largest size above
  const DeviceImage too_wide = queue().upload(random_image(largest.width + 1, 8, Format{Depth::u8, 1}, 4));
  const DeviceImage too_tall = queue().upload(random_image(8, largest.height + 1, Format{Depth::u8, 1}, 6));
  const DeviceImage two_channels = queue().upload(random_image(64, 48, Format{Depth::u8, 2}, 5));
  for (const DeviceImage* src : {&too_wide, &too_tall, &two_channels}) {
    EXPECT_TRUE(throws_code([&] { DeviceImage s; integral(queue(), *src, s, options); }, ErrorCode::invalid_argument))
        << src->width() << "x" << src->height() << "x" << src->channels();
  }
  EXPECT_TRUE(throws_code([&] { DeviceImage s, sq; integral(queue(), d_small, s, sq, options); },
                          ErrorCode::invalid_argument));
  const HostImage wide = random_image(64, 48, Format{Depth::u16, 1}, 7);
  EXPECT_TRUE(throws_code([&] { integral_count(queue(), wide, options); }, ErrorCode::invalid_argument));
  // The count of non-zero pixels: values 0 to 2, and 128 to 255 (the top bit alone decides some).
  for (auto [w, h, lo, hi] : {std::tuple{5, 9, 0, 2}, {640, 480, 0, 2}, {1000, 333, 0, 2}, {1664, 768, 0, 2},
                              {300, 200, 128, 255}}) {
    HostImage mask_src = random_image(w, h, Format{Depth::u8, 1}, static_cast<std::uint32_t>(w + 3 * h), lo, hi);
    if (lo > 0) {  // zeros among the high values
      for (int y = 0; y < h; y += 3) mask_src.at<std::uint8_t>((y * 7) % w, y) = 0;
    }
    cv::Mat mask = (as_mat(mask_src) != 0) / 255, count;
    cv::integral(mask, count, CV_32S);
    EXPECT_TRUE(images_equal(from_mat(count), integral_count(queue(), mask_src, options))) << w << "x" << h << " count";
  }
}

// --- Large images: 32-bit wrap-around, f32 rounding ---------------------------------------------

// Freshly allocated, aligned images: the single-channel vector loads and stores of the tiled
// methods (run_plinth's padded views take the element-wise paths). The tall and the wide image
// give tiled's scan lines of more than 128 tiles (several load batches per part).
TEST(IntegralMethods, AlignedImagesTakeTheVectorPaths) {
  for (IntegralMethod method : {IntegralMethod::tiled, IntegralMethod::single_pass}) {
    for (auto [w, h] : {std::pair{384, 70}, {1000, 333}, {1024, 64}, {129, 33}, {4, 1}, {100, 4500}, {17000, 40}}) {
      const HostImage src = random_image(w, h, Format{Depth::u8, 1}, static_cast<std::uint32_t>(w * h));
      cv::Mat sum, sq;
      cv::integral(as_mat(src), sum, sq, CV_32S, CV_64F);
      DeviceImage d_sum, d_sq;
      IntegralOptions options;
      options.method = method;
      integral(queue(), queue().upload(src), d_sum, d_sq, options).wait();
      EXPECT_TRUE(images_equal(from_mat(sum), queue().download(d_sum))) << to_string(method) << " " << w << "x" << h;
      EXPECT_TRUE(images_equal(from_mat(sq), queue().download(d_sq))) << to_string(method) << " " << w << "x" << h;
      DeviceImage d_sum_only;
      integral(queue(), queue().upload(src), d_sum_only, options).wait();
      EXPECT_TRUE(images_equal(from_mat(sum), queue().download(d_sum_only))) << to_string(method) << " sum " << w << "x" << h;
    }
  }
}

TEST(IntegralLarge, FourKAndMoreMatchesOpenCV) {
  // 4097 x 2161 of bright random bytes: the s32 sum passes 2^31 and wraps as OpenCV's does.
  const HostImage src = random_image(4097, 2161, Format{Depth::u8, 1}, 5, 240, 255);
  cv::Mat sum, sq, tilted;
  cv::integral(as_mat(src), sum, sq, tilted, CV_32S, CV_64F);
  ASSERT_LT(sum.at<int>(sum.rows - 1, sum.cols - 1), 0) << "the test should exercise wrap-around";
  for (IntegralMethod method : {IntegralMethod::automatic, IntegralMethod::block_4x4, IntegralMethod::row_column}) {
    const bool with_tilted = method == IntegralMethod::automatic;
    const IntegralImages got = run_plinth(src, true, with_tilted, Depth::s32, Depth::f64, method);
    EXPECT_TRUE(images_equal(from_mat(sum), got.sum)) << to_string(method);
    EXPECT_TRUE(images_equal(from_mat(sq), got.sqsum)) << to_string(method);
    if (with_tilted) {
      EXPECT_TRUE(images_equal(from_mat(tilted), got.tilted));
    }
  }
  // u32 holds the same bits as OpenCV's s32.
  const IntegralImages u32 = run_plinth(src, false, false, Depth::u32, Depth::f64, IntegralMethod::automatic);
  HostImage expected = from_mat(sum);
  EXPECT_TRUE(images_equal(HostImage::wrap(expected.data(), expected.width(), expected.height(), Format{Depth::u32, 1},
                                           expected.pitch()),
                           u32.sum));
}

TEST(IntegralLarge, FloatSumsFollowOpenCVsOrder) {
  // Partial sums pass 2^24, so f32 results depend on the summation order. plinth follows
  // OpenCV's generic order; OpenCV's own vector code may differ in the last bits of the
  // columns its scalar tail handles (docs/integral.md), hence the tight tolerance.
  const HostImage src = random_image(1031, 517, Format{Depth::u8, 1}, 9);
  cv::Mat sum, sq;
  cv::integral(as_mat(src), sum, sq, CV_32F, CV_64F);
  const IntegralImages got = run_plinth(src, true, false, Depth::f32, Depth::f64, IntegralMethod::automatic);
  EXPECT_TRUE(images_near(from_mat(sum), got.sum, 1e-6));
  EXPECT_TRUE(images_equal(from_mat(sq), got.sqsum));
  const HostImage fsrc = random_image(517, 301, Format{Depth::f32, 1}, 10);
  cv::Mat fsum, fsq;
  cv::integral(as_mat(fsrc), fsum, fsq, CV_32F, CV_64F);
  const IntegralImages fgot = run_plinth(fsrc, true, false, Depth::f32, Depth::f64, IntegralMethod::automatic);
  EXPECT_TRUE(images_equal(from_mat(fsum), fgot.sum));
  EXPECT_TRUE(images_equal(from_mat(fsq), fgot.sqsum));
}

TEST(IntegralLarge, WrapAroundKeepsEveryBoxSumExact) {
  // All 255: the u32 total (4200 * 4100 * 255) exceeds 2^32. Box sums below 2^32 must still come
  // out exact from the four corners in modulo-2^32 arithmetic (docs/integral.md).
  const int w = 4200, h = 4100;
  HostImage src(w, h, Format{Depth::u8, 1});
  for (int y = 0; y < h; ++y) std::memset(src.row(y), 255, src.row_bytes());
  const HostImage sum = run_plinth(src, false, false, Depth::u32, Depth::f64, IntegralMethod::automatic).sum;
  const std::uint64_t total = std::uint64_t{255} * w * h;
  ASSERT_GT(total, std::uint64_t{1} << 32);
  EXPECT_EQ(sum.at<std::uint32_t>(w, h), static_cast<std::uint32_t>(total));
  std::mt19937 rng(3);
  for (int i = 0; i < 200; ++i) {
    const int x0 = static_cast<int>(rng() % w), y0 = static_cast<int>(rng() % h);
    const int x1 = x0 + 1 + static_cast<int>(rng() % (w - x0)), y1 = y0 + 1 + static_cast<int>(rng() % (h - y0));
    const std::uint64_t exact = std::uint64_t{255} * (x1 - x0) * (y1 - y0);
    if (exact >= (std::uint64_t{1} << 32)) continue;
    const std::uint32_t box = sum.at<std::uint32_t>(x1, y1) - sum.at<std::uint32_t>(x0, y1) -
                              sum.at<std::uint32_t>(x1, y0) + sum.at<std::uint32_t>(x0, y0);
    EXPECT_EQ(box, exact) << "box " << x0 << "," << y0 << " - " << x1 << "," << y1;
  }
}

// --- plinth's additions -------------------------------------------------------------------------

TEST(IntegralExtensions, SixtyFourBitSquaredSumsAreExact) {
  for (Depth depth : {Depth::u8, Depth::u16, Depth::s16}) {
    const HostImage src = random_image(301, 203, Format{depth, 2}, 21);
    for (Depth sq_depth : {Depth::u64, Depth::s64}) {
      for (IntegralMethod method : {IntegralMethod::automatic, IntegralMethod::row_column, IntegralMethod::blelloch}) {
        const IntegralImages got = run_plinth(src, true, false, depth == Depth::u8 ? Depth::s32 : Depth::f64, sq_depth, method);
        // Reference: plain 64-bit integer loops.
        bool ok = true;
        for (int c = 0; c < 2 && ok; ++c) {
          std::vector<std::uint64_t> above(static_cast<std::size_t>(src.width() + 1), 0);
          for (int y = 0; y < src.height() && ok; ++y) {
            std::uint64_t row = 0;
            for (int x = 0; x < src.width(); ++x) {
              const std::int64_t v = depth == Depth::u8    ? src.at<std::uint8_t>(x, y, c)
                                     : depth == Depth::u16 ? src.at<std::uint16_t>(x, y, c)
                                                           : src.at<std::int16_t>(x, y, c);
              row += static_cast<std::uint64_t>(v * v);
              above[static_cast<std::size_t>(x + 1)] += row;
              if (got.sqsum.at<std::uint64_t>(x + 1, y + 1, c) != above[static_cast<std::size_t>(x + 1)]) ok = false;
            }
          }
        }
        EXPECT_TRUE(ok) << to_string(depth) << " -> " << to_string(sq_depth) << " by " << to_string(method);
      }
    }
  }
}

TEST(IntegralExtensions, CountOfNonZeroMatchesTheIntegralOfTheMask) {
  for (Depth depth : {Depth::u8, Depth::u16, Depth::s16, Depth::f32, Depth::f64}) {
    HostImage src = random_image(157, 91, Format{depth, 1}, 31, 0, 3);  // many zeros
    cv::Mat mask = (as_mat(src) != 0) / 255, expected;
    cv::integral(mask, expected, CV_32S);
    for (IntegralMethod method : {IntegralMethod::automatic, IntegralMethod::row_column, IntegralMethod::block_4x4,
                                  IntegralMethod::blocked_scan}) {
      IntegralOptions options;
      options.method = method;
      const HostImage got = integral_count(queue(), src, options);
      EXPECT_TRUE(images_equal(from_mat(expected), got)) << to_string(depth) << " by " << to_string(method);
    }
  }
}

// Order-free tilted requests take the skewed method (two skewed copies of the source, integrated
// as one batch); thin shapes put every pixel near the skews' edges and clamps.
TEST(IntegralExtensions, TiltedOfThinImagesMatchesOpenCV) {
  for (auto [w, h, cn] : {std::tuple{1, 50, 1}, {50, 1, 1}, {2, 300, 3}, {500, 2, 1}, {3, 3, 4}, {260, 40, 2}}) {
    const HostImage src = random_image(w, h, Format{Depth::u8, cn}, static_cast<std::uint32_t>(w * 31 + h));
    for (Depth depth : {Depth::s32, Depth::f64}) {
      cv::Mat sum, sq, tilted;
      cv::integral(as_mat(src), sum, sq, tilted, cv_depth(depth), CV_64F);
      const IntegralImages got = run_plinth(src, false, true, depth, Depth::f64, IntegralMethod::automatic);
      EXPECT_TRUE(images_equal(from_mat(tilted), got.tilted)) << w << "x" << h << "x" << cn << " " << to_string(depth);
    }
  }
}

TEST(IntegralExtensions, BatchesEqualOneCallPerImage) {
  const int n = 3, w = 211, h = 97;
  const HostImage stack = random_image(w, n * h, Format{Depth::u8, 1}, 41);
  for (IntegralMethod method : {IntegralMethod::automatic, IntegralMethod::row_column, IntegralMethod::block_4x4,
                                IntegralMethod::tiled}) {
    const IntegralImages got = run_plinth(stack, true, true, Depth::s32, Depth::f64, method, n);
    for (int i = 0; i < n; ++i) {
      cv::Mat sum, sq, tilted;
      cv::integral(as_mat(stack.view(Rect{0, i * h, w, h})), sum, sq, tilted, CV_32S, CV_64F);
      const Rect part{0, i * (h + 1), w + 1, h + 1};
      EXPECT_TRUE(images_equal(from_mat(sum), got.sum.view(part))) << to_string(method) << " image " << i;
      EXPECT_TRUE(images_equal(from_mat(sq), got.sqsum.view(part))) << to_string(method) << " image " << i;
      EXPECT_TRUE(images_equal(from_mat(tilted), got.tilted.view(part))) << to_string(method) << " image " << i;
    }
  }
}

// --- Bad arguments ------------------------------------------------------------------------------

TEST(IntegralErrors, BadArgumentsGiveTheRightCode) {
  const DeviceImage u8 = queue().upload(random_image(16, 8, Format{Depth::u8, 1}, 1));
  DeviceImage out;
  EXPECT_TRUE(throws_code([&] { DeviceImage s; integral(queue(), queue().upload(random_image(4, 4, Format{Depth::s32, 1}, 1)), s); },
                          ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([&] { DeviceImage s; IntegralOptions o; o.sum_depth = Depth::u16; integral(queue(), u8, s, o); },
                          ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([&] { DeviceImage s, q; IntegralOptions o; o.sqsum_depth = Depth::u8; integral(queue(), u8, s, q, o); },
                          ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([&] { DeviceImage s(context(), 16, 9, Format{Depth::s32, 1}); integral(queue(), u8, s); },
                          ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { DeviceImage s; IntegralOptions o; o.batch = 3; integral(queue(), u8, s, o); },
                          ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { DeviceImage s; IntegralOptions o; o.batch = 0; integral(queue(), u8, s, o); },
                          ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { DeviceImage s; integral(queue(), DeviceImage(), s); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { integral(queue(), u8, IntegralOutputs{}); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { DeviceImage c; IntegralOptions o; o.sum_depth = Depth::f64; integral_count(queue(), u8, c, o); },
                          ErrorCode::unsupported_type));
  // Methods that add in their own order refuse float sums whose rounding depends on the order.
  const DeviceImage big = queue().upload(random_image(300, 300, Format{Depth::u8, 1}, 2));
  EXPECT_TRUE(throws_code([&] { DeviceImage s; IntegralOptions o; o.sum_depth = Depth::f32; o.method = IntegralMethod::blelloch; integral(queue(), big, s, o); },
                          ErrorCode::invalid_argument));
  // Outputs may not overlap each other or the source.
  DeviceImage shared(context(), 17, 9, Format{Depth::s32, 1});
  EXPECT_TRUE(throws_code([&] { DeviceImage a = shared, b = shared; integral(queue(), u8, IntegralOutputs{&a, nullptr, &b}); },
                          ErrorCode::invalid_argument));
  EXPECT_THROW(parse_integral_method("fastest"), Error);
  (void)out;
}

}  // namespace
}  // namespace plinth::test
