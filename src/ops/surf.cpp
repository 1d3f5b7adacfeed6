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

// surf_descriptor_strips needs one patch column's span of window columns (about s + 2 of them) to
// fit its strip: the largest filter the parameters allow, interpolated up by at most one layer's
// growth, gives s = 1.2 size / 9.
constexpr int kLargestFilter = (SURF_SIZE0 + SURF_SIZE_INC * (surf_max_octave_layers + 1)) << (surf_max_octaves - 1);
constexpr int kLargestSize = kLargestFilter + (SURF_SIZE_INC << (surf_max_octaves - 1));
static_assert(kLargestSize * 12 / 90 + 3 <= SURF_STRIP_BYTES, "a patch column's span must fit the strip");

std::shared_ptr<detail::Program> surf_program(Queue& queue) {
  return detail::get_program(queue, "surf.cl", detail::BuildOptions{});
}

// The layer tables of surf_shape.h and the total size of the response stack.
struct Tables {
  std::vector<int> ints;
  std::vector<float> floats;
  std::int64_t stack = 0;
};

// surf_hessian_rows reads Dxx and Dyy as three boxes sharing edges (columns, resp. rows, X0 < X1 <
// X2 < X3 over one band); true of the scaled patterns, since shared corners of the 9 x 9 pattern
// scale to one value. Checked, as the kernel relies on it.
bool boxes_share_edges(const std::array<detail::SurfBox, 3>& b, bool along_x) {
  for (int k = 0; k < 2; ++k) {
    const detail::SurfBox& p = b[static_cast<std::size_t>(k)];
    const detail::SurfBox& q = b[static_cast<std::size_t>(k + 1)];
    const bool ok = along_x ? (p.x2 == q.x1 && p.y1 == q.y1 && p.y2 == q.y2) : (p.y2 == q.y1 && p.x1 == q.x1 && p.x2 == q.x2);
    if (!ok) return false;
  }
  return true;
}

Tables make_tables(const std::vector<detail::SurfLayer>& layers) {
  Tables t;
  for (const auto& l : layers) {
    if (!boxes_share_edges(l.dxx, true) || !boxes_share_edges(l.dyy, false)) {
      throw Error(ErrorCode::internal, kOp, "layers", "Dxx or Dyy boxes do not share edges");
    }
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

// Buffers of the queue's scratch, so that repeated calls (video frames) allocate nothing: the
// response stack alone is about 90 MB at 1920x1080, and allocations synchronise the device.
const detail::Buffer& scratch_buffer(Queue& queue, const char* name, std::size_t bytes) {
  return *detail::scratch(queue, std::string("surf.") + name, std::max<std::size_t>(bytes, 4)).buffer;
}

// A table in the queue's scratch under a key that names its contents (the image size and
// parameters it depends on): uploaded only when the scratch buffer is fresh, so that repeated
// calls of one shape (video frames, the benchmark) skip the blocking uploads. A recycled buffer
// comes back fresh, so a table is never read with another shape's contents.
template <class T>
const detail::Buffer& upload_values(Queue& queue, const std::string& key, const std::vector<T>& values) {
  const std::size_t bytes = std::max<std::size_t>(values.size() * sizeof(T), 4);
  const detail::ScratchLease lease = detail::scratch(queue, "surf." + key, bytes);
  if (lease.fresh) detail::write_buffer(queue, *lease.buffer, values.data(), values.size() * sizeof(T), true);
  return *lease.buffer;
}

}  // namespace

SurfFeatures surf(Queue& queue, const DeviceImage& image, const SurfParams& params, Event* device_event, SurfMethod method) {
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
  const bool rows_hessian = method != SurfMethod::per_pixel;
  const bool strip_descriptor = method == SurfMethod::automatic || method == SurfMethod::strips;

  // Tables first, so that their uploads lie outside the timed span.
  const std::vector<detail::SurfLayer> layers = detail::surf_layers(w, h, params);
  const Tables tables = make_tables(layers);
  const std::string shape = std::to_string(w) + "x" + std::to_string(h) + "." + std::to_string(params.n_octaves) + "." +
                            std::to_string(params.n_octave_layers);
  const detail::Buffer& layer_ints = upload_values(queue, "layer_ints." + shape, tables.ints);
  const detail::Buffer& layer_floats = upload_values(queue, "layer_floats." + shape, tables.floats);
  std::vector<int> offsets;
  for (const auto& o : detail::surf_orientation_offsets()) offsets.insert(offsets.end(), {o[0], o[1]});
  const detail::Buffer& offset_table = upload_values(queue, "offsets", offsets);
  const detail::Buffer& weight_table = upload_values(queue, "weights", detail::surf_weights());
  const auto stack_bytes = static_cast<std::size_t>(tables.stack) * sizeof(float);
  const detail::Buffer& det = scratch_buffer(queue, "det", stack_bytes);
  const detail::Buffer& trace = scratch_buffer(queue, "trace", stack_bytes);
  const detail::Buffer& count = scratch_buffer(queue, "count", sizeof(std::uint32_t));
  const int per_octave = params.n_octave_layers + 2;
  const int dim = params.extended ? 128 : 64;
  IntegralOptions integral_options;
  integral_options.sum_depth = Depth::s32;
  DeviceImage sum;

  // Everything runs without reading anything back: the orientation and descriptor grids are sized
  // for the list's capacity and skip the slots past its count. A list that overflowed (count >
  // capacity) is redone once with room for all.
  std::int64_t capacity = std::max<std::int64_t>(4096, static_cast<std::int64_t>(w) * h / 128);
  const detail::Buffer* list = nullptr;
  const detail::Buffer* keep = nullptr;
  const detail::Buffer* desc = nullptr;
  std::uint32_t found = 0;
  Event first, last;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const auto slots = static_cast<std::size_t>(capacity);
    list = &scratch_buffer(queue, "list", slots * SURF_KP_FIELDS * sizeof(float));
    keep = &scratch_buffer(queue, "keep", slots * sizeof(int));
    desc = &scratch_buffer(queue, "desc", slots * static_cast<std::size_t>(dim) * sizeof(float));
    detail::fill_buffer(queue, count, 0, sizeof(std::uint32_t), 0, sizeof(std::uint32_t));

    first = integral(queue, image, sum, integral_options);
    for (int o = 0; o < params.n_octaves; ++o) {
      const detail::SurfLayer& l = layers[static_cast<std::size_t>(o * per_octave)];
      if (l.rows == 0 || l.cols == 0) continue;
      const std::size_t row_groups = rows_hessian ? (static_cast<std::size_t>(l.rows) + SURF_HESS_ROWS - 1) / SURF_HESS_ROWS
                                                  : static_cast<std::size_t>(l.rows);
      const detail::NDRange grid = detail::range(detail::round_up(static_cast<std::size_t>(l.cols), 32), detail::round_up(row_groups, 8),
                                                 static_cast<std::size_t>(per_octave));
      detail::Launch hessian(queue, program, rows_hessian ? "surf_hessian_rows" : "surf_hessian");
      hessian.image(sum).buffer(layer_ints).buffer(layer_floats).arg(o * per_octave);
      hessian.buffer(det).buffer(trace);
      hessian.run(grid, detail::range(32, 8, 1));
    }
    for (int o = 0; o < params.n_octaves; ++o) {
      const detail::SurfLayer& l = layers[static_cast<std::size_t>(o * per_octave)];
      if (l.rows == 0 || l.cols == 0) continue;
      const detail::NDRange grid = detail::range(detail::round_up(static_cast<std::size_t>(l.cols), 32),
                                         detail::round_up(static_cast<std::size_t>(l.rows), 8),
                                         static_cast<std::size_t>(params.n_octave_layers));
      detail::Launch extrema(queue, program, "surf_extrema");
      extrema.buffer(layer_ints).buffer(det).buffer(trace).arg(o * per_octave + 1).arg(o);
      extrema.arg(static_cast<float>(params.hessian_threshold)).arg(static_cast<int>(capacity));
      extrema.buffer(count).buffer(*list);
      extrema.run(grid, detail::range(32, 8, 1));
    }
    detail::Launch orient(queue, program, "surf_orientation");
    orient.image(sum).arg(w + 1).arg(h + 1).buffer(*list).buffer(offset_table).buffer(weight_table);
    orient.arg(params.upright ? 1 : 0).buffer(count).arg(static_cast<int>(capacity)).buffer(*keep);
    orient.run(detail::range(static_cast<std::size_t>(capacity) * SURF_ORI_GROUP), detail::range(SURF_ORI_GROUP));
    detail::Launch describe(queue, program, strip_descriptor ? "surf_descriptor_strips" : "surf_descriptor");
    describe.image(image).arg(w).arg(h).buffer(*list).buffer(*keep).buffer(weight_table);
    describe.arg(params.upright ? 1 : 0).arg(params.extended ? 1 : 0).buffer(count).arg(static_cast<int>(capacity));
    describe.buffer(*desc);
    last = Event(describe.run(detail::range(static_cast<std::size_t>(capacity) * SURF_DESC_GROUP), detail::range(SURF_DESC_GROUP)));

    detail::read_buffer(queue, count, &found, sizeof found, true);
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
  // One wait for the three (the queue runs in order).
  detail::read_buffer(queue, *list, raw.data(), raw.size() * sizeof(float), false);
  detail::read_buffer(queue, *keep, kept.data(), kept.size() * sizeof(int), false);
  detail::read_buffer(queue, *desc, values.data(), values.size() * sizeof(float), true);

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
