// plinth filter epsilon IN OUT --size WxH --window N --threshold T: the epsilon filter on the Y plane
// of NV12 frames. IN is a raw NV12 file (.nv12, .yuv; every frame is filtered) or an image file
// (converted to one NV12 frame as cv::cvtColor's RGB2YUV_I420 does). OUT is a raw NV12 file, or an
// image file for a single frame (converted back to RGB).
#include <iomanip>
#include <iostream>
#include <optional>

#include "cli_images.hpp"
#include "command.hpp"
#include "plinth/color.hpp"

namespace plinth::cli {
namespace {

struct Options {
  std::string input;
  std::string output;
  std::string size;
  int window = 5;
  int threshold = 20;
  std::string border = "reflect_101";
  int border_value = 0;
  std::string method = "auto";
};

void run(const Options& o, Globals& globals) {
  check_writable(o.output, globals);
  EpsilonOptions options;
  options.window = o.window;
  options.threshold = o.threshold;
  options.border = parse_border_mode(o.border);
  options.border_value = o.border_value;
  options.method = parse_epsilon_method(o.method);

  const bool raw_in = is_raw_nv12(o.input);
  if (raw_in && o.size.empty()) {
    throw Error(ErrorCode::invalid_argument, "filter epsilon", "--size", "a raw NV12 input needs its frame size WxH");
  }
  const Size size = raw_in ? parse_size(o.size, "--size") : Size{};
  const int frames = raw_in ? count_nv12_frames(o.input, size) : 1;
  const bool raw_out = is_raw_nv12(o.output);
  if (!raw_out && frames != 1) {
    throw Error(ErrorCode::invalid_argument, "filter epsilon", o.output,
                "the input holds " + std::to_string(frames) + " frames; write them to a raw .nv12 or .yuv file");
  }

  Queue& queue = globals.queue();
  // Frames go into one OutputFile, put in place after the last: a failure leaves nothing behind.
  std::optional<OutputFile> raw_file;
  if (raw_out) raw_file.emplace(o.output, "filter epsilon");
  double device_us = 0.0;
  Size frame_size;
  for (int i = 0; i < frames; ++i) {
    const Nv12Frame frame = raw_in ? read_nv12(o.input, size, i) : nv12_from_rgb(read_image(o.input, ReadMode::rgb));
    frame_size = frame.size();
    const DeviceNv12Frame d_src = upload_nv12(queue, frame);
    DeviceNv12Frame d_dst;
    const Event event = epsilon_filter(queue, d_src, d_dst, options);
    event.wait();
    device_us += event.elapsed_us();
    if (raw_out) {
      write_nv12(*raw_file, download_nv12(queue, d_dst));
    } else {
      DeviceImage rgb;
      cvt_color(queue, d_dst, rgb, ColorConversion::nv12_to_rgb);
      write_image(o.output, queue.download(rgb));
    }
  }
  if (raw_file) raw_file->commit();
  std::cout << o.input << ": " << frames << " NV12 frame" << (frames == 1 ? "" : "s") << " of " << frame_size.width << "x"
            << frame_size.height << ", epsilon filter " << o.window << "x" << o.window << " threshold " << o.threshold
            << " on " << globals.context().device().name << " in " << std::fixed << std::setprecision(1) << device_us
            << " us; wrote " << o.output << '\n';
}

void setup(Args& command, Globals& globals) {
  auto o = std::make_shared<Options>();
  command.add_option("input", o->input, "raw NV12 file (.nv12, .yuv) or an image file to convert").required();
  command.add_option("output", o->output, "raw NV12 file (.nv12, .yuv), or an image file (.png, .ppm) for one frame").required();
  command.add_option("--size", o->size, "frame size WxH of a raw NV12 input (even sides)");
  command.add_option("--window", o->window, "window side, odd, 1 to 31 (default 5)");
  command.add_option("--threshold", o->threshold, "largest |neighbour - centre| averaged, 0 to 255 (default 20)");
  command.add_option("--border", o->border, "reflect_101 (default), replicate, reflect, wrap or constant");
  command.add_option("--border-value", o->border_value, "value of the constant border, 0 to 255");
  command.add_option("--method", o->method, "auto, plain, tiled, blocked or pairs");
  command.callback([o, &globals] { run(*o, globals); });
}

const Command registration("epsilon", "epsilon filter on the Y plane of NV12 frames (docs/epsilon_filter.md)", setup,
                           "filter");

}  // namespace
}  // namespace plinth::cli
