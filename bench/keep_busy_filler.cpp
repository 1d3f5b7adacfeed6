// The filler before each timed run (keep_busy_filler.hpp).
#include "keep_busy_filler.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ops/keep_busy.hpp"

namespace plinth::bench {
namespace {

constexpr std::uint32_t kShortSteps = 1000;
constexpr std::uint32_t kLongSteps = 201000;
constexpr std::uint32_t kMaxSteps = std::uint32_t{1} << 26;
constexpr double kMaxFillerUs = 2000;

double median_us(Queue& queue, DeviceArray& out, std::uint32_t steps) {
  std::vector<Event> events;
  for (int i = 0; i < 7; ++i) events.push_back(detail::keep_busy(queue, out, steps));
  queue.finish();
  std::vector<double> times;
  for (std::size_t i = 2; i < events.size(); ++i) times.push_back(events[i].elapsed_us());  // the first two warm up
  std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2), times.end());
  return times[times.size() / 2];
}

}  // namespace

Filler::Filler(Context& context, Queue& queue) : queue_(queue), out_(context, 32, Format{Depth::u32, 1}) {
  // With timing on, keep_busy's own events measure it. A long kernel's events hold its device
  // time whatever the host does, and the difference of two lengths drops the fixed part.
  const double slope = (median_us(queue, out_, kLongSteps) - median_us(queue, out_, kShortSteps)) / (kLongSteps - kShortSteps);
  if (std::isfinite(slope) && slope > 0) us_per_step_ = slope;
}

double Filler::length_for(double host_us) { return std::clamp(2 * host_us + 20, 20.0, kMaxFillerUs); }

void Filler::enqueue(double us) {
  if (!usable() || !(us > 0)) return;
  const double steps = std::min(std::ceil(us / us_per_step_), static_cast<double>(kMaxSteps));
  detail::keep_busy(queue_, out_, static_cast<std::uint32_t>(steps));
}

}  // namespace plinth::bench
