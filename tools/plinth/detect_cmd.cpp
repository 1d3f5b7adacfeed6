// plinth detect IN... [--cascade NAME|PATH] [--scale-factor 1.1] [--min-neighbors 3]
//   [--min-size WxH] [--max-size WxH] [--method auto|simple|staged] [--json] [--draw OUT]
// Viola-Jones detection with an OpenCV cascade (frontalface_default from opencv-data by
// default). Inputs are image files, directories (their images, not recursive) and globs.
// --draw writes the image with the rectangles drawn in green as PNG: a file for one input, a
// directory for several. A video file (the only input) gives one JSON line per frame and --draw
// writes a video (detect_video.cpp).
// Inputs are processed in order. When one fails (unreadable, not an image), the run stops with
// one error line and exit code 1; the inputs before it have been reported (text or JSON alike:
// the JSON array then holds the inputs that completed) and their drawings written.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "cli_images.hpp"
#include "command.hpp"
#include "detect_video.hpp"

namespace plinth::cli {
namespace {

namespace fs = std::filesystem;
constexpr const char* kCmd = "detect";

struct Options {
  std::vector<std::string> inputs;
  std::string cascade = "frontalface_default";
  double scale_factor = 1.1;
  int min_neighbors = 3;
  std::string min_size, max_size;
  std::string method = "auto";
  bool json = false;
  std::string draw;
};

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

// Rectangle outlines in green, a few pixels thick, on an RGB image.
void draw_rectangles(HostImage& rgb, const std::vector<Detection>& found) {
  const int thickness = std::max(2, std::min(rgb.width(), rgb.height()) / 250);
  const auto paint = [&](int x, int y) {
    if (x < 0 || y < 0 || x >= rgb.width() || y >= rgb.height()) return;
    rgb.at<std::uint8_t>(x, y, 0) = 0;
    rgb.at<std::uint8_t>(x, y, 1) = 255;
    rgb.at<std::uint8_t>(x, y, 2) = 0;
  };
  for (const Detection& d : found) {
    const Rect& r = d.rect;
    for (int t = 0; t < thickness; ++t) {
      for (int x = r.x - t; x < r.x + r.width + t; ++x) {
        paint(x, r.y - t);
        paint(x, r.y + r.height - 1 + t);
      }
      for (int y = r.y - t; y < r.y + r.height + t; ++y) {
        paint(r.x - t, y);
        paint(r.x + r.width - 1 + t, y);
      }
    }
  }
}

void progress(std::size_t done, std::size_t total) {
  constexpr int width = 30;
  const int filled = static_cast<int>(width * done / std::max<std::size_t>(total, 1));
  std::fprintf(stderr, "\r[%s%s] %zu/%zu", std::string(static_cast<std::size_t>(filled), '#').c_str(),
               std::string(static_cast<std::size_t>(width - filled), '.').c_str(), done, total);
  if (done == total) std::fputc('\n', stderr);
  std::fflush(stderr);
}

void run(const Options& o, Globals& globals) {
  const std::vector<std::string> files = expand_inputs(o.inputs, kCmd);
  DetectOptions options;
  if (!(o.scale_factor > 1.0) || !std::isfinite(o.scale_factor)) {
    throw Error(ErrorCode::invalid_argument, kCmd, "--scale-factor", "must be a finite number greater than 1");
  }
  if (o.min_neighbors < 0) throw Error(ErrorCode::invalid_argument, kCmd, "--min-neighbors", "must be >= 0");
  options.scale_factor = o.scale_factor;
  options.min_neighbors = o.min_neighbors;
  if (!o.min_size.empty()) options.min_size = parse_size(o.min_size, "--min-size");
  if (!o.max_size.empty()) options.max_size = parse_size(o.max_size, "--max-size");
  if (!o.min_size.empty() && !o.max_size.empty() &&
      (options.min_size.width > options.max_size.width || options.min_size.height > options.max_size.height)) {
    throw Error(ErrorCode::invalid_argument, kCmd, "--min-size", o.min_size + " is larger than --max-size " + o.max_size);
  }
  options.method = parse_cascade_method(o.method);
  // A video is read frame by frame (detect_video.cpp): one JSON line per frame, --draw a video.
  if (std::any_of(files.begin(), files.end(), [](const std::string& f) { return is_video_file(f); })) {
    if (files.size() != 1) throw Error(ErrorCode::invalid_argument, kCmd, "inputs", "a video must be the only input");
    return detect_video(files.front(), find_cascade(o.cascade), options, o.json, o.draw, globals);
  }

  // Output names first, so that nothing is computed when one would be refused.
  std::vector<std::string> drawn;
  if (!o.draw.empty()) {
    if (files.size() == 1 && !fs::is_directory(o.draw)) {
      if (!has_extension(o.draw, ".png")) throw Error(ErrorCode::invalid_argument, kCmd, "--draw", "the output must be a .png file");
      drawn.push_back(o.draw);
    } else {
      std::error_code ec;
      if (fs::exists(o.draw, ec) && !fs::is_directory(o.draw, ec)) {
        throw Error(ErrorCode::invalid_argument, kCmd, "--draw", "with several inputs, --draw names a directory");
      }
      for (const std::string& f : files) drawn.push_back((fs::path(o.draw) / fs::path(f).stem()).string() + ".png");
      std::vector<std::string> sorted = drawn;
      std::sort(sorted.begin(), sorted.end());
      if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
        throw Error(ErrorCode::invalid_argument, kCmd, "--draw", "two inputs have the same file name; draw them separately");
      }
    }
    for (const std::string& d : drawn) check_writable(d, globals);
  }

  const Cascade cascade = Cascade::load(find_cascade(o.cascade));
  Queue& queue = globals.queue();
  DetectionBatch batch;
  const bool bar = files.size() > 1 && ::isatty(STDERR_FILENO);
  // JSON goes out per input as it completes, so that a later failure leaves the same results on
  // stdout as text mode does; the array is closed on the way out, also after an error.
  struct JsonArray {
    bool on = false;
    bool opened = false;
    void open() {
      if (on && !opened) std::cout << "[";
      opened = true;
    }
    ~JsonArray() {
      if (on && opened) std::cout << "\n]\n" << std::flush;
    }
  } array;
  array.on = o.json;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const HostImage gray = read_image(files[i], ReadMode::gray);
    const DeviceImage d_gray = queue.upload(gray);
    detect_multi_scale(queue, cascade, std::span<const DeviceImage>(&d_gray, 1), batch, options);
    const std::vector<Detection> found = batch.results().front();
    if (!drawn.empty()) {
      if (files.size() > 1) fs::create_directories(o.draw);
      HostImage rgb = read_image(files[i], ReadMode::rgb);
      draw_rectangles(rgb, found);
      write_image(drawn[i], rgb);
    }
    if (o.json) {
      array.open();
      std::ostringstream json;
      json << (i ? "," : "") << "\n  {\"file\": \"" << json_escape(files[i]) << "\", \"width\": " << gray.width()
           << ", \"height\": " << gray.height() << ", \"detections\": [";
      for (std::size_t k = 0; k < found.size(); ++k) {
        const Rect& r = found[k].rect;
        json << (k ? ", " : "") << "{\"x\": " << r.x << ", \"y\": " << r.y << ", \"width\": " << r.width
             << ", \"height\": " << r.height << ", \"neighbors\": " << found[k].neighbors << "}";
      }
      json << "]}";
      std::cout << json.str() << std::flush;
    } else {
      std::cout << files[i] << ": " << found.size() << (found.size() == 1 ? " object" : " objects") << '\n';
      for (const Detection& d : found) {
        std::cout << "  " << d.rect.x << "," << d.rect.y << " " << d.rect.width << "x" << d.rect.height << " ("
                  << d.neighbors << " neighbours)\n";
      }
      if (!drawn.empty()) std::cout << "  wrote " << drawn[i] << '\n';
      std::cout << std::flush;
    }
    if (bar) progress(i + 1, files.size());
  }
  array.open();  // an empty run still prints a JSON array
}

void setup(Args& command, Globals& globals) {
  auto o = std::make_shared<Options>();
  command.add_option("inputs", o->inputs, "image files, directories or globs, or one video file").required();
  command.add_option("--cascade", o->cascade,
                     "cascade name (frontalface_default, frontalface_alt2, eye, lbpcascade_frontalface_improved, ...) "
                     "found in /usr/share/opencv4, or an XML path");
  command.add_option("--scale-factor", o->scale_factor, "scale step between pyramid levels (> 1, default 1.1)");
  command.add_option("--min-neighbors", o->min_neighbors, "neighbours a detection needs (default 3; 0 keeps every window)");
  command.add_option("--min-size", o->min_size, "smallest object WxH");
  command.add_option("--max-size", o->max_size, "largest object WxH");
  command.add_option("--method", o->method, "auto, simple or staged (identical results)");
  command.add_flag("--json", o->json, "print JSON instead of text");
  command.add_option("--draw", o->draw, "write the image(s) with the detections drawn as PNG (a directory for several inputs)");
  command.callback([o, &globals] { run(*o, globals); });
}

const Command registration("detect", "detect faces or other objects with an OpenCV cascade", setup);

}  // namespace
}  // namespace plinth::cli
