// plinth pyramid IN OUT_PREFIX --levels N [--up | --subsampled S]: Gaussian pyramids of an image
// file, one file per level: OUT_PREFIX_0.EXT (the source), OUT_PREFIX_1.EXT, ...
#include <iomanip>
#include <iostream>

#include "cli_images.hpp"
#include "command.hpp"
#include "plinth/color.hpp"

namespace plinth::cli {
namespace {

struct Options {
  std::string input;
  std::string prefix;
  int levels = 4;
  bool up = false;
  int subsampled = 0;
  std::string border = "reflect_101";
  std::string method = "auto";
};

// .png for 8-bit images, .pgm / .ppm for 16-bit grey / colour, .npy otherwise.
std::string extension_for(const HostImage& image) {
  if (image.depth() == Depth::u8 && image.channels() != 2) return ".png";
  if (image.depth() == Depth::u16 && (image.channels() == 1 || image.channels() == 3)) return image.channels() == 1 ? ".pgm" : ".ppm";
  return ".npy";
}

void run(const Options& o, Globals& globals) {
  if (o.up && o.subsampled != 0) {
    throw Error(ErrorCode::invalid_argument, "pyramid", "--up", "cannot be combined with --subsampled");
  }
  if (o.levels < 1 || o.levels > 32) {
    throw Error(ErrorCode::out_of_range, "pyramid", "--levels", std::to_string(o.levels) + " is outside 1..32");
  }
  const BorderMode border = parse_border_mode(o.border);
  const HostImage src = read_any_image(o.input);
  Queue& queue = globals.queue();
  DeviceImage d_src = queue.upload(src);
  if (o.subsampled != 0 && (src.channels() == 3 || src.channels() == 4)) {
    // KLT tracks grey images: convert colour first (cv::cvtColor's RGB2GRAY / RGBA2GRAY).
    DeviceImage gray;
    cvt_color(queue, d_src, gray, src.channels() == 3 ? ColorConversion::rgb_to_gray : ColorConversion::rgba_to_gray);
    d_src = gray;
  }
  std::vector<DeviceImage> levels;
  Event event;
  if (o.subsampled != 0) {
    SubsampledPyramidOptions options;
    options.levels = o.levels;
    options.subsampling = o.subsampled;
    options.border = border;
    event = subsampled_pyramid(queue, d_src, levels, options);
  } else if (o.up) {
    levels.push_back(d_src);
    Event first;
    for (int i = 1; i < o.levels; ++i) {
      DeviceImage next;
      const Event e = pyr_up(queue, levels.back(), next, border);
      if (!first.valid()) first = e;
      event = Event(first.first(), e.last());
      levels.push_back(next);
    }
  } else {
    event = build_pyramid(queue, d_src, levels, PyramidOptions{o.levels, border, parse_pyramid_method(o.method)});
  }
  event.wait();
  std::vector<std::string> names;
  std::vector<HostImage> images;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    images.push_back(queue.download(levels[i]));
    names.push_back(o.prefix + "_" + std::to_string(i) + extension_for(images.back()));
    check_writable(names.back(), globals);
  }
  // Every level is written completely before any is put in place, so that a failure leaves no
  // level behind (and the files that were there untouched).
  std::vector<OutputFile> files;
  for (std::size_t i = 0; i < images.size(); ++i) {
    files.emplace_back(names[i], "write_image");
    write_image(files.back(), images[i]);
  }
  for (OutputFile& file : files) file.commit();
  std::cout << o.input << ": " << describe(src) << ", " << levels.size() << " levels on " << globals.context().device().name;
  if (event.valid()) std::cout << " in " << std::fixed << std::setprecision(1) << event.elapsed_us() << " us";
  std::cout << '\n';
  for (std::size_t i = 0; i < images.size(); ++i) std::cout << "  " << names[i] << "  " << describe(images[i]) << '\n';
}

void setup(Args& command, Globals& globals) {
  auto o = std::make_shared<Options>();
  command.add_option("input", o->input, "image file (PNG, JPEG, BMP, PGM, PPM or .npy)").required();
  command.add_option("output_prefix", o->prefix, "levels are written to PREFIX_0.EXT, PREFIX_1.EXT, ...").required();
  command.add_option("--levels", o->levels, "images in the pyramid, the source included (default 4)");
  command.add_flag("--up", o->up, "expand with pyrUp instead of reducing with pyrDown");
  command.add_option("--subsampled", o->subsampled,
                     "KLT's pyramid instead: smooth and keep every S-th pixel (S = 2..8; the case study uses 4); f32 levels");
  command.add_option("--border", o->border, "reflect_101 (default), replicate, reflect or wrap (pyrUp: reflect_101 only)");
  command.add_option("--method", o->method, "pyrDown pyramid: auto, per_level or two_levels");
  command.callback([o, &globals] { run(*o, globals); });
}

const Command registration("pyramid", "Gaussian image pyramids (cv::pyrDown / cv::pyrUp, KLT's subsampled pyramid)", setup);

}  // namespace
}  // namespace plinth::cli
