// Benchmark cases of FramePipeline (include/plinth/frame_pipeline.hpp) on NV12 frames: the
// pipeline call (fused, and the separate calls back to back as one timed run) and each separate
// call on its own ("part: ..."; the table adds the parts' medians and prints frames/s).
#include <memory>

#include "bench_support.hpp"
#include "nv12_inputs.hpp"

namespace plinth::bench {
namespace {

constexpr int kLevels = 4;
constexpr int kIntegralLevel = 0;

// Bytes of levels 1 .. kLevels - 1.
double pyramid_bytes(Size size) {
  double bytes = 0;
  for (int i = 1; i < kLevels; ++i) {
    size = Size{(size.width + 1) / 2, (size.height + 1) / 2};
    bytes += image_bytes(size, {Depth::u8, 1});
  }
  return bytes;
}

std::vector<Case> make_cases(Env& env) {
  const Size size = even(env.settings.size);
  const int sets = env.settings.input_sets;
  Queue* queue = &env.queue;
  auto frames = std::make_shared<std::vector<DeviceNv12Frame>>(nv12_inputs(env, size, 0xf4a));
  const double plane = image_bytes(size, {Depth::u8, 1});
  Size integral_of = size;
  for (int i = 0; i < kIntegralLevel; ++i) integral_of = Size{(integral_of.width + 1) / 2, (integral_of.height + 1) / 2};
  const double sum_bytes = image_bytes(Size{integral_of.width + 1, integral_of.height + 1}, {Depth::s32, 1});
  const std::string config = "NV12 -> grey, " + std::to_string(kLevels) + " levels, integral of level " + std::to_string(kIntegralLevel);

  std::vector<Case> cases;
  for (FramePipelineMethod m : {FramePipelineMethod::fused, FramePipelineMethod::separate}) {
    FramePipelineOptions options;
    options.levels = kLevels;
    options.integral_level = kIntegralLevel;
    options.method = m;
    // One pipeline (its outputs) per input set, allocated here by a first run.
    auto pipelines = std::make_shared<std::vector<FramePipeline>>();
    for (int s = 0; s < sets; ++s) {
      pipelines->emplace_back(options);
      pipelines->back().run(*queue, (*frames)[static_cast<std::size_t>(s)]);
    }
    queue->finish();
    Case k;
    k.op = "frame_pipeline";
    k.variant = std::string(to_string(m));
    k.config = config;
    k.size = size;
    k.bytes = plane + plane + pyramid_bytes(size) + sum_bytes;  // Y read; grey, levels, integral written
    k.run = [=](int s) {
      return (*pipelines)[static_cast<std::size_t>(s)].run(*queue, (*frames)[static_cast<std::size_t>(s)]);
    };
    cases.push_back(std::move(k));
  }

  // The separate calls, each timed alone.
  auto greys = std::make_shared<std::vector<DeviceImage>>(device_images(env, size, {Depth::u8, 1}, sets));
  Case grey;
  grey.op = "frame_pipeline";
  grey.variant = "part: nv12_to_gray";
  grey.config = config;
  grey.size = size;
  grey.bytes = 2 * plane;
  grey.run = [=](int s) {
    const auto i = static_cast<std::size_t>(s);
    return cvt_color(*queue, (*frames)[i], (*greys)[i], ColorConversion::nv12_to_gray);
  };
  cases.push_back(std::move(grey));

  auto pyramids = std::make_shared<std::vector<std::vector<DeviceImage>>>(static_cast<std::size_t>(sets));
  for (int s = 0; s < sets; ++s) {
    build_pyramid(*queue, (*greys)[static_cast<std::size_t>(s)], (*pyramids)[static_cast<std::size_t>(s)], PyramidOptions{kLevels});
  }
  Case pyramid;
  pyramid.op = "frame_pipeline";
  pyramid.variant = "part: build_pyramid";
  pyramid.config = config;
  pyramid.size = size;
  pyramid.bytes = plane + pyramid_bytes(size);
  pyramid.run = [=](int s) {
    const auto i = static_cast<std::size_t>(s);
    return build_pyramid(*queue, (*greys)[i], (*pyramids)[i], PyramidOptions{kLevels});
  };
  cases.push_back(std::move(pyramid));

  auto sums = std::make_shared<std::vector<DeviceImage>>(
      device_images(env, Size{integral_of.width + 1, integral_of.height + 1}, {Depth::s32, 1}, sets));
  Case sum;
  sum.op = "frame_pipeline";
  sum.variant = "part: integral";
  sum.config = config;
  sum.size = size;
  sum.bytes = image_bytes(integral_of, {Depth::u8, 1}) + sum_bytes;
  sum.run = [=](int s) {
    const auto i = static_cast<std::size_t>(s);
    return integral(*queue, (*pyramids)[i][kIntegralLevel], (*sums)[i]);
  };
  cases.push_back(std::move(sum));
  return cases;
}

const Registration registration("frame_pipeline", make_cases);

}  // namespace
}  // namespace plinth::bench
