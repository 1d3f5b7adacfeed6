// Benchmark cases of SURF (include/plinth/features.hpp): detect and describe (64-d, 4 octaves of
// 3 layers) on the astronaut photograph tiled to the size (1920x1080 for the target;
// rolled right by 53 pixels per input set, as corners_bench), at OpenCV's default threshold 100
// (about 15,000 keypoints there) and at 1800 (about 5,000, the case).
// `plinth` is the device span from the integral image's first launch to the last descriptor's
// end (no read-back in between), with the automatic method; `per_pixel` and `hessian_rows` the
// same span with those SurfMethods (docs/features.md); `whole_call` is the host clock around the
// call (the read-back of keypoints and descriptors and their ordering on the host included; the
// tables are uploaded on the first call of a shape only).
#include <chrono>
#include <memory>
#include <string>
#include <utility>

#include "bench_support.hpp"

namespace plinth::bench {
namespace {

#ifdef PLINTH_HAS_SURF
std::vector<Case> make_cases(Env& env) {
  const Size size = env.settings.size;
  Queue* queue = &env.queue;
  const int sets = env.settings.input_sets;
  auto photos = std::make_shared<std::vector<DeviceImage>>();
  const HostImage photo = read_image(data_file("astronaut.png", "surf bench"), ReadMode::gray);
  for (int s = 0; s < sets; ++s) photos->push_back(queue->upload(repeated_photo(photo, size, 53 * s)));
  std::vector<Case> cases;
  for (const double threshold : {100.0, 1800.0}) {
    SurfParams params;
    params.hessian_threshold = threshold;
    // Keypoints of the first set, for the note (the count decides the description's cost).
    const std::size_t keypoints = surf(*queue, (*photos)[0], params).keypoints.size();
    const std::string note = std::to_string(keypoints) + " keypoints on set 0 at threshold " + std::to_string(static_cast<int>(threshold));
    Case base;
    base.op = "surf";
    base.config = "detect+describe 64-d threshold " + std::to_string(static_cast<int>(threshold));
    base.size = size;
    base.bytes = image_bytes(size, Format{Depth::u8, 1});
    // plinth: the automatic method (strips); the others to compare (the same result bit for bit).
    const std::pair<const char*, SurfMethod> methods[] = {
        {"plinth", SurfMethod::automatic}, {"per_pixel", SurfMethod::per_pixel}, {"hessian_rows", SurfMethod::hessian_rows}};
    for (const auto& [name, method] : methods) {
      Case k = base;
      k.variant = name;
      k.note = std::string(name) + ": device span from the integral image to the last descriptor; " + note;
      k.run = [=, method = method](int s) {
        Event event;
        const SurfFeatures f = surf(*queue, (*photos)[static_cast<std::size_t>(s)], params, &event, method);
        (void)f;
        return event;
      };
      cases.push_back(std::move(k));
    }
    {
      Case k = base;
      k.variant = "whole_call";
      k.note = "whole_call: host clock around surf() (device work, read-backs, host ordering); " + note;
      k.run_peer = [=](int s) {
        const auto t0 = std::chrono::steady_clock::now();
        const SurfFeatures f = surf(*queue, (*photos)[static_cast<std::size_t>(s)], params);
        const auto t1 = std::chrono::steady_clock::now();
        (void)f;
        return std::chrono::duration<double, std::micro>(t1 - t0).count();
      };
      cases.push_back(std::move(k));
    }
  }
  return cases;
}
#else
std::vector<Case> make_cases(Env&) { return {}; }  // built without SURF (PLINTH_WITH_SURF=OFF)
#endif

const Registration registration("surf", make_cases);

}  // namespace
}  // namespace plinth::bench
