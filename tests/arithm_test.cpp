// add, subtract, absdiff against cv::add / cv::subtract / cv::absdiff.
#include <opencv2/core.hpp>

#include "plinth/arithm.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

enum class Op { add, subtract, absdiff };

Event run(Op op, const DeviceImage& a, const DeviceImage& b, DeviceImage& dst, ElementwiseMethod method) {
  switch (op) {
    case Op::add: return add(queue(), a, b, dst, method);
    case Op::subtract: return subtract(queue(), a, b, dst, method);
    case Op::absdiff: return absdiff(queue(), a, b, dst, method);
  }
  return {};
}

HostImage expected(Op op, const HostImage& a, const HostImage& b) {
  cv::Mat out;
  switch (op) {
    case Op::add: cv::add(as_mat(a), as_mat(b), out); break;
    case Op::subtract: cv::subtract(as_mat(a), as_mat(b), out); break;
    case Op::absdiff: cv::absdiff(as_mat(a), as_mat(b), out); break;
  }
  return from_mat(out);
}

const char* name(Op op) { return op == Op::add ? "add" : op == Op::subtract ? "subtract" : "absdiff"; }

constexpr Depth kDepths[] = {Depth::u8, Depth::s8, Depth::u16, Depth::s16, Depth::s32, Depth::f32, Depth::f64};

struct Shape {
  int width, height, channels;
};

// Every depth and op, through the plain kernel, the aligned vector path (fresh images) and the
// element-aligned vector path (views at odd offsets), with poisoned outputs.
TEST(Arithm, MatchesOpenCV) {
  const Shape shapes[] = {{1, 1, 1}, {37, 5, 3}, {131, 3, 4}, {67, 4, 2}};
  std::uint32_t seed = 1;
  for (Op op : {Op::add, Op::subtract, Op::absdiff}) {
    for (Depth depth : kDepths) {
      if (depth == Depth::f64 && !context().device().has_fp64) continue;
      for (const Shape& s : shapes) {
        const Format format{depth, s.channels};
        const HostImage a = random_image(s.width, s.height, format, seed++);
        const HostImage b = random_image(s.width, s.height, format, seed++);
        const HostImage want = expected(op, a, b);
        for (ElementwiseMethod method : {ElementwiseMethod::plain, ElementwiseMethod::vector}) {
          for (bool views : {false, true}) {
            SCOPED_TRACE(std::string(name(op)) + " " + std::string(to_string(depth)) + "C" + std::to_string(s.channels) +
                         " " + std::to_string(s.width) + "x" + std::to_string(s.height) + " " +
                         std::string(to_string(method)) + (views ? " views" : ""));
            DeviceImage da = views ? upload_padded(a, 3, 2) : queue().upload(a);
            DeviceImage db = views ? upload_padded(b, 1, 1) : queue().upload(b);
            DeviceImage dst = views ? poisoned_view(s.width, s.height, format, 5, 1, 0xCD)
                                    : poisoned_view(s.width, s.height, format, 0, 0, 0xCD);
            run(op, da, db, dst, method).wait();
            EXPECT_TRUE(images_equal(want, queue().download(dst)));
          }
        }
      }
    }
  }
}

// Rows long enough for many whole vectors plus a tail, with extreme values that saturate.
TEST(Arithm, SaturationAtTheLimits) {
  for (Depth depth : {Depth::u8, Depth::s16, Depth::s32}) {
    const Format format{depth, 1};
    HostImage a = random_image(203, 3, format, 7);
    HostImage b = random_image(203, 3, format, 8);
    cv::Mat ma = as_mat(a), mb = as_mat(b);
    double lo = 0, hi = 0;
    cv::minMaxLoc(ma, &lo, &hi);
    ma.row(0).setTo(hi);
    mb.row(0).setTo(hi);
    ma.row(1).setTo(lo);
    mb.row(1).setTo(hi);
    for (Op op : {Op::add, Op::subtract, Op::absdiff}) {
      SCOPED_TRACE(std::string(name(op)) + " " + std::string(to_string(depth)));
      DeviceImage dst;
      run(op, queue().upload(a), queue().upload(b), dst, ElementwiseMethod::automatic).wait();
      EXPECT_TRUE(images_equal(expected(op, a, b), queue().download(dst)));
    }
  }
}

TEST(Arithm, InPlace) {
  const Format format{Depth::u8, 1};
  const HostImage a = random_image(45, 6, format, 11);
  const HostImage b = random_image(45, 6, format, 12);
  DeviceImage da = queue().upload(a);
  const DeviceImage db = queue().upload(b);
  add(queue(), da, db, da).wait();
  EXPECT_TRUE(images_equal(expected(Op::add, a, b), queue().download(da)));
}

TEST(Arithm, SynchronousForms) {
  const Format format{Depth::f32, 2};
  const HostImage a = random_image(19, 7, format, 21);
  const HostImage b = random_image(19, 7, format, 22);
  EXPECT_TRUE(images_equal(expected(Op::add, a, b), add(queue(), a, b)));
  EXPECT_TRUE(images_equal(expected(Op::subtract, a, b), subtract(queue(), a, b)));
  EXPECT_TRUE(images_equal(expected(Op::absdiff, a, b), absdiff(queue(), a, b)));
}

TEST(Arithm, Errors) {
  const DeviceImage a = queue().upload(random_image(8, 8, Format{Depth::u8, 1}, 1));
  const DeviceImage b16 = queue().upload(random_image(8, 8, Format{Depth::u16, 1}, 2));
  const DeviceImage small = queue().upload(random_image(7, 8, Format{Depth::u8, 1}, 3));
  const DeviceImage u32 = DeviceImage(context(), 8, 8, Format{Depth::u32, 1});
  DeviceImage dst;
  EXPECT_TRUE(throws_code([&] { add(queue(), a, b16, dst); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { subtract(queue(), a, small, dst); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { absdiff(queue(), u32, u32, dst); }, ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([&] { add(queue(), DeviceImage(), a, dst); }, ErrorCode::invalid_argument));
  DeviceImage wrong(context(), 8, 8, Format{Depth::u8, 3});
  EXPECT_TRUE(throws_code([&] { add(queue(), a, a, wrong); }, ErrorCode::invalid_argument));
  // A dst overlapping a without being a.
  DeviceImage big(context(), 16, 8, Format{Depth::u8, 1});
  DeviceImage left = big.view(Rect{0, 0, 8, 8});
  DeviceImage shifted = big.view(Rect{1, 0, 8, 8});
  EXPECT_TRUE(throws_code([&] { add(queue(), left, a, shifted); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([] { parse_elementwise_method("fast"); }, ErrorCode::invalid_argument));
}

}  // namespace
}  // namespace plinth::test
