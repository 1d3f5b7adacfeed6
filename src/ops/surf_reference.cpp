// SURF's plain C++ CPU reference (surf_reference) and what it shares with the device op: the layers
// and their box filters, the weight tables and the keypoint order. Written from the paper (Bay et
// al., 2008) and opencv_contrib's documented behaviour; docs/features.md ("SURF") gives the rules.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <sstream>
#include <string>

#include "ops/surf_internal.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace detail {
namespace {

// A pattern given on the 9 x 9 filter (x1, y1, x2, y2 of each box), scaled to `size` as OpenCV
// scales it: every corner multiplied by the float size / 9 and rounded half to even.
template <std::size_t N>
std::array<SurfBox, N> scale_pattern(const int (&base)[N][4], int size, int base_size) {
  const float ratio = static_cast<float>(size) / static_cast<float>(base_size);
  std::array<SurfBox, N> out{};
  for (std::size_t k = 0; k < N; ++k) {
    out[k] = {static_cast<int>(std::nearbyint(ratio * static_cast<float>(base[k][0]))),
              static_cast<int>(std::nearbyint(ratio * static_cast<float>(base[k][1]))),
              static_cast<int>(std::nearbyint(ratio * static_cast<float>(base[k][2]))),
              static_cast<int>(std::nearbyint(ratio * static_cast<float>(base[k][3])))};
  }
  return out;
}

// The weight of a pattern whose boxes all have one area (true of SURF's patterns at every size).
template <std::size_t N>
float pattern_weight(const std::array<SurfBox, N>& boxes) {
  const int area = (boxes[0].x2 - boxes[0].x1) * (boxes[0].y2 - boxes[0].y1);
  for (const SurfBox& b : boxes) {
    if ((b.x2 - b.x1) * (b.y2 - b.y1) != area || area <= 0) {
      throw Error(ErrorCode::internal, "surf", "layers", "boxes of one pattern differ in area");
    }
  }
  return 1.0f / static_cast<float>(area);
}

// cv::getGaussianKernel(n, sigma, CV_32F): exp(-x^2 / (2 sigma^2)) about the centre, normalised
// in double, then rounded to float.
std::vector<float> gaussian(int n, double sigma) {
  std::vector<double> t(static_cast<std::size_t>(n));
  double sum = 0;
  const double scale2 = -0.5 / (sigma * sigma);
  for (int i = 0; i < n; ++i) {
    const double x = i - (n - 1) * 0.5;
    t[static_cast<std::size_t>(i)] = std::exp(scale2 * x * x);
    sum += t[static_cast<std::size_t>(i)];
  }
  std::vector<float> out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = static_cast<float>(t[static_cast<std::size_t>(i)] * (1.0 / sum));
  return out;
}

}  // namespace

std::vector<SurfLayer> surf_layers(int width, int height, const SurfParams& params) {
  // The 9 x 9 patterns (x1, y1, x2, y2): second derivatives in x, y and the mixed one.
  static const int dxx[3][4] = {{0, 2, 3, 7}, {3, 2, 6, 7}, {6, 2, 9, 7}};
  static const int dyy[3][4] = {{2, 0, 7, 3}, {2, 3, 7, 6}, {2, 6, 7, 9}};
  static const int dxy[4][4] = {{1, 1, 4, 4}, {5, 1, 8, 4}, {1, 5, 4, 8}, {5, 5, 8, 8}};
  std::vector<SurfLayer> layers;
  for (int octave = 0; octave < params.n_octaves; ++octave) {
    const int step = 1 << octave;
    for (int layer = 0; layer < params.n_octave_layers + 2; ++layer) {
      SurfLayer l;
      l.octave = octave;
      l.layer = layer;
      l.size = (SURF_SIZE0 + SURF_SIZE_INC * layer) << octave;
      l.step = step;
      l.rows = height / step;
      l.cols = width / step;
      if (l.size <= height && l.size <= width) {
        l.fill_margin = (l.size / 2) / step;
        l.fill_rows = 1 + (height - l.size) / step;
        l.fill_cols = 1 + (width - l.size) / step;
        // Samples past the grid (possible only for tiny layers) are not kept.
        l.fill_rows = std::min(l.fill_rows, l.rows - l.fill_margin);
        l.fill_cols = std::min(l.fill_cols, l.cols - l.fill_margin);
        l.fill_rows = std::max(l.fill_rows, 0);
        l.fill_cols = std::max(l.fill_cols, 0);
      }
      l.dxx = scale_pattern(dxx, l.size, SURF_SIZE0);
      l.dyy = scale_pattern(dyy, l.size, SURF_SIZE0);
      l.dxy = scale_pattern(dxy, l.size, SURF_SIZE0);
      l.wxx = pattern_weight(l.dxx);
      l.wyy = pattern_weight(l.dyy);
      l.wxy = pattern_weight(l.dxy);
      layers.push_back(l);
    }
  }
  return layers;
}

const std::array<std::array<int, 2>, SURF_ORI_SAMPLES>& surf_orientation_offsets() {
  static const auto offsets = [] {
    std::array<std::array<int, 2>, SURF_ORI_SAMPLES> o{};
    int n = 0;
    for (int x = -SURF_ORI_RADIUS; x <= SURF_ORI_RADIUS; ++x) {
      for (int y = -SURF_ORI_RADIUS; y <= SURF_ORI_RADIUS; ++y) {
        if (x * x + y * y <= SURF_ORI_RADIUS * SURF_ORI_RADIUS) o[static_cast<std::size_t>(n++)] = {x, y};
      }
    }
    if (n != SURF_ORI_SAMPLES) throw Error(ErrorCode::internal, "surf", "orientation", "sample count");
    return o;
  }();
  return offsets;
}

const std::vector<float>& surf_weights() {
  static const std::vector<float> table = [] {
    std::vector<float> t(SURF_TABLE_SIZE);
    const std::vector<float> g_ori = gaussian(2 * SURF_ORI_RADIUS + 1, 2.5);
    const auto& offsets = surf_orientation_offsets();
    for (std::size_t k = 0; k < offsets.size(); ++k) {
      t[SURF_TABLE_ORI + k] = g_ori[static_cast<std::size_t>(offsets[k][0] + SURF_ORI_RADIUS)] *
                              g_ori[static_cast<std::size_t>(offsets[k][1] + SURF_ORI_RADIUS)];
    }
    const std::vector<float> g_desc = gaussian(SURF_PATCH, 3.3);
    for (int i = 0; i < SURF_PATCH; ++i) {
      for (int j = 0; j < SURF_PATCH; ++j) {
        t[static_cast<std::size_t>(SURF_TABLE_DESC + i * SURF_PATCH + j)] =
            g_desc[static_cast<std::size_t>(i)] * g_desc[static_cast<std::size_t>(j)];
      }
    }
    return t;
  }();
  return table;
}

bool surf_keypoint_before(const KeyPoint& a, const KeyPoint& b) {
  if (a.response != b.response) return a.response > b.response;
  if (a.size != b.size) return a.size > b.size;
  if (a.octave != b.octave) return a.octave > b.octave;
  if (a.y != b.y) return a.y > b.y;
  return a.x < b.x;
}

}  // namespace detail

void check_surf_params(const SurfParams& p) {
  constexpr const char* op = "surf";
  if (!(p.hessian_threshold >= 0) || !std::isfinite(p.hessian_threshold)) {
    std::ostringstream text;
    text << "must be a finite number >= 0, not " << p.hessian_threshold;
    throw Error(ErrorCode::invalid_argument, op, "hessian_threshold", text.str());
  }
  if (p.n_octaves < 1 || p.n_octaves > surf_max_octaves) {
    throw Error(ErrorCode::invalid_argument, op, "n_octaves",
                "must be from 1 to " + std::to_string(surf_max_octaves) + ", not " + std::to_string(p.n_octaves));
  }
  if (p.n_octave_layers < 1 || p.n_octave_layers > surf_max_octave_layers) {
    throw Error(ErrorCode::invalid_argument, op, "n_octave_layers",
                "must be from 1 to " + std::to_string(surf_max_octave_layers) + ", not " + std::to_string(p.n_octave_layers));
  }
}

int surf_min_image_size(const SurfParams&) {
  // The first searched layer (1) is compared with layer 2 (filter 21), whose samples lie 10 pixels
  // in from the border; the maximum needs a neighbour beyond it: 21 + 2.
  return SURF_SIZE0 + 2 * SURF_SIZE_INC + 2;
}

namespace {

constexpr const char* kOp = "surf_reference";

using detail::SurfLayer;

// OpenCV's det and trace of one layer: a float grid of rows x cols, 0 where not filled.
struct LayerResponse {
  std::vector<float> det, trace;
};

LayerResponse layer_response(const std::vector<int>& sum, int pitch, const SurfLayer& l) {
  LayerResponse r;
  r.det.assign(static_cast<std::size_t>(l.rows) * static_cast<std::size_t>(l.cols), 0.0f);
  r.trace.assign(r.det.size(), 0.0f);
  const int* s = sum.data();
  for (int i = 0; i < l.fill_rows; ++i) {
    for (int j = 0; j < l.fill_cols; ++j) {
      const int x = j * l.step;
      const int y = i * l.step;
      // OpenCV sums box * weight in double; every product and sum is exact there, so this is
      // the float nearest (box sums combined) * w.
      double dx = 0, dy = 0, dxy = 0;
      const double w2 = static_cast<double>(-2.0f * l.wxx);
      dx += detail::surf_box_sum(s, pitch, x, y, l.dxx[0]) * static_cast<double>(l.wxx);
      dx += detail::surf_box_sum(s, pitch, x, y, l.dxx[1]) * w2;
      dx += detail::surf_box_sum(s, pitch, x, y, l.dxx[2]) * static_cast<double>(l.wxx);
      const double wy2 = static_cast<double>(-2.0f * l.wyy);
      dy += detail::surf_box_sum(s, pitch, x, y, l.dyy[0]) * static_cast<double>(l.wyy);
      dy += detail::surf_box_sum(s, pitch, x, y, l.dyy[1]) * wy2;
      dy += detail::surf_box_sum(s, pitch, x, y, l.dyy[2]) * static_cast<double>(l.wyy);
      const double wxy = static_cast<double>(l.wxy);
      dxy += detail::surf_box_sum(s, pitch, x, y, l.dxy[0]) * wxy;
      dxy -= detail::surf_box_sum(s, pitch, x, y, l.dxy[1]) * wxy;
      dxy -= detail::surf_box_sum(s, pitch, x, y, l.dxy[2]) * wxy;
      dxy += detail::surf_box_sum(s, pitch, x, y, l.dxy[3]) * wxy;
      const float fx = static_cast<float>(dx);
      const float fy = static_cast<float>(dy);
      const float fxy = static_cast<float>(dxy);
      const std::size_t at = static_cast<std::size_t>(i + l.fill_margin) * static_cast<std::size_t>(l.cols) +
                             static_cast<std::size_t>(j + l.fill_margin);
      const float prod = 0.81f * fxy;
      r.det[at] = fx * fy - prod * fxy;
      r.trace[at] = fx + fy;
    }
  }
  return r;
}

// The maxima of middle layer `mid` (compared with the layers below and above), interpolated.
void find_maxima(const std::vector<SurfLayer>& layers, const std::vector<LayerResponse>& resp, int mid, float threshold,
                 std::vector<KeyPoint>& out) {
  const SurfLayer& l = layers[static_cast<std::size_t>(mid)];
  const SurfLayer& above = layers[static_cast<std::size_t>(mid + 1)];
  const SurfLayer& below = layers[static_cast<std::size_t>(mid - 1)];
  const int margin = (above.size / 2) / l.step + 1;
  const int cols = l.cols;
  for (int i = margin; i < l.rows - margin; ++i) {
    for (int j = margin; j < cols - margin; ++j) {
      const float v = resp[static_cast<std::size_t>(mid)].det[static_cast<std::size_t>(i) * cols + j];
      if (!(v > threshold)) continue;
      float n[27];
      bool is_max = true;
      for (int d = 0; d < 3; ++d) {
        const std::vector<float>& det = resp[static_cast<std::size_t>(mid - 1 + d)].det;
        for (int r = 0; r < 3; ++r) {
          for (int c = 0; c < 3; ++c) {
            const float u = det[static_cast<std::size_t>(i - 1 + r) * cols + (j - 1 + c)];
            n[d * 9 + r * 3 + c] = u;
            if (!(d == 1 && r == 1 && c == 1) && !(v > u)) is_max = false;
          }
        }
      }
      if (!is_max) continue;
      const int sum_y = l.step * (i - (l.size / 2) / l.step);
      const int sum_x = l.step * (j - (l.size / 2) / l.step);
      KeyPoint kp;
      kp.x = static_cast<float>(sum_x) + static_cast<float>(l.size - 1) * 0.5f;
      kp.y = static_cast<float>(sum_y) + static_cast<float>(l.size - 1) * 0.5f;
      kp.size = static_cast<float>(l.size);
      kp.response = v;
      kp.octave = l.octave;
      const float t = resp[static_cast<std::size_t>(mid)].trace[static_cast<std::size_t>(i) * cols + j];
      kp.class_id = (t > 0) - (t < 0);
      float x[3];
      if (surf_interpolate_offset(n, x) == 0) continue;
      kp.x += x[0] * static_cast<float>(l.step);
      kp.y += x[1] * static_cast<float>(l.step);
      kp.size = static_cast<float>(surf_round(kp.size + x[2] * static_cast<float>(l.size - below.size)));
      out.push_back(kp);
    }
  }
}

// The keypoint's orientation (degrees) from Haar responses of size 4s around it; false when no
// response could be sampled (the keypoint is then dropped, as OpenCV drops it).
bool orientation(const std::vector<int>& sum, int sum_w, int sum_h, float cx, float cy, float s, int wav, float& angle) {
  const auto& offsets = detail::surf_orientation_offsets();
  const std::vector<float>& weights = detail::surf_weights();
  const int half = wav / 2;
  const float w = 1.0f / static_cast<float>(half * wav);
  float xs[SURF_ORI_SAMPLES], ys[SURF_ORI_SAMPLES];
  int degrees[SURF_ORI_SAMPLES];
  int n = 0;
  for (int k = 0; k < SURF_ORI_SAMPLES; ++k) {
    const int x = surf_round(cx + static_cast<float>(offsets[static_cast<std::size_t>(k)][0]) * s - static_cast<float>(wav - 1) * 0.5f);
    const int y = surf_round(cy + static_cast<float>(offsets[static_cast<std::size_t>(k)][1]) * s - static_cast<float>(wav - 1) * 0.5f);
    if (y < 0 || y >= sum_h - wav || x < 0 || x >= sum_w - wav) continue;
    const detail::SurfBox left{0, 0, half, wav}, right{half, 0, wav, wav}, top{0, 0, wav, half}, bottom{0, half, wav, wav};
    const int gx = detail::surf_box_sum(sum.data(), sum_w, x, y, right) - detail::surf_box_sum(sum.data(), sum_w, x, y, left);
    const int gy = detail::surf_box_sum(sum.data(), sum_w, x, y, top) - detail::surf_box_sum(sum.data(), sum_w, x, y, bottom);
    const float a = weights[static_cast<std::size_t>(SURF_TABLE_ORI + k)];
    xs[n] = (static_cast<float>(gx) * w) * a;
    ys[n] = (static_cast<float>(gy) * w) * a;
    degrees[n] = surf_round(surf_atan2_deg(ys[n], xs[n]));
    ++n;
  }
  if (n == 0) return false;
  float best_x = 0, best_y = 0, best = 0;
  for (int start = 0; start < 360; start += SURF_ORI_STEP) {
    float sx = 0, sy = 0;
    for (int j = 0; j < n; ++j) {
      const int d = std::abs(degrees[j] - start);
      if (d < SURF_ORI_WIN / 2 || d > 360 - SURF_ORI_WIN / 2) {
        sx += xs[j];
        sy += ys[j];
      }
    }
    const float mod = sx * sx + sy * sy;
    if (mod > best) {
      best = mod;
      best_x = sx;
      best_y = sy;
    }
  }
  angle = surf_atan2_deg(-best_y, best_x);
  return true;
}

// The area-resampling (INTER_AREA) span of output sample d (0..20) over a window of `win`
// samples: window samples first .. first + count - 1, each weighted by its overlap with
// [d * scale, (d + 1) * scale), scale = win / 21, divided by scale.
struct AreaSpan {
  int first = 0, count = 0;
  float f1 = 0, f2 = 0, scale = 1;
  float weight(int k) const {
    const float lo = std::max(f1, static_cast<float>(first + k));
    const float hi = std::min(f2, static_cast<float>(first + k + 1));
    return (hi - lo) / scale;
  }
};
AreaSpan area_span(int d, int win) {
  AreaSpan span;
  span.scale = static_cast<float>(win) / static_cast<float>(SURF_PATCH1);
  span.f1 = static_cast<float>(d) * span.scale;
  span.f2 = std::min(static_cast<float>(d + 1) * span.scale, static_cast<float>(win));
  span.first = surf_floor(span.f1);
  int last = surf_floor(span.f2);
  if (static_cast<float>(last) == span.f2) --last;  // a boundary on a whole sample takes nothing of it
  span.count = last - span.first + 1;
  return span;
}

// The descriptor of one keypoint (OpenCV's scheme): a window of 21s x 21s pixels along the
// keypoint's direction, sampled bilinearly and rounded to u8, area-resampled to 21 x 21 u8,
// Haar-like differences of neighbouring samples weighted by a Gaussian, summed over 4 x 4 cells,
// normalised to unit length.
void describe(const HostImage& img, const KeyPoint& kp, bool upright, bool extended, float* vec) {
  const float s = kp.size * 1.2f / 9.0f;
  const int win = static_cast<int>(static_cast<float>(SURF_PATCH1) * s);
  std::vector<std::uint8_t> window(static_cast<std::size_t>(win) * static_cast<std::size_t>(win));
  const int w = img.width(), h = img.height();
  const float off = -static_cast<float>(win - 1) / 2.0f;
  if (!upright) {
    float sin_a, cos_a;
    surf_sincos_deg(kp.angle, &sin_a, &cos_a);
    const float sin_dir = -sin_a, cos_dir = cos_a;
    for (int i = 0; i < win; ++i) {
      const float v = off + static_cast<float>(i);
      for (int j = 0; j < win; ++j) {
        const float u = off + static_cast<float>(j);
        const float px = kp.x + u * cos_dir + v * sin_dir;
        const float py = kp.y - u * sin_dir + v * cos_dir;
        const int ix = surf_floor(px), iy = surf_floor(py);
        std::uint8_t value;
        if (ix >= 0 && ix < w - 1 && iy >= 0 && iy < h - 1) {
          const float a = px - static_cast<float>(ix), b = py - static_cast<float>(iy);
          const float p00 = img.at<std::uint8_t>(ix, iy), p01 = img.at<std::uint8_t>(ix + 1, iy);
          const float p10 = img.at<std::uint8_t>(ix, iy + 1), p11 = img.at<std::uint8_t>(ix + 1, iy + 1);
          const float t = p00 * (1.0f - a) * (1.0f - b) + p01 * a * (1.0f - b) + p10 * (1.0f - a) * b + p11 * a * b;
          value = static_cast<std::uint8_t>(std::clamp(surf_round(t), 0, 255));
        } else {
          const int x = std::clamp(surf_round(px), 0, w - 1), y = std::clamp(surf_round(py), 0, h - 1);
          value = img.at<std::uint8_t>(x, y);
        }
        window[static_cast<std::size_t>(i) * static_cast<std::size_t>(win) + static_cast<std::size_t>(j)] = value;
      }
    }
  } else {
    // Angle 270: window rows run along +x, columns along -y, at whole pixels.
    const int sx = surf_round(kp.x + off), sy = surf_round(kp.y - off);
    for (int i = 0; i < win; ++i) {
      for (int j = 0; j < win; ++j) {
        const int x = std::clamp(sx + i, 0, w - 1), y = std::clamp(sy - j, 0, h - 1);
        window[static_cast<std::size_t>(i) * static_cast<std::size_t>(win) + static_cast<std::size_t>(j)] = img.at<std::uint8_t>(x, y);
      }
    }
  }
  float patch[SURF_PATCH1][SURF_PATCH1];
  for (int py = 0; py < SURF_PATCH1; ++py) {
    const AreaSpan ry = area_span(py, win);
    for (int px = 0; px < SURF_PATCH1; ++px) {
      const AreaSpan rx = area_span(px, win);
      float acc = 0.0f;
      for (int a = 0; a < ry.count; ++a) {
        const std::uint8_t* row = &window[static_cast<std::size_t>(ry.first + a) * static_cast<std::size_t>(win)];
        float racc = 0.0f;
        for (int b = 0; b < rx.count; ++b) racc += rx.weight(b) * static_cast<float>(row[rx.first + b]);
        acc += ry.weight(a) * racc;
      }
      patch[py][px] = static_cast<float>(std::clamp(surf_round(acc), 0, 255));
    }
  }
  const std::vector<float>& weights = detail::surf_weights();
  float dxs[SURF_PATCH][SURF_PATCH], dys[SURF_PATCH][SURF_PATCH];
  for (int i = 0; i < SURF_PATCH; ++i) {
    for (int j = 0; j < SURF_PATCH; ++j) {
      const float dw = weights[static_cast<std::size_t>(SURF_TABLE_DESC + i * SURF_PATCH + j)];
      dxs[i][j] = (patch[i][j + 1] - patch[i][j] + patch[i + 1][j + 1] - patch[i + 1][j]) * dw;
      dys[i][j] = (patch[i + 1][j] - patch[i][j] + patch[i + 1][j + 1] - patch[i][j + 1]) * dw;
    }
  }
  const int per_cell = extended ? 8 : 4;
  double square = 0;
  for (int ci = 0; ci < SURF_CELLS; ++ci) {
    for (int cj = 0; cj < SURF_CELLS; ++cj) {
      float* v = vec + (ci * SURF_CELLS + cj) * per_cell;
      for (int k = 0; k < per_cell; ++k) v[k] = 0.0f;
      for (int y = ci * SURF_CELL; y < ci * SURF_CELL + SURF_CELL; ++y) {
        for (int x = cj * SURF_CELL; x < cj * SURF_CELL + SURF_CELL; ++x) {
          const float tx = dxs[y][x], ty = dys[y][x];
          if (extended) {
            // dx split by the sign of dy, dy by the sign of dx.
            const int bx = ty >= 0 ? 0 : 2, by = tx >= 0 ? 4 : 6;
            v[bx] += tx;
            v[bx + 1] += std::fabs(tx);
            v[by] += ty;
            v[by + 1] += std::fabs(ty);
          } else {
            v[0] += tx;
            v[1] += ty;
            v[2] += std::fabs(tx);
            v[3] += std::fabs(ty);
          }
        }
      }
      for (int k = 0; k < per_cell; ++k) square += static_cast<double>(v[k] * v[k]);
    }
  }
  const float scale = static_cast<float>(1.0 / (std::sqrt(square) + FLT_EPSILON));
  for (int k = 0; k < SURF_CELLS * SURF_CELLS * per_cell; ++k) vec[k] *= scale;
}

}  // namespace

SurfFeatures surf_reference(const HostImage& image, const SurfParams& params, bool with_descriptors) {
  check_surf_params(params);
  if (image.empty()) throw Error(ErrorCode::invalid_argument, kOp, "image", "is empty");
  if (image.format() != Format{Depth::u8, 1}) {
    throw Error(ErrorCode::unsupported_type, kOp, "image", "must be one-channel u8");
  }
  const int min_size = surf_min_image_size(params);
  if (image.width() < min_size || image.height() < min_size) {
    throw Error(ErrorCode::invalid_argument, kOp, "image",
                std::to_string(image.width()) + "x" + std::to_string(image.height()) + " is too small for SURF's first octave (at least " +
                    std::to_string(min_size) + "x" + std::to_string(min_size) + ")");
  }
  const int w = image.width(), h = image.height();
  const int sw = w + 1, sh = h + 1;
  std::vector<int> sum(static_cast<std::size_t>(sw) * static_cast<std::size_t>(sh), 0);
  for (int y = 0; y < h; ++y) {
    int run = 0;
    for (int x = 0; x < w; ++x) {
      run += image.at<std::uint8_t>(x, y);
      sum[static_cast<std::size_t>(y + 1) * sw + x + 1] = sum[static_cast<std::size_t>(y) * sw + x + 1] + run;
    }
  }
  const std::vector<detail::SurfLayer> layers = detail::surf_layers(w, h, params);
  std::vector<LayerResponse> resp;
  resp.reserve(layers.size());
  for (const auto& l : layers) resp.push_back(layer_response(sum, sw, l));
  std::vector<KeyPoint> found;
  const int per_octave = params.n_octave_layers + 2;
  for (int o = 0; o < params.n_octaves; ++o) {
    for (int l = 1; l <= params.n_octave_layers; ++l) {
      find_maxima(layers, resp, o * per_octave + l, static_cast<float>(params.hessian_threshold), found);
    }
  }
  std::sort(found.begin(), found.end(), detail::surf_keypoint_before);

  SurfFeatures out;
  out.descriptor_size = params.extended ? 128 : 64;
  for (KeyPoint kp : found) {
    const float s = kp.size * 1.2f / 9.0f;
    const int wav = 2 * surf_round(2.0f * s);
    if (sh < wav || sw < wav) continue;
    if (params.upright) {
      kp.angle = 270.0f;
    } else if (!orientation(sum, sw, sh, kp.x, kp.y, s, wav, kp.angle)) {
      continue;
    }
    out.keypoints.push_back(kp);
  }
  if (with_descriptors) {
    out.descriptors.assign(out.keypoints.size() * static_cast<std::size_t>(out.descriptor_size), 0.0f);
    for (std::size_t k = 0; k < out.keypoints.size(); ++k) {
      describe(image, out.keypoints[k], params.upright, params.extended, &out.descriptors[k * static_cast<std::size_t>(out.descriptor_size)]);
    }
  }
  return out;
}

}  // namespace plinth
