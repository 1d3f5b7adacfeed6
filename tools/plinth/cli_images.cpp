#include "cli_images.hpp"

#include "command.hpp"

namespace plinth::cli {

HostImage read_any_image(const std::string& path) {
  return has_extension(path, ".npy") ? read_npy(path) : read_image(path);
}

std::string describe(const HostImage& image) {
  return std::to_string(image.width()) + "x" + std::to_string(image.height()) + " " + std::string(to_string(image.depth())) +
         "C" + std::to_string(image.channels());
}

bool is_raw_nv12(const std::string& path) { return has_extension(path, ".nv12") || has_extension(path, ".yuv"); }

}  // namespace plinth::cli
