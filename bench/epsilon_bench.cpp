// Benchmark cases of epsilon_filter (include/plinth/filters.hpp) on NV12 frames: the Y plane
// alone for each window (with the box filter of that window as the yardstick), and whole frames
// (Y filtered, UV copied).
#include <memory>

#include "bench_support.hpp"
#include "nv12_inputs.hpp"

namespace plinth::bench {
namespace {


std::vector<Case> make_cases(Env& env) {
  const Size size = even(env.settings.size);
  Queue* queue = &env.queue;
  auto frames = std::make_shared<std::vector<DeviceNv12Frame>>(nv12_inputs(env, size, 0xe95));
  auto luma = std::make_shared<std::vector<DeviceImage>>(device_images(env, size, {Depth::u8, 1}, env.settings.input_sets));
  auto chroma = std::make_shared<std::vector<DeviceImage>>(device_images(env, Size{size.width / 2, size.height / 2}, {Depth::u8, 2}, env.settings.input_sets));
  const double plane = image_bytes(size, {Depth::u8, 1});
  std::vector<Case> cases;
  for (int window : {3, 5, 7, 9}) {
    for (EpsilonMethod m : epsilon_methods) {
      EpsilonOptions options;
      options.window = window;
      options.threshold = 20;
      options.method = m;
      Case k;
      k.op = "epsilon";
      k.variant = std::string(to_string(m));
      k.config = "Y " + std::to_string(window) + "x" + std::to_string(window) + " T20";
      k.size = size;
      k.bytes = 2 * plane;
      k.run = [=](int s) {
        return epsilon_filter(*queue, (*frames)[static_cast<std::size_t>(s)].y, (*luma)[static_cast<std::size_t>(s)], options);
      };
      cases.push_back(std::move(k));
    }
    // Issue 20's yardstick in the same table: the box filter (cv::blur, u8, same window and border).
    BoxFilterOptions box;
    box.ksize = Size{window, window};
    Case b;
    b.op = "epsilon";
    b.variant = "box_filter";
    b.config = "Y " + std::to_string(window) + "x" + std::to_string(window) + " T20";
    b.size = size;
    b.bytes = 2 * plane;
    b.note = "the box filter of the same window (box_filter automatic, u8 -> u8 normalized, reflect_101): the issue's reference";
    b.run = [=](int s) {
      return box_filter(*queue, (*frames)[static_cast<std::size_t>(s)].y, (*luma)[static_cast<std::size_t>(s)], box);
    };
    cases.push_back(std::move(b));
  }
  // Whole frames (issue 20: "NV12 frames included"; the yardstick is the box filter of the Y plane).
  for (int window : {3, 5}) {
    for (EpsilonMethod m : {EpsilonMethod::automatic, EpsilonMethod::tiled, EpsilonMethod::blocked, EpsilonMethod::pairs}) {
      EpsilonOptions options;
      options.window = window;
      options.threshold = 20;
      options.method = m;
      Case k;
      k.op = "epsilon";
      k.variant = std::string(to_string(m));
      k.config = "NV12 frame " + std::to_string(window) + "x" + std::to_string(window) + " T20";
      k.size = size;
      k.bytes = 2 * 1.5 * plane;
      k.run = [=](int s) {
        DeviceNv12Frame out{(*luma)[static_cast<std::size_t>(s)], (*chroma)[static_cast<std::size_t>(s)]};
        return epsilon_filter(*queue, (*frames)[static_cast<std::size_t>(s)], out, options);
      };
      cases.push_back(std::move(k));
    }
  }
  return cases;
}

const Registration registration("epsilon", make_cases);

}  // namespace
}  // namespace plinth::bench
