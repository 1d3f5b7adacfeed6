// Benchmark cases of SURF (include/plinth/features.hpp): detect and describe (64-d, OpenCV's
// defaults: threshold 100, 4 octaves of 3 layers) on the astronaut photograph tiled to the size
// (1920x1080 for the target; rolled right by 53 pixels per input set, as corners_bench).
// `plinth` is the device span from the integral image's first launch to the last descriptor's
// end (no read-back in between); `whole_call` is the host clock around the call (the tables'
// uploads, the read-back of keypoints and descriptors and their ordering on the host included).
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "bench_support.hpp"

namespace plinth::bench {
namespace {

#ifdef PLINTH_HAS_SURF
namespace fs = std::filesystem;

// data/astronaut.png: $PLINTH_DATA_DIR, ./data, or a data/ folder above the executable.
std::string photo_path() {
  std::vector<fs::path> candidates;
  if (const char* dir = std::getenv("PLINTH_DATA_DIR")) candidates.emplace_back(fs::path(dir) / "astronaut.png");
  candidates.emplace_back("data/astronaut.png");
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path p = exe.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path()) candidates.push_back(p / "data" / "astronaut.png");
  }
  for (const fs::path& p : candidates) {
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  throw Error(ErrorCode::io, "surf bench", "astronaut.png", "not found in $PLINTH_DATA_DIR, ./data or above the executable");
}

HostImage tiled_photo(const HostImage& photo, Size size, int shift) {
  HostImage out(size.width, size.height, Format{Depth::u8, 1});
  for (int y = 0; y < size.height; ++y) {
    const auto* src = photo.row_as<std::uint8_t>(y % photo.height());
    auto* dst = out.row_as<std::uint8_t>(y);
    for (int x = 0; x < size.width; ++x) dst[x] = src[((x + shift) % size.width) % photo.width()];
  }
  return out;
}

std::vector<Case> make_cases(Env& env) {
  const Size size = env.settings.size;
  Queue* queue = &env.queue;
  const int sets = env.settings.input_sets;
  auto photos = std::make_shared<std::vector<DeviceImage>>();
  const HostImage photo = read_image(photo_path(), ReadMode::gray);
  for (int s = 0; s < sets; ++s) photos->push_back(queue->upload(tiled_photo(photo, size, 53 * s)));
  // Keypoints of the first set, for the note (the count decides the description's cost).
  const std::size_t keypoints = surf(*queue, (*photos)[0]).keypoints.size();
  const std::string note = std::to_string(keypoints) + " keypoints on set 0";

  std::vector<Case> cases;
  {
    Case k;
    k.op = "surf";
    k.variant = "plinth";
    k.config = "detect+describe 64-d";
    k.size = size;
    k.bytes = image_bytes(size, Format{Depth::u8, 1});
    k.note = "plinth: device span from the integral image to the last descriptor; " + note;
    k.run = [=](int s) {
      Event event;
      const SurfFeatures f = surf(*queue, (*photos)[static_cast<std::size_t>(s)], SurfParams{}, &event);
      (void)f;
      return event;
    };
    cases.push_back(std::move(k));
  }
  {
    Case k;
    k.op = "surf";
    k.variant = "whole_call";
    k.config = "detect+describe 64-d";
    k.size = size;
    k.bytes = image_bytes(size, Format{Depth::u8, 1});
    k.note = "whole_call: host clock around surf() (device work, read-backs, host ordering); " + note;
    k.run_peer = [=](int s) {
      const auto t0 = std::chrono::steady_clock::now();
      const SurfFeatures f = surf(*queue, (*photos)[static_cast<std::size_t>(s)]);
      const auto t1 = std::chrono::steady_clock::now();
      (void)f;
      return std::chrono::duration<double, std::micro>(t1 - t0).count();
    };
    cases.push_back(std::move(k));
  }
  return cases;
}
#else
std::vector<Case> make_cases(Env&) { return {}; }  // built without SURF (PLINTH_WITH_SURF=OFF)
#endif

const Registration registration("surf", make_cases);

}  // namespace
}  // namespace plinth::bench
