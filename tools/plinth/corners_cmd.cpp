// plinth corners IMAGE [--max-corners N] [--quality Q] [--min-distance D] [--block-size B]
//   [--gradient-size G] [--harris] [--k K] [--mask M.png] [--json]: cv::goodFeaturesToTrack of an
// image file, the corners printed in OpenCV's order (strongest first).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

#include "command.hpp"

namespace plinth::cli {
namespace {

constexpr const char* kCmd = "corners";

struct Options {
  std::string input;
  std::string mask;
  GoodFeaturesParams params;
  bool json = false;
};

// Enough digits that the float reads back bit for bit.
std::string exact(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

void run(const Options& o, Globals& globals) {
  const GoodFeaturesParams& p = o.params;
  // Parameters first, so that a bad one is reported before any file or device work.
  if (p.block_size < 1 || p.block_size > corners_max_block_size) {
    throw Error(ErrorCode::invalid_argument, kCmd, "--block-size",
                std::to_string(p.block_size) + " is outside 1.." + std::to_string(corners_max_block_size));
  }
  if (!(p.quality_level > 0) || !std::isfinite(p.quality_level)) {
    throw Error(ErrorCode::invalid_argument, kCmd, "--quality", "must be a positive number");
  }
  if (!(p.min_distance >= 0) || !std::isfinite(p.min_distance)) {
    throw Error(ErrorCode::invalid_argument, kCmd, "--min-distance", "must be 0 or more");
  }
  const HostImage image = read_image(o.input, ReadMode::gray);
  HostImage mask;
  if (!o.mask.empty()) {
    mask = read_image(o.mask, ReadMode::unchanged);
    if (mask.format() != Format{Depth::u8, 1} || mask.size() != image.size()) {
      throw Error(ErrorCode::invalid_argument, kCmd, "--mask",
                  o.mask + " must be a one-channel 8-bit image of " + std::to_string(image.width()) + "x" +
                      std::to_string(image.height()) + ", not " + std::to_string(mask.width()) + "x" +
                      std::to_string(mask.height()) + " " + std::string(to_string(mask.depth())) + "C" +
                      std::to_string(mask.channels()));
    }
  }
  Queue& queue = globals.queue();
  const DeviceImage src = queue.upload(image);
  DeviceImage d_mask;
  if (!mask.empty()) d_mask = queue.upload(mask);
  const std::vector<Point2f> corners = good_features_to_track(queue, src, p, mask.empty() ? nullptr : &d_mask);
  if (o.json) {
    std::cout << "{\"file\": " << json_string(o.input) << ", \"width\": " << image.width() << ", \"height\": " << image.height()
              << ", \"count\": " << corners.size() << ", \"corners\": [";
    for (std::size_t i = 0; i < corners.size(); ++i) {
      std::cout << (i ? ", " : "") << "[" << exact(corners[i].x) << ", " << exact(corners[i].y) << "]";
    }
    std::cout << "]}\n";
  } else {
    for (const Point2f& c : corners) std::cout << exact(c.x) << ' ' << exact(c.y) << '\n';
  }
}

void setup(Args& command, Globals& globals) {
  auto o = std::make_shared<Options>();
  command.add_option("image", o->input, "image file (read as grey)").required();
  command.add_option("--max-corners", o->params.max_corners, "most corners returned; 0 or less: no limit (default 1000)");
  command.add_option("--quality", o->params.quality_level, "minimal response as a fraction of the strongest (default 0.01)");
  command.add_option("--min-distance", o->params.min_distance, "least distance between corners in pixels (default 10)");
  command.add_option("--block-size", o->params.block_size, "window of the gradient sums (default 3)");
  command.add_option("--gradient-size", o->params.gradient_size, "Sobel aperture: 1, 3, 5 or 7 (default 3)");
  command.add_flag("--harris", o->params.use_harris_detector, "Harris response instead of the minimum eigenvalue");
  command.add_option("--k", o->params.k, "Harris' k (default 0.04)");
  command.add_option("--mask", o->mask, "8-bit one-channel image of the same size: corners only where non-zero");
  command.add_flag("--json", o->json, "one JSON object: the file, its size and the corners as [x, y] pairs");
  command.callback([o, &globals] { run(*o, globals); });
}

const Command registration("corners", "good features to track (cv::goodFeaturesToTrack), in OpenCV's order", setup);

}  // namespace
}  // namespace plinth::cli
