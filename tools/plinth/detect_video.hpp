#pragma once
// `plinth detect VIDEO`: the cascade on every frame of a video (detect_cmd.cpp hands over here).

#include <string>

#include "plinth/plinth.hpp"

namespace plinth::cli {

class Globals;

// Text: one line per frame with detections; json: one JSON object per line and frame
// {"file", "frame", "width", "height", "detections": [{"x", "y", "width", "height", "neighbors"}]};
// draw: a video file (or a folder of PNG frames) with the rectangles drawn in green.
void detect_video(const std::string& path, const std::string& cascade_path, const DetectOptions& options, bool json,
                  const std::string& draw, Globals& globals);

}  // namespace plinth::cli
