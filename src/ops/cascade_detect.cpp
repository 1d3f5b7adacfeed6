// detect_multi_scale: plan, device buffers, launches, download, and host grouping.
//   1. resize every scale of an image into the atlas (one launch per image, resize_jobs)
//   2. s32 sum and squared-sum integrals of the whole atlas (plinth::integral), tilted if needed
//   3. staged: cascade_first runs the variance test and stage 0 on every window (skip bits,
//      survivors compacted); cascade_lanes passes run the next stages on the compacted lists,
//      one work-item per window; cascade_coop runs the deep stages one warp per window.
//      simple: cascade_simple runs every stage per window, cascade_visit keeps the windows
//      OpenCV's row loop visits.
//   4. the counters and the first windows of the final list come back in one asynchronous read;
//      results() groups them with OpenCV's groupRectangles and clips to the image.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <span>
#include <string>
#include <tuple>

#include "core/image_checks.hpp"
#include "core/launch.hpp"
#include "ops/cascade_plan.hpp"
#include "ops/cascade_tables.hpp"
#include "ops/resize_jobs.hpp"
#include "plinth/cascade.hpp"
#include "plinth/error.hpp"
#include "plinth/integral.hpp"

namespace plinth {
namespace detail {
namespace {

constexpr const char* kOp = "detect_multi_scale";

// Work shapes and the staged schedule (see docs/cascade.md, "Methods").
struct CascadePolicy {
  static constexpr std::size_t group = 256;              // cascade_first, cascade_lanes (multiple of 32)
  // cascade_lanes: more groups than fit at once (up to 8 per unit), so that every unit is busy;
  // groups take chunks of the list with tickets and leave when none are left.
  static constexpr std::size_t lane_groups_per_unit = 16;
  // cascade_coop: one warp each, at least as many as fit (32 blocks per unit on NVIDIA); groups
  // take windows by tickets, so groups that do not fit at first find the work done.
  static constexpr std::size_t coop_groups_per_unit = 40;
  static constexpr std::size_t simple_group = 128;
  static constexpr std::size_t visit_items = 16384;       // cascade_visit: a grid-stride loop
  static constexpr int first_stages = 1;                  // stages of cascade_first
  // The first stage run by one warp per window. After stage 2 about a tenth of the windows are left
  // (frontalface_default on photographs), too sparse for one work-item per window to read
  // neighbouring memory, and the next stages have 32 trees or more.
  static constexpr int cooperative_from = 3;
  // On CPUs (PoCL) a warp is emulated with barriers and local memory: one work-item per window
  // throughout is faster there.
  static constexpr bool cooperative_on_cpu = false;
  static constexpr std::size_t footprint_bytes = 16384;   // largest local copy of a window's integrals
  static constexpr std::uint32_t download_prefix = 4096;  // final windows read back with the counters
};

constexpr int kResultHeader = 64;  // RESULT_HEADER in kernels/cascade.cl
constexpr int kTickets = 32;       // header words from here on hand out chunks to work-groups
constexpr std::size_t kCoopLanes = 32;  // COOP_LANES in kernels/cascade.cl: one warp

std::shared_ptr<Buffer> allocate(const Queue& queue, std::size_t bytes) {
  return allocate_buffer(queue, std::max<std::size_t>(bytes, 16));
}

template <class T>
std::shared_ptr<Buffer> upload(const Queue& queue, const std::vector<T>& v) {
  auto b = allocate(queue, v.size() * sizeof(T));
  if (!v.empty()) {
    const std::size_t bytes = v.size() * sizeof(T);
    write_buffer(queue, *b, v.data(), bytes, true);
  }
  return b;
}

struct Tables {
  std::shared_ptr<Buffer> stages, nodes, local_nodes, trees, leaves;
  int node_count = 0;
};

// One pass of the staged schedule.
struct Pass {
  enum class Kind { first, lanes, coop } kind = Kind::first;
  int stage_begin = 0, stage_end = 0;
  bool filter_visited = false;  // drop the windows OpenCV's row loop skips, first
  bool final = false;           // writes the result list
};

std::string stage_text(int begin, int end) {
  if (end - begin == 1) return "stage " + std::to_string(begin);
  if (end == begin) return "visited windows";
  return "stages " + std::to_string(begin) + "-" + std::to_string(end - 1);
}

}  // namespace

// Everything a DetectionBatch keeps between calls: device buffers reused while the plan's
// shape allows, and the downloaded results of the last call.
struct DetectionState {
  // Key of the cached plan.
  const CascadeModel* model = nullptr;
  std::vector<Size> image_sizes;
  DetectOptions options;
  bool have_plan = false;
  CascadePlan plan;
  std::weak_ptr<QueueState> queue;

  DeviceImage atlas;
  DeviceImage planes;  // sum, squared sum and tilted integrals stacked vertically
  std::shared_ptr<Buffer> jobs, skip_bits, result, lists[2];
  std::vector<std::shared_ptr<Buffer>> resize_tables;
  std::vector<ResizeJobTable> resize_layouts;
  Tables tables;
  int pitch = 0, sq_plane = 0, tilted_plane = 0;
  int foot_planes = 0;  // planes of cascade_coop's local copy, 0 for none
  std::uint32_t capacity = 0;

  // Downloads of the last call: the counters, then the first windows of the final list.
  std::span<std::uint32_t> download;
  std::shared_ptr<void> download_memory;  // page-locked where the backend has it
  std::size_t download_capacity = 0;      // words
  int final_counter = 0;
  Event event;
  bool grouped = false;
  int min_neighbors = 3;
  std::vector<std::vector<Detection>> results;
  std::vector<std::vector<Rect>> candidates;
  std::vector<DetectionPhase> phases;
  std::vector<int> phase_counters;  // per phase, the counter of its output list, or -1
  double grouping_us = 0;

  // The last call's download writes into `download` asynchronously: it must land before that
  // is reused or freed.
  void settle() noexcept {
    try {
      event.wait();
    } catch (...) {  // a failed call's error surfaces through results(); here we only wait
    }
  }
  DetectionState() = default;
  DetectionState(const DetectionState&) = delete;
  DetectionState& operator=(const DetectionState&) = delete;
  ~DetectionState() { settle(); }
};

namespace {

bool same_key(const DetectionState& s, const CascadeModel& m, const std::vector<Size>& sizes, const DetectOptions& o,
              const Queue& q) {
  return s.have_plan && s.model == &m && s.image_sizes == sizes && s.options.scale_factor == o.scale_factor &&
         s.options.min_size == o.min_size && s.options.max_size == o.max_size && s.queue.lock() == q.state();
}

Tables make_tables(const Queue& queue, const CascadeModel& m, int pitch, int tilted_plane, int foot_planes) {
  const CascadeTableData global = make_cascade_tables(m, pitch, tilted_plane);
  Tables out;
  out.node_count = global.node_count;
  out.stages = upload(queue, global.stages);
  out.nodes = upload(queue, global.nodes);
  out.trees = upload(queue, global.trees);
  out.leaves = upload(queue, m.leaves);
  if (foot_planes > 0) {
    const int fw = m.window.width + 1, fh = m.window.height + 1;
    out.local_nodes = upload(queue, make_cascade_tables(m, fw, fw * fh).nodes);
  } else {
    out.local_nodes = out.nodes;
  }
  return out;
}

void prepare(DetectionState& s, Queue& queue, const CascadeModel& m, const std::vector<Size>& sizes,
             const DetectOptions& options) {
  if (same_key(s, m, sizes, options, queue)) return;
  std::vector<ScaleJob> jobs;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    auto j = plan_scales(m, sizes[i], static_cast<int>(i), options);
    jobs.insert(jobs.end(), j.begin(), j.end());
  }
  s.plan = pack_plan(sizes, std::move(jobs));
  const CascadePlan& plan = s.plan;
  s.atlas = DeviceImage(queue.context(), plan.atlas.width, plan.atlas.height, Format{Depth::u8, 1});
  const int ih = plan.atlas.height + 1;
  const int nplanes = m.tilted ? 3 : 2;
  s.planes = DeviceImage(queue.context(), plan.atlas.width + 1, ih * nplanes, Format{Depth::s32, 1});
  s.pitch = static_cast<int>(s.planes.pitch_elements());
  s.sq_plane = s.pitch * ih;
  s.tilted_plane = 2 * s.pitch * ih;
  s.capacity = static_cast<std::uint32_t>(std::max<std::uint64_t>(plan.windows, 1));

  std::vector<int> job_table;
  for (const ScaleJob& j : plan.jobs) {
    job_table.insert(job_table.end(),
                     {static_cast<int>(j.first_window), j.nx, j.step, j.atlas_y * s.pitch + j.atlas_x});
  }
  if (job_table.empty()) job_table.assign(4, 0);
  s.jobs = upload(queue, job_table);
  s.resize_tables.clear();
  s.resize_layouts.clear();
  const int atlas_pitch = static_cast<int>(s.atlas.pitch_elements());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    std::vector<ResizeJob> rj;
    for (const ScaleJob& j : plan.jobs) {
      if (j.image == static_cast<int>(i)) rj.push_back({j.size, static_cast<std::int64_t>(j.atlas_y) * atlas_pitch + j.atlas_x});
    }
    s.resize_layouts.push_back(pack_resize_jobs(sizes[i], rj));
    s.resize_tables.push_back(rj.empty() ? nullptr : upload(queue, s.resize_layouts.back().words));
  }
  const std::size_t groups = (plan.windows + CascadePolicy::group - 1) / CascadePolicy::group;
  s.skip_bits = allocate(queue, (groups * CascadePolicy::group / 32 + 1) * sizeof(std::uint32_t));
  s.result = allocate(queue, (kResultHeader + static_cast<std::size_t>(s.capacity)) * sizeof(std::uint32_t));
  for (auto& list : s.lists) list = allocate(queue, static_cast<std::size_t>(s.capacity) * 2 * sizeof(std::uint32_t));
  const std::size_t foot_one = static_cast<std::size_t>(m.window.width + 1) * (m.window.height + 1) * sizeof(std::int32_t);
  s.foot_planes = m.tilted ? 2 : 1;
  if (s.foot_planes * foot_one > CascadePolicy::footprint_bytes) s.foot_planes = 0;
  s.tables = make_tables(queue, m, s.pitch, s.tilted_plane, s.foot_planes);
  s.model = &m;
  s.image_sizes = sizes;
  s.options = options;
  s.queue = queue.state();
  s.have_plan = true;
}

// The staged schedule for a cascade of `n` stages.
std::vector<Pass> staged_passes(const CascadeModel& m, const DetectOptions& options, const DeviceInfo& device) {
  const int n = static_cast<int>(m.stages.size());
  const int first_end = std::min(CascadePolicy::first_stages, n);
  int coop = n;
  if (m.order_free_sums) {
    if (options.cooperative_from > 0) {
      coop = options.cooperative_from;
    } else if (device.type != DeviceType::cpu || CascadePolicy::cooperative_on_cpu) {
      coop = CascadePolicy::cooperative_from;
    }
    coop = std::clamp(coop, first_end, n);
  }
  std::vector<Pass> passes;
  passes.push_back({Pass::Kind::first, 0, first_end, false, false});
  // One stage per pass while many windows are left, then longer passes (each pass is a launch
  // and a compaction; by then few windows are left).
  for (int s = first_end; s < coop;) {
    const int end = std::min(coop, s + std::max(1, s / 2));
    passes.push_back({Pass::Kind::lanes, s, end, passes.size() == 1, false});
    s = end;
  }
  if (coop < n) {
    passes.push_back({Pass::Kind::coop, coop, n, passes.size() == 1, true});
  } else if (passes.size() == 1) {
    passes.push_back({Pass::Kind::lanes, n, n, true, true});  // only the visited filter is left
  } else {
    passes.back().final = true;
  }
  if (passes.size() > static_cast<std::size_t>(kTickets)) {
    throw Error(ErrorCode::internal, kOp, "passes", "too many passes for the result header");
  }
  return passes;
}

// Collects the commands of a call into named phases.
class PhaseLog {
 public:
  explicit PhaseLog(DetectionState& s) : s_(s) {
    s_.phases.clear();
    s_.phase_counters.clear();
  }
  void begin(std::string name, int counter = -1) {
    s_.phases.push_back({std::move(name), Event{}, 0});
    s_.phase_counters.push_back(counter);
    first_.reset();
  }
  void add(const std::shared_ptr<EventImpl>& e) {
    if (!e) return;
    if (!first_) first_ = e;
    s_.phases.back().event = Event(first_, e);
    if (!call_first_) call_first_ = e;
    call_last_ = e;
  }
  // The event spanning every command of the call.
  Event all() const { return Event(call_first_, call_last_); }

 private:
  DetectionState& s_;
  std::shared_ptr<EventImpl> first_, call_first_, call_last_;
};

}  // namespace
}  // namespace detail

std::string_view to_string(CascadeMethod method) noexcept {
  switch (method) {
    case CascadeMethod::automatic: return "auto";
    case CascadeMethod::simple: return "simple";
    case CascadeMethod::staged: return "staged";
  }
  return "?";
}

CascadeMethod parse_cascade_method(std::string_view text) {
  for (CascadeMethod m : {CascadeMethod::automatic, CascadeMethod::simple, CascadeMethod::staged}) {
    if (text == to_string(m)) return m;
  }
  throw Error(ErrorCode::invalid_argument, "detect_multi_scale", "method",
              "unknown method '" + std::string(text) + "' (expected auto, simple or staged)");
}

DetectionBatch::DetectionBatch() : state_(std::make_shared<detail::DetectionState>()) {}

Event detect_multi_scale(Queue& queue, const Cascade& cascade, std::span<const DeviceImage> images, DetectionBatch& out,
                         const DetectOptions& options) {
  using namespace detail;
  const CascadeModel& m = cascade.model();
  if (!(options.scale_factor > 1.0) || !std::isfinite(options.scale_factor)) {
    throw Error(ErrorCode::invalid_argument, kOp, "scale_factor", "must be a finite number greater than 1");
  }
  if (options.min_neighbors < 0) throw Error(ErrorCode::invalid_argument, kOp, "min_neighbors", "must be >= 0");
  if (options.min_size.width < 0 || options.min_size.height < 0 || options.max_size.width < 0 ||
      options.max_size.height < 0) {
    throw Error(ErrorCode::invalid_argument, kOp, "size", "min_size and max_size must not be negative");
  }
  if (options.cooperative_from < 0) {
    throw Error(ErrorCode::invalid_argument, kOp, "cooperative_from", "must be >= 0 (0: the policy's choice)");
  }
  if (images.empty()) throw Error(ErrorCode::invalid_argument, kOp, "images", "no images");
  std::vector<Size> sizes;
  for (std::size_t i = 0; i < images.size(); ++i) {
    const std::string arg = "images[" + std::to_string(i) + "]";
    check_device(queue, images[i], kOp, arg);
    check_depth(images[i].depth(), {Depth::u8}, kOp, arg);
    check_channels(images[i].channels(), {1}, kOp, arg);
    sizes.push_back(images[i].size());
  }
  if (!queue.context().device().has_fp64) {
    throw Error(ErrorCode::unsupported_type, kOp, "device",
                "the device has no double precision (cl_khr_fp64), which OpenCV's stage sums need");
  }
  const bool simple = options.method == CascadeMethod::simple;

  DetectionState& s = *out.state();
  s.settle();
  prepare(s, queue, m, sizes, options);
  s.grouped = false;
  s.min_neighbors = options.min_neighbors;
  s.results.clear();
  s.candidates.clear();
  s.grouping_us = 0;
  const CascadePlan& plan = s.plan;
  PhaseLog log(s);

  log.begin("setup");
  log.add(fill_buffer(queue, *s.result, 0, kResultHeader * sizeof(std::uint32_t), 0, 4));
  if (simple) log.add(fill_buffer(queue, *s.skip_bits, 0, s.skip_bits->size(), 0, 4));
  if (m.tilted) log.add(fill_buffer(queue, *s.atlas.buffer(), s.atlas.offset(), s.atlas.pitch() * s.atlas.height(), 0, 1));

  // CascadeClassifier resizes with INTER_LINEAR_EXACT.
  log.begin("resize");
  const int atlas_pitch = static_cast<int>(s.atlas.pitch_elements());
  for (std::size_t i = 0; i < images.size(); ++i) {
    if (!s.resize_tables[i]) continue;
    log.add(launch_resize_jobs(queue, images[i], *s.atlas.buffer(), atlas_pitch, s.resize_layouts[i], *s.resize_tables[i]));
  }

  log.begin("integral");
  const int ih = plan.atlas.height + 1;
  DeviceImage sum = s.planes.view(Rect{0, 0, plan.atlas.width + 1, ih});
  DeviceImage sqsum = s.planes.view(Rect{0, ih, plan.atlas.width + 1, ih});
  IntegralOptions io;
  io.sum_depth = Depth::s32;
  io.sqsum_depth = Depth::s32;
  const Event integral_event = m.type == CascadeFeatureType::haar ? integral(queue, s.atlas, sum, sqsum, io)
                                                                  : integral(queue, s.atlas, sum, io);
  log.add(integral_event.first());
  log.add(integral_event.last());

  BuildOptions bo;
  bo.define("PLINTH_NEED_FP64");
  bo.define("LBP", m.type == CascadeFeatureType::lbp ? 1 : 0);
  bo.define("STUMPS", m.max_nodes_per_tree == 1 ? 1 : 0);
  bo.define("GROUP", static_cast<long long>(CascadePolicy::group));
  bo.define("FOOT_PLANES", s.foot_planes);
  bo.define("FOOT_W", m.window.width + 1);
  bo.define("FOOT_H", m.window.height + 1);
  const auto program = get_program(queue, "cascade.cl", bo);

  if (m.tilted) {
    DeviceImage tilted_view = s.planes.view(Rect{0, 2 * ih, plan.atlas.width + 1, ih});
    const int w = plan.atlas.width, h = plan.atlas.height;
    Launch a(queue, program, "cascade_tilted_a");
    log.add(a.arg(w).arg(h).image(sum).image(tilted_view).run(range(round_up(static_cast<std::size_t>(w + h + 1), 64)), range(64)));
    Launch b(queue, program, "cascade_tilted_b");
    log.add(b.arg(w).arg(h).image(sum).image(tilted_view).run(range(round_up(static_cast<std::size_t>(w + h + 1), 64)), range(64)));
  }

  const int W = m.window.width, H = m.window.height;
  const int nofs[4] = {s.pitch + 1, s.pitch + W - 1, (H - 1) * s.pitch + 1, (H - 1) * s.pitch + W - 1};
  const double area = static_cast<double>((W - 2) * (H - 2));
  const int nstages = static_cast<int>(m.stages.size());
  const int njobs = std::max<int>(static_cast<int>(plan.jobs.size()), 1);
  const std::uint32_t total = static_cast<std::uint32_t>(plan.windows);
  const auto common = [&](Launch& l) -> Launch& {
    l.arg(njobs).arg(s.pitch).arg(s.sq_plane).arg(nofs[0]).arg(nofs[1]).arg(nofs[2]).arg(nofs[3]).arg(area);
    l.buffer(*s.planes.buffer()).arg(static_cast<int>(s.planes.offset_elements()));
    l.buffer(*s.jobs).buffer(*s.tables.stages).buffer(*s.tables.nodes).arg(s.tables.node_count);
    return l.buffer(*s.tables.trees).buffer(*s.tables.leaves);
  };
  const std::size_t units = std::max<std::size_t>(queue.context().device().compute_units, 1);
  if (simple) {
    // Counter 0: windows that pass every stage; counter 1: the final list.
    log.begin(stage_text(0, nstages) + " (simple)", 0);
    if (total > 0) {
      Launch windows(queue, program, "cascade_simple");
      windows.arg(total);
      common(windows).arg(nstages).buffer(*s.skip_bits).buffer(*s.result).arg(0).buffer(*s.lists[0]).arg(s.capacity);
      log.add(windows.run(range(round_up(total, CascadePolicy::simple_group)), range(CascadePolicy::simple_group)));
    }
    log.begin("visited windows", 1);
    if (total > 0) {
      Launch visit(queue, program, "cascade_visit");
      visit.arg(njobs).arg(s.pitch).buffer(*s.jobs).buffer(*s.skip_bits).buffer(*s.result).arg(0).buffer(*s.lists[0]);
      log.add(visit.arg(1).arg(s.capacity).run(range(CascadePolicy::visit_items), range(64)));
    }
    s.final_counter = 1;
  } else {
    // Pass p counts its output list in counter p; lists alternate between the two buffers.
    const std::vector<Pass> passes = staged_passes(m, options, queue.context().device());
    for (std::size_t p = 0; p < passes.size(); ++p) {
      const Pass& pass = passes[p];
      const int counter = static_cast<int>(p);
      const Buffer& in = *s.lists[(p + 1) % 2];
      const Buffer& next = *s.lists[p % 2];
      std::string name = stage_text(pass.stage_begin, pass.stage_end);
      if (pass.kind == Pass::Kind::coop) name += " (warp per window)";
      if (pass.kind == Pass::Kind::first) name += " (every window)";
      log.begin(name, counter);
      if (total == 0) continue;
      if (pass.kind == Pass::Kind::first) {
        Launch l(queue, program, "cascade_first");
        l.arg(total);
        common(l).arg(pass.stage_end).buffer(*s.skip_bits).buffer(*s.result).arg(counter).buffer(next).arg(s.capacity);
        log.add(l.run(range(round_up(total, CascadePolicy::group)), range(CascadePolicy::group)));
      } else if (pass.kind == Pass::Kind::lanes) {
        Launch l(queue, program, "cascade_lanes");
        common(l).arg(pass.stage_begin).arg(pass.stage_end).arg(pass.filter_visited ? 1 : 0).buffer(*s.skip_bits);
        l.buffer(*s.result).arg(counter - 1).buffer(in).arg(counter).buffer(next).arg(pass.final ? 1 : 0).arg(s.capacity);
        l.arg(kTickets + counter);
        const std::size_t most = (s.capacity + CascadePolicy::group - 1) / CascadePolicy::group;
        const std::size_t groups = std::min(units * CascadePolicy::lane_groups_per_unit, most);
        log.add(l.run(range(groups * CascadePolicy::group), range(CascadePolicy::group)));
      } else {
        Launch l(queue, program, "cascade_coop");
        common(l).arg(pass.stage_begin).arg(pass.stage_end).arg(pass.filter_visited ? 1 : 0).buffer(*s.skip_bits);
        l.buffer(*s.result).arg(counter - 1).buffer(in).arg(counter).arg(s.capacity).arg(s.tilted_plane);
        l.buffer(*s.tables.local_nodes).arg(kTickets + counter);
        const std::size_t groups = std::min<std::size_t>(units * CascadePolicy::coop_groups_per_unit, s.capacity);
        log.add(l.run(range(groups * kCoopLanes), range(kCoopLanes)));
      }
    }
    s.final_counter = static_cast<int>(passes.size()) - 1;
  }

  log.begin("download");
  const std::uint32_t prefix = std::min<std::uint32_t>(CascadePolicy::download_prefix, s.capacity);
  const std::size_t words = kResultHeader + static_cast<std::size_t>(prefix);
  if (s.download_capacity < words) {
    s.download_memory = allocate_host(queue, words * sizeof(std::uint32_t));
    s.download_capacity = words;
  }
  s.download = std::span<std::uint32_t>(static_cast<std::uint32_t*>(s.download_memory.get()), words);
  std::fill(s.download.begin(), s.download.end(), 0u);
  const std::size_t bytes = s.download.size_bytes();
  log.add(read_buffer(queue, *s.result, s.download.data(), bytes, false));
  s.event = log.all();
  return s.event;
}

}  // namespace plinth

namespace plinth {
namespace {

void finish(detail::DetectionState& s) {
  using namespace detail;
  if (s.grouped) return;
  if (!s.have_plan) throw Error(ErrorCode::invalid_argument, kOp, "batch", "no detect_multi_scale call filled it");
  s.event.wait();
  for (std::size_t i = 0; i < s.phases.size(); ++i) {
    const int c = s.phase_counters[i];
    s.phases[i].windows = c >= 0 ? std::min(s.download[static_cast<std::size_t>(c)], s.capacity) : 0;
  }
  const std::uint32_t n = std::min(s.download[static_cast<std::size_t>(s.final_counter)], s.capacity);
  const std::size_t have = s.download.size() - kResultHeader;
  std::vector<std::uint32_t> list(s.download.begin() + kResultHeader,
                                  s.download.begin() + kResultHeader + static_cast<std::ptrdiff_t>(std::min<std::size_t>(n, have)));
  if (n > list.size()) {
    auto q = s.queue.lock();
    if (!q) throw Error(ErrorCode::invalid_argument, kOp, "queue", "the queue of the call no longer exists");
    list.resize(n);
    const std::size_t bytes = (n - have) * sizeof(std::uint32_t);
    read_buffer(*q, *s.result, (kResultHeader + have) * sizeof(std::uint32_t), list.data() + have, bytes, true);
  }
  const auto started = std::chrono::steady_clock::now();
  std::sort(list.begin(), list.end());
  const CascadePlan& plan = s.plan;
  s.candidates.assign(plan.images.size(), {});
  for (std::uint32_t w : list) {
    auto it = std::upper_bound(plan.jobs.begin(), plan.jobs.end(), w,
                               [](std::uint32_t v, const ScaleJob& j) { return v < j.first_window; });
    const ScaleJob& job = *(it - 1);
    const int local_index = static_cast<int>(w - job.first_window);
    s.candidates[job.image].push_back(window_rect(job, local_index % job.nx, local_index / job.nx));
  }
  s.results.assign(plan.images.size(), {});
  for (std::size_t i = 0; i < plan.images.size(); ++i) {
    const Size size = plan.images[i];
    for (const Detection& d : group_rectangles(s.candidates[i], s.min_neighbors, 0.2)) {
      // clipObjects: intersect with the image, drop empty rectangles.
      const int x0 = std::max(d.rect.x, 0), y0 = std::max(d.rect.y, 0);
      const int x1 = std::min(d.rect.x + d.rect.width, size.width), y1 = std::min(d.rect.y + d.rect.height, size.height);
      if (x1 - x0 > 0 && y1 - y0 > 0) s.results[i].push_back({Rect{x0, y0, x1 - x0, y1 - y0}, d.neighbors});
    }
    std::sort(s.results[i].begin(), s.results[i].end(), [](const Detection& a, const Detection& b) {
      return std::tie(a.rect.y, a.rect.x, a.rect.width, a.rect.height, a.neighbors) <
             std::tie(b.rect.y, b.rect.x, b.rect.width, b.rect.height, b.neighbors);
    });
  }
  s.grouping_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started).count();
  s.grouped = true;
}

}  // namespace

const std::vector<std::vector<Detection>>& DetectionBatch::results() {
  finish(*state_);
  return state_->results;
}

const std::vector<std::vector<Rect>>& DetectionBatch::candidates() {
  finish(*state_);
  return state_->candidates;
}

const std::vector<DetectionPhase>& DetectionBatch::phases() {
  finish(*state_);
  return state_->phases;
}

double DetectionBatch::grouping_us() const { return state_->grouping_us; }

std::vector<std::vector<Detection>> detect_multi_scale(Queue& queue, const Cascade& cascade, std::span<const HostImage> grays,
                                                       const DetectOptions& options) {
  std::vector<DeviceImage> images;
  for (std::size_t i = 0; i < grays.size(); ++i) {
    detail::check_host(grays[i], detail::kOp, "images[" + std::to_string(i) + "]");
    images.push_back(queue.upload(grays[i]));
  }
  DetectionBatch batch;
  detect_multi_scale(queue, cascade, images, batch, options);
  return batch.results();
}

std::vector<Detection> detect_multi_scale(Queue& queue, const Cascade& cascade, const HostImage& gray,
                                          const DetectOptions& options) {
  return detect_multi_scale(queue, cascade, std::span<const HostImage>(&gray, 1), options).front();
}

}  // namespace plinth
