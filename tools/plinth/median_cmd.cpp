// plinth filter median IN OUT --ksize N [--border MODE] [--method M]: cv::medianBlur of an image file.
#include <iomanip>
#include <iostream>

#include "command.hpp"
#include "cli_images.hpp"

namespace plinth::cli {
namespace {

struct Options {
  std::string input;
  std::string output;
  int ksize = 3;
  std::string border = "replicate";
  double border_value = 0.0;
  std::string method = "auto";
};

void run(const Options& o, Globals& globals) {
  MedianOptions options;
  options.ksize = o.ksize;
  options.border = parse_border_mode(o.border);
  options.border_value = o.border_value;
  options.method = parse_median_method(o.method);
  filter_file(o.input, o.output, "median " + std::to_string(o.ksize) + "x" + std::to_string(o.ksize), globals,
              [&](Queue& queue, const DeviceImage& src, DeviceImage& dst) { return median_blur(queue, src, dst, options); });
}

void setup(Args& command, Globals& globals) {
  auto o = std::make_shared<Options>();
  command.add_option("input", o->input, "image file (PNG, JPEG, BMP, PGM, PPM or .npy)").required();
  command.add_option("output", o->output, "output file (.png, .pgm, .ppm or .npy)").required();
  command.add_option("-k,--ksize", o->ksize, "window side, odd (u8: up to 255; u16, s16, f32: 3 or 5)");
  command.add_option("--border", o->border, "replicate (cv::medianBlur's), constant, reflect, reflect_101 or wrap");
  command.add_option("--border-value", o->border_value, "value of the constant border");
  command.add_option("--method", o->method, "auto, plain, network, sorted_columns, histogram, tiled, sorted_rows_packed or tiled_packed");
  command.callback([o, &globals] { run(*o, globals); });
}

const Command registration("median", "median filter (cv::medianBlur)", setup, "filter");

}  // namespace
}  // namespace plinth::cli
