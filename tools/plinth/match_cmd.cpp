// plinth match A B [--ratio R | --cross-check] [--json] [--draw matches.png]: brute-force matching
// of two descriptor arrays (.npy, n x dim: float32 by L2, uint8 by Hamming) with cv::BFMatcher's
// rules; an image file in place of an array stands for its SURF descriptors (plinth features), and
// --draw (two images) writes both side by side with a line per match.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "cli_surf.hpp"
#include "command.hpp"

namespace plinth::cli {
namespace {

struct Options {
  std::string a, b;
  float ratio = 0.8f;
  bool cross_check = false;
  bool json = false;
  std::string draw;
};

// Descriptors of one input: a .npy array, or the SURF features of an image file.
struct Input {
  HostImage descriptors;
  std::vector<KeyPoint> keypoints;  // for images only
  bool image = false;
};

HostImage rows_image(const std::vector<float>& values, int rows, int cols) {
  HostImage out(cols, rows, Format{Depth::f32, 1});
  for (int y = 0; y < rows; ++y) {
    for (int x = 0; x < cols; ++x) out.at<float>(x, y) = values[static_cast<std::size_t>(y) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(x)];
  }
  return out;
}

Input read_input(Globals& globals, const std::string& path) {
  Input in;
  if (!has_extension(path, ".npy")) {
    SurfFeatures f = image_features(globals, path, "match", SurfParams{});
    if (f.keypoints.empty()) throw Error(ErrorCode::invalid_argument, "match", path, "has no SURF keypoints: nothing to match");
    in.descriptors = rows_image(f.descriptors, static_cast<int>(f.keypoints.size()), f.descriptor_size);
    in.keypoints = std::move(f.keypoints);
    in.image = true;
    return in;
  }
  HostImage a = read_npy(path);
  if ((a.depth() != Depth::f32 && a.depth() != Depth::u8) || a.channels() != 1) {
    throw Error(ErrorCode::unsupported_type, "match", path, "must be a 2-D float32 (L2) or uint8 (Hamming) array");
  }
  in.descriptors = a;
  return in;
}

// A line from (x0, y0) to (x1, y1) in an RGB u8 image (Bresenham), clipped to the image.
void draw_line(HostImage& img, int x0, int y0, int x1, int y1, const std::uint8_t (&colour)[3]) {
  const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
  const int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
  int err = dx + dy;
  for (;;) {
    if (x0 >= 0 && y0 >= 0 && x0 < img.width() && y0 < img.height()) {
      for (int c = 0; c < 3; ++c) img.at<std::uint8_t>(x0, y0, c) = colour[c];
    }
    if (x0 == x1 && y0 == y1) break;
    const int e2 = 2 * err;
    if (e2 >= dy) {
      err += dy;
      x0 += sx;
    }
    if (e2 <= dx) {
      err += dx;
      y0 += sy;
    }
  }
}

// Both images side by side (grey as RGB), a line in one of six colours per match.
void write_drawing(const std::string& path, const std::string& a_path, const std::string& b_path, const Input& a, const Input& b,
                   const std::vector<Match>& found) {
  const HostImage ia = read_image(a_path, ReadMode::gray), ib = read_image(b_path, ReadMode::gray);
  HostImage out(ia.width() + ib.width(), std::max(ia.height(), ib.height()), Format{Depth::u8, 3});
  for (int y = 0; y < out.height(); ++y) {
    for (int x = 0; x < out.width(); ++x) {
      const bool left = x < ia.width();
      const HostImage& src = left ? ia : ib;
      const int sx = left ? x : x - ia.width();
      const std::uint8_t v = y < src.height() ? src.at<std::uint8_t>(sx, y) : 0;
      for (int c = 0; c < 3; ++c) out.at<std::uint8_t>(x, y, c) = v;
    }
  }
  static const std::uint8_t colours[6][3] = {{255, 0, 0}, {0, 200, 0}, {0, 80, 255}, {255, 200, 0}, {255, 0, 255}, {0, 220, 220}};
  for (std::size_t i = 0; i < found.size(); ++i) {
    const KeyPoint& p = a.keypoints[static_cast<std::size_t>(found[i].query)];
    const KeyPoint& q = b.keypoints[static_cast<std::size_t>(found[i].train)];
    draw_line(out, static_cast<int>(std::lround(p.x)), static_cast<int>(std::lround(p.y)), static_cast<int>(std::lround(q.x)) + ia.width(),
              static_cast<int>(std::lround(q.y)), colours[i % 6]);
  }
  OutputFile file(path, "match");
  write_image(file, out);
  file.commit();
}

template <class T>
std::vector<T> values(const HostImage& a) {
  std::vector<T> v;
  for (int y = 0; y < a.height(); ++y) v.insert(v.end(), a.row_as<T>(y), a.row_as<T>(y) + a.width());
  return v;
}

void run(const Options& o, Globals& globals) {
  if (!o.draw.empty()) {
    if (!has_extension(o.draw, ".png")) throw Error(ErrorCode::invalid_argument, "match", "--draw", o.draw + " is not a .png file");
    if (has_extension(o.a, ".npy") || has_extension(o.b, ".npy")) {
      throw Error(ErrorCode::invalid_argument, "match", "--draw", "needs two images (arrays carry no keypoint positions)");
    }
    check_writable(o.draw, globals);
  }
  const Input ia = read_input(globals, o.a), ib = read_input(globals, o.b);
  const HostImage& a = ia.descriptors;
  const HostImage& b = ib.descriptors;
  if (a.depth() != b.depth() || a.width() != b.width()) {
    throw Error(ErrorCode::invalid_argument, "match", o.b, "differs from " + o.a + " in type or descriptor length");
  }
  if (!(o.ratio > 0.0f && o.ratio <= 1.0f)) throw Error(ErrorCode::invalid_argument, "match", "--ratio", "must be in (0, 1]");
  Queue& queue = globals.queue();
  const int dim = a.width();
  std::vector<Match> found;
  if (a.depth() == Depth::f32) {
    const auto qa = values<float>(a), qb = values<float>(b);
    found = o.cross_check ? match(queue, std::span<const float>(qa), std::span<const float>(qb), dim, true)
                          : ratio_test(knn_match(queue, std::span<const float>(qa), std::span<const float>(qb), dim, 2), o.ratio);
  } else {
    const auto qa = values<std::uint8_t>(a), qb = values<std::uint8_t>(b);
    found = o.cross_check ? match(queue, std::span<const std::uint8_t>(qa), std::span<const std::uint8_t>(qb), dim, true)
                          : ratio_test(knn_match(queue, std::span<const std::uint8_t>(qa), std::span<const std::uint8_t>(qb), dim, 2), o.ratio);
  }
  if (!o.draw.empty()) write_drawing(o.draw, o.a, o.b, ia, ib, found);
  if (o.json) {
    std::string text = "{\"query\": \"" + o.a + "\", \"train\": \"" + o.b + "\", \"matches\": [";
    char number[32];
    for (std::size_t i = 0; i < found.size(); ++i) {
      std::snprintf(number, sizeof number, "%.9g", static_cast<double>(found[i].distance));
      text += std::string(i ? ", " : "") + "[" + std::to_string(found[i].query) + ", " + std::to_string(found[i].train) + ", " + number + "]";
    }
    std::cout << text << "]}\n";
  } else {
    std::cout << o.a << " (" << a.height() << ") -> " << o.b << " (" << b.height() << "): " << found.size() << " matches ("
              << (o.cross_check ? "cross-check" : "ratio " + std::to_string(o.ratio)) << ")\n";
  }
}

void setup(Args& command, Globals& globals) {
  auto o = std::make_shared<Options>();
  command.add_option("a", o->a, "query descriptors (.npy, n x dim, float32 or uint8) or an image (its SURF descriptors)").required();
  command.add_option("b", o->b, "train descriptors, same type and length, or an image").required();
  command.add_option("--draw", o->draw, "with two images: both side by side with the matches, a .png");
  command.add_option("--ratio", o->ratio, "Lowe's ratio test on the two nearest (default 0.8)");
  command.add_flag("--cross-check", o->cross_check, "mutual nearest neighbours instead of the ratio test");
  command.add_flag("--json", o->json, "print [query, train, distance] triples as JSON");
  command.callback([o, &globals] { run(*o, globals); });
}

const Command registration("match", "brute-force matching of two descriptor files or images (cv::BFMatcher)", setup);

}  // namespace
}  // namespace plinth::cli
