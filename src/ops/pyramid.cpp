// pyr_down, pyr_up, build_pyramid and subsampled_pyramid: checks, plans and launches of
// kernels/pyramid.cl. docs/filters.md has the formulas.
#include <cmath>
#include <cstdio>
#include <string>

#include "../../kernels/pyramid_strips.h"
#include "core/launch.hpp"
#include "ops/elementwise_common.hpp"
#include "ops/filter_support.hpp"
#include "ops/pyramid_pair.hpp"
#include "plinth/arithm.hpp"
#include "plinth/pyramid.hpp"

namespace plinth {
namespace {

constexpr int kMaxLevels = 32;

// Work-group shapes: pyr_down tiles GX x 2GY outputs, pyr_down2 GX2 x GY2 outputs of the second
// level, pyr_up one 2x2 block per work-item, subsample GX x GY outputs.
struct PyramidPolicy {
  int down_gx = 32, down_gy = 8;
  int down2_gx = 16, down2_gy = 8;
  std::size_t up_gx = 32, up_gy = 4;
  int sub_gx = 32, sub_gy = 8;
};

const char* accumulator(Depth depth) {
  switch (depth) {
    case Depth::f32: return "float";
    case Depth::f64: return "double";
    default: return "int";  // u8, u16, s16: exact in int
  }
}

void check_source(Queue& queue, const DeviceImage& src, const char* op) {
  detail::check_device(queue, src, op, "src");
  detail::check_depth(src.depth(), {Depth::u8, Depth::u16, Depth::s16, Depth::f32, Depth::f64}, op, "src");
  detail::check_fp64(queue, src.depth() == Depth::f64, op);
}

detail::BuildOptions pyramid_options(const DeviceImage& src, BorderMode border, int gx, int gy) {
  detail::BuildOptions options;
  options.define_depth("SRC", src.depth()).define("CN", src.channels()).define("WT", accumulator(src.depth()));
  if (src.depth() == Depth::f64) options.define("PLINTH_NEED_FP64");
  options.define("BORDER", static_cast<long long>(border)).define("GX", gx).define("GY", gy);
  return options;
}

void check_down_border(BorderMode border, const char* op) {
  if (border == BorderMode::constant) {
    throw Error(ErrorCode::invalid_argument, op, "border", "cv::pyrDown does not support the constant border");
  }
}

Size down_size(Size s) { return Size{(s.width + 1) / 2, (s.height + 1) / 2}; }

// Local memory of pyr_down2: level-0 rows filtered at the frame's columns plus the level-1 frame,
// in accumulator vectors (3 channels occupy 4).
std::size_t down2_local_bytes(const DeviceImage& src, const PyramidPolicy& p) {
  const std::size_t l1w = 2 * static_cast<std::size_t>(p.down2_gx) + 3;
  const std::size_t l1h = 2 * static_cast<std::size_t>(p.down2_gy) + 3;
  const std::size_t lanes = src.channels() == 3 ? 4 : static_cast<std::size_t>(src.channels());
  const std::size_t element = (src.depth() == Depth::f64 ? 8 : 4) * lanes;
  return (2 * l1h + 3 + l1h) * l1w * element;
}

constexpr PyrLevelMethodInfo kLevelMethods[] = {
    {PyrLevelMethod::automatic, "auto", "strips for u8 images of one or four channels with word-aligned rows, else baseline"},
    {PyrLevelMethod::baseline, "baseline",
     "any type; pyrDown: a GX x 2GY tile, rows filtered into local memory, one output a row per work-item; pyrUp: one "
     "2x2 block per work-item from its 3x3 neighbourhood"},
    {PyrLevelMethod::strips, "strips",
     "u8, 1 or 4 channels: 8 bytes across x 4 rows per work-item, every source row loaded once as words, sums two to "
     "a word in 16-bit lanes, outputs stored as 8- (pyrDown) or 16-byte (pyrUp) words"},
};

const PyrLevelMethodInfo& level_info(PyrLevelMethod method) {
  for (const PyrLevelMethodInfo& m : kLevelMethods) {
    if (m.method == method) return m;
  }
  return kLevelMethods[0];
}

bool strips_apply(const DeviceImage& src) { return src.depth() == Depth::u8 && (src.channels() == 1 || src.channels() == 4); }

// Pixels a strips work-item owns across (pyrDown outputs, pyrUp source pixels): STRIP_COLS bytes.
std::size_t strip_pixels(const DeviceImage& image) { return STRIP_COLS / static_cast<std::size_t>(image.channels()); }

// The `vec` argument of the strips kernels (pyramid_strips.h): which images' rows start on a
// boundary of the kernel's load and store words.
int strips_vec(const DeviceImage& src, int src_word, const DeviceImage& dst, int dst_word) {
  return (detail::vector_aligned(src, src_word) ? VEC_SRC : 0) | (detail::vector_aligned(dst, dst_word) ? VEC_DST : 0);
}

// automatic's choice: strips wherever its word loads and stores apply. On PoCL too: there, at
// 640x480 u8, strips took 1.31 ms for pyrDown and 0.37 ms for pyrUp against the baseline's 2.73
// and 0.69 (`plinth bench pyramid`, 2 cores), although byte_perm is a loop on CPUs.
PyrLevelMethod resolve_level(PyrLevelMethod method, const DeviceImage& src, int vec, const char* op) {
  if (method == PyrLevelMethod::strips && !strips_apply(src)) {
    throw Error(ErrorCode::unsupported_type, op, "method",
                "strips takes u8 images with one or four channels, not " + std::string(to_string(src.depth())) + "C" +
                    std::to_string(src.channels()) + "; use auto or baseline");
  }
  if (method != PyrLevelMethod::automatic) return method;
  return strips_apply(src) && vec == (VEC_SRC | VEC_DST) ? PyrLevelMethod::strips : PyrLevelMethod::baseline;
}

detail::BuildOptions strips_options(const DeviceImage& src, BorderMode border) {
  detail::BuildOptions options;
  options.define("STRIPS").define("STRIP_CN", src.channels()).define("BORDER", static_cast<long long>(border));
  return options;
}

Event launch_down_strips(Queue& queue, const DeviceImage& src, const DeviceImage& dst, BorderMode border, int vec) {
  const auto program = detail::get_program(queue, "pyramid.cl", strips_options(src, border));
  detail::Launch launch(queue, program, "pyr_down_strips");
  launch.arg(src.width()).arg(src.height()).arg(dst.width()).arg(dst.height()).arg(vec).image(src).image(dst);
  const std::size_t items_x = (static_cast<std::size_t>(dst.width()) + strip_pixels(src) - 1) / strip_pixels(src);
  const std::size_t items_y = (static_cast<std::size_t>(dst.height()) + DOWN_STRIP_ROWS - 1) / DOWN_STRIP_ROWS;
  return Event(launch.run(detail::range(detail::round_up(items_x, STRIP_GX), detail::round_up(items_y, DOWN_STRIP_GY)),
                          detail::range(STRIP_GX, DOWN_STRIP_GY)));
}

Event launch_up_strips(Queue& queue, const DeviceImage& src, const DeviceImage& dst, int vec) {
  const auto program = detail::get_program(queue, "pyramid.cl", strips_options(src, BorderMode::reflect_101));
  detail::Launch launch(queue, program, "pyr_up_strips");
  launch.arg(src.width()).arg(src.height()).arg(vec).image(src).image(dst);
  const std::size_t items_x = (static_cast<std::size_t>(src.width()) + strip_pixels(src) - 1) / strip_pixels(src);
  const std::size_t items_y = (static_cast<std::size_t>(src.height()) + UP_STRIP_ROWS - 1) / UP_STRIP_ROWS;
  return Event(launch.run(detail::range(detail::round_up(items_x, STRIP_GX), detail::round_up(items_y, UP_STRIP_GY)),
                          detail::range(STRIP_GX, UP_STRIP_GY)));
}

Event launch_down(Queue& queue, const DeviceImage& src, const DeviceImage& dst, BorderMode border) {
  const PyramidPolicy policy;
  const auto program = detail::get_program(queue, "pyramid.cl", pyramid_options(src, border, policy.down_gx, policy.down_gy));
  detail::Launch launch(queue, program, "pyr_down");
  launch.arg(src.width()).arg(src.height()).arg(dst.width()).arg(dst.height()).image(src).image(dst);
  const auto gx = static_cast<std::size_t>(policy.down_gx), gy = static_cast<std::size_t>(policy.down_gy);
  const std::size_t groups_y = (static_cast<std::size_t>(dst.height()) + 2 * gy - 1) / (2 * gy);
  return Event(launch.run(detail::range(detail::round_up(static_cast<std::size_t>(dst.width()), gx), groups_y * gy),
                          detail::range(gx, gy)));
}

Event launch_down2(Queue& queue, const DeviceImage& src, const DeviceImage& mid, const DeviceImage& dst, BorderMode border) {
  const PyramidPolicy policy;
  const auto program = detail::get_program(queue, "pyramid.cl", pyramid_options(src, border, policy.down2_gx, policy.down2_gy));
  detail::Launch launch(queue, program, "pyr_down2");
  launch.arg(src.width()).arg(src.height()).arg(mid.width()).arg(mid.height()).arg(dst.width()).arg(dst.height());
  launch.image(src).image(mid).image(dst);
  const auto gx = static_cast<std::size_t>(policy.down2_gx), gy = static_cast<std::size_t>(policy.down2_gy);
  return Event(launch.run(detail::range(detail::round_up(static_cast<std::size_t>(dst.width()), gx),
                                        detail::round_up(static_cast<std::size_t>(dst.height()), gy)),
                          detail::range(gx, gy)));
}

// The exact text of a float for a -D option: C99 hexadecimal, so that no digits are lost.
std::string hex_float(float value) {
  char text[64];
  std::snprintf(text, sizeof text, "%af", static_cast<double>(value));
  return text;
}

int gaussian_radius(const SubsampledPyramidOptions& o) {
  return static_cast<int>(std::ceil(3.0 * o.sigma_factor * o.subsampling));
}

void check_subsampled_options(const SubsampledPyramidOptions& o) {
  const char* op = "subsampled_pyramid";
  if (o.levels < 1 || o.levels > kMaxLevels) {
    throw Error(ErrorCode::out_of_range, op, "levels", std::to_string(o.levels) + " is outside 1..32");
  }
  if (o.subsampling < 2 || o.subsampling > 8) {
    throw Error(ErrorCode::out_of_range, op, "subsampling", std::to_string(o.subsampling) + " is outside 2..8");
  }
  if (!(o.sigma_factor > 0.0 && o.sigma_factor <= 4.0)) {
    throw Error(ErrorCode::out_of_range, op, "sigma_factor", std::to_string(o.sigma_factor) + " is outside (0, 4]");
  }
  check_down_border(o.border, op);
}

}  // namespace

std::span<const PyrLevelMethodInfo> pyr_level_methods() noexcept { return kLevelMethods; }

std::string_view to_string(PyrLevelMethod method) noexcept { return level_info(method).name; }

PyrLevelMethod parse_pyr_level_method(std::string_view text) {
  std::string names;
  for (const PyrLevelMethodInfo& m : kLevelMethods) {
    if (text == m.name) return m.method;
    names += (names.empty() ? "" : ", ") + std::string(m.name);
  }
  throw Error(ErrorCode::invalid_argument, "pyr_down", "method", "unknown method '" + std::string(text) + "' (expected " + names + ")");
}

std::string_view to_string(PyramidMethod method) noexcept {
  switch (method) {
    case PyramidMethod::automatic: return "auto";
    case PyramidMethod::per_level: return "per_level";
    case PyramidMethod::two_levels: return "two_levels";
  }
  return "?";
}

PyramidMethod parse_pyramid_method(std::string_view text) {
  for (PyramidMethod m : {PyramidMethod::automatic, PyramidMethod::per_level, PyramidMethod::two_levels}) {
    if (text == to_string(m)) return m;
  }
  throw Error(ErrorCode::invalid_argument, "build_pyramid", "method",
              "unknown method '" + std::string(text) + "' (expected auto, per_level or two_levels)");
}

namespace {

// One pyrDown level by `method` (automatic resolved here).
Event down_level(Queue& queue, const DeviceImage& src, const DeviceImage& dst, BorderMode border, PyrLevelMethod method,
                 const char* op) {
  const int vec = strips_vec(src, 16, dst, 8);
  if (resolve_level(method, src, vec, op) == PyrLevelMethod::strips) return launch_down_strips(queue, src, dst, border, vec);
  return launch_down(queue, src, dst, border);
}

}  // namespace

Event pyr_down(Queue& queue, const DeviceImage& src, DeviceImage& dst, BorderMode border, PyrLevelMethod method) {
  const char* op = "pyr_down";
  check_source(queue, src, op);
  check_down_border(border, op);
  detail::prepare_output(queue, dst, down_size(src.size()), src.format(), op, "dst");
  detail::check_no_overlap(src, dst, op, "dst");
  return down_level(queue, src, dst, border, method, op);
}

Event pyr_up(Queue& queue, const DeviceImage& src, DeviceImage& dst, BorderMode border, PyrLevelMethod method) {
  const char* op = "pyr_up";
  check_source(queue, src, op);
  if (border != BorderMode::reflect_101) {
    throw Error(ErrorCode::invalid_argument, op, "border", "cv::pyrUp supports reflect_101 (BORDER_DEFAULT) only");
  }
  if (src.width() > max_image_dimension / 2 || src.height() > max_image_dimension / 2) {
    throw Error(ErrorCode::out_of_range, op, "src", "twice its size exceeds the largest image");
  }
  detail::prepare_output(queue, dst, Size{2 * src.width(), 2 * src.height()}, src.format(), op, "dst");
  detail::check_no_overlap(src, dst, op, "dst");
  const int vec = strips_vec(src, 8, dst, 16);
  if (resolve_level(method, src, vec, op) == PyrLevelMethod::strips) return launch_up_strips(queue, src, dst, vec);
  const PyramidPolicy policy;
  // pyr_up has no tiles; GX and GY only satisfy the shared build options.
  const auto program = detail::get_program(queue, "pyramid.cl", pyramid_options(src, border, policy.down_gx, policy.down_gy));
  detail::Launch launch(queue, program, "pyr_up");
  launch.arg(src.width()).arg(src.height()).image(src).image(dst);
  return Event(launch.run(detail::range(detail::round_up(static_cast<std::size_t>(src.width()), policy.up_gx),
                                        detail::round_up(static_cast<std::size_t>(src.height()), policy.up_gy)),
                          detail::range(policy.up_gx, policy.up_gy)));
}

HostImage pyr_down(Queue& queue, const HostImage& src, BorderMode border, PyrLevelMethod method) {
  detail::check_host(src, "pyr_down", "src");
  const DeviceImage d_src = queue.upload(src);
  DeviceImage dst;
  pyr_down(queue, d_src, dst, border, method);
  return queue.download(dst);
}

HostImage pyr_up(Queue& queue, const HostImage& src, BorderMode border, PyrLevelMethod method) {
  detail::check_host(src, "pyr_up", "src");
  const DeviceImage d_src = queue.upload(src);
  DeviceImage dst;
  pyr_up(queue, d_src, dst, border, method);
  return queue.download(dst);
}

Event build_pyramid(Queue& queue, const DeviceImage& src, std::vector<DeviceImage>& levels, const PyramidOptions& options) {
  const char* op = "build_pyramid";
  check_source(queue, src, op);
  check_down_border(options.border, op);
  if (options.levels < 1 || options.levels > kMaxLevels) {
    throw Error(ErrorCode::out_of_range, op, "levels", std::to_string(options.levels) + " is outside 1..32");
  }
  levels.resize(static_cast<std::size_t>(options.levels));
  levels[0] = src;
  Size size = src.size();
  for (std::size_t i = 1; i < levels.size(); ++i) {
    size = down_size(size);
    detail::prepare_output(queue, levels[i], size, src.format(), op, "levels");
    detail::check_no_overlap(src, levels[i], op, "levels");
    for (std::size_t j = 1; j < i; ++j) detail::check_no_overlap(levels[j], levels[i], op, "levels");
  }
  const PyramidPolicy policy;
  const std::uint64_t local = queue.context().device().local_memory;
  const bool fits = down2_local_bytes(src, policy) <= std::min<std::uint64_t>(local == 0 ? 32768 : local, 48 * 1024);
  if (options.method == PyramidMethod::two_levels && !fits) {
    throw Error(ErrorCode::invalid_argument, op, "method",
                "two_levels needs more local memory than the device gives for " + std::string(to_string(src.depth())) + "C" +
                    std::to_string(src.channels()) + " images; use auto or per_level");
  }
  // On CPU devices local memory is ordinary memory and a launch costs little, so the fused
  // kernel's recomputed frame is not worth it there. Nor on GPUs where pyr_down's `strips`
  // takes the level (u8 with 1 or 4 channels, word-aligned rows; decided level by level): on the
  // H100, 4 levels u8 at 7680x4320 took 64.5 us as three strips launches against 120.9 us fused
  // (3840x2160: 46.3 against 50.3), the fused kernel's byte loads and recomputed frame costing
  // more than the launch and the re-read level it saves. Other types keep the fused kernel.
  const bool cpu = queue.context().device().type == DeviceType::cpu;
  const bool fused = options.method == PyramidMethod::two_levels || (options.method == PyramidMethod::automatic && fits && !cpu);
  Event first, last;
  for (std::size_t i = 1; i < levels.size();) {
    Event e;
    const bool strips_level = options.method == PyramidMethod::automatic &&
                              resolve_level(PyrLevelMethod::automatic, levels[i - 1], strips_vec(levels[i - 1], 16, levels[i], 8),
                                            op) == PyrLevelMethod::strips;
    if (fused && !strips_level && i + 1 < levels.size()) {
      e = launch_down2(queue, levels[i - 1], levels[i], levels[i + 1], options.border);
      i += 2;
    } else {
      e = down_level(queue, levels[i - 1], levels[i], options.border, PyrLevelMethod::automatic, op);
      i += 1;
    }
    if (!first.valid()) first = e;
    last = e;
  }
  return first.valid() ? Event(first.first(), last.last()) : Event();
}

std::vector<HostImage> build_pyramid(Queue& queue, const HostImage& src, const PyramidOptions& options) {
  detail::check_host(src, "build_pyramid", "src");
  const DeviceImage d_src = queue.upload(src);
  std::vector<DeviceImage> levels;
  build_pyramid(queue, d_src, levels, options);
  std::vector<HostImage> out;
  out.push_back(src.clone());
  for (std::size_t i = 1; i < levels.size(); ++i) out.push_back(queue.download(levels[i]));
  return out;
}

std::vector<float> subsampled_pyramid_kernel(const SubsampledPyramidOptions& options) {
  check_subsampled_options(options);
  const double sigma = options.sigma_factor * options.subsampling;
  const int radius = gaussian_radius(options);
  std::vector<double> g(static_cast<std::size_t>(2 * radius + 1));
  double total = 0.0;
  for (int k = -radius; k <= radius; ++k) {
    g[static_cast<std::size_t>(k + radius)] = std::exp(-static_cast<double>(k * k) / (2.0 * sigma * sigma));
    total += g[static_cast<std::size_t>(k + radius)];
  }
  std::vector<float> out;
  for (double v : g) out.push_back(static_cast<float>(v / total));
  return out;
}

namespace {

// Level 0 of one frame: the source itself when it is f32, else an f32 image to convert it into.
// Levels already allocated with the right shape are reused; level 0 only when this vector alone
// holds its memory (after an f32 source it is the caller's own image, which a later u8 source of
// the same size must not overwrite). Returns whether level 0 still has to be converted.
bool prepare_first_level(Queue& queue, const DeviceImage& src, std::vector<DeviceImage>& levels, int count) {
  const bool reuse_first = levels.size() == static_cast<std::size_t>(count) && !levels[0].empty() &&
                           levels[0].native() != src.native() && levels[0].size() == src.size() &&
                           levels[0].format() == Format{Depth::f32, 1} && levels[0].buffer().use_count() == 1;
  if (!reuse_first && !levels.empty()) levels[0] = DeviceImage();
  levels.resize(static_cast<std::size_t>(count));
  if (src.depth() == Depth::f32) {
    levels[0] = src;
    return false;
  }
  if (levels[0].empty()) levels[0] = DeviceImage(queue.context(), src.width(), src.height(), Format{Depth::f32, 1});
  return true;
}

// One or two frames of one size (`b` null for one): one launch per level for all of them.
Event subsampled_pyramids(Queue& queue, const DeviceImage& a, std::vector<DeviceImage>& a_levels, const DeviceImage* b,
                          std::vector<DeviceImage>* b_levels, const SubsampledPyramidOptions& options) {
  const char* op = "subsampled_pyramid";
  check_subsampled_options(options);
  for (const DeviceImage* src : {&a, b}) {
    if (src == nullptr) continue;
    detail::check_device(queue, *src, op, "src");
    detail::check_depth(src->depth(), {Depth::u8, Depth::f32}, op, "src");
    detail::check_channels(src->channels(), {1}, op, "src");
  }
  if (b != nullptr && b->size() != a.size()) {
    throw Error(ErrorCode::invalid_argument, op, "src", "the two frames differ in size");
  }
  const int s = options.subsampling;
  Size size = a.size();
  for (int i = 1; i < options.levels; ++i) {
    size = Size{size.width / s, size.height / s};
    if (size.width < 1 || size.height < 1) {
      throw Error(ErrorCode::out_of_range, op, "levels",
                  "level " + std::to_string(i) + " of a " + std::to_string(a.width()) + "x" + std::to_string(a.height()) +
                      " image subsampled by " + std::to_string(s) + " would be empty");
    }
  }
  const std::vector<float> weights = subsampled_pyramid_kernel(options);
  std::string list;
  for (float w : weights) {
    if (!list.empty()) list += ',';
    list += hex_float(w);
  }
  const PyramidPolicy policy;
  const int radius = gaussian_radius(options);
  detail::BuildOptions build;
  build.define("SUBSAMPLING", s).define("RADIUS", radius).define("WEIGHTS", list);
  build.define("BORDER", static_cast<long long>(options.border)).define("GX", policy.sub_gx).define("GY", policy.sub_gy);
  const auto program = detail::get_program(queue, "pyramid.cl", build);
  const auto gx = static_cast<std::size_t>(policy.sub_gx), gy = static_cast<std::size_t>(policy.sub_gy);

  Event first, last;
  const auto add = [&](const Event& e) {
    if (!e.valid()) return;
    if (!first.valid()) first = e;
    last = e;
  };
  const bool convert_a = prepare_first_level(queue, a, a_levels, options.levels);
  const bool convert_b = b != nullptr && prepare_first_level(queue, *b, *b_levels, options.levels);
  if (convert_a && convert_b) {  // two u8 frames: one launch
    detail::Launch launch(queue, program, "to_float_pair");
    launch.arg(a.width()).arg(a.height()).image(a).image(a_levels[0]).image(*b).image((*b_levels)[0]);
    add(Event(launch.run(detail::range(detail::round_up(static_cast<std::size_t>(a.width()), gx),
                                       detail::round_up(static_cast<std::size_t>(a.height()), gy), 2),
                         detail::range(gx, gy, 1))));
  } else {
    if (convert_a) add(convert_to(queue, a, a_levels[0], Depth::f32));
    if (convert_b) add(convert_to(queue, *b, (*b_levels)[0], Depth::f32));
  }
  const auto next_level = [&](std::vector<DeviceImage>& levels, const DeviceImage& src, std::size_t i) -> DeviceImage& {
    const Size out{levels[i - 1].width() / s, levels[i - 1].height() / s};
    if (levels[i].empty() || levels[i].size() != out || levels[i].format() != Format{Depth::f32, 1} ||
        levels[i].native() == src.native()) {
      levels[i] = DeviceImage(queue.context(), out.width, out.height, Format{Depth::f32, 1});
    }
    return levels[i];
  };
  for (std::size_t i = 1; i < a_levels.size(); ++i) {
    const DeviceImage& in = a_levels[i - 1];
    DeviceImage& out = next_level(a_levels, a, i);
    detail::Launch launch(queue, program, "subsample");
    launch.arg(in.width()).arg(in.height()).arg(out.width()).arg(out.height()).image(in).image(out);
    if (b != nullptr) {
      launch.image((*b_levels)[i - 1]).image(next_level(*b_levels, *b, i));
    } else {
      launch.image(in).image(out);  // not read: the launch's third dimension is 1
    }
    add(Event(launch.run(detail::range(detail::round_up(static_cast<std::size_t>(out.width()), gx),
                                       detail::round_up(static_cast<std::size_t>(out.height()), gy), b != nullptr ? 2 : 1),
                         detail::range(gx, gy, 1))));
  }
  return first.valid() ? Event(first.first(), last.last()) : Event();
}

}  // namespace

Event subsampled_pyramid(Queue& queue, const DeviceImage& src, std::vector<DeviceImage>& levels,
                         const SubsampledPyramidOptions& options) {
  return subsampled_pyramids(queue, src, levels, nullptr, nullptr, options);
}

namespace detail {

Event subsampled_pyramid_pair(Queue& queue, const DeviceImage& a, std::vector<DeviceImage>& a_levels, const DeviceImage& b,
                              std::vector<DeviceImage>& b_levels, const SubsampledPyramidOptions& options) {
  if (&a_levels == &b_levels) throw Error(ErrorCode::internal, "subsampled_pyramid", "levels", "one vector for two frames");
  return subsampled_pyramids(queue, a, a_levels, &b, &b_levels, options);
}

}  // namespace detail

std::vector<HostImage> subsampled_pyramid(Queue& queue, const HostImage& src, const SubsampledPyramidOptions& options) {
  detail::check_host(src, "subsampled_pyramid", "src");
  const DeviceImage d_src = queue.upload(src);
  std::vector<DeviceImage> levels;
  subsampled_pyramid(queue, d_src, levels, options);
  std::vector<HostImage> out;
  for (const DeviceImage& level : levels) out.push_back(queue.download(level));
  return out;
}

}  // namespace plinth
