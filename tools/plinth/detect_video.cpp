#include "detect_video.hpp"

#include <algorithm>
#include <iostream>
#include <optional>

#include "cli_video.hpp"
#include "command.hpp"

namespace plinth::cli {

void detect_video(const std::string& path, const std::string& cascade_path, const DetectOptions& options, bool json,
                  const std::string& draw, Globals& globals) {
  constexpr const char* kCmd = "detect";
  std::optional<FrameSink> sink;
  if (!draw.empty()) sink.emplace(draw, kCmd, globals);  // refused before anything is computed
  FrameSource frames({path}, kCmd);
  const Cascade cascade = Cascade::load(cascade_path);
  Queue& queue = globals.queue();
  DetectionBatch batch;
  Progress progress(frames.expected_count());
  HostImage gray, bgr;
  std::int64_t total = 0;
  while (frames.next(gray, sink ? &bgr : nullptr)) {
    const DeviceImage d_gray = queue.upload(gray);
    detect_multi_scale(queue, cascade, std::span<const DeviceImage>(&d_gray, 1), batch, options);
    const std::vector<Detection>& found = batch.results().front();
    total += static_cast<std::int64_t>(found.size());
    if (json) {
      std::string line = "{\"file\": " + json_string(path) + ", \"frame\": " + std::to_string(frames.index()) +
                         ", \"width\": " + std::to_string(gray.width()) + ", \"height\": " + std::to_string(gray.height()) +
                         ", \"detections\": [";
      for (std::size_t k = 0; k < found.size(); ++k) {
        const Rect& r = found[k].rect;
        line += (k ? ", " : "") + std::string("{\"x\": ") + std::to_string(r.x) + ", \"y\": " + std::to_string(r.y) +
                ", \"width\": " + std::to_string(r.width) + ", \"height\": " + std::to_string(r.height) +
                ", \"neighbors\": " + std::to_string(found[k].neighbors) + "}";
      }
      std::cout << line << "]}\n";
    } else if (!found.empty()) {
      std::cout << path << " frame " << frames.index() << ": " << found.size() << (found.size() == 1 ? " object" : " objects");
      for (const Detection& d : found) std::cout << "  " << d.rect.x << "," << d.rect.y << " " << d.rect.width << "x" << d.rect.height;
      std::cout << '\n';
    }
    if (sink) {
      const int thickness = std::max(2, std::min(bgr.width(), bgr.height()) / 250);
      for (const Detection& d : found) draw_rect(bgr, d.rect, Bgr{0, 255, 0}, thickness);
      sink->write(bgr, frames.fps());
    }
    progress.update(frames.index() + 1);
  }
  progress.finish();
  if (frames.index() < 0) throw Error(ErrorCode::format, kCmd, path, "the video holds no frame");
  if (sink) sink->close();
  if (!json) {
    std::cout << path << ": " << frames.index() + 1 << " frames, " << total << " detections";
    if (sink) std::cout << ", drawn into " << sink->target();
    std::cout << '\n';
  }
}

}  // namespace plinth::cli
