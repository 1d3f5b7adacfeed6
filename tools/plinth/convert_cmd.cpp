// plinth convert IN OUT --depth D [--alpha A --beta B]: cv::Mat::convertTo of an image file.
#include <iomanip>
#include <iostream>

#include "cli_images.hpp"
#include "command.hpp"
#include "plinth/arithm.hpp"

namespace plinth::cli {
namespace {

struct Options {
  std::string input;
  std::string output;
  std::string depth;
  double alpha = 1.0;
  double beta = 0.0;
};

void run(const Options& o, Globals& globals) {
  check_writable(o.output, globals);
  const Depth depth = parse_depth(o.depth);
  const HostImage src = read_any_image(o.input);
  Queue& queue = globals.queue();
  const DeviceImage d_src = queue.upload(src);
  DeviceImage dst;
  const Event event = convert_to(queue, d_src, dst, depth, ConvertOptions{o.alpha, o.beta});
  event.wait();
  const HostImage out = queue.download(dst);
  write_image(o.output, out);
  std::cout << o.input << ": " << describe(src) << " -> " << describe(out) << " (alpha " << o.alpha << ", beta " << o.beta
            << ") on " << globals.context().device().name;
  if (event.valid()) std::cout << " in " << std::fixed << std::setprecision(1) << event.elapsed_us() << " us";
  std::cout << "; wrote " << o.output << '\n';
}

void setup(Args& command, Globals& globals) {
  auto o = std::make_shared<Options>();
  command.add_option("input", o->input, "image file (PNG, JPEG, BMP, PGM, PPM or .npy)").required();
  command.add_option("output", o->output, "output file (.png for u8, .pgm / .ppm for u8 or u16, .npy for any depth)").required();
  command.add_option("--depth", o->depth, "u8, s8, u16, s16, s32, f32 or f64").required();
  command.add_option("--alpha", o->alpha, "scale (default 1)");
  command.add_option("--beta", o->beta, "offset added after scaling (default 0)");
  command.callback([o, &globals] { run(*o, globals); });
}

const Command registration("convert", "scale and convert the depth of an image (cv::Mat::convertTo)", setup);

}  // namespace
}  // namespace plinth::cli
