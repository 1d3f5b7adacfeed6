#pragma once
// A video frame's common preprocessing as one call with no host round trip:
//   NV12 frame (or a grey u8 plane) -> grey -> Gaussian pyramid (cv::pyrDown levels) -> the
//   integral image of one level.
// Each output equals what the separate operations give (cvt_color nv12_to_gray, build_pyramid,
// integral; those equal OpenCV's): bit for bit. A FramePipeline owns its output images, so
// repeated frames of one size allocate nothing. docs/frame_pipeline.md has the passes.

#include <string_view>
#include <vector>

#include "plinth/core.hpp"
#include "plinth/filters.hpp"  // BorderMode
#include "plinth/image.hpp"
#include "plinth/nv12.hpp"

namespace plinth {

enum class FramePipelineMethod {
  automatic,  // fused
  fused,      // one launch reads the frame once and writes grey, level 1 and level 2; the rest as build_pyramid; the integral
  separate,   // the separate calls: cvt_color (a copy of Y), build_pyramid, integral
};
std::string_view to_string(FramePipelineMethod method) noexcept;
// Parses "auto", "fused" or "separate".
FramePipelineMethod parse_frame_pipeline_method(std::string_view text);

struct FramePipelineOptions {
  int levels = 4;          // pyramid images, grey (level 0) included: 1..32
  int integral_level = 0;  // the level whose integral (s32, (W+1) x (H+1), OpenCV's layout) is computed
  BorderMode border = BorderMode::reflect_101;  // of pyrDown (every mode but constant)
  FramePipelineMethod method = FramePipelineMethod::automatic;
};

class FramePipeline {
 public:
  // Checks the options (Error invalid_argument / out_of_range).
  explicit FramePipeline(const FramePipelineOptions& options = {});

  // Enqueues the pipeline on `queue` for one frame and returns the event spanning all its
  // launches. Outputs are (re)allocated only when the frame size changes. The frame is read, never
  // written; it may be reused once the event has completed.
  Event run(Queue& queue, const DeviceNv12Frame& frame);
  // The same from a grey plane (u8, one channel, any size: the Y plane of a frame, or a view).
  Event run(Queue& queue, const DeviceImage& grey);

  const FramePipelineOptions& options() const noexcept { return options_; }
  // levels()[0] is the grey image (a copy the pipeline owns), levels()[i] = pyrDown(levels()[i - 1]).
  const std::vector<DeviceImage>& levels() const noexcept { return levels_; }
  const DeviceImage& grey() const noexcept { return levels_.front(); }
  // The integral of levels()[options().integral_level].
  const DeviceImage& integral() const noexcept { return integral_; }

 private:
  FramePipelineOptions options_;
  std::vector<DeviceImage> levels_;
  std::vector<DeviceImage> rest_;  // build_pyramid's view of the levels after the fused launch
  DeviceImage integral_;
};

// The synchronous convenience: uploads the frame, runs, downloads every level and the integral.
struct FramePipelineImages {
  std::vector<HostImage> levels;
  HostImage integral;
};
FramePipelineImages frame_pipeline(Queue& queue, const Nv12Frame& frame, const FramePipelineOptions& options = {});

}  // namespace plinth
