// plinth track VIDEO|FRAMES... [--points N] [--quality Q] [--min-distance D] [--block-size B]
//   [--win N] [--levels L] [--redetect-below K] [--json] [--draw OUT] [--timing] [--max-frames N]
// Keeps a set of points across frames: good features to track on the first frame, pyramidal
// Lucas-Kanade (OpenCV 4.6's algorithm, bit exact) from each frame to the next, and when fewer
// than K points survive (K > 0), new corners detected away from the survivors to refill the set.
// --json prints one line per frame: {"frame", "file", "detected", "points": [{"id", "x", "y",
// "status", "err"}]} (the points tracked into this frame, lost ones with status 0 once, then the
// ones detected in it); floats print with 9 significant digits, which read back exactly.
// --draw writes the frames with the points and their recent tracks drawn, as a video (.mp4, .avi,
// .mkv) or as PNG frames into a new folder. --timing reports on stderr where the time goes.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <iostream>
#include <optional>

#include "cli_video.hpp"
#include "command.hpp"
#include "plinth/corners.hpp"
#include "plinth/klt.hpp"

namespace plinth::cli {
namespace {

constexpr const char* kCmd = "track";
constexpr std::size_t kTrail = 12;  // positions of a point's track that --draw shows

struct Options {
  std::vector<std::string> inputs;
  int points = 1000;
  double quality = 0.01;
  double min_distance = 10;
  int block_size = 3;
  std::string win = "21";
  int levels = 3;
  int redetect_below = 0;
  bool json = false;
  std::string draw;
  bool timing = false;
  std::int64_t max_frames = 0;
};

// Where the time of a run goes, by stage (host clock; with --timing each device stage is waited
// for, so that its time is its own).
class Stages {
 public:
  enum Id { decode, upload, pyramid, detect, track, download, draw, encode, output, count_ };
  explicit Stages(bool on) : on_(on) {}
  void start() { last_ = now(); }
  // Ends the current stage; `queue` (device stages) is finished first when timing.
  void end(Id id, Queue* queue = nullptr) {
    if (!on_) return;
    if (queue != nullptr) queue->finish();
    const double t = now();
    seconds_[id] += t - last_;
    last_ = t;
  }
  void report(std::int64_t frames, double wall, const std::string& device) const {
    static const char* const names[] = {"decode", "upload", "pyramid", "detect", "track", "download", "draw", "encode", "output"};
    double sum = 0;
    for (double s : seconds_) sum += s;
    std::fprintf(stderr, "timing: %lld frames in %.3f s = %.1f frames/s end to end on %s (each stage waited for)\n",
                 static_cast<long long>(frames), wall, static_cast<double>(frames) / std::max(wall, 1e-9), device.c_str());
    std::fprintf(stderr, "  %-9s %10s %12s %7s\n", "stage", "total ms", "ms / frame", "share");
    for (int i = 0; i < count_; ++i) {
      std::fprintf(stderr, "  %-9s %10.1f %12.3f %6.1f%%\n", names[i], seconds_[i] * 1e3,
                   seconds_[i] * 1e3 / static_cast<double>(std::max<std::int64_t>(frames, 1)), 100 * seconds_[i] / std::max(sum, 1e-12));
    }
  }

 private:
  static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  bool on_;
  double last_ = 0;
  double seconds_[count_] = {};
};

struct Track {
  std::int64_t id = 0;
  std::deque<Point2f> trail;  // most recent last
};

Size parse_window(const std::string& text) {
  const Size win = parse_size(text, "--win");
  if (win.width < 3 || win.height < 3 || win.width % 2 == 0 || win.height % 2 == 0) {
    throw Error(ErrorCode::invalid_argument, kCmd, "--win",
                "'" + text + "': the window's sides must be odd and at least 3 (e.g. 21 or 21x15)");
  }
  return win;
}

void validate(const Options& o) {
  const auto bad = [](const char* what, const std::string& why) { throw Error(ErrorCode::invalid_argument, kCmd, what, why); };
  if (o.points < 1) bad("--points", "must be at least 1");
  if (!(o.quality > 0 && o.quality <= 1)) bad("--quality", "must lie in (0, 1]");
  if (!(o.min_distance >= 0) || !std::isfinite(o.min_distance)) bad("--min-distance", "must be >= 0");
  if (o.block_size < 1 || o.block_size > 31) bad("--block-size", "must lie in [1, 31]");
  if (o.levels < 0) bad("--levels", "must be >= 0 (0 tracks on the full-size image only)");
  if (o.levels > 10) bad("--levels", "must be at most 10");
  if (o.redetect_below < 0) bad("--redetect-below", "must be >= 0 (0 never re-detects)");
  if (o.redetect_below > o.points) bad("--redetect-below", "cannot exceed --points");
  if (o.max_frames < 0) bad("--max-frames", "must be >= 0 (0: every frame)");
}

// A mask that keeps new corners min_distance away from the points still tracked.
HostImage mask_around(Size size, const std::vector<Point2f>& keep, double radius) {
  HostImage mask(size.width, size.height, Format{Depth::u8, 1});
  for (int y = 0; y < size.height; ++y) std::fill_n(mask.row_as<std::uint8_t>(y), size.width, std::uint8_t{255});
  const int r = static_cast<int>(std::ceil(std::max(radius, 1.0)));
  for (const Point2f& p : keep) {
    const int cx = static_cast<int>(std::lround(p.x)), cy = static_cast<int>(std::lround(p.y));
    for (int y = std::max(0, cy - r); y <= std::min(size.height - 1, cy + r); ++y) {
      for (int x = std::max(0, cx - r); x <= std::min(size.width - 1, cx + r); ++x) {
        if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r) mask.at<std::uint8_t>(x, y) = 0;
      }
    }
  }
  return mask;
}

Bgr colour_of(std::int64_t id) {
  const std::uint32_t h = static_cast<std::uint32_t>(id) * 2654435761u;
  return Bgr{static_cast<std::uint8_t>(64 + (h & 0xbf)), static_cast<std::uint8_t>(64 + ((h >> 8) & 0xbf)),
             static_cast<std::uint8_t>(64 + ((h >> 16) & 0xbf))};
}

std::string point_json(std::int64_t id, Point2f p, int status, float err) {
  return "{\"id\": " + std::to_string(id) + ", \"x\": " + json_number(p.x) + ", \"y\": " + json_number(p.y) +
         ", \"status\": " + std::to_string(status) + ", \"err\": " + json_number(err) + "}";
}

void run(const Options& o, Globals& globals) {
  validate(o);
  const Size win = parse_window(o.win);
  std::optional<FrameSink> sink;
  if (!o.draw.empty()) sink.emplace(o.draw, kCmd, globals);  // refused before anything is computed
  FrameSource frames(o.inputs, kCmd);

  GoodFeaturesParams gftt;
  gftt.max_corners = o.points;
  gftt.quality_level = o.quality;
  gftt.min_distance = o.min_distance;
  gftt.block_size = o.block_size;
  PyrLkParams lk;
  lk.win_size = win;
  lk.max_level = o.levels;

  Queue& queue = globals.queue();
  const Context& context = queue.context();
  Stages stages(o.timing);
  const std::int64_t expected = frames.expected_count();
  Progress progress(o.max_frames > 0 && (expected == 0 || o.max_frames < expected) ? o.max_frames : expected);
  const auto wall_start = std::chrono::steady_clock::now();

  OpticalFlowPyramid pyramids[2];
  int current = 0;
  std::vector<Point2f> points;   // the set being tracked, in the pyramid of `current`
  std::vector<Track> tracks;     // one per point
  std::int64_t next_id = 0, redetections = 0;
  std::size_t first_count = 0;
  std::vector<Point2f> next_points;
  std::vector<std::uint8_t> status;
  std::vector<float> err;
  HostImage gray, bgr;
  DeviceImage d_gray;

  stages.start();
  while ((o.max_frames == 0 || frames.index() + 1 < o.max_frames) && frames.next(gray, sink ? &bgr : nullptr)) {
    stages.end(Stages::decode);
    const std::int64_t index = frames.index();
    if (d_gray.empty() || d_gray.size() != gray.size()) d_gray = DeviceImage(context, gray.width(), gray.height(), gray.format());
    const Event uploaded = queue.upload(gray, d_gray);  // `gray` is refilled only after this completes
    stages.end(Stages::upload, &queue);
    OpticalFlowPyramid& pyramid = pyramids[index == 0 ? current : 1 - current];
    build_optical_flow_pyramid(queue, d_gray, pyramid, win, o.levels, true);
    stages.end(Stages::pyramid, &queue);

    std::string line;
    if (o.json) line = "{\"frame\": " + std::to_string(index) + ", \"file\": " + json_string(frames.file()) + ", ";
    std::string listed;
    // Track the set from the previous frame into this one.
    if (index > 0 && !points.empty()) {
      const auto n = static_cast<std::int64_t>(points.size());
      DeviceArray d_prev(context, n, Format{Depth::f32, 2}), d_next(context, n, Format{Depth::f32, 2});
      DeviceArray d_status(context, n, Format{Depth::u8, 1}), d_err(context, n, Format{Depth::f32, 1});
      upload_array(queue, points.data(), points.size() * sizeof(Point2f), d_prev);
      calc_optical_flow_pyr_lk(queue, pyramids[current], pyramid, d_prev, d_next, d_status, d_err, lk);
      stages.end(Stages::track, &queue);
      next_points.resize(points.size());
      status.resize(points.size());
      err.resize(points.size());
      download_array(queue, d_next, next_points.data(), next_points.size() * sizeof(Point2f));
      download_array(queue, d_status, status.data(), status.size());
      download_array(queue, d_err, err.data(), err.size() * sizeof(float)).wait();
      stages.end(Stages::download, &queue);
      std::vector<Point2f> kept;
      std::vector<Track> kept_tracks;
      for (std::size_t i = 0; i < points.size(); ++i) {
        if (o.json) listed += (listed.empty() ? "" : ", ") + point_json(tracks[i].id, next_points[i], status[i], err[i]);
        if (status[i] == 0) continue;
        kept.push_back(next_points[i]);
        kept_tracks.push_back(std::move(tracks[i]));
        kept_tracks.back().trail.push_back(next_points[i]);
        if (kept_tracks.back().trail.size() > kTrail) kept_tracks.back().trail.pop_front();
      }
      points = std::move(kept);
      tracks = std::move(kept_tracks);
      stages.end(Stages::output);
    }
    current = index == 0 ? current : 1 - current;

    // Detect: the whole set on the first frame, a refill below --redetect-below.
    std::size_t detected = 0;
    const bool refill = index > 0 && o.redetect_below > 0 && points.size() < static_cast<std::size_t>(o.redetect_below);
    if (index == 0 || refill) {
      GoodFeaturesParams params = gftt;
      params.max_corners = o.points - static_cast<int>(points.size());
      std::vector<Point2f> found;
      if (points.empty()) {
        found = good_features_to_track(queue, d_gray, params);
      } else {
        const DeviceImage d_mask = queue.upload(mask_around(gray.size(), points, o.min_distance));
        found = good_features_to_track(queue, d_gray, params, &d_mask);
      }
      stages.end(Stages::detect, &queue);
      if (index == 0 && found.empty()) {
        throw Error(ErrorCode::invalid_argument, kCmd, frames.file(),
                    "no corners found in the first frame (try a lower --quality or --min-distance)");
      }
      for (const Point2f& p : found) {
        if (o.json) listed += (listed.empty() ? "" : ", ") + point_json(next_id, p, 1, 0.0f);
        points.push_back(p);
        tracks.push_back(Track{next_id++, {p}});
      }
      detected = found.size();
      if (index == 0) first_count = found.size();
      if (refill) ++redetections;
    }
    if (points.empty() && o.redetect_below == 0) {
      throw Error(ErrorCode::invalid_argument, kCmd, frames.file(),
                  "every point was lost by frame " + std::to_string(index) +
                      "; --redetect-below N detects new ones when fewer than N remain");
    }
    if (o.json) {
      std::cout << line << "\"detected\": " << detected << ", \"points\": [" << listed << "]}\n";
      stages.end(Stages::output);
    }
    if (sink) {
      for (const Track& t : tracks) {
        const Bgr c = colour_of(t.id);
        for (std::size_t k = 1; k < t.trail.size(); ++k) draw_line(bgr, t.trail[k - 1], t.trail[k], c);
        draw_dot(bgr, t.trail.back(), 2, c);
      }
      stages.end(Stages::draw);
      sink->write(bgr, frames.fps());
      stages.end(Stages::encode);
    }
    progress.update(index + 1);
    uploaded.wait();
    stages.start();
  }
  progress.finish();
  if (frames.index() < 0) throw Error(ErrorCode::format, kCmd, o.inputs.front(), "holds no frame");
  if (sink) sink->close();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (!o.json) {
    std::cout << (frames.is_video() ? frames.file() : std::to_string(frames.index() + 1) + " images") << ": "
              << frames.index() + 1 << " frames, " << first_count << " points detected on the first, " << points.size()
              << " tracked at the end, " << redetections << " re-detections";
    if (sink) std::cout << "; drawn into " << sink->target();
    std::cout << '\n';
  }
  if (o.timing) stages.report(frames.index() + 1, wall, context.device().name);
}

void setup(Args& command, Globals& globals) {
  auto o = std::make_shared<Options>();
  command.add_option("inputs", o->inputs, "one video file, or image files / folders of frames in order").required();
  command.add_option("--points", o->points, "most points tracked (GFTT's maxCorners; default 1000)");
  command.add_option("--quality", o->quality, "GFTT's qualityLevel (default 0.01)");
  command.add_option("--min-distance", o->min_distance, "GFTT's minDistance in pixels (default 10)");
  command.add_option("--block-size", o->block_size, "GFTT's blockSize (default 3)");
  command.add_option("--win", o->win, "pyrLK window, N or WxH with odd sides >= 3 (default 21)");
  command.add_option("--levels", o->levels, "pyrLK maxLevel: pyramid levels above the image (default 3)");
  command.add_option("--redetect-below", o->redetect_below,
                     "detect new points when fewer than this many survive (default 0: never)");
  command.add_flag("--json", o->json, "one JSON line per frame on stdout: each point's id, x, y, status and err");
  command.add_option("--draw", o->draw, "write the frames with points and tracks drawn: a video (.mp4 .avi .mkv) or a new folder of PNGs");
  command.add_option("--max-frames", o->max_frames, "track the first N frames only (default 0: all)");
  command.add_flag("--timing", o->timing, "report frames/s and the time of each stage on stderr (waits for each)");
  command.callback([o, &globals] { run(*o, globals); });
}

const Command registration("track", "track points through a video or frames (GFTT + pyramidal Lucas-Kanade)", setup);

}  // namespace
}  // namespace plinth::cli
