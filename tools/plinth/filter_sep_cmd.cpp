// plinth filter sep IN OUT --kx a,b,c --ky d,e,f [--anchor X,Y] [--delta D] [--border MODE]
//                   [--ddepth D] [--method M]: cv::sepFilter2D of an image file.
#include "command.hpp"
#include "cli_images.hpp"
#include "linear_filter_args.hpp"

namespace plinth::cli {
namespace {

struct Options {
  std::string input, output, kx, ky, anchor, border = "reflect_101", ddepth, method = "auto";
  double delta = 0.0;
};

void run(const Options& o, Globals& globals) {
  const std::vector<float> kx = parse_numbers(o.kx, "--kx");
  const std::vector<float> ky = o.ky.empty() ? kx : parse_numbers(o.ky, "--ky");
  SepFilterOptions options;
  if (!o.anchor.empty()) options.anchor = parse_anchor(o.anchor, "--anchor");
  options.delta = o.delta;
  options.border = parse_border_mode(o.border);
  if (!o.ddepth.empty()) options.ddepth = parse_depth(o.ddepth);
  options.method = parse_sep_filter_method(o.method);
  filter_file(o.input, o.output, "separable " + std::to_string(kx.size()) + "x" + std::to_string(ky.size()), globals,
              [&](Queue& queue, const DeviceImage& src, DeviceImage& dst) { return sep_filter(queue, src, dst, kx, ky, options); });
}

void setup(Args& command, Globals& globals) {
  auto o = std::make_shared<Options>();
  command.add_option("input", o->input, "image file (PNG, JPEG, BMP, PGM, PPM) or .npy").required();
  command.add_option("output", o->output, "output file (.png, .pgm, .ppm or .npy)").required();
  command.add_option("--kx", o->kx, "row kernel, comma-separated (1 to 63 taps)").required();
  command.add_option("--ky", o->ky, "column kernel (default: the row kernel)");
  command.add_option("--anchor", o->anchor, "anchor X,Y (default: the centre)");
  command.add_option("--delta", o->delta, "added to every result");
  command.add_option("--border", o->border, "constant, replicate, reflect or reflect_101 (default)");
  command.add_option("--ddepth", o->ddepth, "output depth: u8, s16 or f32 (default: the input's)");
  command.add_option("--method", o->method, "auto, wide_rows, tiled, fused, two_pass or fused_direct");
  command.callback([o, &globals] { run(*o, globals); });
}

const Command registration("sep", "separable linear filter (cv::sepFilter2D)", setup, "filter");

}  // namespace
}  // namespace plinth::cli
