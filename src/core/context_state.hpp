#pragma once
// What a Context and a Queue hold behind their public handles.

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "core/backend.hpp"
#include "core/program_cache.hpp"

namespace plinth::detail {

struct ContextState {
  std::shared_ptr<Device> device;
  ProgramCache programs;
  std::atomic<bool> debug_sync{false};

  explicit ContextState(std::shared_ptr<Device> d);
};

// Device scratch memory that an operation keeps between calls on one queue (for example the
// tile status words of a single-pass scan), with a counter that tells launches apart.
struct Scratch {
  std::shared_ptr<Buffer> buffer;
  std::uint32_t epoch = 0;
  std::uint32_t tickets = 0;  // value of the buffer's ticket counter (word 0) after the last launch
};

struct QueueState {
  std::shared_ptr<ContextState> context;
  std::unique_ptr<QueueImpl> impl;
  std::mutex scratch_mutex;
  std::map<std::string, Scratch, std::less<>> scratch;
};

const std::shared_ptr<ContextState>& context_state(const Context& context);
QueueState& queue_state(const Queue& queue);

}  // namespace plinth::detail
