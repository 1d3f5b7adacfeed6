// FramePipeline against OpenCV's chain on the host: grey = the NV12 frame's Y plane
// (COLOR_YUV2GRAY_NV12), levels by cv::pyrDown, the integral by cv::integral (CV_32S); both
// methods, odd level sizes, odd grey sizes, views, border modes, repeated frames and errors.
#include <opencv2/imgproc.hpp>

#include "support/test_support.hpp"

namespace plinth::test {
namespace {

int cv_border(BorderMode mode) {
  switch (mode) {
    case BorderMode::replicate: return cv::BORDER_REPLICATE;
    case BorderMode::reflect: return cv::BORDER_REFLECT;
    case BorderMode::reflect_101: return cv::BORDER_REFLECT_101;
    case BorderMode::wrap: return cv::BORDER_WRAP;
    default: return -1;
  }
}

struct Expected {
  std::vector<HostImage> levels;
  HostImage integral;
};

Expected opencv_chain(const HostImage& grey, const FramePipelineOptions& o) {
  Expected e;
  cv::Mat level = as_mat(grey).clone();
  for (int i = 0; i < o.levels; ++i) {
    if (i > 0) {
      cv::Mat next;
      cv::pyrDown(level, next, cv::Size(), cv_border(o.border));
      level = next;
    }
    e.levels.push_back(from_mat(level));
    if (i == o.integral_level) {
      cv::Mat sum;
      cv::integral(level, sum, CV_32S);
      e.integral = from_mat(sum);
    }
  }
  return e;
}

std::string describe(Size size, const FramePipelineOptions& o) {
  return std::to_string(size.width) + "x" + std::to_string(size.height) + " levels " + std::to_string(o.levels) +
         " integral of " + std::to_string(o.integral_level) + " " + std::string(to_string(o.border)) + " " +
         std::string(to_string(o.method));
}

void expect_outputs(const FramePipeline& pipeline, const Expected& want) {
  ASSERT_EQ(pipeline.levels().size(), want.levels.size());
  for (std::size_t i = 0; i < want.levels.size(); ++i) {
    SCOPED_TRACE("level " + std::to_string(i));
    EXPECT_TRUE(images_equal(want.levels[i], queue().download(pipeline.levels()[i])));
  }
  EXPECT_TRUE(images_equal(want.integral, queue().download(pipeline.integral())));
}

Nv12Frame random_frame(Size size, std::uint32_t seed) {
  return Nv12Frame{random_image(size.width, size.height, Format{Depth::u8, 1}, seed),
                   random_image(size.width / 2, size.height / 2, Format{Depth::u8, 2}, seed + 7777)};
}

constexpr FramePipelineMethod kMethods[] = {FramePipelineMethod::automatic, FramePipelineMethod::fused,
                                            FramePipelineMethod::separate};

TEST(FramePipeline, Nv12FramesMatchOpenCV) {
  // Even frames whose levels turn odd; 262x134 spans several fused tiles (64x32 grey pixels) with partial ones.
  const Size sizes[] = {{2, 2}, {6, 4}, {34, 6}, {130, 70}, {262, 134}};
  const int levels[][2] = {{1, 0}, {2, 1}, {3, 2}, {4, 0}, {5, 3}};
  std::uint32_t seed = 1;
  for (Size size : sizes) {
    const Nv12Frame frame = random_frame(size, seed++);
    // A frame whose planes are views with pitch.
    const DeviceNv12Frame d_frame{upload_padded(frame.y, 3, 2), upload_padded(frame.uv, 1, 1)};
    for (const auto& l : levels) {
      for (FramePipelineMethod m : kMethods) {
        FramePipelineOptions o;
        o.levels = l[0];
        o.integral_level = l[1];
        o.method = m;
        SCOPED_TRACE(describe(size, o));
        FramePipeline pipeline(o);
        pipeline.run(queue(), d_frame).wait();
        expect_outputs(pipeline, opencv_chain(frame.y, o));
      }
    }
  }
}

TEST(FramePipeline, OddGreyPlanesAndBorders) {
  const Size sizes[] = {{1, 1}, {3, 5}, {17, 13}, {67, 33}, {131, 71}};
  std::uint32_t seed = 100;
  for (Size size : sizes) {
    const HostImage grey = random_image(size.width, size.height, Format{Depth::u8, 1}, seed++);
    const DeviceImage d_grey = upload_padded(grey, 5, 1);
    for (BorderMode border : {BorderMode::reflect_101, BorderMode::replicate, BorderMode::reflect, BorderMode::wrap}) {
      for (FramePipelineMethod m : {FramePipelineMethod::fused, FramePipelineMethod::separate}) {
        for (int n : {2, 3, 4}) {
          FramePipelineOptions o;
          o.levels = n;
          o.integral_level = n - 1;
          o.border = border;
          o.method = m;
          SCOPED_TRACE(describe(size, o));
          FramePipeline pipeline(o);
          pipeline.run(queue(), d_grey).wait();
          expect_outputs(pipeline, opencv_chain(grey, o));
        }
      }
    }
  }
}

TEST(FramePipeline, RepeatedFramesReuseTheirOutputs) {
  for (FramePipelineMethod m : {FramePipelineMethod::fused, FramePipelineMethod::separate}) {
    FramePipelineOptions o;
    o.levels = 5;
    o.integral_level = 1;
    o.method = m;
    SCOPED_TRACE(describe(Size{198, 102}, o));
    FramePipeline pipeline(o);
    const Nv12Frame a = random_frame(Size{198, 102}, 300), b = random_frame(Size{198, 102}, 301);
    pipeline.run(queue(), upload_nv12(queue(), a)).wait();
    expect_outputs(pipeline, opencv_chain(a.y, o));
    std::vector<const void*> buffers;
    for (const DeviceImage& level : pipeline.levels()) buffers.push_back(level.native());
    buffers.push_back(pipeline.integral().native());
    // The second frame overwrites the first one's results (which act as the poison) in place.
    pipeline.run(queue(), upload_nv12(queue(), b)).wait();
    expect_outputs(pipeline, opencv_chain(b.y, o));
    for (std::size_t i = 0; i < pipeline.levels().size(); ++i) EXPECT_EQ(buffers[i], pipeline.levels()[i].native());
    EXPECT_EQ(buffers.back(), pipeline.integral().native());
    // A new size gets new outputs.
    const Nv12Frame c = random_frame(Size{90, 64}, 302);
    pipeline.run(queue(), upload_nv12(queue(), c)).wait();
    expect_outputs(pipeline, opencv_chain(c.y, o));
  }
}

TEST(FramePipeline, SynchronousForm) {
  const Nv12Frame frame = random_frame(Size{70, 46}, 400);
  FramePipelineOptions o;
  o.levels = 3;
  o.integral_level = 2;
  const FramePipelineImages got = frame_pipeline(queue(), frame, o);
  const Expected want = opencv_chain(frame.y, o);
  ASSERT_EQ(got.levels.size(), want.levels.size());
  for (std::size_t i = 0; i < got.levels.size(); ++i) EXPECT_TRUE(images_equal(want.levels[i], got.levels[i]));
  EXPECT_TRUE(images_equal(want.integral, got.integral));
}

TEST(FramePipeline, Errors) {
  EXPECT_TRUE(throws_code([] { FramePipeline p(FramePipelineOptions{0, 0}); }, ErrorCode::out_of_range));
  EXPECT_TRUE(throws_code([] { FramePipeline p(FramePipelineOptions{33, 0}); }, ErrorCode::out_of_range));
  EXPECT_TRUE(throws_code([] { FramePipeline p(FramePipelineOptions{3, 3}); }, ErrorCode::out_of_range));
  EXPECT_TRUE(throws_code([] { FramePipeline p(FramePipelineOptions{3, -1}); }, ErrorCode::out_of_range));
  EXPECT_TRUE(throws_code([] { FramePipeline p(FramePipelineOptions{3, 0, BorderMode::constant}); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([] { (void)parse_frame_pipeline_method("fastest"); }, ErrorCode::invalid_argument));
  EXPECT_EQ(parse_frame_pipeline_method("separate"), FramePipelineMethod::separate);
  FramePipeline pipeline;
  const DeviceImage rgb = queue().upload(random_image(8, 8, Format{Depth::u8, 3}, 500));
  EXPECT_TRUE(throws_code([&] { pipeline.run(queue(), rgb); }, ErrorCode::unsupported_type));
  const DeviceImage f32 = queue().upload(random_image(8, 8, Format{Depth::f32, 1}, 501));
  EXPECT_TRUE(throws_code([&] { pipeline.run(queue(), f32); }, ErrorCode::unsupported_type));
  DeviceNv12Frame odd{queue().upload(random_image(8, 8, Format{Depth::u8, 1}, 502)),
                      queue().upload(random_image(3, 4, Format{Depth::u8, 2}, 503))};
  EXPECT_TRUE(throws_code([&] { pipeline.run(queue(), odd); }, ErrorCode::invalid_argument));
  // Its own grey image as the source of a fused run: refused, not read while written.
  pipeline.run(queue(), queue().upload(random_image(8, 8, Format{Depth::u8, 1}, 504))).wait();
  const DeviceImage own = pipeline.grey();
  EXPECT_TRUE(throws_code([&] { pipeline.run(queue(), own); }, ErrorCode::invalid_argument));
}

}  // namespace
}  // namespace plinth::test
