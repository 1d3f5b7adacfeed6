// plinth integral IN [--sq] [--tilted] [--count] [-o OUT.npy]: integral images of an image file.
#include <iomanip>
#include <iostream>
#include <sstream>

#include "command.hpp"

namespace plinth::cli {
namespace {

struct Options {
  std::string input;
  std::string output;
  bool sq = false;
  bool tilted = false;
  bool count = false;
  std::string sum_depth;
  std::string sq_depth;
  std::string method = "auto";
};

// OUT.npy for the sum (or count); OUT.sqsum.npy and OUT.tilted.npy beside it.
std::string output_path(const std::string& base, const char* what) {
  if (what == nullptr) return base;
  return base.substr(0, base.size() - 4) + "." + what + ".npy";
}

std::string bottom_right(const HostImage& image) {
  std::ostringstream text;
  text << std::setprecision(17);
  const int x = image.width() - 1, y = image.height() - 1;
  for (int c = 0; c < image.channels(); ++c) {
    if (c) text << ", ";
    switch (image.depth()) {
      case Depth::s32: text << image.at<std::int32_t>(x, y, c); break;
      case Depth::u32: text << image.at<std::uint32_t>(x, y, c); break;
      case Depth::u64: text << image.at<std::uint64_t>(x, y, c); break;
      case Depth::s64: text << image.at<std::int64_t>(x, y, c); break;
      case Depth::f32: text << image.at<float>(x, y, c); break;
      case Depth::f64: text << image.at<double>(x, y, c); break;
      default: text << "?";
    }
  }
  return text.str();
}

void run(const Options& o, Globals& globals) {
  if (o.count && (o.sq || o.tilted)) {
    throw Error(ErrorCode::invalid_argument, "integral", "--count", "cannot be combined with --sq or --tilted");
  }
  if (!o.output.empty()) {
    if (!has_extension(o.output, ".npy")) {
      throw Error(ErrorCode::invalid_argument, "integral", "-o", "the output must be a .npy file");
    }
    check_writable(output_path(o.output, nullptr), globals);
    if (o.sq) check_writable(output_path(o.output, "sqsum"), globals);
    if (o.tilted) check_writable(output_path(o.output, "tilted"), globals);
  }
  const HostImage src = read_image(o.input);
  IntegralOptions options;
  if (!o.sum_depth.empty()) options.sum_depth = parse_depth(o.sum_depth);
  if (!o.sq_depth.empty()) options.sqsum_depth = parse_depth(o.sq_depth);
  options.method = parse_integral_method(o.method);

  Queue& queue = globals.queue();
  const DeviceImage d_src = queue.upload(src);
  DeviceImage sum, sqsum, tilted;
  const auto compute = [&] {
    return o.count ? integral_count(queue, d_src, sum, options)
                   : integral(queue, d_src, IntegralOutputs{&sum, o.sq ? &sqsum : nullptr, o.tilted ? &tilted : nullptr},
                              options);
  };
  // The first call's device time can include building the kernels (PoCL compiles at the first
  // launch), so the time printed is a second call's; the first is shown beside it.
  const Event first = compute();
  first.wait();
  const Event event = compute();
  event.wait();
  const HostImage h_sum = queue.download(sum);
  std::cout << o.input << ": " << src.width() << "x" << src.height() << " " << to_string(src.depth()) << "C"
            << src.channels() << " on " << globals.context().device().name << ", " << std::fixed << std::setprecision(1)
            << event.elapsed_us() << " us on the device (second call; the first, which may include compiling the kernels, "
            << first.elapsed_us() << " us)\n";
  std::cout << (o.count ? "count" : "sum") << " (" << to_string(h_sum.depth()) << "): total " << bottom_right(h_sum) << '\n';
  HostImage h_sq, h_tilted;
  if (o.sq) {
    h_sq = queue.download(sqsum);
    std::cout << "sqsum (" << to_string(h_sq.depth()) << "): total " << bottom_right(h_sq) << '\n';
  }
  if (o.tilted) h_tilted = queue.download(tilted);
  if (!o.output.empty()) {
    // All outputs complete before any is put in place: a failure leaves none behind.
    std::vector<std::pair<OutputFile, const HostImage*>> files;
    files.emplace_back(OutputFile(output_path(o.output, nullptr), "integral"), &h_sum);
    if (o.sq) files.emplace_back(OutputFile(output_path(o.output, "sqsum"), "integral"), &h_sq);
    if (o.tilted) files.emplace_back(OutputFile(output_path(o.output, "tilted"), "integral"), &h_tilted);
    for (auto& [file, image] : files) write_image(file, *image);
    for (auto& [file, image] : files) file.commit();
    for (auto& [file, image] : files) std::cout << "wrote " << file.path() << '\n';
  }
}

void setup(Args& command, Globals& globals) {
  auto o = std::make_shared<Options>();
  command.add_option("input", o->input, "image file (PNG, JPEG, BMP, PGM, PPM)").required();
  command.add_option("-o,--output", o->output, "write the sum as OUT.npy (and OUT.sqsum.npy, OUT.tilted.npy)");
  command.add_flag("--sq", o->sq, "also the squared sum");
  command.add_flag("--tilted", o->tilted, "also the 45-degree tilted sum");
  command.add_flag("--count", o->count, "count non-zero pixels instead of summing");
  command.add_option("--sum-depth", o->sum_depth, "s32, u32, f32 or f64 (default s32 for 8-bit images, else f64)");
  command.add_option("--sq-depth", o->sq_depth, "f64 (default), u64, s64, s32 or f32");
  command.add_option("--method", o->method,
                     "auto, row_column, block_4x4, blelloch, blocked_scan, single_pass, tiled, resident or cluster");
  command.callback([o, &globals] { run(*o, globals); });
}

const Command registration("integral", "integral images of an image file", setup);

}  // namespace
}  // namespace plinth::cli
