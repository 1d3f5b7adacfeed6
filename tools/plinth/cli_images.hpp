#pragma once
// Helpers shared by the image commands: reading any supported image file, describing images in
// one line, and the common flow of `plinth filter NAME IN OUT`.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "plinth/plinth.hpp"

namespace plinth::cli {

// read_npy for .npy files, read_image otherwise (the file's own channels and depth).
HostImage read_any_image(const std::string& path);
// "640x480 u8C3"
std::string describe(const HostImage& image);
// Whether a path's extension names an image file plinth reads (.png .jpg .jpeg .bmp .pgm .ppm .pnm).
bool is_image_file(const std::filesystem::path& p);
// Files, directories (their image files, sorted) and glob patterns, in the order given;
// Error(io) naming `command` for a missing input, an empty folder or a pattern matching nothing.
std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs, const std::string& command);
// Whether path names a raw NV12 file (.nv12 or .yuv).
bool is_raw_nv12(const std::string& path);

class Globals;
// Refuses to overwrite `output` without --force, reads `input`, runs `apply` on the device (it
// fills dst), writes `output` and prints one line: what, how long on which device.
using DeviceFilter = std::function<Event(Queue& queue, const DeviceImage& src, DeviceImage& dst)>;
void filter_file(const std::string& input, const std::string& output, const std::string& what, Globals& globals,
                 const DeviceFilter& apply);

}  // namespace plinth::cli
