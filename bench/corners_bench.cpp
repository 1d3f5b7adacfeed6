// Benchmark cases of corners (include/plinth/corners.hpp): corner_min_eigen_val and corner_harris
// (3x3 Sobel, block 3; block 7 for the running row sums), and good_features_to_track with
// maxCorners 10000, quality 0.01, minDistance 10 on the astronaut photograph tiled to the size
// (rolled right by 53 pixels per input set; bench/peers/opencv_corners_cpu.py times OpenCV's CPU
// on the same inputs). The responses are timed by device events. GFTT: the whole call of the host
// form by the host clock (its row says so), and the device form by device events, whole (first
// command to last, the wait for the candidates' count included) and stage by stage
// (GoodFeaturesStages: candidates, their keys and sort, the minDistance pass with the list).
#include <chrono>
#include <memory>
#include <string>

#include "bench_support.hpp"

namespace plinth::bench {
namespace {

std::vector<Case> make_cases(Env& env) {
  const Size size = env.settings.size;
  Queue* queue = &env.queue;
  const int sets = env.settings.input_sets;
  auto photos = std::make_shared<std::vector<DeviceImage>>();
  const HostImage photo = read_image(data_file("astronaut.png", "corners bench"), ReadMode::gray);
  for (int s = 0; s < sets; ++s) photos->push_back(queue->upload(repeated_photo(photo, size, 53 * s)));
  auto dst = std::make_shared<std::vector<DeviceImage>>(device_images(env, size, Format{Depth::f32, 1}, sets));
  const double io_bytes = image_bytes(size, Format{Depth::u8, 1}) + image_bytes(size, Format{Depth::f32, 1});

  std::vector<Case> cases;
  for (int block : {3, 7}) {
    for (bool harris : {false, true}) {
      Case k;
      k.op = "corners";
      k.variant = "plinth";
      k.config = std::string(harris ? "harris" : "min_eigen_val") + " sobel 3 block " + std::to_string(block);
      k.size = size;
      k.bytes = io_bytes;
      k.run = [=](int s) {
        const auto i = static_cast<std::size_t>(s);
        return harris ? corner_harris(*queue, (*photos)[i], (*dst)[i], block, 3, 0.04)
                      : corner_min_eigen_val(*queue, (*photos)[i], (*dst)[i], block, 3);
      };
      cases.push_back(std::move(k));
    }
  }
  GoodFeaturesParams params;
  params.max_corners = 10000;
  params.quality_level = 0.01;
  params.min_distance = 10;
  const std::string config = "gftt max 10000 q 0.01 d 10";
  {
    Case k;
    k.op = "corners";
    k.variant = "whole_call";
    k.config = config;
    k.size = size;
    k.bytes = image_bytes(size, Format{Depth::u8, 1});
    k.note = "whole_call: host clock around good_features_to_track's host form (every stage, the count read before the sort, "
             "the list read at the end)";
    k.run_peer = [=](int s) {
      const auto t0 = std::chrono::steady_clock::now();
      const std::vector<Point2f> corners = good_features_to_track(*queue, (*photos)[static_cast<std::size_t>(s)], params);
      const auto t1 = std::chrono::steady_clock::now();
      (void)corners;
      return std::chrono::duration<double, std::micro>(t1 - t0).count();
    };
    cases.push_back(std::move(k));
  }
  // The device form, one output pair per input set; each row times one span of the same call.
  auto lists = std::make_shared<std::vector<std::pair<DeviceArray, DeviceArray>>>(static_cast<std::size_t>(sets));
  const struct {
    const char* name;
    Event GoodFeaturesStages::*stage;  // nullptr: first command to last
  } spans[] = {{"device form, whole", nullptr},
               {"stage: candidates", &GoodFeaturesStages::candidates},
               {"stage: keys + sort", &GoodFeaturesStages::order},
               {"stage: min_distance + list", &GoodFeaturesStages::distance}};
  for (const auto& span : spans) {
    Case k;
    k.op = "corners";
    k.variant = "plinth";
    k.config = config + " " + span.name;
    k.size = size;
    k.bytes = image_bytes(size, Format{Depth::u8, 1});
    const auto stage = span.stage;
    k.run = [=](int s) {
      const auto i = static_cast<std::size_t>(s);
      GoodFeaturesStages stages;
      const Event last = good_features_to_track(*queue, (*photos)[i], (*lists)[i].first, (*lists)[i].second, params, nullptr, &stages);
      return stage == nullptr ? Event(stages.response.first(), last.last()) : stages.*stage;
    };
    cases.push_back(std::move(k));
  }
  return cases;
}

const Registration registration("corners", make_cases);

}  // namespace
}  // namespace plinth::bench
