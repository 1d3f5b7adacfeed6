// Resize cases: u8 grey from the benchmark size down by OpenCV's cascade step (1 / 1.1), with
// OpenCV's INTER_LINEAR and INTER_LINEAR_EXACT arithmetic.
#include <cmath>
#include <random>

#include "bench.hpp"

namespace plinth::bench {
namespace {

std::vector<Case> resize_cases(Env& env) {
  const Size src_size = env.settings.size;
  const Size dst_size{static_cast<int>(std::lround(src_size.width / 1.1)), static_cast<int>(std::lround(src_size.height / 1.1))};
  auto inputs = std::make_shared<std::vector<DeviceImage>>();
  auto outputs = std::make_shared<std::vector<DeviceImage>>();
  std::mt19937 rng(11);
  for (int set = 0; set < std::max(env.settings.input_sets, 1); ++set) {
    HostImage h(src_size.width, src_size.height, Format{Depth::u8, 1});
    for (int y = 0; y < h.height(); ++y) {
      for (int x = 0; x < h.width(); ++x) h.at<std::uint8_t>(x, y) = static_cast<std::uint8_t>(rng() >> 24);
    }
    inputs->push_back(env.queue.upload(h));
    outputs->emplace_back(env.context, dst_size.width, dst_size.height, Format{Depth::u8, 1});
  }
  std::vector<Case> cases;
  for (Interpolation interpolation : {Interpolation::linear, Interpolation::linear_exact}) {
    Case c;
    c.op = "resize";
    c.variant = interpolation == Interpolation::linear ? "linear" : "linear_exact";
    c.config = "u8 C1 1/1.1";
    c.size = dst_size;
    c.bytes = static_cast<double>(src_size.width) * src_size.height + static_cast<double>(dst_size.width) * dst_size.height;
    Queue* queue = &env.queue;
    c.run = [=](int set) {
      const std::size_t i = static_cast<std::size_t>(set) % inputs->size();
      return resize(*queue, (*inputs)[i], (*outputs)[i], interpolation);
    };
    cases.push_back(std::move(c));
  }
  return cases;
}

const Registration registration("resize", resize_cases);

}  // namespace
}  // namespace plinth::bench
