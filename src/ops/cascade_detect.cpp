// detect_multi_scale: plan, device tables, launches, download, and host grouping.
//   1. resize every scale of an image into the atlas (one launch per image, resize_jobs)
//   2. s32 sum and squared-sum integrals of the whole atlas (plinth::integral), tilted if needed
//   3. cascade_windows: one work-item per window, OpenCV's variance test and the first stages
//      (all of them for the simple method), stage-0 skip bits, survivors compacted by atomics
//   4. staged: cascade_cooperative evaluates the survivors' remaining stages, LANES work-items
//      per window; simple: cascade_visit keeps the windows OpenCV's row loop visits
//   5. the count and the first windows of the final list are downloaded asynchronously;
//      results() groups them with OpenCV's groupRectangles and clips to the image.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <tuple>

#include "core/context_state.hpp"
#include "core/image_checks.hpp"
#include "core/launch.hpp"
#include "ops/cascade_plan.hpp"
#include "ops/resize_jobs.hpp"
#include "plinth/cascade.hpp"
#include "plinth/error.hpp"
#include "plinth/integral.hpp"

namespace plinth {
namespace detail {
namespace {

constexpr const char* kOp = "detect_multi_scale";

// Work shapes of the window kernels.
struct CascadePolicy {
  static constexpr std::size_t window_group = 128;     // cascade_windows
  static constexpr std::size_t lanes = 64;             // cascade_cooperative: work-items per window
  static constexpr std::size_t cooperative_groups_per_unit = 8;
  static constexpr std::size_t visit_items = 16384;    // cascade_visit: a grid-stride loop
  static constexpr int staged_first_stages = 3;        // stages run per window before compaction
  static constexpr std::uint32_t download_prefix = 16384;  // windows downloaded with the event
};

constexpr int kHaarNodeWords = 20;
constexpr int kLbpNodeWords = 28;

int f2i(float f) {
  int i = 0;
  std::memcpy(&i, &f, sizeof i);
  return i;
}

std::shared_ptr<Buffer> allocate(const Queue& queue, std::size_t bytes) {
  return context_state(queue.context())->device->allocate(std::max<std::size_t>(bytes, 16));
}

void write(const Queue& queue, const Buffer& buffer, const void* data, std::size_t bytes) {
  queue_state(queue).impl->write_rect(buffer, BufferRect{0, bytes}, data, bytes, bytes, 1, true);
}

template <class T>
std::shared_ptr<Buffer> upload(const Queue& queue, const std::vector<T>& v) {
  auto b = allocate(queue, v.size() * sizeof(T));
  if (!v.empty()) write(queue, *b, v.data(), v.size() * sizeof(T));
  return b;
}

// Offsets of the four corners of an upright rectangle (p0 - p1 - p2 + p3) in a plane of `pitch`.
void upright(int* o, int x, int y, int w, int h, int pitch, int plane) {
  o[0] = plane + y * pitch + x;
  o[1] = plane + y * pitch + x + w;
  o[2] = plane + (y + h) * pitch + x;
  o[3] = plane + (y + h) * pitch + x + w;
}

// OpenCV's CV_TILTED_OFS: (x, y), (x - h, y + h), (x + w, y + w), (x + w - h, y + w + h).
void tilted(int* o, int x, int y, int w, int h, int pitch, int plane) {
  o[0] = plane + y * pitch + x;
  o[1] = plane + (y + h) * pitch + x - h;
  o[2] = plane + (y + w) * pitch + x + w;
  o[3] = plane + (y + w + h) * pitch + x + w - h;
}

struct Tables {
  std::shared_ptr<Buffer> stages, nodes, trees, leaves;
};

// Node records with corner offsets for a given integral pitch (see kernels/cascade.cl).
Tables make_tables(const Queue& queue, const CascadeModel& m, int pitch, int tilted_plane) {
  const bool lbp = m.type == CascadeFeatureType::lbp;
  const int words = lbp ? kLbpNodeWords : kHaarNodeWords;
  const int left = lbp ? 24 : 16;
  const bool stumps = m.max_nodes_per_tree == 1;
  std::vector<int> stages;
  for (const CascadeStage& s : m.stages) stages.insert(stages.end(), {s.first_tree, s.tree_count, f2i(s.threshold), 0});
  std::vector<int> nodes(m.nodes.size() * static_cast<std::size_t>(words), 0);
  for (std::size_t n = 0; n < m.nodes.size(); ++n) {
    const CascadeNode& node = m.nodes[n];
    int* r = nodes.data() + n * static_cast<std::size_t>(words);
    if (lbp) {
      const LbpFeature& f = m.lbp[node.feature];
      for (int j = 0; j < 4; ++j) {
        for (int i = 0; i < 4; ++i) r[j * 4 + i] = (f.y + j * f.height) * pitch + f.x + i * f.width;
      }
      for (int k = 0; k < 8; ++k) r[16 + k] = m.subsets[n * static_cast<std::size_t>(m.subset_words) + k];
    } else {
      const HaarFeature& f = m.haar[node.feature];
      for (int k = 0; k < 3; ++k) {
        const HaarRectangle& q = f.rects[k];
        if (f.tilted) {
          tilted(r + 4 * k, q.x, q.y, q.width, q.height, pitch, tilted_plane);
        } else {
          upright(r + 4 * k, q.x, q.y, q.width, q.height, pitch, 0);
        }
        r[12 + k] = f2i(q.weight);
      }
      r[15] = f2i(node.threshold);
    }
    r[left] = node.left;
    r[left + 1] = node.right;
  }
  std::vector<int> trees;
  if (stumps) {
    // A stump takes leaf 0 on the left branch and leaf 1 on the right, whatever its child fields.
    for (std::size_t t = 0; t < m.trees.size(); ++t) {
      int* r = nodes.data() + static_cast<std::size_t>(m.trees[t].first_node) * words;
      r[left] = f2i(m.leaves[m.trees[t].first_leaf]);
      r[left + 1] = f2i(m.leaves[m.trees[t].first_leaf + 1]);
    }
  }
  for (const CascadeTree& t : m.trees) trees.insert(trees.end(), {t.first_node, t.first_leaf});
  Tables out;
  out.stages = upload(queue, stages);
  out.nodes = upload(queue, nodes);
  out.trees = upload(queue, trees);
  out.leaves = upload(queue, m.leaves);
  return out;
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
  std::shared_ptr<Buffer> jobs, skip_bits, counts, list1, list2;
  std::vector<std::shared_ptr<Buffer>> resize_tables;
  Tables tables;
  int pitch = 0, sq_plane = 0, tilted_plane = 0;
  std::uint32_t capacity = 0;

  // Downloads of the last call.
  std::uint32_t count_host = 0;
  std::vector<std::uint32_t> prefix_host;
  Event event;
  bool grouped = false;
  int min_neighbors = 3;
  std::vector<std::vector<Detection>> results;
  std::vector<std::vector<Rect>> candidates;

  // The last call's downloads write into count_host and prefix_host asynchronously: they must
  // land before those are reused or freed.
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
  const int atlas_pitch = static_cast<int>(s.atlas.pitch_elements());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    std::vector<ResizeJob> rj;
    for (const ScaleJob& j : plan.jobs) {
      if (j.image == static_cast<int>(i)) rj.push_back({j.size, static_cast<std::int64_t>(j.atlas_y) * atlas_pitch + j.atlas_x});
    }
    s.resize_tables.push_back(rj.empty() ? nullptr : upload(queue, pack_resize_jobs(rj)));
  }
  s.skip_bits = allocate(queue, (plan.windows / 32 + 1) * 4);
  s.counts = allocate(queue, 4 * sizeof(std::uint32_t));
  s.list1 = allocate(queue, static_cast<std::size_t>(s.capacity) * 4);
  s.list2 = allocate(queue, static_cast<std::size_t>(s.capacity) * 4);
  s.tables = make_tables(queue, m, s.pitch, s.tilted_plane);
  s.model = &m;
  s.image_sizes = sizes;
  s.options = options;
  s.queue = queue.state();
  s.have_plan = true;
}

CascadeMethod resolve(CascadeMethod method, const CascadeModel& m) {
  const bool staged_ok = m.order_free_sums && static_cast<int>(m.stages.size()) > CascadePolicy::staged_first_stages;
  if (method == CascadeMethod::automatic) return staged_ok ? CascadeMethod::staged : CascadeMethod::simple;
  if (method == CascadeMethod::staged && !m.order_free_sums) {
    throw Error(ErrorCode::invalid_argument, kOp, "method",
                "staged adds each stage's leaves in parallel, but this cascade's stage sums round in double, so only "
                "OpenCV's order (simple) reproduces its result");
  }
  return method;
}

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
  const CascadeMethod method = resolve(options.method, m);

  DetectionState& s = *out.state();
  s.settle();
  prepare(s, queue, m, sizes, options);
  s.grouped = false;
  s.min_neighbors = options.min_neighbors;
  s.results.clear();
  s.candidates.clear();
  const CascadePlan& plan = s.plan;
  QueueState& qs = queue_state(queue);

  std::shared_ptr<EventImpl> first = qs.impl->fill(*s.counts, 0, 4 * sizeof(std::uint32_t), 0, 4);
  qs.impl->fill(*s.skip_bits, 0, s.skip_bits->size(), 0, 4);
  if (m.tilted) qs.impl->fill(*s.atlas.buffer(), s.atlas.offset(), s.atlas.pitch() * s.atlas.height(), 0, 1);
  for (std::size_t i = 0; i < images.size(); ++i) {
    if (!s.resize_tables[i]) continue;
    std::vector<ResizeJob> rj;
    const int atlas_pitch = static_cast<int>(s.atlas.pitch_elements());
    for (const ScaleJob& j : plan.jobs) {
      if (j.image == static_cast<int>(i)) rj.push_back({j.size, static_cast<std::int64_t>(j.atlas_y) * atlas_pitch + j.atlas_x});
    }
    // CascadeClassifier resizes with INTER_LINEAR_EXACT.
    launch_resize_jobs(queue, images[i], *s.atlas.buffer(), atlas_pitch, rj, *s.resize_tables[i], Interpolation::linear_exact);
  }

  const int ih = plan.atlas.height + 1;
  DeviceImage sum = s.planes.view(Rect{0, 0, plan.atlas.width + 1, ih});
  DeviceImage sqsum = s.planes.view(Rect{0, ih, plan.atlas.width + 1, ih});
  IntegralOptions io;
  io.sum_depth = Depth::s32;
  io.sqsum_depth = Depth::s32;
  if (m.type == CascadeFeatureType::haar) {
    integral(queue, s.atlas, sum, sqsum, io);
  } else {
    integral(queue, s.atlas, sum, io);
  }

  BuildOptions bo;
  bo.define("PLINTH_NEED_FP64");
  bo.define("LBP", m.type == CascadeFeatureType::lbp ? 1 : 0);
  bo.define("STUMPS", m.max_nodes_per_tree == 1 ? 1 : 0);
  bo.define("NODE_WORDS", m.type == CascadeFeatureType::lbp ? kLbpNodeWords : kHaarNodeWords);
  bo.define("LANES", static_cast<long long>(CascadePolicy::lanes));
  const auto program = get_program(queue, "cascade.cl", bo);

  if (m.tilted) {
    DeviceImage tilted_view = s.planes.view(Rect{0, 2 * ih, plan.atlas.width + 1, ih});
    const int w = plan.atlas.width, h = plan.atlas.height;
    Launch a(queue, program, "cascade_tilted_a");
    a.arg(w).arg(h).image(sum).image(tilted_view).run(range(round_up(static_cast<std::size_t>(w + h + 1), 64)), range(64));
    Launch b(queue, program, "cascade_tilted_b");
    b.arg(w).arg(h).image(sum).image(tilted_view).run(range(round_up(static_cast<std::size_t>(w + h + 1), 64)), range(64));
  }

  const int W = m.window.width, H = m.window.height;
  int nofs[4];
  upright(nofs, 1, 1, W - 2, H - 2, s.pitch, 0);
  const double area = static_cast<double>((W - 2) * (H - 2));
  const int nstages = static_cast<int>(m.stages.size());
  const int first_end = method == CascadeMethod::staged ? std::min(CascadePolicy::staged_first_stages, nstages) : nstages;
  const int njobs = std::max<int>(static_cast<int>(plan.jobs.size()), 1);
  const std::uint32_t total = static_cast<std::uint32_t>(plan.windows);
  const auto common = [&](Launch& l) -> Launch& {
    l.arg(njobs).arg(s.pitch).arg(s.sq_plane).arg(nofs[0]).arg(nofs[1]).arg(nofs[2]).arg(nofs[3]).arg(area);
    l.buffer(*s.planes.buffer()).arg(static_cast<int>(s.planes.offset_elements()));
    return l.buffer(*s.jobs).buffer(*s.tables.stages).buffer(*s.tables.nodes).buffer(*s.tables.trees).buffer(*s.tables.leaves);
  };
  // counts[0] counts list1 (cascade_windows), counts[1] list2 (the final list).
  std::shared_ptr<EventImpl> last = first;
  if (total > 0) {
    Launch windows(queue, program, "cascade_windows");
    windows.arg(total);
    common(windows).arg(first_end).buffer(*s.skip_bits).buffer(*s.counts).buffer(*s.list1).arg(s.capacity);
    last = windows.run(range(round_up(total, CascadePolicy::window_group)), range(CascadePolicy::window_group));

    if (method == CascadeMethod::staged) {
      Launch coop(queue, program, "cascade_cooperative");
      common(coop).arg(first_end).arg(nstages).buffer(*s.skip_bits).buffer(*s.counts).buffer(*s.list1);
      coop.buffer(*s.list2).arg(s.capacity);
      const std::size_t groups = std::max<std::size_t>(queue.context().device().compute_units, 1) *
                                 CascadePolicy::cooperative_groups_per_unit;
      last = coop.run(range(groups * CascadePolicy::lanes), range(CascadePolicy::lanes));
    } else {
      Launch visit(queue, program, "cascade_visit");
      visit.arg(njobs).arg(s.pitch).buffer(*s.jobs).buffer(*s.skip_bits).buffer(*s.counts).buffer(*s.list1);
      visit.buffer(*s.list2).arg(s.capacity);
      last = visit.run(range(CascadePolicy::visit_items), range(64));
    }
  }
  s.prefix_host.assign(std::min<std::uint32_t>(CascadePolicy::download_prefix, s.capacity), 0);
  s.count_host = 0;
  last = qs.impl->read_rect(*s.counts, BufferRect{sizeof(std::uint32_t), sizeof(std::uint32_t)}, &s.count_host,
                            sizeof(std::uint32_t), sizeof(std::uint32_t), 1, false);
  if (total > 0) {
    const std::size_t bytes = s.prefix_host.size() * sizeof(std::uint32_t);
    last = qs.impl->read_rect(*s.list2, BufferRect{0, bytes}, s.prefix_host.data(), bytes, bytes, 1, false);
  }
  s.event = Event(first, last);
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
  const std::uint32_t n = std::min(s.count_host, s.capacity);
  std::vector<std::uint32_t> list(s.prefix_host.begin(), s.prefix_host.begin() + std::min<std::size_t>(n, s.prefix_host.size()));
  if (n > list.size()) {
    auto q = s.queue.lock();
    if (!q) throw Error(ErrorCode::invalid_argument, kOp, "queue", "the queue of the call no longer exists");
    const std::size_t have = list.size();
    list.resize(n);
    const std::size_t bytes = (n - have) * sizeof(std::uint32_t);
    q->impl->read_rect(*s.list2, BufferRect{have * sizeof(std::uint32_t), bytes}, list.data() + have, bytes, bytes, 1, true);
  }
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
