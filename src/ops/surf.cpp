// surf (cv::xfeatures2d::SURF's detectAndCompute) on the device: the integral image (plinth's
// integral), the Hessian responses of every octave's layers, the maxima with their interpolation
// appended to a list, their orientation and descriptors; then, on the host, OpenCV's order.
// docs/features.md ("SURF") explains the steps; src/ops/surf_reference.cpp is the CPU reference.
#include <algorithm>
#include <string>

#include "core/image_checks.hpp"
#include "core/launch.hpp"
#include "ops/surf_internal.hpp"
#include "plinth/error.hpp"
#include "plinth/integral.hpp"

namespace plinth {
namespace {

constexpr const char* kOp = "surf";

std::shared_ptr<detail::Program> surf_program(Queue& queue) {
  return detail::get_program(queue, "surf.cl", detail::BuildOptions{});
}

// The layer tables of surf_shape.h and the total size of the response stack.
struct Tables {
  std::vector<int> ints;
  std::vector<float> floats;
  std::int64_t stack = 0;
};

Tables make_tables(const std::vector<detail::SurfLayer>& layers) {
  Tables t;
  for (const auto& l : layers) {
    int row[SURF_LAYER_INTS] = {};
    row[SURF_L_OFFSET] = static_cast<int>(t.stack);
    row[SURF_L_ROWS] = l.rows;
    row[SURF_L_COLS] = l.cols;
    row[SURF_L_STEP] = l.step;
    row[SURF_L_SIZE] = l.size;
    row[SURF_L_FILL_MARGIN] = l.fill_margin;
    row[SURF_L_FILL_ROWS] = l.fill_rows;
    row[SURF_L_FILL_COLS] = l.fill_cols;
    auto put = [&](int at, const detail::SurfBox& b) {
      row[at] = b.x1;
      row[at + 1] = b.y1;
      row[at + 2] = b.x2;
      row[at + 3] = b.y2;
    };
    for (int k = 0; k < 3; ++k) put(SURF_L_DXX + 4 * k, l.dxx[static_cast<std::size_t>(k)]);
    for (int k = 0; k < 3; ++k) put(SURF_L_DYY + 4 * k, l.dyy[static_cast<std::size_t>(k)]);
    for (int k = 0; k < 4; ++k) put(SURF_L_DXY + 4 * k, l.dxy[static_cast<std::size_t>(k)]);
    t.ints.insert(t.ints.end(), row, row + SURF_LAYER_INTS);
    t.floats.insert(t.floats.end(), {l.wxx, l.wyy, l.wxy, 0.0f});
    t.stack += static_cast<std::int64_t>(l.rows) * l.cols;
  }
  if (t.stack > (std::int64_t{1} << 31) - 1) throw Error(ErrorCode::out_of_range, kOp, "image", "too large for the response stack");
  return t;
}

template <class T>
DeviceArray upload_values(Queue& queue, const std::vector<T>& values, Depth depth) {
  DeviceArray a(queue.context(), static_cast<std::int64_t>(values.size()), Format{depth, 1});
  upload_array(queue, values.data(), values.size() * sizeof(T), a).wait();
  return a;
}

}  // namespace

SurfFeatures surf(Queue& queue, const DeviceImage& image, const SurfParams& params, Event* device_event) {
  check_surf_params(params);
  if (image.empty()) throw Error(ErrorCode::invalid_argument, kOp, "image", "is empty");
  detail::check_device(queue, image, kOp, "image");
  if (image.format() != Format{Depth::u8, 1}) {
    throw Error(ErrorCode::unsupported_type, kOp, "image",
                "must be a one-channel u8 image, not " + std::string(to_string(image.depth())) + "C" + std::to_string(image.channels()));
  }
  const int min_size = surf_min_image_size(params);
  const int w = image.width(), h = image.height();
  if (w < min_size || h < min_size) {
    throw Error(ErrorCode::invalid_argument, kOp, "image",
                std::to_string(w) + "x" + std::to_string(h) + " is too small for SURF's first octave (at least " + std::to_string(min_size) +
                    "x" + std::to_string(min_size) + ")");
  }
  const auto program = surf_program(queue);
  const Context& context = queue.context();

  // Tables first, so that their uploads lie outside the timed span.
  const std::vector<detail::SurfLayer> layers = detail::surf_layers(w, h, params);
  const Tables tables = make_tables(layers);
  const DeviceArray layer_ints = upload_values(queue, tables.ints, Depth::s32);
  const DeviceArray layer_floats = upload_values(queue, tables.floats, Depth::f32);
  std::vector<int> offsets;
  for (const auto& o : detail::surf_orientation_offsets()) offsets.insert(offsets.end(), {o[0], o[1]});
  const DeviceArray offset_table = upload_values(queue, offsets, Depth::s32);
  const DeviceArray weight_table = upload_values(queue, detail::surf_weights(), Depth::f32);
  DeviceArray det(context, tables.stack, Format{Depth::f32, 1});
  DeviceArray trace(context, tables.stack, Format{Depth::f32, 1});
  DeviceArray count(context, 1, Format{Depth::u32, 1});
  const int per_octave = params.n_octave_layers + 2;
  const int dim = params.extended ? 128 : 64;
  IntegralOptions integral_options;
  integral_options.sum_depth = Depth::s32;
  DeviceImage sum;

  // Everything runs without reading anything back: the orientation and descriptor grids are sized
  // for the list's capacity and skip the slots past its count. A list that overflowed (count >
  // capacity) is redone once with room for all.
  std::int64_t capacity = std::max<std::int64_t>(4096, static_cast<std::int64_t>(w) * h / 128);
  DeviceArray list, keep, desc;
  std::uint32_t found = 0;
  Event first, last;
  for (int attempt = 0; attempt < 2; ++attempt) {
    list = DeviceArray(context, capacity * SURF_KP_FIELDS, Format{Depth::f32, 1});
    keep = DeviceArray(context, capacity, Format{Depth::s32, 1});
    desc = DeviceArray(context, capacity * dim, Format{Depth::f32, 1});
    const std::uint32_t zero = 0;
    upload_array(queue, &zero, sizeof zero, count).wait();

    first = integral(queue, image, sum, integral_options);
    for (int o = 0; o < params.n_octaves; ++o) {
      const detail::SurfLayer& l = layers[static_cast<std::size_t>(o * per_octave)];
      if (l.rows == 0 || l.cols == 0) continue;
      const detail::NDRange grid = detail::range(detail::round_up(static_cast<std::size_t>(l.cols), 32),
                                         detail::round_up(static_cast<std::size_t>(l.rows), 8), static_cast<std::size_t>(per_octave));
      detail::Launch hessian(queue, program, "surf_hessian");
      hessian.image(sum).buffer(*layer_ints.buffer()).buffer(*layer_floats.buffer()).arg(o * per_octave);
      hessian.buffer(*det.buffer()).buffer(*trace.buffer());
      hessian.run(grid, detail::range(32, 8, 1));
    }
    for (int o = 0; o < params.n_octaves; ++o) {
      const detail::SurfLayer& l = layers[static_cast<std::size_t>(o * per_octave)];
      if (l.rows == 0 || l.cols == 0) continue;
      const detail::NDRange grid = detail::range(detail::round_up(static_cast<std::size_t>(l.cols), 32),
                                         detail::round_up(static_cast<std::size_t>(l.rows), 8),
                                         static_cast<std::size_t>(params.n_octave_layers));
      detail::Launch extrema(queue, program, "surf_extrema");
      extrema.buffer(*layer_ints.buffer()).buffer(*det.buffer()).buffer(*trace.buffer()).arg(o * per_octave + 1).arg(o);
      extrema.arg(static_cast<float>(params.hessian_threshold)).arg(static_cast<int>(capacity));
      extrema.buffer(*count.buffer()).buffer(*list.buffer());
      extrema.run(grid, detail::range(32, 8, 1));
    }
    detail::Launch orient(queue, program, "surf_orientation");
    orient.image(sum).arg(w + 1).arg(h + 1).buffer(*list.buffer()).buffer(*offset_table.buffer()).buffer(*weight_table.buffer());
    orient.arg(params.upright ? 1 : 0).buffer(*count.buffer()).arg(static_cast<int>(capacity)).buffer(*keep.buffer());
    orient.run(detail::range(static_cast<std::size_t>(capacity) * SURF_ORI_GROUP), detail::range(SURF_ORI_GROUP));
    detail::Launch describe(queue, program, "surf_descriptor");
    describe.image(image).arg(w).arg(h).buffer(*list.buffer()).buffer(*keep.buffer()).buffer(*weight_table.buffer());
    describe.arg(params.upright ? 1 : 0).arg(params.extended ? 1 : 0).buffer(*count.buffer()).arg(static_cast<int>(capacity));
    describe.buffer(*desc.buffer());
    last = Event(describe.run(detail::range(static_cast<std::size_t>(capacity) * SURF_DESC_GROUP), detail::range(SURF_DESC_GROUP)));

    download_array(queue, count, &found, sizeof found).wait();
    if (found <= capacity) break;
    capacity = found;
  }
  if (device_event != nullptr) *device_event = Event(first.first(), last.last());

  SurfFeatures out;
  out.descriptor_size = dim;
  if (found == 0) return out;
  std::vector<float> raw(static_cast<std::size_t>(found) * SURF_KP_FIELDS);
  std::vector<int> kept(found);
  std::vector<float> values(static_cast<std::size_t>(found) * static_cast<std::size_t>(dim));
  download_array(queue, list.slice(0, static_cast<std::int64_t>(raw.size())), raw.data(), raw.size() * sizeof(float)).wait();
  download_array(queue, keep.slice(0, found), kept.data(), kept.size() * sizeof(int)).wait();
  download_array(queue, desc.slice(0, static_cast<std::int64_t>(values.size())), values.data(), values.size() * sizeof(float)).wait();

  // OpenCV's order on the host, after the device's work (the list came in any order); dropped
  // keypoints are left out.
  std::vector<KeyPoint> kps(found);
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < kps.size(); ++k) {
    const float* r = &raw[k * SURF_KP_FIELDS];
    kps[k] = {r[SURF_KP_X], r[SURF_KP_Y], r[SURF_KP_SIZE], r[SURF_KP_ANGLE], r[SURF_KP_RESPONSE], static_cast<int>(r[SURF_KP_OCTAVE]),
              static_cast<int>(r[SURF_KP_CLASS])};
    if (kept[k] != 0) order.push_back(k);
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return detail::surf_keypoint_before(kps[a], kps[b]); });
  const auto d = static_cast<std::size_t>(dim);
  out.keypoints.reserve(order.size());
  out.descriptors.reserve(order.size() * d);
  for (const std::size_t k : order) {
    out.keypoints.push_back(kps[k]);
    out.descriptors.insert(out.descriptors.end(), values.begin() + static_cast<std::ptrdiff_t>(k * d),
                           values.begin() + static_cast<std::ptrdiff_t>((k + 1) * d));
  }
  return out;
}

SurfFeatures surf(Queue& queue, const HostImage& image, const SurfParams& params) {
  if (image.empty()) throw Error(ErrorCode::invalid_argument, kOp, "image", "is empty");
  const DeviceImage device = queue.upload(image);
  return surf(queue, device, params);
}

}  // namespace plinth
