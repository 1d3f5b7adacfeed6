// The registry of case factories and the timing loop.
#include "bench_driver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <utility>

#include "keep_busy_filler.hpp"
#include "bench_report.hpp"
#include "plinth/arithm.hpp"
#include "plinth/io.hpp"

#ifndef PLINTH_BENCH_PEERS
#define PLINTH_BENCH_PEERS "none"
#endif

namespace plinth::bench {
namespace {

std::vector<std::pair<std::string, Factory>>& registry() {
  static std::vector<std::pair<std::string, Factory>> entries;
  return entries;
}

constexpr double kRotationBytes = 192.0 * (1 << 20);  // over 3x the L2 of an H100 (50 MB) or H200 (60 MB)
constexpr int kMaxInputSets = 256;
constexpr int kMinCutRuns = 5;
constexpr double kMinWarmupSeconds = 0.02;  // the least wall time a case warms up for
constexpr double kCopyBytes = 256.0 * (1 << 20);
constexpr double kFloorFillerUs = 50;  // well over the host's enqueue of two small commands on any device seen

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string size_text(Size s) { return std::to_string(s.width) + "x" + std::to_string(s.height); }

// Enough sets that one pass over them (taking one u8 plane as the smallest input) is well over
// the device's last-level cache, but no more sets than runs and never fewer than the default.
int input_sets_for(Size size, const DriverOptions& options) {
  if (options.input_sets > 0) return options.input_sets;
  const double plane = static_cast<double>(size.width) * size.height;
  const int wanted = static_cast<int>(std::ceil(kRotationBytes / plane));
  const int cap = std::max(Settings{}.input_sets, std::min(kMaxInputSets, options.warmup + options.runs));
  return std::clamp(wanted, Settings{}.input_sets, cap);
}

std::string what_of(const std::exception& e) {
  std::string text = e.what();
  return text.empty() ? "unknown error" : text;
}

// Times one case: the warm-up runs first (which also shows whether the case works at all and
// how long a run takes), then the timed runs. Device-side times only: for plinth the events
// of its launches, for a peer its own events around the call.
class CaseTimer {
 public:
  // filler: nullptr for none (--no-filler, or a device where it could not be calibrated).
  CaseTimer(Queue& queue, const Settings& settings, Filler* filler) : queue_(queue), settings_(settings), filler_(filler) {}

  CaseResult time(const Case& c) {
    CaseResult r;
    r.op = c.op;
    r.variant = c.variant;
    r.config = c.config;
    r.compare_config = c.compare_config;
    r.note = c.note;
    r.size = c.size;
    r.bytes = c.bytes;
    r.ops = c.ops;
    r.peer = static_cast<bool>(c.run_peer);
    try {
      if (static_cast<bool>(c.run) == static_cast<bool>(c.run_peer)) {
        throw Error(ErrorCode::internal, "bench", c.op + " " + c.variant, "a case must set exactly one of run and run_peer");
      }
      int index = 0;
      // Warm-up: the runs asked for, repeated until kMinWarmupSeconds have passed, so that a case
      // that follows host-side work (inputs of a new size) is not timed while the device's clocks
      // still ramp up (seen on the H100: the first case of a size up to 1.7x slow after 5 runs).
      // The warm-up also measures how long the host takes to enqueue a run, which sets the
      // filler's length for the timed runs (keep_busy_filler.hpp); the warm-up runs have none.
      // The case's first run, which builds its programs, does not count; a warm-up of one run
      // gets a second for the host's time.
      std::vector<double> warm, host;
      const auto warm_start = std::chrono::steady_clock::now();
      do {
        warm = runs(c, index, settings_.warmup, 0, &host);
      } while (!warm.empty() && std::chrono::duration<double>(std::chrono::steady_clock::now() - warm_start).count() <
                                    kMinWarmupSeconds);
      if (!c.run_peer && host.size() < 2) runs(c, index, 1, 0, &host);
      if (host.size() > 1) host.erase(host.begin());
      double filler_us = 0;
      if (filler_ != nullptr && !host.empty()) {
        r.host_enqueue_us = summarize(host).median;
        filler_us = Filler::length_for(r.host_enqueue_us);
        r.filler_us = filler_us;
      }
      int count = settings_.runs;
      if (!warm.empty()) {
        const double per_run = std::max(summarize(warm).median + filler_us, 1e-3);
        const int fit = static_cast<int>(settings_.max_case_seconds * 1e6 / per_run);
        if (fit < count) {
          count = std::max(kMinCutRuns, fit);
          r.note += std::string(r.note.empty() ? "" : "; ") + "runs cut to " + std::to_string(count) + " to stay within " +
                    std::to_string(static_cast<int>(settings_.max_case_seconds)) + " s";
        }
      }
      r.times_us = runs(c, index, count, filler_us, nullptr);
      r.stats = summarize(r.times_us);
    } catch (const std::exception& e) {
      r.error = what_of(e);
      r.times_us.clear();
      try {
        queue_.finish();
      } catch (const std::exception&) {
        // The queue's own failure is already what the row reports.
      }
    }
    return r;
  }

 private:
  // `count` runs from run number `index` on, each on input set index % input_sets, each after a
  // filler of `filler_us` (0: none); `host`, when given, gathers each run's enqueue time (µs).
  std::vector<double> runs(const Case& c, int& index, int count, double filler_us, std::vector<double>* host) {
    std::vector<double> times;
    times.reserve(static_cast<std::size_t>(std::max(count, 0)));
    const int sets = std::max(settings_.input_sets, 1);
    if (c.run_peer) {
      for (int i = 0; i < count; ++i) times.push_back(c.run_peer(index++ % sets));
      return times;
    }
    // Enqueued back to back and read afterwards: each event spans its own run's launches.
    std::vector<Event> events;
    events.reserve(times.capacity());
    for (int i = 0; i < count; ++i) {
      if (filler_ != nullptr) filler_->enqueue(filler_us);
      const auto start = std::chrono::steady_clock::now();
      events.push_back(c.run(index++ % sets));
      if (host != nullptr) host->push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
      if (!events.back().valid()) throw Error(ErrorCode::internal, "bench", c.op + " " + c.variant, "run returned no event");
    }
    queue_.finish();
    for (const Event& e : events) times.push_back(e.elapsed_us());
    return times;
  }

  Queue& queue_;
  const Settings& settings_;
  Filler* filler_;
};

// The median of a few back-to-back commands after a short warm-up (at most 3 of the warm-up
// runs asked for; the timed runs clamped to [5, max_runs]), by their events.
// With a filler, each command follows one of `filler_us`.
Stats time_command(Queue& queue, const DriverOptions& options, int max_runs, const std::function<Event()>& enqueue,
                   Filler* filler = nullptr, double filler_us = 0) {
  const int warm = std::min(options.warmup, 3);
  const int count = std::clamp(options.runs, 5, max_runs);
  std::vector<Event> events;
  for (int i = 0; i < warm + count; ++i) {
    if (filler != nullptr) filler->enqueue(filler_us);
    events.push_back(enqueue());
  }
  queue.finish();
  std::vector<double> times;
  for (std::size_t i = static_cast<std::size_t>(warm); i < events.size(); ++i) times.push_back(events[i].elapsed_us());
  return summarize(std::move(times));
}

CopyResult measure_copy(Context& context, Queue& queue, const DriverOptions& options) {
  CopyResult r;
  try {
    // One row of 16 KiB per 16 KiB of buffer, so that the pitch has no padding.
    const double limit = static_cast<double>(context.device().max_allocation);
    const double bytes = limit > 0 ? std::min(kCopyBytes, std::floor(limit / 2 / (1 << 14)) * (1 << 14)) : kCopyBytes;
    const int rows = static_cast<int>(bytes / (1 << 14));
    r.bytes = static_cast<double>(rows) * (1 << 14);
    DeviceImage src(context, 1 << 14, rows, Format{Depth::u8, 1});
    DeviceImage dst(context, 1 << 14, rows, Format{Depth::u8, 1});
    queue.fill_bytes(src, 0x5a);
    queue.finish();
    r.stats = time_command(queue, options, 20, [&] { return queue.copy(src, dst); });
  } catch (const std::exception& e) {
    r.error = what_of(e);
  }
  return r;
}

// The command floor: a 1x1 u8 -> s32 conversion (one work-item).
// With a filler, each conversion follows one, as the cases' runs do.
FloorResult measure_floor(Context& context, Queue& queue, const DriverOptions& options, Filler* filler) {
  FloorResult r;
  try {
    DeviceImage src(context, 1, 1, Format{Depth::u8, 1});
    DeviceImage dst(context, 1, 1, Format{Depth::s32, 1});
    queue.fill_bytes(src, 0x5a);
    queue.finish();
    r.stats = time_command(queue, options, 50, [&] { return convert_to(queue, src, dst, Depth::s32); }, filler,
                           kFloorFillerUs);
  } catch (const std::exception& e) {
    r.error = what_of(e);
  }
  return r;
}

std::vector<std::string> selected_ops(const DriverOptions& options) {
  const std::vector<std::string> known = registered_ops();
  if (options.ops.empty()) return known;
  std::vector<std::string> chosen;
  for (const std::string& op : options.ops) {
    if (std::find(known.begin(), known.end(), op) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      throw Error(ErrorCode::invalid_argument, "bench", op, "is not a registered op (registered: " + (list.empty() ? "none" : list) + ")");
    }
    if (std::find(chosen.begin(), chosen.end(), op) == chosen.end()) chosen.push_back(op);
  }
  return chosen;
}

}  // namespace

Registration::Registration(const char* op, Factory factory) { registry().emplace_back(op, factory); }

std::vector<std::string> registered_ops() {
  std::vector<std::string> names;
  for (const auto& entry : registry()) names.push_back(entry.first);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

int run_benchmark(Context& context, Queue& queue, const DriverOptions& options, std::ostream& table, std::ostream& log) {
  queue.set_timing(true);  // every row is timed by device events
  if (options.sizes.empty()) throw Error(ErrorCode::invalid_argument, "bench", "sizes", "none given");
  if (options.runs < 1) throw Error(ErrorCode::invalid_argument, "bench", "runs", "must be at least 1");
  if (options.warmup < 0) throw Error(ErrorCode::invalid_argument, "bench", "warmup", "must not be negative");
  const std::vector<std::string> ops = selected_ops(options);

  // A JSON file is rewritten after each factory (through an OutputFile: a temporary file renamed
  // into place), so that a run stopped from outside keeps what it measured. Its directory is checked
  // first by creating (and dropping) the temporary file; a file already there is left as it is
  // until the first results replace it.
  const bool json_to_file = !options.json_path.empty() && options.json_path != "-";
  if (json_to_file) {
    const OutputFile probe(options.json_path, "bench");
  }
  const auto started = std::chrono::steady_clock::now();
  auto seconds_so_far = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };

  Report report;
  report.device = context.device();
  report.date = utc_now();
  report.command = options.command;
  report.peers_built = PLINTH_BENCH_PEERS;
  report.options = options;
  auto save = [&] {
    if (!json_to_file) return;
    std::ostringstream text;
    write_json(report, text);
    OutputFile out(options.json_path, "bench");
    out.write(text.str());
    out.commit();
  };

  log << "bench: " << report.device.name << " [" << report.device.platform << "], copy bandwidth..." << std::endl;
  report.copy_before = measure_copy(context, queue, options);
  std::optional<Filler> filler;
  if (options.filler) {
    try {
      filler.emplace(context, queue);
      report.filler_us_per_step = filler->us_per_step();
    } catch (const std::exception& e) {
      report.filler_error = what_of(e);
    }
    if (filler && !filler->usable()) {
      report.filler_error = "its duration did not grow with its steps";
      filler.reset();
    }
    if (!report.filler_error.empty()) log << "bench: no filler: " << report.filler_error << std::endl;
  }
  Filler* const busy = filler ? &*filler : nullptr;
  report.floor = measure_floor(context, queue, options, busy);

  for (const Size size : options.sizes) {
    Settings settings;
    settings.size = size;
    settings.warmup = options.warmup;
    settings.runs = options.runs;
    settings.input_sets = input_sets_for(size, options);
    settings.ops = ops;
    settings.json = !options.json_path.empty();
    settings.max_case_seconds = options.max_case_seconds;
    report.input_sets.push_back(settings.input_sets);
    Env env{context, queue, settings};
    CaseTimer timer(queue, settings, busy);
    for (const std::string& op : ops) {
      for (const auto& [name, factory] : registry()) {
        if (name != op) continue;
        if (options.max_seconds > 0 && seconds_so_far() > options.max_seconds) {
          CaseResult r;
          r.op = op;
          r.variant = "(skipped)";
          r.size = size;
          char limit[32];
          std::snprintf(limit, sizeof limit, "%g", options.max_seconds);
          r.error = std::string("not run: the benchmark's --max-seconds ") + limit + " had passed";
          report.cases.push_back(std::move(r));
          continue;
        }
        log << "bench: " << op << " " << size_text(size) << " (" << settings.input_sets << " input sets)" << std::endl;
        std::vector<Case> cases;
        try {
          cases = factory(env);
          queue.finish();
        } catch (const std::exception& e) {
          CaseResult r;
          r.op = op;
          r.variant = "(setup)";
          r.size = size;
          r.error = what_of(e);
          report.cases.push_back(std::move(r));
          save();
          continue;
        }
        for (const Case& c : cases) {
          CaseResult r = timer.time(c);
          char median[32];
          std::snprintf(median, sizeof median, "%.2f us", r.stats.median);
          log << "bench:   " << r.variant << " | " << r.config << ": " << (r.error.empty() ? median : "error: " + r.error)
              << std::endl;
          report.cases.push_back(std::move(r));
        }
        cases.clear();  // frees this factory's images before the next one allocates
        queue.finish();
        save();
      }
    }
  }
  report.copy_after = measure_copy(context, queue, options);

  write_table(report, table);
  if (options.json_path == "-") {
    write_json(report, std::cout);
  } else if (json_to_file) {
    save();
    log << "bench: wrote " << options.json_path << std::endl;
  }
  return static_cast<int>(std::count_if(report.cases.begin(), report.cases.end(), [](const CaseResult& r) {
    return !r.error.empty() && r.variant != "(skipped)";
  }));
}

}  // namespace plinth::bench
