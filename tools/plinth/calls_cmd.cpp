// plinth calls: the host cost of back-to-back small calls (issue 18's per-call target): 1,000
// conversions of a 1x1 image and 1,000 integrals of a 640x480 u8 image, enqueued one after the
// other and finished once, timed by the host clock; without device events, then with them.
#include <chrono>
#include <cstdio>

#include "command.hpp"

namespace plinth::cli {
namespace {

template <class F>
double per_call_us(Queue& queue, int count, F&& call) {
  for (int i = 0; i < 20; ++i) call();  // programs built, scratch allocated
  queue.finish();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i) call();
  queue.finish();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / count;
}

void setup(Args& command, Globals& globals) {
  static int count = 1000;
  command.add_option("--count", count, "calls per case").capture_default_str();
  command.callback([&globals] {
    Queue& queue = globals.queue();
    const DeviceInfo& d = globals.context().device();
    DeviceImage one(globals.context(), 1, 1, Format{Depth::u8, 1});
    DeviceImage one_out(globals.context(), 1, 1, Format{Depth::f32, 1});
    DeviceImage vga(globals.context(), 640, 480, Format{Depth::u8, 1});
    DeviceImage sum(globals.context(), 641, 481, Format{Depth::s32, 1});
    queue.fill_bytes(one, 7).wait();
    queue.fill_bytes(vga, 1).wait();
    // Without device events (a library queue's default), then with them (Queue::set_timing).
    for (const bool timing : {false, true}) {
      queue.set_timing(timing);
      const double convert_us = per_call_us(queue, count, [&] { convert_to(queue, one, one_out, Depth::f32); });
      const double integral_us = per_call_us(queue, count, [&] { integral(queue, vga, sum); });
      std::printf("%s:%d %s: %d back-to-back calls, host clock, timing %s: convert 1x1 u8->f32 %.2f us/call, "
                  "integral 640x480 u8->s32 %.2f us/call\n",
                  d.backend.c_str(), d.index, d.name.c_str(), count, timing ? "on " : "off", convert_us, integral_us);
    }
  });
}

const Command registration("calls", "host cost of back-to-back small calls (1x1 conversion, 640x480 integral)", setup);

}  // namespace
}  // namespace plinth::cli
