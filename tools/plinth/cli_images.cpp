#include "cli_images.hpp"

#include <glob.h>

#include <algorithm>
#include <filesystem>
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

namespace fs = std::filesystem;

bool is_image_file(const std::filesystem::path& p) {
  static const char* exts[] = {".png", ".jpg", ".jpeg", ".bmp", ".pgm", ".ppm", ".pnm"};
  const std::string s = p.string();
  return std::any_of(std::begin(exts), std::end(exts), [&](const char* e) { return has_extension(s, e); });
}

std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs, const std::string& command) {
  std::vector<std::string> files;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(in, ec)) {
      std::vector<std::string> found;
      for (const auto& e : fs::directory_iterator(in, ec)) {
        if (e.is_regular_file(ec) && is_image_file(e.path())) found.push_back(e.path().string());
      }
      if (found.empty()) throw Error(ErrorCode::io, command, in, "the directory holds no image files");
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(in, ec)) {
      files.push_back(in);
    } else if (in.find_first_of("*?[") != std::string::npos) {
      glob_t g{};
      const int rc = ::glob(in.c_str(), 0, nullptr, &g);
      std::vector<std::string> found;
      if (rc == 0) {
        for (std::size_t i = 0; i < g.gl_pathc; ++i) found.emplace_back(g.gl_pathv[i]);
      }
      ::globfree(&g);
      if (found.empty()) throw Error(ErrorCode::io, command, in, "the pattern matches no file");
      files.insert(files.end(), found.begin(), found.end());
    } else {
      throw Error(ErrorCode::io, command, in, "no such file or directory");
    }
  }
  return files;
}

}  // namespace plinth::cli
