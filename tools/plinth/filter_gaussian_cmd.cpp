// plinth filter gaussian IN OUT [--ksize WxH] [--sigma S] [--sigma-y S] [--border MODE]
//                        [--method M]: cv::GaussianBlur of an image file.
#include "command.hpp"
#include "cli_images.hpp"
#include "linear_filter_args.hpp"

namespace plinth::cli {
namespace {

struct Options {
  std::string input, output, ksize, border = "reflect_101", method = "auto";
  double sigma = 0.0, sigma_y = 0.0;
};

void run(const Options& o, Globals& globals) {
  GaussianBlurOptions options;
  if (!o.ksize.empty()) options.ksize = parse_size(o.ksize, "--ksize");
  options.sigma_x = o.sigma;
  options.sigma_y = o.sigma_y;
  options.border = parse_border_mode(o.border);
  options.method = parse_sep_filter_method(o.method);
  filter_file(o.input, o.output, "gaussian", globals,
              [&](Queue& queue, const DeviceImage& src, DeviceImage& dst) { return gaussian_blur(queue, src, dst, options); });
}

void setup(Args& command, Globals& globals) {
  auto o = std::make_shared<Options>();
  command.add_option("input", o->input, "image file (PNG, JPEG, BMP, PGM, PPM) or .npy").required();
  command.add_option("output", o->output, "output file (.png, .pgm, .ppm or .npy)").required();
  command.add_option("--ksize", o->ksize, "kernel WxH, odd, up to 63 (default: from the sigma)");
  command.add_option("--sigma", o->sigma, "sigma along rows (default 0: from the size)");
  command.add_option("--sigma-y", o->sigma_y, "sigma along columns (default: --sigma)");
  command.add_option("--border", o->border, "constant, replicate, reflect, reflect_101 (default), wrap (u8/u16)");
  command.add_option("--method", o->method, "auto, wide_rows, tiled, fused, two_pass or fused_direct");
  command.callback([o, &globals] { run(*o, globals); });
}

const Command registration("gaussian", "Gaussian blur (cv::GaussianBlur)", setup, "filter");

}  // namespace
}  // namespace plinth::cli
