// plinth bench [OP...] [--size WxH] [--sizes WxH,...] [--runs N] [--warmup N] [--json FILE|-]:
// times the registered benchmark cases (bench/) on the selected device.
#include <iostream>
#include <sstream>

#include "bench_driver.hpp"
#include "command.hpp"

namespace plinth::cli {
namespace {

struct Options {
  std::vector<std::string> ops;
  std::string size;
  std::string sizes;
  int runs = 50;
  int warmup = 5;
  int sets = 0;
  double max_case_seconds = 20;
  double max_seconds = 0;
  std::string json;
  bool list = false;
  bool no_filler = false;
};

std::vector<Size> parse_sizes(const Options& o) {
  std::vector<Size> sizes;
  if (!o.size.empty()) sizes.push_back(parse_size(o.size, "--size"));
  std::stringstream list(o.sizes);
  std::string item;
  while (std::getline(list, item, ',')) {
    if (!item.empty()) sizes.push_back(parse_size(item, "--sizes"));
  }
  if (sizes.empty()) sizes.push_back(bench::DriverOptions{}.sizes.front());
  return sizes;
}

std::string command_line(const Options& o, const Globals& globals) {
  std::string text = "plinth";
  if (!globals.device.empty()) text += " --device " + globals.device;
  text += " bench";
  for (const std::string& op : o.ops) text += " " + op;
  if (!o.size.empty()) text += " --size " + o.size;
  if (!o.sizes.empty()) text += " --sizes " + o.sizes;
  text += " --runs " + std::to_string(o.runs) + " --warmup " + std::to_string(o.warmup);
  if (o.sets > 0) text += " --sets " + std::to_string(o.sets);
  if (o.max_seconds > 0) text += " --max-seconds " + std::to_string(o.max_seconds);
  if (o.no_filler) text += " --no-filler";
  if (!o.json.empty()) text += " --json " + o.json;
  return text;
}

void run(const Options& o, Globals& globals) {
  if (o.list) {
    for (const std::string& op : bench::registered_ops()) std::cout << op << '\n';
    return;
  }
  if (o.runs < 1) throw Error(ErrorCode::invalid_argument, "bench", "--runs", "must be at least 1");
  if (o.warmup < 0) throw Error(ErrorCode::invalid_argument, "bench", "--warmup", "must not be negative");
  if (o.sets < 0) throw Error(ErrorCode::invalid_argument, "bench", "--sets", "must not be negative");
  if (o.max_seconds < 0) throw Error(ErrorCode::invalid_argument, "bench", "--max-seconds", "must not be negative");
  if (!(o.max_case_seconds > 0)) throw Error(ErrorCode::invalid_argument, "bench", "--max-case-seconds", "must be positive");
  bench::DriverOptions options;
  options.sizes = parse_sizes(o);
  options.ops = o.ops;
  options.runs = o.runs;
  options.warmup = o.warmup;
  options.input_sets = o.sets;
  options.max_case_seconds = o.max_case_seconds;
  options.max_seconds = o.max_seconds;
  options.filler = !o.no_filler;
  options.json_path = o.json;
  options.command = command_line(o, globals);
  if (!o.json.empty() && o.json != "-") check_writable(o.json, globals);
  // With the JSON on stdout the table goes to stderr, so that stdout stays one document.
  std::ostream& table = o.json == "-" ? std::cerr : std::cout;
  const int failed = bench::run_benchmark(globals.context(), globals.queue(), options, table, std::cerr);
  if (failed > 0) {
    throw Error(ErrorCode::device, "bench", "", std::to_string(failed) + (failed == 1 ? " case" : " cases") +
                                                    " failed (the error rows above say why)");
  }
}

void setup(Args& command, Globals& globals) {
  auto o = std::make_shared<Options>();
  command.add_option("ops", o->ops, "ops to time (default: all; see --list)");
  command.add_option("--size", o->size, "image size WxH (default 3840x2160)");
  command.add_option("--sizes", o->sizes, "several sizes, comma-separated: 640x480,1920x1080,...");
  command.add_option("--runs", o->runs, "timed runs per case; the median is reported").capture_default_str();
  command.add_option("--warmup", o->warmup, "untimed runs first").capture_default_str();
  command.add_option("--sets", o->sets, "input sets rotated between runs (default: enough to outgrow the cache)");
  command.add_option("--max-case-seconds", o->max_case_seconds, "cut a case's runs (to no fewer than 5) to fit this time").capture_default_str();
  command.add_option("--max-seconds", o->max_seconds, "start no op after this many seconds; the rest become skipped rows");
  command.add_option("--json", o->json, "also write the results as JSON to FILE, or to stdout with -");
  command.add_flag("--no-filler", o->no_filler,
                   "time runs without the keep-busy kernel before each (their events then include the host's launch latency where the device outruns it)");
  command.add_flag("--list", o->list, "list the registered ops and exit");
  command.callback([o, &globals] { run(*o, globals); });
}

const Command registration("bench", "time the operations (and NPP where built in) on the device", setup);

}  // namespace
}  // namespace plinth::cli
