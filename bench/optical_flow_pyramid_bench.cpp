// Benchmark cases of build_optical_flow_pyramid (include/plinth/klt.hpp): the astronaut photograph
// tiled to the size, 21x21 windows, maxLevel 3, with the Scharr derivatives (a tracker's previous
// frame) and without (its next frame), by each method (fused: 3 launches for 4 levels; per_level:
// 11 launches with derivatives, 7 without). bench pyr_lk times both inside the tracker; these rows
// time the pyramids alone (bytes: the source read once, every level and derivative plane written
// once).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench_support.hpp"

namespace plinth::bench {
namespace {

std::vector<Case> make_cases(Env& env) {
  const Size size = env.settings.size;
  const Size win{21, 21};
  constexpr int kMaxLevel = 3;
  const int sets = env.settings.input_sets;
  Queue* queue = &env.queue;
  const HostImage photo = read_image(data_file("astronaut.png", "optical_flow_pyramid bench"), ReadMode::gray);
  auto frames = std::make_shared<std::vector<DeviceImage>>();
  for (int s = 0; s < sets; ++s) frames->push_back(queue->upload(repeated_photo(photo, size, 53 * s)));

  std::vector<Case> cases;
  using M = OpticalFlowPyramidMethod;
  const std::pair<M, bool> runs[] = {{M::fused, true}, {M::fused, false}, {M::per_level, true}, {M::per_level, false}};
  for (const auto& run : runs) {
    const OpticalFlowPyramidMethod method = run.first;
    const bool derivatives = run.second;
    auto pyramids = std::make_shared<std::vector<OpticalFlowPyramid>>(static_cast<std::size_t>(sets));
    // The level sizes, from a first build (OpenCV's stop rule decides how many levels there are).
    build_optical_flow_pyramid(*queue, frames->front(), pyramids->front(), win, kMaxLevel, derivatives, method);
    double bytes = static_cast<double>(size.width) * size.height;
    for (const DeviceImage& level : pyramids->front().levels) {
      bytes += static_cast<double>(level.width()) * level.height() * (derivatives ? 5.0 : 1.0);  // u8 level + 2 x s16
    }
    Case c;
    c.op = "optical_flow_pyramid";
    c.variant = std::string(to_string(method));
    c.config = std::string("21x21 maxLevel 3, ") + (derivatives ? "with derivatives" : "levels only");
    c.size = size;
    c.bytes = bytes;
    c.run = [=](int s) {
      const auto i = static_cast<std::size_t>(s % sets);
      OpticalFlowPyramid& pyramid = (*pyramids)[i];
      build_optical_flow_pyramid(*queue, (*frames)[i], pyramid, win, kMaxLevel, derivatives, method);
      return pyramid.ready;
    };
    cases.push_back(std::move(c));
  }
  return cases;
}

const Registration registration("optical_flow_pyramid", make_cases);

}  // namespace
}  // namespace plinth::bench
