// plinth filter box IN OUT --ksize WxH [--no-normalize] [--anchor X,Y] [--border MODE]
//                   [--ddepth D] [--method M]: cv::boxFilter / cv::blur of an image file.
#include "command.hpp"
#include "cli_images.hpp"
#include "linear_filter_args.hpp"

namespace plinth::cli {
namespace {

struct Options {
  std::string input, output, ksize = "3x3", anchor, border = "reflect_101", ddepth, method = "auto";
  bool no_normalize = false;
};

void run(const Options& o, Globals& globals) {
  BoxFilterOptions options;
  options.ksize = parse_size(o.ksize, "--ksize");
  options.normalize = !o.no_normalize;
  if (!o.anchor.empty()) options.anchor = parse_anchor(o.anchor, "--anchor");
  options.border = parse_border_mode(o.border);
  if (!o.ddepth.empty()) options.ddepth = parse_depth(o.ddepth);
  options.method = parse_box_filter_method(o.method);
  filter_file(o.input, o.output, "box " + o.ksize, globals,
              [&](Queue& queue, const DeviceImage& src, DeviceImage& dst) { return box_filter(queue, src, dst, options); });
}

void setup(Args& command, Globals& globals) {
  auto o = std::make_shared<Options>();
  command.add_option("input", o->input, "image file (PNG, JPEG, BMP, PGM, PPM) or .npy").required();
  command.add_option("output", o->output, "output file (.png, .pgm, .ppm or .npy)").required();
  command.add_option("--ksize", o->ksize, "window WxH, 1 to 255 each way (default 3x3)");
  command.add_flag("--no-normalize", o->no_normalize, "sum instead of averaging");
  command.add_option("--anchor", o->anchor, "anchor X,Y inside the window (default: the centre)");
  command.add_option("--border", o->border, "constant, replicate, reflect or reflect_101 (default)");
  command.add_option("--ddepth", o->ddepth, "output depth: u8, u16, s16, s32, f32, f64 (default: the input's)");
  command.add_option("--method", o->method, "auto, wide_rows, tiled, registers, local_scan, two_pass_8x8, direct or vector_strips");
  command.callback([o, &globals] { run(*o, globals); });
}

const Command registration("box", "box filter (cv::boxFilter / cv::blur)", setup, "filter");

}  // namespace
}  // namespace plinth::cli
