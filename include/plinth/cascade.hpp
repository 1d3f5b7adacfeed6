#pragma once
// Viola-Jones cascade detection with OpenCV's cascade files and OpenCV 4.6's
// CascadeClassifier::detectMultiScale semantics (CPU path, OpenCL off): the same scale ladder,
// per-scale resizing (cv::resize INTER_LINEAR), window stepping, variance normalisation,
// float/double arithmetic of features and stage sums, groupRectangles (eps 0.2) and clipping.
// docs/cascade.md states the formats, the parameters and the agreement with OpenCV.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "plinth/core.hpp"
#include "plinth/image.hpp"
#include "plinth/resize.hpp"  // the pyramid op, reachable from plinth.hpp through this header

namespace plinth {

namespace detail {
struct CascadeModel;
struct DetectionState;
}  // namespace detail

enum class CascadeFeatureType { haar, lbp };

// A boosted cascade read from OpenCV's XML: the current format (Haar, with tilted features, or
// LBP; stumps or deeper trees) and the old Haar format (opencv-haar-classifier). Immutable;
// copies share the model.
class Cascade {
 public:
  Cascade() = default;
  // Throws Error(io) when the file cannot be read, Error(format) when it is not a valid
  // cascade, Error(out_of_range) when a size, count or rectangle is outside what is allowed.
  static Cascade load(const std::string& path);
  // `name` labels errors.
  static Cascade parse(std::string_view xml, const std::string& name = "<memory>");

  bool empty() const noexcept { return model_ == nullptr; }
  Size window_size() const;
  CascadeFeatureType feature_type() const;
  int stage_count() const;
  int tree_count() const;
  int feature_count() const;
  bool has_tilted_features() const;
  bool is_stump_based() const;  // every tree has one node
  const std::string& name() const;

  const detail::CascadeModel& model() const;  // internal

 private:
  std::shared_ptr<const detail::CascadeModel> model_;
};

// Where Debian's opencv-data installs the cascades.
inline constexpr const char* opencv_haarcascade_dir = "/usr/share/opencv4/haarcascades";
inline constexpr const char* opencv_lbpcascade_dir = "/usr/share/opencv4/lbpcascades";

// An existing file path is returned as it is. A name such as "frontalface_alt2",
// "haarcascade_eye" or "lbpcascade_frontalface_improved" (with or without ".xml") resolves to
// the directory in PLINTH_CASCADE_DIR, if set, then opencv-data's directories. Throws Error(io) naming the places tried when nothing is found.
std::string find_cascade(std::string_view name_or_path);

// How windows are evaluated on the device. All give identical results.
enum class CascadeMethod {
  automatic,  // staged
  simple,     // one work-item per window runs every stage (the plain reference)
  staged,     // breadth first: one work-item per window runs stage 0 over every window, the
              // survivors are compacted and run the next stages a pass at a time (one
              // work-item each, compacted again after each pass), and the deep stages that few
              // windows reach run one warp per window, its work-items sharing the trees
};
std::string_view to_string(CascadeMethod method) noexcept;
// Parses "auto", "simple" or "staged".
CascadeMethod parse_cascade_method(std::string_view text);

struct DetectOptions {
  double scale_factor = 1.1;  // > 1
  int min_neighbors = 3;      // groupRectangles' threshold; 0 returns every window that passed
  Size min_size{};            // smallest object; 0x0 for none
  Size max_size{};            // largest object; 0x0 for the image size
  CascadeMethod method = CascadeMethod::automatic;
  // Tuning of `staged`, for measurements (results never depend on it): the first stage run one
  // warp per window; 0 for the device policy's choice, a number past the last stage for none.
  // Cascades whose stage sums would round in another order never use warps.
  int cooperative_from = 0;
};
struct Detection {
  Rect rect;
  int neighbors = 0;  // windows grouped into this rectangle (OpenCV's numDetections)
  friend bool operator==(const Detection&, const Detection&) = default;
};

// Where the device time of a detect_multi_scale call went: its commands grouped in order, each
// group's event spanning its first command's start to its last command's end (plinth's queues
// record device timestamps). Names: "setup" (clearing counters), "resize" (every scale into
// the atlas), "integral", "stage 0" (every window), "stage 1", "stages 3-24 (warp per window)",
// "download" (the count and the first windows); `windows` is how many windows came out of a
// pass (0 for the others).
struct DetectionPhase {
  std::string name;
  Event event;
  std::uint64_t windows = 0;
};

// The device-side state and host-side results of one detect_multi_scale call. Reusing one
// object for later calls reuses its device buffers.
class DetectionBatch {
 public:
  DetectionBatch();
  // Waits for the call's event, then groups on the host; one list per input image, sorted by
  // (y, x, width, height). Valid until the next call that fills this batch.
  const std::vector<std::vector<Detection>>& results();
  // The windows that passed every stage, per image, before grouping (rectangles in image
  // coordinates, unclipped), for diagnostics and tests.
  const std::vector<std::vector<Rect>>& candidates();
  // The last call's phases (waits for the call, like results()).
  const std::vector<DetectionPhase>& phases();
  // Host time of the last grouping (groupRectangles and clipping) in results(), microseconds.
  double grouping_us() const;

  std::shared_ptr<detail::DetectionState> state() const { return state_; }

 private:
  std::shared_ptr<detail::DetectionState> state_;
};

// Asynchronous form: enqueues resizing, integrals, window evaluation and the download of the
// passing windows for every image (u8, one channel; sizes may differ) on `queue`; `out`
// receives the results. The images must stay unchanged until the event completes.
Event detect_multi_scale(Queue& queue, const Cascade& cascade, std::span<const DeviceImage> images,
                         DetectionBatch& out, const DetectOptions& options = {});

// Synchronous conveniences on grey host images.
std::vector<Detection> detect_multi_scale(Queue& queue, const Cascade& cascade, const HostImage& gray,
                                          const DetectOptions& options = {});
std::vector<std::vector<Detection>> detect_multi_scale(Queue& queue, const Cascade& cascade,
                                                       std::span<const HostImage> grays,
                                                       const DetectOptions& options = {});

// OpenCV's groupRectangles(rects, weights, group_threshold, eps): clusters of similar
// rectangles averaged; clusters of at most group_threshold members and small clusters inside
// larger ones dropped. With group_threshold <= 0 every rectangle comes back with neighbors 1.
std::vector<Detection> group_rectangles(std::span<const Rect> rects, int group_threshold, double eps = 0.2);

}  // namespace plinth
