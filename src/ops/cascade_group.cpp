// OpenCV's groupRectangles (objdetect/src/cascadedetect.cpp) with the numDetections weights:
// partition into classes of transitively similar rectangles, average each class with a float
// reciprocal and cvRound, keep classes of more than group_threshold members that are not
// inside a stronger class.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "plinth/cascade.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace {

bool similar(const Rect& a, const Rect& b, double eps) {
  const double delta = eps * (std::min(a.width, b.width) + std::min(a.height, b.height)) * 0.5;
  return std::abs(a.x - b.x) <= delta && std::abs(a.y - b.y) <= delta &&
         std::abs(a.x + a.width - b.x - b.width) <= delta && std::abs(a.y + a.height - b.y - b.height) <= delta;
}

// cv::saturate_cast<int>(float): round to nearest, ties to even.
int round_float(float v) {
  const double r = std::nearbyint(static_cast<double>(v));
  if (r >= 2147483647.0) return 2147483647;
  if (r <= -2147483648.0) return -2147483647 - 1;
  return static_cast<int>(r);
}

int round_double(double v) {
  const double r = std::nearbyint(v);
  if (r >= 2147483647.0) return 2147483647;
  if (r <= -2147483648.0) return -2147483647 - 1;
  return static_cast<int>(r);
}

int find_root(std::vector<int>& parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

}  // namespace

std::vector<Detection> group_rectangles(std::span<const Rect> rects, int group_threshold, double eps) {
  std::vector<Detection> out;
  if (!(eps >= 0) || !std::isfinite(eps)) throw Error(ErrorCode::invalid_argument, "group_rectangles", "eps", "must be >= 0");
  if (group_threshold <= 0 || rects.empty()) {
    for (const Rect& r : rects) out.push_back({r, 1});
    return out;
  }
  const int n = static_cast<int>(rects.size());
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  // The classes are the connected components of `similar`, whatever order the pairs are
  // visited in. Similar rectangles have |x difference| <= eps * (min widths + min heights) / 2,
  // at most `reach`, so a sweep in x order stops there instead of visiting every pair.
  int max_w = 0, max_h = 0;
  for (const Rect& r : rects) {
    max_w = std::max(max_w, r.width);
    max_h = std::max(max_h, r.height);
  }
  const double reach = eps * (static_cast<double>(max_w) + max_h) * 0.5;
  std::vector<int> by_x(n);
  std::iota(by_x.begin(), by_x.end(), 0);
  std::sort(by_x.begin(), by_x.end(), [&](int a, int b) { return rects[a].x < rects[b].x; });
  for (int k = 0; k < n; ++k) {
    const int i = by_x[k];
    for (int l = k + 1; l < n; ++l) {
      const int j = by_x[l];
      if (static_cast<double>(rects[j].x) - rects[i].x > reach) break;
      if (!similar(rects[i], rects[j], eps)) continue;
      const int a = find_root(parent, i), b = find_root(parent, j);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
  }
  std::vector<int> label(n, -1), root_label(n, -1);
  int classes = 0;
  for (int i = 0; i < n; ++i) {
    const int r = find_root(parent, i);
    if (root_label[r] < 0) root_label[r] = classes++;
    label[i] = root_label[r];
  }
  // Sums in int as OpenCV's Rect accumulation.
  std::vector<long long> sx(classes), sy(classes), sw(classes), sh(classes);
  std::vector<int> weight(classes, 0);
  for (int i = 0; i < n; ++i) {
    const int c = label[i];
    sx[c] += rects[i].x;
    sy[c] += rects[i].y;
    sw[c] += rects[i].width;
    sh[c] += rects[i].height;
    ++weight[c];
  }
  std::vector<Rect> avg(classes);
  for (int c = 0; c < classes; ++c) {
    const float s = 1.f / static_cast<float>(weight[c]);
    const auto mean = [s](long long v) { return round_float(static_cast<float>(static_cast<int>(v)) * s); };
    avg[c] = Rect{mean(sx[c]), mean(sy[c]), mean(sw[c]), mean(sh[c])};
  }
  for (int i = 0; i < classes; ++i) {
    const Rect r1 = avg[i];
    const int n1 = weight[i];
    if (n1 <= group_threshold) continue;
    bool inside = false;
    for (int j = 0; j < classes && !inside; ++j) {
      const int n2 = weight[j];
      if (j == i || n2 <= group_threshold) continue;
      const Rect r2 = avg[j];
      const int dx = round_double(r2.width * eps);
      const int dy = round_double(r2.height * eps);
      inside = r1.x >= r2.x - dx && r1.y >= r2.y - dy && r1.x + r1.width <= r2.x + r2.width + dx &&
               r1.y + r1.height <= r2.y + r2.height + dy && (n2 > std::max(3, n1) || n1 < 3);
    }
    if (!inside) out.push_back({r1, n1});
  }
  return out;
}

}  // namespace plinth
