// plinth match A.npy B.npy [--ratio R | --cross-check] [--json]: brute-force matching of two
// descriptor arrays (.npy, n x dim: float32 by L2, uint8 by Hamming) with cv::BFMatcher's rules.
#include <cstdio>
#include <iostream>

#include "command.hpp"

namespace plinth::cli {
namespace {

struct Options {
  std::string a, b;
  float ratio = 0.8f;
  bool cross_check = false;
  bool json = false;
};

HostImage read_descriptors(const std::string& path) {
  if (!has_extension(path, ".npy")) throw Error(ErrorCode::invalid_argument, "match", path, "is not a .npy file of descriptors");
  HostImage a = read_npy(path);
  if ((a.depth() != Depth::f32 && a.depth() != Depth::u8) || a.channels() != 1) {
    throw Error(ErrorCode::unsupported_type, "match", path, "must be a 2-D float32 (L2) or uint8 (Hamming) array");
  }
  return a;
}

template <class T>
std::vector<T> values(const HostImage& a) {
  std::vector<T> v;
  for (int y = 0; y < a.height(); ++y) v.insert(v.end(), a.row_as<T>(y), a.row_as<T>(y) + a.width());
  return v;
}

void run(const Options& o, Globals& globals) {
  const HostImage a = read_descriptors(o.a), b = read_descriptors(o.b);
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

void setup(CLI::App& command, Globals& globals) {
  auto o = std::make_shared<Options>();
  command.add_option("a", o->a, "query descriptors (.npy, n x dim, float32 or uint8)")->required();
  command.add_option("b", o->b, "train descriptors, same type and length")->required();
  command.add_option("--ratio", o->ratio, "Lowe's ratio test on the two nearest (default 0.8)");
  command.add_flag("--cross-check", o->cross_check, "mutual nearest neighbours instead of the ratio test");
  command.add_flag("--json", o->json, "print [query, train, distance] triples as JSON");
  command.callback([o, &globals] { run(*o, globals); });
}

const Command registration("match", "brute-force matching of two descriptor files (cv::BFMatcher)", setup);

}  // namespace
}  // namespace plinth::cli
