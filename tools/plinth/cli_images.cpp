#include "cli_images.hpp"

#include <iomanip>
#include <iostream>

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

void filter_file(const std::string& input, const std::string& output, const std::string& what, Globals& globals,
                 const DeviceFilter& apply) {
  check_writable(output, globals);
  const HostImage src = read_any_image(input);
  Queue& queue = globals.queue();
  const DeviceImage d_src = queue.upload(src);
  DeviceImage d_dst;
  const Event event = apply(queue, d_src, d_dst);
  const HostImage dst = queue.download(d_dst);
  write_image(output, dst);
  std::cout << input << ": " << describe(src) << ", " << what << " -> " << output << " (" << to_string(dst.depth())
            << "), " << std::fixed << std::setprecision(1) << event.elapsed_us() << " us on "
            << globals.context().device().name << '\n';
}

}  // namespace plinth::cli
