// Box filter against cv::boxFilter: depths, channels, sizes, kernel sizes (larger than the image
// too), anchors, borders, normalisation, output depths, every method, pitch and poisoned outputs.
#include <opencv2/imgproc.hpp>

#include <initializer_list>
#include <optional>
#include <random>
#include <string>

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

constexpr BorderMode kBorders[] = {BorderMode::constant, BorderMode::replicate, BorderMode::reflect,
                                   BorderMode::reflect_101};

HostImage opencv_box(const HostImage& src, Depth ddepth, const BoxFilterOptions& o) {
  cv::Mat out;
  cv::boxFilter(as_mat(src), out, cv_depth(ddepth), cv::Size(o.ksize.width, o.ksize.height),
                cv::Point(o.anchor.x, o.anchor.y), o.normalize, cv_border(o.border));
  return from_mat(out);
}

std::string describe(const HostImage& src, Depth ddepth, const BoxFilterOptions& o) {
  return std::string(to_string(src.depth())) + "C" + std::to_string(src.channels()) + " " +
         std::to_string(src.width()) + "x" + std::to_string(src.height()) + " -> " + std::string(to_string(ddepth)) +
         " k" + std::to_string(o.ksize.width) + "x" + std::to_string(o.ksize.height) + " anchor(" +
         std::to_string(o.anchor.x) + "," + std::to_string(o.anchor.y) + ") " + (o.normalize ? "norm " : "sum ") +
         std::string(to_string(o.border)) + " " + std::string(to_string(o.method));
}

// Runs plinth on a padded view into a poisoned padded view and compares with OpenCV. Paddings
// of 3 and 5 pixels leave rows off vector boundaries; 16 keeps them on (vector_strips' fast path).
void check_case(const HostImage& src, const BoxFilterOptions& o, int src_pad = 3, int dst_pad = 5) {
  const Depth ddepth = o.ddepth.value_or(src.depth());
  SCOPED_TRACE(describe(src, ddepth, o) + " pads " + std::to_string(src_pad) + "," + std::to_string(dst_pad));
  const DeviceImage d_src = upload_padded(src, src_pad, 2);
  DeviceImage d_dst = poisoned_view(src.width(), src.height(), Format{ddepth, src.channels()}, dst_pad, 1, 0xCD);
  box_filter(queue(), d_src, d_dst, o);
  const HostImage got = queue().download(d_dst);
  const HostImage want = opencv_box(src, ddepth, o);
  if (src.depth() == Depth::f32) {
    // OpenCV slides double sums along rows and columns; plinth adds in another order.
    EXPECT_TRUE(images_near(want, got, 1e-6, 1e-4));
  } else {
    EXPECT_TRUE(images_equal(want, got));
  }
}

// Each kernel size comes with one format, so that the cases share compiled programs (their
// count dominates the run time on CPU devices); sizes, borders, anchors vary freely.
TEST(BoxFilter, SweepAgainstOpenCV) {
  std::mt19937 rng(20240601);
  const Size sizes[] = {{1, 1}, {7, 5}, {37, 23}, {3, 41}, {301, 67}};
  const struct {
    Size k;
    Format format;
    bool normalize;
  } kinds[] = {{{1, 1}, {Depth::u8, 1}, true},   {{3, 3}, {Depth::u8, 3}, true},   {{8, 8}, {Depth::u8, 1}, true},
               {{5, 1}, {Depth::u16, 2}, true},  {{1, 7}, {Depth::f32, 1}, true},  {{31, 31}, {Depth::u8, 1}, true},
               {{16, 17}, {Depth::u8, 4}, true}, {{45, 50}, {Depth::u16, 1}, false}, {{2, 130}, {Depth::f32, 3}, true}};
  int n = 0;
  for (const auto& kind : kinds) {
    for (const BoxFilterMethod method : {BoxFilterMethod::automatic, BoxFilterMethod::local_scan}) {
      for (const Size size : sizes) {
        BoxFilterOptions o;
        o.ksize = kind.k;
        o.method = method;
        o.normalize = kind.normalize;
        o.border = kBorders[rng() % 4];
        if (rng() % 3 == 0) {
          o.anchor = Anchor{static_cast<int>(rng() % kind.k.width), static_cast<int>(rng() % kind.k.height)};
        }
        check_case(random_image(size.width, size.height, kind.format, 100 + n++), o);
      }
    }
  }
}

TEST(BoxFilter, U8RoundingAllAreasUpTo256) {
  // u8 -> u8 windows of at most 256 pixels divide by a fixed-point reciprocal; every area (the
  // local_scan and direct kernels take the window size at run time).
  const HostImage src = random_image(41, 19, Format{Depth::u8, 1}, 7);
  for (int kw = 1; kw <= 16; ++kw) {
    for (int kh = 1; kh <= 16; ++kh) {
      BoxFilterOptions o;
      o.ksize = {kw, kh};
      o.method = (kw + kh) % 2 ? BoxFilterMethod::local_scan : BoxFilterMethod::direct;
      check_case(src, o);
    }
  }
}

TEST(BoxFilter, OutputDepths) {
  const HostImage u8 = random_image(53, 17, Format{Depth::u8, 3}, 11);
  const HostImage u16 = random_image(29, 13, Format{Depth::u16, 2}, 12);
  const HostImage f32 = random_image(31, 11, Format{Depth::f32, 1}, 13);
  for (const bool normalize : {true, false}) {
    BoxFilterOptions o;
    o.method = BoxFilterMethod::local_scan;
    o.normalize = normalize;
    o.ksize = normalize ? Size{3, 3} : Size{20, 20};
    for (Depth d : {Depth::s16, Depth::s32, Depth::f32, Depth::f64}) {
      o.ddepth = d;
      check_case(u8, o);
    }
    for (Depth d : {Depth::u8, Depth::f32}) {
      o.ddepth = d;
      check_case(u16, o);
    }
    o.ddepth = Depth::u8;
    check_case(f32, o);
  }
}

TEST(BoxFilter, LargeU16AreasUseDoubleSums) {
  const HostImage src = random_image(300, 210, Format{Depth::u16, 1}, 21);
  BoxFilterOptions o;
  o.ksize = {201, 190};  // area > 2^15: OpenCV sums in double
  check_case(src, o);
  o.normalize = false;   // int sums that wrap, as OpenCV's do
  o.ddepth = Depth::s32;
  check_case(src, o);
}

TEST(BoxFilter, MethodsAgree) {
  const HostImage src = random_image(123, 47, Format{Depth::u8, 1}, 31);
  for (BorderMode b : kBorders) {
    for (BoxFilterMethod m : {BoxFilterMethod::registers, BoxFilterMethod::local_scan, BoxFilterMethod::direct,
                              BoxFilterMethod::two_pass_8x8, BoxFilterMethod::vector_strips, BoxFilterMethod::tiled}) {
      BoxFilterOptions o;
      o.ksize = {8, 8};
      o.border = b;
      o.method = m;
      check_case(src, o);
      o.anchor = {0, 7};
      check_case(src, o);
    }
  }
  const HostImage src4 = random_image(9, 6, Format{Depth::u8, 4}, 32);
  BoxFilterOptions o;
  o.ksize = {8, 8};
  o.method = BoxFilterMethod::two_pass_8x8;
  check_case(src4, o);
  o.method = BoxFilterMethod::tiled;
  check_case(src4, o);
  for (BoxFilterMethod m : {BoxFilterMethod::registers, BoxFilterMethod::local_scan, BoxFilterMethod::direct,
                            BoxFilterMethod::vector_strips}) {
    const HostImage f = random_image(40, 30, Format{Depth::f32, 2}, 33);
    o = BoxFilterOptions{};
    o.ksize = {5, 9};
    o.method = m;
    check_case(f, o);
  }
}

// A window and format for the method sweeps below.
struct Kind {
  Size k;
  Format format;
  std::optional<Depth> ddepth;
  bool normalize;
};

// Every kind on every size, with aligned (16) and unaligned (3) pads and a random border each;
// image seeds count up from `seed`.
void sweep(BoxFilterMethod method, std::initializer_list<Kind> kinds, std::initializer_list<Size> sizes,
           std::uint32_t seed) {
  std::mt19937 rng(seed);
  for (const Kind& kind : kinds) {
    for (const Size size : sizes) {
      for (const int pad : {16, 3}) {
        BoxFilterOptions o;
        o.ksize = kind.k;
        o.ddepth = kind.ddepth;
        o.method = method;
        o.border = kBorders[rng() % 4];
        o.normalize = kind.normalize;
        check_case(random_image(size.width, size.height, kind.format, seed++), o, pad, pad == 16 ? 16 : 5);
      }
    }
  }
}

// Off-centre anchors (the halo differs on each side) in every border mode, on aligned rows.
void anchors(BoxFilterMethod method, const HostImage& src, Anchor off_centre) {
  for (const Anchor a : {Anchor{0, 0}, off_centre}) {
    BoxFilterOptions o;
    o.ksize = {7, 3};
    o.anchor = a;
    o.method = method;
    for (BorderMode b : kBorders) {
      o.border = b;
      check_case(src, o, 16, 16);
    }
  }
}

// vector_strips for every vector width it picks (4, 8, 16 bytes), on rows on and off vector
// boundaries, widths that end inside a vector, strips taller and shorter than the image.
// (Widths: the narrowest vector holding the halo, (kw - 1) * channels elements.)
TEST(BoxFilter, VectorStrips) {
  sweep(BoxFilterMethod::vector_strips,
        {
            {{8, 8}, {Depth::u8, 1}, {}, true},            // 8-byte vectors, one halo vector each side
            {{8, 8}, {Depth::u8, 4}, {}, true},            // 16-byte vectors, packed horizontal sums
            {{3, 3}, {Depth::u8, 3}, {}, false},           // pixels straddle vectors; plain sums
            {{5, 3}, {Depth::u8, 1}, Depth::f32, true},    // 4-byte vectors, wide outputs
            {{15, 9}, {Depth::u8, 2}, {}, true},           // halo wider than a vector
            {{5, 5}, {Depth::u16, 2}, {}, true},           // int sums with float scaling
            {{3, 5}, {Depth::f32, 1}, {}, true},           // double sums, 2-element vectors
            {{3, 101}, {Depth::u8, 4}, Depth::s32, false}, // four channels, sums beyond 16 bits
        },
        {{1, 1}, {6, 3}, {61, 37}, {259, 40}}, 900);
  // Anchors off the centre; tall windows and tall images.
  const HostImage src = random_image(203, 150, Format{Depth::u8, 1}, 990);
  anchors(BoxFilterMethod::vector_strips, src, Anchor{6, 1});
  BoxFilterOptions o;
  o.ksize = {5, 61};
  o.method = BoxFilterMethod::vector_strips;
  check_case(src, o, 16, 16);
  check_case(src, o);
}

// tiled: one and several tiles each way, tiles whose region lies inside the image (word loads)
// and at its edges (element loads through the border), rows on and off word boundaries, widths
// that end inside a word, channels, output depths, anchors, windows up to its limits.
TEST(BoxFilter, Tiled) {
  sweep(BoxFilterMethod::tiled,
        {
            {{8, 8}, {Depth::u8, 1}, {}, true},             // the benchmark's case
            {{8, 8}, {Depth::u8, 4}, {}, true},             // four channels: eight words per row
            {{3, 3}, {Depth::u8, 3}, {}, false},            // pixels straddle words; plain sums saturate
            {{5, 3}, {Depth::u8, 1}, Depth::f32, true},     // float scaling, 4-float stores
            {{1, 1}, {Depth::u8, 2}, Depth::s16, true},     // no halo
            {{39, 64}, {Depth::u8, 1}, Depth::s32, false},  // its limits: halo of 38, 64 rows
            {{3, 3}, {Depth::u8, 1}, {}, true},             // packed horizontal sums, fixed-point mean
            {{15, 15}, {Depth::u8, 1}, {}, true},           // two halo words each side
            {{16, 16}, {Depth::u8, 1}, {}, true},           // area 256: sums of 65280 still packed
            {{31, 31}, {Depth::u8, 1}, {}, true},           // sums beyond 16 bits: unpacked columns
        },
        {{1, 1}, {6, 3}, {61, 37}, {401, 150}}, 1900);
  anchors(BoxFilterMethod::tiled, random_image(530, 140, Format{Depth::u8, 1}, 1990), Anchor{6, 2});
  // One channel, normalized u8: the horizontal sums of whole words (windows over two words or more)
  // with the columns left out on the left and added on the right, for every offset of the window.
  const HostImage src = random_image(301, 70, Format{Depth::u8, 1}, 1995);
  for (const int kw : {6, 9, 12, 13}) {
    for (int ax = 0; ax < kw; ax += 2) {
      BoxFilterOptions o;
      o.ksize = {kw, 3};
      o.anchor = {ax, 1};
      o.method = BoxFilterMethod::tiled;
      o.border = kBorders[static_cast<std::size_t>(ax + kw) % 4];
      check_case(src, o, 16, 16);
    }
  }
}

// wide_rows: warps of one and several spans' worth each way (a warp stores 480 elements of a row),
// spans inside the image (16-byte loads) and at its edges (words or elements through the
// border), rows on and off 16-byte boundaries (pad 16 against 3), heights that end inside a
// work-item's rows (2 for one channel up to 4 M elements, else 4), channels, output depths,
// anchors, windows up to its limits.
TEST(BoxFilter, WideRows) {
  sweep(BoxFilterMethod::wide_rows,
        {
            {{3, 3}, {Depth::u8, 1}, {}, true},             // the benchmark's case: one store a span
            {{5, 5}, {Depth::u8, 1}, {}, true},
            {{3, 3}, {Depth::u8, 4}, {}, true},             // four channels: a halo word each side
            {{3, 3}, {Depth::u8, 3}, {}, false},            // pixels straddle words; plain sums saturate
            {{8, 8}, {Depth::u8, 3}, {}, true},             // three channels, normalized
            {{5, 3}, {Depth::u8, 1}, Depth::f32, true},     // float scaling, 4-float stores
            {{1, 1}, {Depth::u8, 2}, Depth::s16, true},     // no halo
            {{9, 9}, {Depth::u8, 4}, Depth::s32, false},    // its limits: 16 elements each side, 9 rows
        },
        {{1, 1}, {6, 3}, {61, 37}, {1001, 150}}, 2900);
}

TEST(BoxFilter, WideRowsShapes) {
  // Anchors off the centre, in every border mode: the halo differs on each side.
  anchors(BoxFilterMethod::wide_rows, random_image(977, 41, Format{Depth::u8, 1}, 2990), Anchor{6, 2});
  // Widths around a warp's 480 elements and a group's 1920; every window width of one channel.
  std::mt19937 rng(2995);
  for (const int width : {479, 480, 481, 1919, 1921}) {
    const HostImage src = random_image(width, 9, Format{Depth::u8, 1}, 3000 + width);
    for (int kw = 1; kw <= 17; kw += 4) {
      BoxFilterOptions o;
      o.ksize = {kw, 3};
      o.method = BoxFilterMethod::wide_rows;
      o.border = kBorders[rng() % 4];
      check_case(src, o, 16, 16);
      check_case(src, o);
    }
  }
  // One channel above 4 M elements, where a work-item takes 4 rows (2 below: every case above).
  const HostImage large = random_image(2100, 2000, Format{Depth::u8, 1}, 3100);
  for (const Size k : {Size{3, 3}, Size{5, 5}}) {
    BoxFilterOptions o;
    o.ksize = k;
    o.method = BoxFilterMethod::wide_rows;
    check_case(large, o);
  }
  // All-255 windows: the largest packed sums and the fixed-point mean's top byte.
  HostImage white(530, 20, Format{Depth::u8, 1});
  for (int y = 0; y < white.height(); ++y) std::fill_n(white.row_as<std::uint8_t>(y), white.width(), 255);
  for (const Size k : {Size{3, 3}, Size{9, 9}, Size{15, 7}}) {
    BoxFilterOptions o;
    o.ksize = k;
    o.method = BoxFilterMethod::wide_rows;
    check_case(white, o, 16, 16);
  }
}

TEST(BoxFilter, LargeImage) {
  const HostImage src = random_image(1031, 517, Format{Depth::u8, 1}, 41);
  for (const Size k : {Size{8, 8}, Size{31, 31}, Size{255, 3}}) {
    BoxFilterOptions o;
    o.ksize = k;
    check_case(src, o);
  }
}

// tiled above 16 M elements, where it takes 8 rows per work-item (4 below: every case above).
TEST(BoxFilter, TiledEightRowsPerWorkItem) {
  const HostImage src = random_image(2100, 2000, Format{Depth::u8, 4}, 47);  // 16.8 M elements
  for (const Size k : {Size{3, 3}, Size{8, 8}}) {
    BoxFilterOptions o;
    o.ksize = k;
    o.method = BoxFilterMethod::tiled;
    check_case(src, o);
  }
}

TEST(BoxFilter, HostConvenience) {
  const HostImage src = random_image(20, 10, Format{Depth::u8, 1}, 51);
  BoxFilterOptions o;
  o.ksize = {4, 3};
  EXPECT_TRUE(images_equal(opencv_box(src, Depth::u8, o), box_filter(queue(), src, o)));
}

TEST(BoxFilter, Errors) {
  const DeviceImage src = queue().upload(random_image(16, 16, Format{Depth::u8, 1}, 61));
  auto run = [&](BoxFilterOptions o) {
    DeviceImage dst;
    box_filter(queue(), src, dst, o);
  };
  BoxFilterOptions o;
  o.ksize = {0, 3};
  EXPECT_TRUE(throws_code([&] { run(o); }, ErrorCode::out_of_range));
  o.ksize = {256, 3};
  EXPECT_TRUE(throws_code([&] { run(o); }, ErrorCode::out_of_range));
  o = {};
  o.anchor = {3, 0};
  EXPECT_TRUE(throws_code([&] { run(o); }, ErrorCode::out_of_range));
  o = {};
  o.border = BorderMode::wrap;
  EXPECT_TRUE(throws_code([&] { run(o); }, ErrorCode::invalid_argument));
  o = {};
  o.ddepth = Depth::s8;
  EXPECT_TRUE(throws_code([&] { run(o); }, ErrorCode::unsupported_type));
  o = {};
  o.method = BoxFilterMethod::two_pass_8x8;
  EXPECT_TRUE(throws_code([&] { run(o); }, ErrorCode::invalid_argument));
  o = {};
  o.ksize = {101, 3};  // halo beyond vector_strips' register budget
  o.method = BoxFilterMethod::vector_strips;
  EXPECT_TRUE(throws_code([&] { run(o); }, ErrorCode::invalid_argument));
  o.ksize = {40, 3};  // halo of 39 elements: beyond tiled's
  o.method = BoxFilterMethod::tiled;
  EXPECT_TRUE(throws_code([&] { run(o); }, ErrorCode::invalid_argument));
  o.ksize = {3, 65};
  EXPECT_TRUE(throws_code([&] { run(o); }, ErrorCode::invalid_argument));
  o.method = BoxFilterMethod::wide_rows;
  for (const Size k : {Size{3, 10}, Size{35, 3}, Size{29, 9}}) {  // rows, halo, sums beyond 16 bits
    o.ksize = k;
    EXPECT_TRUE(throws_code([&] { run(o); }, ErrorCode::invalid_argument));
  }
  o.ksize = {3, 3};
  o.anchor = {2, 1};  // 2 elements left of the anchor, none right: allowed
  EXPECT_NO_THROW(run(o));
  o = {};
  EXPECT_TRUE(throws_code(
      [&] {
        DeviceImage dst(context(), 15, 16, Format{Depth::u8, 1});
        box_filter(queue(), src, dst, o);
      },
      ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code(
      [&] {
        DeviceImage same = src;
        box_filter(queue(), src, same, o);
      },
      ErrorCode::invalid_argument));
  const DeviceImage s32 = queue().upload(random_image(4, 4, Format{Depth::s32, 1}, 62));
  EXPECT_TRUE(throws_code(
      [&] {
        DeviceImage dst;
        box_filter(queue(), s32, dst, o);
      },
      ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([&] { (void)parse_box_filter_method("fast"); }, ErrorCode::invalid_argument));
}

}  // namespace
}  // namespace plinth::test
