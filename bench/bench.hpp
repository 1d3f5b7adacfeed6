#pragma once
// The benchmark contract. Each bench/<op>_bench.cpp registers a factory that returns the cases
// of its operation; the driver (bench_driver.cpp) times them with device events: warm-up, then
// the median of many runs, inputs rotated over several sets so that caches do not flatter, and
// reports µs, Gpx/s, GB/s and the fraction of a plain device copy measured in the same run.

#include <functional>
#include <string>
#include <vector>

#include "plinth/plinth.hpp"

namespace plinth::bench {

struct Settings {
  Size size{3840, 2160};            // --size WxH
  int warmup = 5;                   // runs before timing
  int runs = 50;                    // timed runs; the median is reported
  int input_sets = 4;               // inputs rotated between runs (the driver raises it for small sizes so that the sets outgrow the cache)
  std::vector<std::string> ops;     // empty: every registered op
  bool json = false;
  // Added: seconds one case may take at most; its timed runs are cut (to no fewer than 5) to fit.
  double max_case_seconds = 20;
};

// One timed configuration. Exactly one of run / run_peer is set.
struct Case {
  std::string op;       // the stem: "integral", "box_filter", ...
  std::string variant;  // "single_pass", "block_4x4", "npp", ...
  std::string config;   // what is computed: "u8 -> s32", "u8 -> s32 + f64", "31x31", ...
  Size size;            // pixels processed per run
  double bytes = 0;     // fewest bytes a run must move through device memory (inputs read once, outputs written once)
  // plinth: enqueue one complete run on input set `set` (0 <= set < Settings::input_sets) and
  // return the event spanning its first launch's start to its last launch's end.
  std::function<Event(int set)> run;
  // A peer library (NPP, ...): perform one run and return its device time in µs, measured by
  // the peer's own events around the same work.
  std::function<double(int set)> run_peer;

  // Optional, added after the first version of this contract (all may stay empty):
  // the config of the NPP case this one is compared with when the names differ (plinth's
  // "u8 -> u32" against NPP's only 8-bit integral, "u8 -> s32": the same bytes move);
  std::string compare_config;
  // a remark printed under the table and kept in the JSON (a peer's library version, ...);
  std::string note;
  // arithmetic operations one run must do, when that is worth a rate of its own (Gop/s).
  double ops = 0;
};

struct Env {
  Context& context;
  Queue& queue;
  const Settings& settings;
};

using Factory = std::vector<Case> (*)(Env& env);

// Registers the cases of one op; a static Registration in each <op>_bench.cpp.
struct Registration {
  Registration(const char* op, Factory factory);
};

}  // namespace plinth::bench
