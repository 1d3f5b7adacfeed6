// Cascade detection cases: frontalface_default, scale factor 1.1, 3 neighbours, from a grey image
// already on the device to grouped rectangles, at 640x480 and 1920x1080. The input is the
// bundled astronaut photograph (data/astronaut.png) resized and tiled to the size (noise would
// let the cascade exit at once); input sets are the same picture rolled sideways.
// Timing covers every device launch and the download of the passing windows; the grouping of
// those windows on the host (microseconds) is done in each run but is not in the device events.
#include <unistd.h>

#include <filesystem>
#include <string>

#include "bench.hpp"

namespace plinth::bench {
namespace {

namespace fs = std::filesystem;

std::string astronaut_path() {
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
  throw Error(ErrorCode::io, "cascade bench", "astronaut.png",
              "not found in $PLINTH_DATA_DIR, ./data or beside the executable's source tree");
}

// The photograph resized to tiles of the size (cols x rows) and rolled right by `shift` pixels.
HostImage tiled(Queue& queue, const HostImage& photo, Size size, int cols, int rows, int shift) {
  const Size tile{size.width / cols, size.height / rows};
  const HostImage small = resize(queue, photo, tile, Interpolation::linear);
  HostImage out(size.width, size.height, Format{Depth::u8, 1});
  for (int y = 0; y < size.height; ++y) {
    for (int x = 0; x < size.width; ++x) {
      const int sx = ((x + shift) % size.width) % tile.width;
      const int sy = y % tile.height;
      out.at<std::uint8_t>(x, y) = small.at<std::uint8_t>(std::min(sx, tile.width - 1), std::min(sy, tile.height - 1));
    }
  }
  return out;
}

std::vector<Case> cascade_cases(Env& env) {
  const HostImage photo = read_image(astronaut_path(), ReadMode::gray);
  const auto cascade = std::make_shared<Cascade>(Cascade::load(find_cascade("frontalface_default")));
  struct Shape {
    Size size;
    int cols, rows;
  };
  std::vector<Case> cases;
  for (const Shape& shape : {Shape{{640, 480}, 1, 1}, Shape{{1920, 1080}, 3, 2}}) {
    auto inputs = std::make_shared<std::vector<DeviceImage>>();
    for (int set = 0; set < std::max(env.settings.input_sets, 1); ++set) {
      inputs->push_back(env.queue.upload(tiled(env.queue, photo, shape.size, shape.cols, shape.rows, set * 53)));
    }
    for (CascadeMethod method : {CascadeMethod::automatic, CascadeMethod::simple, CascadeMethod::staged}) {
      auto batch = std::make_shared<DetectionBatch>();
      Case c;
      c.op = "cascade";
      c.variant = std::string(to_string(method));
      c.config = "frontalface_default sf 1.1 mn 3";
      c.size = shape.size;
      c.bytes = static_cast<double>(shape.size.width) * shape.size.height;  // the grey image, read once
      DetectOptions options;
      options.method = method;
      Queue* queue = &env.queue;
      c.run = [=](int set) {
        const DeviceImage& img = (*inputs)[static_cast<std::size_t>(set) % inputs->size()];
        Event e = detect_multi_scale(*queue, *cascade, std::span<const DeviceImage>(&img, 1), *batch, options);
        batch->results();
        return e;
      };
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

const Registration registration("cascade", cascade_cases);

}  // namespace
}  // namespace plinth::bench
