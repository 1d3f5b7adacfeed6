#pragma once
// The filler: a keep_busy kernel (kernels/keep_busy.cl) enqueued before each timed plinth run, so
// that the device is still busy while the host enqueues that run. The run's events then hold its
// device work alone. Without it, a run the device finishes faster than the host enqueues it is
// timed from a start event the idle device passes at once to an end event that waits for the
// host: on CUDA, whose events are commands of their own, that added the host's launch latency
// (a 1x1 conversion read 6-7 µs instead of its few µs of device time). The NPP peer keeps its
// stream busy the same way (a memset before each call, bench/peers/npp_support.cpp); this filler
// reads and writes no memory, so the caches are as the timed run left them.

#include "plinth/array.hpp"
#include "plinth/core.hpp"

namespace plinth::bench {

class Filler {
 public:
  // Measures how long a step takes on this device (by events, two lengths, their difference).
  // A device where that fails or gives no positive slope gets no filler (usable() is false).
  Filler(Context& context, Queue& queue);

  bool usable() const noexcept { return us_per_step_ > 0; }
  double us_per_step() const noexcept { return us_per_step_; }
  // Enqueues a filler of about `us` microseconds of device time (nothing when unusable).
  void enqueue(double us);
  // The filler's length for a run whose enqueue takes the host `host_us`: twice that plus 20 µs
  // (a run and the next filler are enqueued while it runs), at most 2 ms.
  static double length_for(double host_us);

 private:
  Queue& queue_;
  DeviceArray out_;
  double us_per_step_ = 0;
};

}  // namespace plinth::bench
