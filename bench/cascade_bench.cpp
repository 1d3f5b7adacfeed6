// Cascade detection cases: frontalface_default, scale factor 1.1, 3 neighbours, from a grey image
// already on the device to grouped rectangles, at the benchmark's size (the targets are
// 640x480 and 1920x1080). The input is the bundled astronaut photograph (data/astronaut.png)
// resized and tiled to the size (noise would let the cascade exit at once); input sets are the
// same picture rolled sideways.
// Timing covers every device command and the download of the passing windows; the grouping of
// those windows on the host is done in each run but is not in the device events (its own row,
// "auto: grouping", times it with the host clock). Rows "auto: <phase>" time one phase of auto's
// runs each (DetectionBatch::phases()), so that a table shows where the time goes; "auto: end
// to end" times upload, detection and results by the host clock.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <string>

#include "bench.hpp"
#include "bench_support.hpp"

namespace plinth::bench {
namespace {

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

// Tiles of about 640x540, so that faces keep a photograph's size at every benchmark size.
Size tiles_for(Size size) {
  return Size{std::max(1, static_cast<int>(std::lround(size.width / 640.0))),
              std::max(1, static_cast<int>(std::lround(size.height / 540.0)))};
}

// The driver calls the factory once per benchmark size (--sizes), so the cases are made for
// env.settings.size alone.
std::vector<Case> cascade_cases(Env& env) {
  const HostImage photo = read_image(data_file("astronaut.png", "cascade bench"), ReadMode::gray);
  const auto cascade = std::make_shared<Cascade>(Cascade::load(find_cascade("frontalface_default")));
  const Size size = env.settings.size;
  const Size tiles = tiles_for(size);
  const std::string config = "frontalface_default sf 1.1 mn 3";
  const double bytes = static_cast<double>(size.width) * size.height;  // the grey image, read once
  auto inputs = std::make_shared<std::vector<DeviceImage>>();
  for (int set = 0; set < std::max(env.settings.input_sets, 1); ++set) {
    inputs->push_back(env.queue.upload(tiled(env.queue, photo, size, tiles.width, tiles.height, set * 53)));
  }
  Queue* queue = &env.queue;
  const auto detect = [inputs, cascade, queue](int set, DetectionBatch& batch, const DetectOptions& options) {
    const DeviceImage& img = (*inputs)[static_cast<std::size_t>(set) % inputs->size()];
    Event e = detect_multi_scale(*queue, *cascade, std::span<const DeviceImage>(&img, 1), batch, options);
    batch.results();
    return e;
  };
  const auto make = [&](const std::string& variant, const DetectOptions& options) {
    auto batch = std::make_shared<DetectionBatch>();
    Case c;
    c.op = "cascade";
    c.variant = variant;
    c.config = config;
    c.size = size;
    c.bytes = bytes;
    c.run = [=](int set) { return detect(set, *batch, options); };
    return c;
  };

  std::vector<Case> cases;
  for (CascadeMethod method : {CascadeMethod::automatic, CascadeMethod::simple, CascadeMethod::staged}) {
    DetectOptions options;
    options.method = method;
    cases.push_back(make(std::string(to_string(method)), options));
  }
  // The staged schedule's switch to one warp per window, earlier, later and never.
  for (int from : {2, 4, 1000}) {
    DetectOptions options;
    options.method = CascadeMethod::staged;
    options.cooperative_from = from;
    cases.push_back(make(from < 1000 ? "staged warps from stage " + std::to_string(from) : "staged no warps", options));
  }

  // Where auto's time goes: one row per phase, each timing that phase's commands of a whole
  // run (names and window counts from a first call).
  DetectionBatch probe;
  detect(0, probe, DetectOptions{});
  const std::vector<DetectionPhase> phases = probe.phases();
  for (std::size_t k = 0; k < phases.size(); ++k) {
    if (!phases[k].event.valid()) continue;
    auto batch = std::make_shared<DetectionBatch>();
    Case c;
    c.op = "cascade";
    c.variant = "auto: " + phases[k].name;
    c.config = config;
    c.size = size;
    if (phases[k].windows > 0 || phases[k].name.rfind("stage", 0) == 0) {
      c.note = "auto phase '" + phases[k].name + "' at " + std::to_string(size.width) + "x" + std::to_string(size.height) +
               ": " + std::to_string(phases[k].windows) + " windows out";
    }
    c.run = [=](int set) {
      detect(set, *batch, DetectOptions{});
      return batch->phases()[k].event;
    };
    cases.push_back(std::move(c));
  }
  // What a caller with frames in host memory waits for: upload into a reused device image,
  // detection, download and grouping, by the host clock (issue 18's end-to-end target); frames
  // in ordinary (pageable) memory and in page-locked memory (HostImage::page_locked). On a queue
  // of its own with timing off, a new queue's default: device timestamps would add two events
  // to each of the call's commands.
  auto own = std::make_shared<Queue>(env.queue.context());
  for (const bool pinned : {false, true}) {
    auto hosts = std::make_shared<std::vector<HostImage>>();
    for (const DeviceImage& d : *inputs) {
      hosts->push_back(pinned ? HostImage::page_locked(env.queue.context(), size.width, size.height, d.format())
                              : HostImage(size.width, size.height, d.format()));
      env.queue.download(d, hosts->back()).wait();
    }
    auto frame = std::make_shared<DeviceImage>(env.queue.context(), size.width, size.height, Format{Depth::u8, 1});
    auto batch = std::make_shared<DetectionBatch>();
    Case c;
    c.op = "cascade";
    c.variant = pinned ? "auto: end to end, page-locked frame" : "auto: end to end";
    c.config = config;
    c.size = size;
    c.bytes = bytes;
    c.note = std::string("host clock (std::chrono): upload of a grey host image (") +
             (pinned ? "page-locked" : "pageable") + ") into a reused device image, detection, results(); timing off";
    c.run_peer = [=](int set) {
      const HostImage& host = (*hosts)[static_cast<std::size_t>(set) % hosts->size()];
      const auto start = std::chrono::steady_clock::now();
      own->upload(host, *frame);
      detect_multi_scale(*own, *cascade, std::span<const DeviceImage>(frame.get(), 1), *batch, DetectOptions{});
      batch->results();
      return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    };
    cases.push_back(std::move(c));
  }
  {
    auto batch = std::make_shared<DetectionBatch>();
    Case c;
    c.op = "cascade";
    c.variant = "auto: grouping";
    c.config = config;
    c.size = size;
    c.note = "host clock (std::chrono) around groupRectangles and clipping in results(); not in the device events";
    c.run_peer = [=](int set) {
      detect(set, *batch, DetectOptions{});
      return batch->grouping_us();
    };
    cases.push_back(std::move(c));
  }
  return cases;
}

const Registration registration("cascade", cascade_cases);

}  // namespace
}  // namespace plinth::bench
