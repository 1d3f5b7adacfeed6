// Benchmark cases of Queue::upload / Queue::download (include/plinth/queue.hpp): an image of the
// size between device memory and host memory, one channel and four (u8), into and out of ordinary
// (pageable) host memory and page-locked memory (HostImage::page_locked). Host clock around the
// whole blocking transfer: what a caller waits, the driver's own staging included, which device
// events would not show (a read into pageable memory is a copy engine transfer plus host copies).
// The host images are allocated once per input set, touched, and reused, as a video loop reuses its
// frame; `new_pageable` downloads into a new host image each call.
#include <chrono>
#include <cstring>
#include <memory>
#include <string>

#include "bench_support.hpp"

namespace plinth::bench {
namespace {

struct Sides {
  std::vector<DeviceImage> device;
  std::vector<HostImage> host;
};

std::vector<Case> make_cases(Env& env) {
  const Size size = env.settings.size;
  Queue* queue = &env.queue;
  const int sets = env.settings.input_sets;
  std::vector<Case> cases;
  for (const int channels : {1, 4}) {
    const Format format{Depth::u8, channels};
    for (const bool locked : {false, true}) {
      auto sides = std::make_shared<Sides>();
      sides->device = random_device_images(env, size, format, sets, 0x7a5 + static_cast<unsigned>(channels));
      for (int s = 0; s < sets; ++s) {
        HostImage h = locked ? HostImage::page_locked(env.context, size.width, size.height, format)
                             : HostImage(size.width, size.height, format);
        // Every page touched before the timing (a fresh page costs a fault on first touch).
        for (int y = 0; y < h.height(); ++y) std::memset(h.row(y), s + y, h.row_bytes());
        sides->host.push_back(std::move(h));
      }
      for (const bool down : {true, false}) {
        Case k;
        k.op = "transfer";
        k.variant = locked ? "page_locked" : "pageable";
        k.config = std::string(down ? "download" : "upload") + " u8C" + std::to_string(channels);
        k.size = size;
        k.bytes = image_bytes(size, format);
        k.note = "host clock around the blocking transfer, host images reused";
        k.run_peer = [=](int s) {
          const auto i = static_cast<std::size_t>(s);
          const auto t0 = std::chrono::steady_clock::now();
          if (down) {
            queue->download(sides->device[i], sides->host[i]).wait();
          } else {
            queue->upload(sides->host[i], sides->device[i]).wait();
          }
          const auto t1 = std::chrono::steady_clock::now();
          return std::chrono::duration<double, std::micro>(t1 - t0).count();
        };
        cases.push_back(std::move(k));
      }
      if (locked) continue;
      // Into a new host image each call (Queue::download(src), as Python's download returns a new
      // array): the destination's pages are fresh, as they are for any result read into newly
      // allocated memory.
      Case k;
      k.op = "transfer";
      k.variant = "new_pageable";
      k.config = "download u8C" + std::to_string(channels);
      k.size = size;
      k.bytes = image_bytes(size, format);
      k.note = "host clock around the blocking transfer, into a new host image each call";
      k.run_peer = [=](int s) {
        const auto t0 = std::chrono::steady_clock::now();
        const HostImage out = queue->download(sides->device[static_cast<std::size_t>(s)]);
        const auto t1 = std::chrono::steady_clock::now();
        return std::chrono::duration<double, std::micro>(t1 - t0).count();
      };
      cases.push_back(std::move(k));
    }
  }
  return cases;
}

const Registration registration("transfer", make_cases);

}  // namespace
}  // namespace plinth::bench
