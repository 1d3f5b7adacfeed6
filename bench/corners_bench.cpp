// Benchmark cases of corners (include/plinth/corners.hpp): corner_min_eigen_val and corner_harris
// (3x3 Sobel, block 3; block 7 for the running-sum path), and good_features_to_track with
// maxCorners 10000, quality 0.01, minDistance 10 on the astronaut photograph tiled to the size
// (rolled right by 53 pixels per input set; bench/peers/opencv_corners_cpu.py times OpenCV's CPU
// on the same inputs). The responses are timed by device events; GFTT as a whole call by the host
// clock (device stages incl. the candidates' sort, their download, the host minDistance walk),
// which its row says.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "bench_support.hpp"

namespace plinth::bench {
namespace {

namespace fs = std::filesystem;

// data/astronaut.png, looked up as cascade_bench.cpp does: $PLINTH_DATA_DIR, ./data, or a data/
// folder above the executable.
std::string photo_path() {
  std::vector<fs::path> candidates;
  if (const char* dir = std::getenv("PLINTH_DATA_DIR")) candidates.emplace_back(fs::path(dir) / "astronaut.png");
  candidates.emplace_back("data/astronaut.png");
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path p = exe.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path()) {
      candidates.push_back(p / "data" / "astronaut.png");
    }
  }
  for (const fs::path& p : candidates) {
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  throw Error(ErrorCode::io, "corners bench", "astronaut.png", "not found in $PLINTH_DATA_DIR, ./data or above the executable");
}

// The grey photograph repeated over the size and rolled right by `shift` pixels (the peer builds
// the same image with numpy).
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
    k.note = "whole_call: host clock around good_features_to_track (device stages incl. the sort, the count and "
             "ordered candidates read back, the host minDistance walk)";
    k.run_peer = [=](int s) {
      const auto t0 = std::chrono::steady_clock::now();
      const std::vector<Point2f> corners = good_features_to_track(*queue, (*photos)[static_cast<std::size_t>(s)], params);
      const auto t1 = std::chrono::steady_clock::now();
      (void)corners;
      return std::chrono::duration<double, std::micro>(t1 - t0).count();
    };
    cases.push_back(std::move(k));
  }
  return cases;
}

const Registration registration("corners", make_cases);

}  // namespace
}  // namespace plinth::bench
