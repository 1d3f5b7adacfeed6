#pragma once
// The benchmark driver behind `plinth bench`: creates the cases of the selected ops at each size,
// times them (warm-up, then the median of many runs over rotated inputs), measures a plain device
// copy in the same run, and prints a table and, on request, a JSON document.

#include <iosfwd>
#include <string>
#include <vector>

#include "bench.hpp"

namespace plinth::bench {

struct DriverOptions {
  std::vector<Size> sizes{{3840, 2160}};  // every selected op runs at each size, in this order
  int warmup = 5;
  int runs = 50;
  int input_sets = 0;               // 0: chosen per size so that the sets outgrow the device's cache
  std::vector<std::string> ops;     // empty: every registered op
  std::string json_path;            // "": no JSON; "-": JSON on stdout (the table then goes to stderr)
  std::string command;              // the command line, kept in the JSON
  double max_case_seconds = 20;     // a case's timed runs are cut (to no fewer than 5) to fit
  double max_seconds = 0;           // > 0: factories not started by then become "(skipped)" rows
  bool filler = true;               // a keep_busy filler before each timed run (keep_busy_filler.hpp)
};

// The registered op names, sorted and without repeats.
std::vector<std::string> registered_ops();

// Runs the benchmark. Progress goes to `log`, the table to `table`. Throws Error(invalid_argument)
// for an op nobody registered (the message lists the registered ones); a case that fails becomes
// an error row instead of ending the run. Returns the number of failed rows (skipped ones, past
// --max-seconds, are not failures).
int run_benchmark(Context& context, Queue& queue, const DriverOptions& options, std::ostream& table,
                   std::ostream& log);

}  // namespace plinth::bench
