// Names of video files, shared by plinth::video and its stand-in.
#include <algorithm>
#include <cctype>
#include <string>

#include "plinth/video.hpp"

namespace plinth {

bool is_video_file(const std::string& path) {
  static const char* const extensions[] = {".avi", ".mp4", ".mkv", ".mov", ".webm", ".m4v",
                                           ".mpg", ".mpeg", ".wmv", ".flv", ".ogv", ".nut"};
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return false;
  std::string ext = path.substr(dot);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::any_of(std::begin(extensions), std::end(extensions), [&](const char* e) { return ext == e; });
}

}  // namespace plinth
