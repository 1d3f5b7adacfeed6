// calc_optical_flow_pyr_lk: checks, then one launch of kernels/pyr_lk.cl per pyramid level, from
// the coarsest down (OpenCV's methods), or the case study's tracker (method seed, pyr_lk_seed.cpp).
#include <algorithm>
#include <array>
#include <string>

#include "core/launch.hpp"
#include "ops/elementwise_common.hpp"
#include "ops/pyr_lk_seed.hpp"
#include "plinth/klt.hpp"

namespace plinth {
namespace {

struct MethodInfo {
  PyrLkMethod method;
  std::string_view name;
  std::string_view doc;
};

// Every method, once: parsing, printing and the CLI's help follow from this table.
constexpr std::array<MethodInfo, 6> kMethods{{
    {PyrLkMethod::automatic, "auto", "OpenCV's algorithm, bit exact, by the fastest opencv method that applies"},
    {PyrLkMethod::opencv, "opencv", "cv::calcOpticalFlowPyrLK of OpenCV 4.6 (CPU path), bit exact: a work-group per point"},
    {PyrLkMethod::opencv_int_sums, "opencv_int_sums", "as opencv, A and b sums as integers where that is proven exact"},
    {PyrLkMethod::opencv_fused, "opencv_fused", "as opencv_int_sums, levels 3 .. 0 in one launch"},
    {PyrLkMethod::opencv_item, "opencv_item", "as opencv, one work-item per point"},
    {PyrLkMethod::seed, "seed", "the case study's translation KLT (a different algorithm)"},
}};

constexpr std::size_t kGroup = 64;
constexpr std::size_t kPointGroup = 32;              // LK_GROUP in kernels/pyr_lk.cl
constexpr std::size_t kMaxPatchBytes = 24 * 1024;  // local memory of one point's window samples and terms
// opencv_int_sums' local memory (records, staged window, terms): with the static arrays below the 48 KiB a CUDA launch
// takes without opting in.
constexpr std::size_t kMaxRecordsBytes = 46 * 1024;  // 41x41 takes 25,936
// opencv_int_sums: a work-item's integer sums of up to this many products (each |diff * Ix| <=
// 8160 * 4080) stay below 2^31.
constexpr int kMaxClassElements = 60;
constexpr int kFusedLevels = 4;  // LK_FUSED_LEVELS in kernels/pyr_lk.cl

// opencv_int_sums deals the b chains' terms out by chain class: 4 classes of (w / 8) h terms
// (OpenCV's lane pairs: two samples each) and the scalar tail's (w % 8) h terms (one sample each,
// taken two at a time). Returns the work-items given the tail (the others share the 4 classes
// equally) that make the most steps of a work-item fewest, and the samples of those steps.
std::pair<int, int> int_sums_lanes(Size win) {
  const int chunks = win.width / 8, tail_w = win.width % 8;
  const int class_steps = chunks * win.height, tail_steps = (tail_w * win.height + 1) / 2;
  const int group = static_cast<int>(kPointGroup);
  const auto ceil_div = [](int a, int b) { return (a + b - 1) / b; };
  if (chunks == 0) return {group, 2 * ceil_div(tail_steps, group)};
  if (tail_w == 0) return {0, 2 * ceil_div(class_steps, group / 4)};
  std::pair<int, int> best{0, 1 << 30};
  for (int t = 1; t <= group - 4; ++t) {
    const int steps = std::max(ceil_div(class_steps, (group - t) / 4), ceil_div(tail_steps, t));
    if (2 * steps < best.second) best = {t, 2 * steps};
  }
  return best;
}

void check_points(Queue& queue, const DeviceArray& a, std::int64_t n, Format format, const char* op, const char* arg) {
  if (a.empty()) throw Error(ErrorCode::invalid_argument, op, arg, "is empty");
  if (a.buffer() == nullptr || a.format() != format || (n >= 0 && a.size() != n)) {
    throw Error(ErrorCode::invalid_argument, op, arg,
                "must be " + std::string(to_string(format.depth)) + " x" + std::to_string(format.channels) +
                    (n >= 0 ? " with " + std::to_string(n) + " elements" : std::string()) + " (it is " +
                    std::string(to_string(a.depth())) + " x" + std::to_string(a.channels()) + ", " +
                    std::to_string(a.size()) + " elements)");
  }
  (void)queue;
}

bool overlap(const DeviceArray& a, const DeviceArray& b) {
  if (a.empty() || b.empty() || a.buffer() != b.buffer()) return false;
  return a.offset() < b.offset() + b.bytes() && b.offset() < a.offset() + a.bytes();
}

void check_params(const PyrLkParams& p, const char* op) {
  if (p.win_size.width < 3 || p.win_size.height < 3 || p.win_size.width > 1024 || p.win_size.height > 1024) {
    throw Error(ErrorCode::out_of_range, op, "win_size",
                std::to_string(p.win_size.width) + "x" + std::to_string(p.win_size.height) +
                    " is outside 3..1024 (OpenCV needs each side > 2)");
  }
  if (p.max_level < 0 || p.max_level > 30) {
    throw Error(ErrorCode::out_of_range, op, "max_level", std::to_string(p.max_level) + " is outside 0..30");
  }
  if ((p.flags & ~(OPTFLOW_USE_INITIAL_FLOW | OPTFLOW_LK_GET_MIN_EIGENVALS)) != 0) {
    throw Error(ErrorCode::invalid_argument, op, "flags", "has bits other than OPTFLOW_USE_INITIAL_FLOW and OPTFLOW_LK_GET_MIN_EIGENVALS");
  }
  if (!(p.min_eig_threshold == p.min_eig_threshold)) {
    throw Error(ErrorCode::invalid_argument, op, "min_eig_threshold", "is NaN");
  }
}

// OpenCV's treatment of the criteria: defaults for unset parts, clamps, epsilon squared.
std::pair<int, double> effective_criteria(const TermCriteria& c) {
  const int count = (c.type & TermCriteria::count) == 0 ? 30 : std::min(std::max(c.max_count, 0), 100);
  double eps = (c.type & TermCriteria::eps) == 0 ? 0.01 : std::min(std::max(c.epsilon, 0.0), 10.0);
  return {count, eps * eps};
}

void check_pyramid(Queue& queue, const OpticalFlowPyramid& p, const PyrLkParams& params, const char* op, const char* arg) {
  if (p.levels.empty()) throw Error(ErrorCode::invalid_argument, op, arg, "has no levels (build_optical_flow_pyramid)");
  for (const DeviceImage& level : p.levels) detail::check_device(queue, level, op, arg);
  if (p.win_size.width < params.win_size.width || p.win_size.height < params.win_size.height) {
    throw Error(ErrorCode::invalid_argument, op, arg,
                "was built for a " + std::to_string(p.win_size.width) + "x" + std::to_string(p.win_size.height) +
                    " window, smaller than win_size " + std::to_string(params.win_size.width) + "x" +
                    std::to_string(params.win_size.height) + " (its padding is too small)");
  }
}

}  // namespace

std::string_view to_string(PyrLkMethod method) noexcept {
  for (const MethodInfo& m : kMethods) {
    if (m.method == method) return m.name;
  }
  return "?";
}

PyrLkMethod parse_pyr_lk_method(std::string_view text) {
  std::string names;
  for (const MethodInfo& m : kMethods) {
    if (text == m.name) return m.method;
    names += (names.empty() ? "" : ", ") + std::string(m.name);
  }
  throw Error(ErrorCode::invalid_argument, "calc_optical_flow_pyr_lk", "method",
              "unknown method '" + std::string(text) + "' (expected " + names + ")");
}

// automatic's switch from opencv_fused to opencv_int_sums, between the last count where fused
// measured faster and the first where it measured slower (H200, CUDA, 1920x1080, 21x21, 3 levels,
// 2026-11-29 01:16 UTC, the walk table and the shuffled proofs: 20,000 points fused 493.9 us,
// int_sums 505.0; 40,000 865.6 / 855.2; 10,000 305.4 / 329.3; 100,000 1,983.0 / 1,908.1).
constexpr std::int64_t kFusedBelowPoints = 30000;

Event calc_optical_flow_pyr_lk(Queue& queue, const OpticalFlowPyramid& prev, const OpticalFlowPyramid& next,
                               const DeviceArray& prev_pts, const DeviceArray& next_pts, const DeviceArray& status,
                               const DeviceArray& err, const PyrLkParams& params) {
  const char* op = "calc_optical_flow_pyr_lk";
  check_params(params, op);
  check_pyramid(queue, prev, params, op, "prev");
  check_pyramid(queue, next, params, op, "next");
  check_points(queue, prev_pts, -1, Format{Depth::f32, 2}, op, "prev_pts");
  const std::int64_t n = prev_pts.size();
  check_points(queue, next_pts, n, Format{Depth::f32, 2}, op, "next_pts");
  check_points(queue, status, n, Format{Depth::u8, 1}, op, "status");
  if (!err.empty()) check_points(queue, err, n, Format{Depth::f32, 1}, op, "err");
  // Every level reads prev_pts again and the outputs are written as it goes: no sharing.
  const std::pair<const DeviceArray*, const char*> arrays[] = {{&prev_pts, "prev_pts"}, {&next_pts, "next_pts"}, {&status, "status"}, {&err, "err"}};
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = i + 1; j < 4; ++j) {
      if (overlap(*arrays[i].first, *arrays[j].first)) {
        throw Error(ErrorCode::invalid_argument, op, arrays[j].second, std::string("shares memory with ") + arrays[i].second);
      }
    }
  }
  if (prev.levels[0].size() != next.levels[0].size()) {
    throw Error(ErrorCode::invalid_argument, op, "next", "frames differ in size from prev");
  }
  if (params.method == PyrLkMethod::seed) {
    return detail::seed_track(queue, prev, next, prev_pts, next_pts, status, err, params);
  }
  // Doubles give the correctly rounded float divisions and square roots OpenCV's x86 code has.
  detail::check_fp64(queue, true, op);
  if (!prev.has_derivatives()) {
    throw Error(ErrorCode::invalid_argument, op, "prev", "has no derivatives (build it with with_derivatives = true)");
  }
  const int max_level = std::min({params.max_level, prev.max_level(), next.max_level()});
  const auto [max_count, eps_sq] = effective_criteria(params.criteria);
  const auto program = detail::get_program(queue, "pyr_lk.cl", detail::BuildOptions{}.define("PLINTH_NEED_FP64"));
  const int npoints = static_cast<int>(n);
  // The group kernels' local memory: the window's samples (4 shorts a pixel) and the float terms
  // of the b sums (8 lane chains of win_h * (win_w / 8) terms, 2 tail chains of win_h * (win_w % 8)).
  const auto win_w = static_cast<std::size_t>(params.win_size.width), win_h = static_cast<std::size_t>(params.win_size.height);
  const std::size_t patch_bytes = 4 * sizeof(std::int16_t) * win_w * win_h;
  const std::size_t terms_bytes = sizeof(float) * win_h * (8 * (win_w / 8) + 2 * (win_w % 8));
  const std::uint64_t local_memory = queue.context().device().local_memory;
  const bool group_fits = patch_bytes + terms_bytes <= kMaxPatchBytes &&
                          (local_memory == 0 || patch_bytes + terms_bytes + 1024 <= local_memory);
  const auto [tail_lanes, class_share] = int_sums_lanes(params.win_size);
  // opencv_int_sums / opencv_fused (kernels/pyr_lk_records.h): every work-item makes `steps` steps
  // of two elements; local memory: a 16-byte template record a step, then an area that first holds
  // the template's staged window (a 4-byte derivative pair and a byte of I a pixel, (w + 1) x
  // (h + 1) pixels) and then J's staged window (4 bytes an element) and the steps' 4-byte pairs
  // of differences.
  const std::size_t steps = static_cast<std::size_t>(class_share / 2);
  const std::size_t area_bytes = std::max(4 * win_w * win_h + 4 * kPointGroup * steps, 5 * (win_w + 1) * (win_h + 1));
  const std::size_t records_bytes = 16 * kPointGroup * steps + (area_bytes + 15) / 16 * 16;
  const bool int_sums_fits = class_share <= kMaxClassElements && records_bytes <= kMaxRecordsBytes &&
                             (local_memory == 0 || records_bytes + 1024 <= local_memory);
  // automatic on GPUs: where the integer sums apply, opencv_fused below kFusedBelowPoints and
  // opencv_int_sums from there; else opencv where its local memory fits, else opencv_item. Before
  // the records layout (kernels/pyr_lk_records.h) fused paid only below one round of resident
  // work-groups (132 SMs x 32), and the switch was at 5,000 points. Measured then on the H100
  // (CUDA, 1920x1080, 21x21, 3 levels, 2026-11-25 08:26 UTC): 3,300 points fused 294 us, int_sums
  // 306, opencv 385; 10,000 points 533 / 520 / 708; 100,000 points 3,528 / 3,252 / 4,674
  // (opencv_item at 10,000: 1,027). Why (sm_90 SASS of the NVRTC output, 21x21, before the records
  // layout): per iteration, opencv and opencv_int_sums both sample the next frame's window with all
  // 32 work-items of a point; opencv then writes the b chains' float terms in a second pass over
  // the window (about 75 instructions an element, branches for both kinds of term) and runs
  // OpenCV's 10 chains on 10 of the 32 work-items (the scalar tail alone is 105 dependent
  // additions): about 1,900 warp instructions an iteration. opencv_int_sums folds the terms into
  // integer sums in registers as it samples (7 steps of about 111 instructions, every work-item
  // taking the same number of steps), about 950 in all, and where a chain is not proven exact (a
  // quarter of the iterations on the test videos) adds only that chain's ordered sum; A's sums,
  // once per level, likewise. opencv_fused is opencv_int_sums with levels 3 .. 0 in one launch:
  // the same work per point, but fewer launches and no idle tail between levels (each level's
  // launch lasts as long as its slowest point; 10,000 points are about 2.4 rounds of the 4,224
  // one-warp work-groups 132 SMs hold, 3,300 less than one). On CPUs (PoCL, which runs a
  // work-group as loops) opencv_int_sums measured slower than opencv here (3300 points at 320x240:
  // 571 against 450 ms), so there it is opencv.
  PyrLkMethod method = params.method;
  if (method == PyrLkMethod::automatic) {
    const bool cpu = queue.context().device().type == DeviceType::cpu;
    method = cpu ? (group_fits ? PyrLkMethod::opencv : PyrLkMethod::opencv_item)
                 : (int_sums_fits ? (n < kFusedBelowPoints ? PyrLkMethod::opencv_fused : PyrLkMethod::opencv_int_sums)
                                  : (group_fits ? PyrLkMethod::opencv : PyrLkMethod::opencv_item));
  }
  const bool int_sums_method = method == PyrLkMethod::opencv_int_sums || method == PyrLkMethod::opencv_fused;
  if ((method == PyrLkMethod::opencv && !group_fits) || (int_sums_method && !int_sums_fits)) {
    throw Error(ErrorCode::out_of_range, op, "win_size",
                std::string("method ") + std::string(to_string(method)) + " does not take a " + std::to_string(win_w) + "x" +
                    std::to_string(win_h) + " window on this device (local memory" +
                    (int_sums_method ? ", or more than " + std::to_string(kMaxClassElements) + " products a work-item" : std::string()) +
                    "); method opencv_item or auto take it");
  }
  const bool grouped = method != PyrLkMethod::opencv_item;
  for (int level = max_level; level >= 0; --level) {
    const auto L = static_cast<std::size_t>(level);
    if (prev.levels[L].size() != next.levels[L].size()) {
      throw Error(ErrorCode::invalid_argument, op, "next", "level " + std::to_string(level) + " differs in size from prev's");
    }
    // The integer-sum kernels read a pixel's derivative pair as one aligned 32-bit word.
    const DeviceImage& d = prev.derivatives[L];
    if (int_sums_method && (d.offset_elements() % 2 != 0 || d.pitch_elements() % 2 != 0)) {
      throw Error(ErrorCode::invalid_argument, op, "prev",
                  "level " + std::to_string(level) + "'s derivatives are not aligned to their 4-byte pixels");
    }
  }
  const auto add_options = [&](detail::Launch& launch) {
    launch.arg(static_cast<int>((params.flags & OPTFLOW_USE_INITIAL_FLOW) != 0));
    launch.arg(static_cast<int>((params.flags & OPTFLOW_LK_GET_MIN_EIGENVALS) != 0));
    launch.arg(static_cast<int>(!err.empty()));
    launch.arg(params.win_size.width).arg(params.win_size.height).arg(max_count).arg(eps_sq);
    launch.arg(static_cast<float>(params.min_eig_threshold));
  };
  const auto add_images = [&](detail::Launch& launch, std::size_t L) {
    launch.image(prev.levels[L]).image(prev.derivatives[L]).image(next.levels[L]);
  };
  const auto add_outputs = [&](detail::Launch& launch) {
    // Without err the kernel never touches it; status stands in for the pointer.
    launch.array(prev_pts).array(next_pts).array(status);
    if (err.empty()) {
      launch.array(status);
    } else {
      launch.array(err);
    }
  };
  const auto group_range = detail::range(static_cast<std::size_t>(npoints) * kPointGroup);
  // opencv_fused: levels above kFusedLevels - 1 (if any) one launch each, as opencv_int_sums, then
  // levels fused_top .. 0 in one launch (kernels/pyr_lk.cl's pyr_lk_levels_int_sums).
  const int fused_top = method == PyrLkMethod::opencv_fused ? std::min(max_level, kFusedLevels - 1) : -1;
  Event first, last;
  const auto note = [&](const Event& e) {
    if (!first.valid()) first = e;
    last = e;
  };
  // The integer-sum kernels' walk table (kernels/pyr_lk_records.h, pyr_lk_walk): which window
  // elements each work-item's steps take, the same for every point and level; one small launch.
  const detail::Buffer* walk = nullptr;
  if (int_sums_method) {
    walk = detail::scratch(queue, "pyr_lk.walk", 8 * kPointGroup * steps).buffer;
    detail::Launch launch(queue, program, "pyr_lk_walk");
    launch.buffer(*walk).arg(params.win_size.width).arg(params.win_size.height).arg(tail_lanes).arg(static_cast<int>(steps));
    note(Event(launch.run(detail::range(kPointGroup), detail::range(kPointGroup))));
  }
  for (int level = max_level; level > fused_top; --level) {
    const auto L = static_cast<std::size_t>(level);
    detail::Launch launch(queue, program,
                          int_sums_method ? "pyr_lk_level_int_sums" : (grouped ? "pyr_lk_level_group" : "pyr_lk_level"));
    launch.arg(npoints).arg(level).arg(max_level);
    add_options(launch);
    launch.arg(prev.levels[L].width()).arg(prev.levels[L].height());
    add_images(launch, L);
    add_outputs(launch);
    if (int_sums_method) {
      launch.local(records_bytes).buffer(*walk).arg(tail_lanes).arg(static_cast<int>(steps));
      note(Event(launch.run(group_range, detail::range(kPointGroup))));
    } else if (grouped) {
      launch.local(patch_bytes).local(terms_bytes);
      note(Event(launch.run(group_range, detail::range(kPointGroup))));
    } else {
      note(Event(launch.run(detail::range(detail::round_up(static_cast<std::size_t>(npoints), kGroup)), detail::range(kGroup))));
    }
  }
  if (fused_top >= 0) {
    detail::Launch launch(queue, program, "pyr_lk_levels_int_sums");
    launch.arg(npoints).arg(fused_top).arg(max_level);
    add_options(launch);
    for (int level = 0; level < kFusedLevels; ++level) {
      const auto L = static_cast<std::size_t>(level <= fused_top ? level : 0);  // above fused_top: never read
      add_images(launch, L);
      launch.arg(prev.levels[L].width()).arg(prev.levels[L].height());
    }
    add_outputs(launch);
    launch.local(records_bytes).buffer(*walk).arg(tail_lanes).arg(static_cast<int>(steps));
    note(Event(launch.run(group_range, detail::range(kPointGroup))));
  }
  return Event(first.first(), last.last());
}

void calc_optical_flow_pyr_lk(Queue& queue, const DeviceImage& prev, const DeviceImage& next,
                              std::span<const Point2f> prev_pts, std::vector<Point2f>& next_pts,
                              std::vector<std::uint8_t>& status, std::vector<float>& err, const PyrLkParams& params) {
  const char* op = "calc_optical_flow_pyr_lk";
  check_params(params, op);
  detail::check_device(queue, prev, op, "prev");
  detail::check_device(queue, next, op, "next");
  detail::check_same_shape(prev.size(), prev.format(), next.size(), next.format(), op, "next");
  const bool initial = (params.flags & OPTFLOW_USE_INITIAL_FLOW) != 0;
  if (initial && next_pts.size() != prev_pts.size()) {
    throw Error(ErrorCode::invalid_argument, op, "next_pts",
                "must hold the " + std::to_string(prev_pts.size()) + " initial positions with OPTFLOW_USE_INITIAL_FLOW");
  }
  if (prev_pts.empty()) {
    next_pts.clear();
    status.clear();
    err.clear();
    return;
  }
  const std::int64_t n = static_cast<std::int64_t>(prev_pts.size());
  if (n > max_array_elements / 2) throw Error(ErrorCode::out_of_range, op, "prev_pts", "too many points");
  OpticalFlowPyramid prev_pyr, next_pyr;
  if (params.method != PyrLkMethod::seed) {
    build_optical_flow_pyramid(queue, prev, prev_pyr, params.win_size, params.max_level, true);
    build_optical_flow_pyramid(queue, next, next_pyr, params.win_size, params.max_level, false);
  } else {
    prev_pyr.win_size = next_pyr.win_size = params.win_size;
    prev_pyr.levels = {prev};
    next_pyr.levels = {next};
  }
  const Format points{Depth::f32, 2};
  DeviceArray d_prev(queue.context(), n, points), d_next(queue.context(), n, points);
  DeviceArray d_status(queue.context(), n, Format{Depth::u8, 1}), d_err(queue.context(), n, Format{Depth::f32, 1});
  upload_array(queue, prev_pts.data(), prev_pts.size_bytes(), d_prev);
  if (initial) upload_array(queue, next_pts.data(), next_pts.size() * sizeof(Point2f), d_next);
  calc_optical_flow_pyr_lk(queue, prev_pyr, next_pyr, d_prev, d_next, d_status, d_err, params);
  next_pts.resize(prev_pts.size());
  status.resize(prev_pts.size());
  err.resize(prev_pts.size());
  download_array(queue, d_next, next_pts.data(), next_pts.size() * sizeof(Point2f));
  download_array(queue, d_status, status.data(), status.size());
  download_array(queue, d_err, err.data(), err.size() * sizeof(float)).wait();
}

}  // namespace plinth
