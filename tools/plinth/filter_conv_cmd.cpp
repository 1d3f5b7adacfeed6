// plinth filter conv IN OUT --kernel FILE_OR_LIST [--anchor X,Y] [--delta D] [--border MODE]
//                    [--ddepth D] [--method M]: cv::filter2D (correlation) of an image file.
#include "command.hpp"
#include "cli_images.hpp"
#include "linear_filter_args.hpp"

namespace plinth::cli {
namespace {

struct Options {
  std::string input, output, kernel, anchor, border = "reflect_101", ddepth, method = "auto";
  double delta = 0.0;
};

void run(const Options& o, Globals& globals) {
  Size ksize;
  const std::vector<float> coefficients = parse_kernel_2d(o.kernel, ksize);
  Filter2DOptions options;
  if (!o.anchor.empty()) options.anchor = parse_anchor(o.anchor, "--anchor");
  options.delta = o.delta;
  options.border = parse_border_mode(o.border);
  if (!o.ddepth.empty()) options.ddepth = parse_depth(o.ddepth);
  options.method = parse_filter2d_method(o.method);
  const Filter2DKernel kernel(globals.queue(), ksize, coefficients);
  filter_file(o.input, o.output, "filter2d " + std::to_string(ksize.width) + "x" + std::to_string(ksize.height), globals,
              [&](Queue& queue, const DeviceImage& src, DeviceImage& dst) { return filter2d(queue, src, dst, kernel, options); });
}

void setup(Args& command, Globals& globals) {
  auto o = std::make_shared<Options>();
  command.add_option("input", o->input, "image file (PNG, JPEG, BMP, PGM, PPM) or .npy").required();
  command.add_option("output", o->output, "output file (.png, .pgm, .ppm or .npy)").required();
  command.add_option("--kernel", o->kernel,
                     "coefficients: rows separated by ';' (\"0,-1,0;-1,5,-1;0,-1,0\"), n*n numbers, or a text file "
                     "with one row per line; up to 31x31").required();
  command.add_option("--anchor", o->anchor, "anchor X,Y (default: the centre)");
  command.add_option("--delta", o->delta, "added to every result");
  command.add_option("--border", o->border, "constant, replicate, reflect or reflect_101 (default)");
  command.add_option("--ddepth", o->ddepth, "output depth: u8, s16 or f32 (default: the input's)");
  command.add_option("--method", o->method, "auto, fused, direct or tiled_rows");
  command.callback([o, &globals] { run(*o, globals); });
}

const Command registration("conv", "2-D linear filter, correlation (cv::filter2D)", setup, "filter");

}  // namespace
}  // namespace plinth::cli
