// plinth color IN OUT --code CODE [--size WxH]: cv::cvtColor of an image file or of a raw NV12
// frame (.nv12, .yuv, first frame; --size gives its size).
#include <iomanip>
#include <iostream>

#include "cli_images.hpp"
#include "command.hpp"
#include "plinth/color.hpp"

namespace plinth::cli {
namespace {

struct Options {
  std::string input;
  std::string output;
  std::string code;
  std::string size;
};

void run(const Options& o, Globals& globals) {
  check_writable(o.output, globals);
  const ColorConversion code = parse_color_conversion(o.code);
  Queue& queue = globals.queue();
  DeviceImage dst;
  Event event;
  std::string what;
  if (is_raw_nv12(o.input)) {
    if (o.size.empty()) throw Error(ErrorCode::invalid_argument, "color", "--size", "a raw NV12 input needs its frame size WxH");
    const Nv12Frame frame = read_nv12(o.input, parse_size(o.size, "--size"));
    event = cvt_color(queue, upload_nv12(queue, frame), dst, code);
    what = "NV12 " + std::to_string(frame.size().width) + "x" + std::to_string(frame.size().height);
  } else {
    const HostImage src = read_any_image(o.input);
    event = cvt_color(queue, queue.upload(src), dst, code);
    what = describe(src);
  }
  event.wait();
  write_image(o.output, queue.download(dst));
  std::cout << o.input << ": " << what << ", " << to_string(code) << " on " << globals.context().device().name;
  if (event.valid()) std::cout << " in " << std::fixed << std::setprecision(1) << event.elapsed_us() << " us";
  std::cout << "; wrote " << o.output << '\n';
}

void setup(Args& command, Globals& globals) {
  auto o = std::make_shared<Options>();
  command.add_option("input", o->input, "image file, or a raw NV12 file (.nv12, .yuv)").required();
  command.add_option("output", o->output, "output file (.png, .pgm, .ppm or .npy)").required();
  command.add_option("--code", o->code,
                     "rgb_to_gray, bgr_to_gray, rgba_to_gray, bgra_to_gray, nv12_to_gray, nv12_to_rgb, nv12_to_bgr, "
                     "nv12_to_rgba or nv12_to_bgra").required();
  command.add_option("--size", o->size, "frame size WxH of a raw NV12 input");
  command.callback([o, &globals] { run(*o, globals); });
}

const Command registration("color", "colour conversion (cv::cvtColor): RGB family to grey, NV12 to grey or RGB", setup);

}  // namespace
}  // namespace plinth::cli
