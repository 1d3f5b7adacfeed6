#pragma once
// What a benchmark run found, and the two ways it is written: an aligned text table and JSON.

#include <iosfwd>
#include <string>
#include <vector>

#include "bench_driver.hpp"

namespace plinth::bench {

// Order statistics of a case's timed runs, in µs.
struct Stats {
  int runs = 0;
  double median = 0, min = 0, max = 0, p10 = 0, p90 = 0, mean = 0;
};
// Median, extremes and the 10th / 90th percentiles (linear interpolation between ranks).
Stats summarize(std::vector<double> times_us);

struct CaseResult {
  std::string op, variant, config, compare_config, note;
  Size size;
  double bytes = 0;
  double ops = 0;
  bool peer = false;    // timed by the peer's own events (run_peer)
  std::string error;    // non-empty: the case failed and has no times
  std::vector<double> times_us;
  Stats stats;
  double host_enqueue_us = 0;  // median host time to enqueue a run (warm-up), when a filler was used
  double filler_us = 0;        // the filler before each timed run (0: none)
};

// A plain device-to-device copy, the bandwidth every case is compared with.
struct CopyResult {
  double bytes = 0;  // size of the buffer copied; a run moves twice this (read + write)
  Stats stats;
  std::string error;
  double gb_per_s() const { return stats.median > 0 ? 2 * bytes / (stats.median * 1e3) : 0; }
};

// The least time any command takes by its events: the conversion of a 1x1 image (one work-item).
struct FloorResult {
  Stats stats;
  std::string error;
};

struct Report {
  DeviceInfo device;
  std::string date;      // UTC, ISO 8601
  std::string command;
  std::string peers_built;
  DriverOptions options;
  std::vector<int> input_sets;  // per size
  CopyResult copy_before, copy_after;
  FloorResult floor;
  double filler_us_per_step = 0;  // the filler's calibration (0: no filler)
  std::string filler_error;       // why there is no filler, when one was asked for
  std::vector<CaseResult> cases;
};

void write_table(const Report& report, std::ostream& out);
void write_json(const Report& report, std::ostream& out);

}  // namespace plinth::bench
