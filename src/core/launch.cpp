#include "core/launch.hpp"

#include "plinth/error.hpp"

namespace plinth::detail {

std::shared_ptr<Program> get_program(const Queue& queue, std::string_view file, const BuildOptions& options) {
  auto& q = queue_state(queue);
  return q.context->programs.get(*q.context->device, file, options);
}

Launch::Launch(const Queue& queue, const std::shared_ptr<Program>& program, std::string_view kernel)
    : queue_(queue_state(queue)), kernel_(program->kernel(kernel)) {}

Launch& Launch::image(const DeviceImage& image) {
  buffer(*image.buffer());
  arg(static_cast<int>(image.offset_elements()));
  arg(static_cast<int>(image.pitch_elements()));
  return *this;
}

Launch& Launch::array(const DeviceArray& array) {
  buffer(*array.buffer());
  arg(static_cast<int>(array.offset_elements()));
  return *this;
}

Launch& Launch::buffer(const Buffer& buffer) {
  KernelArg a;
  a.kind = KernelArg::Kind::buffer;
  a.buffer = &buffer;
  args_.push_back(a);
  return *this;
}

Launch& Launch::local(std::size_t bytes) {
  KernelArg a;
  a.kind = KernelArg::Kind::local;
  a.size = bytes;
  args_.push_back(a);
  return *this;
}

std::shared_ptr<EventImpl> Launch::run(const NDRange& global, std::optional<NDRange> local) {
  std::shared_ptr<EventImpl> event = queue_.impl->launch(*kernel_, args_.view(), global, local ? &*local : nullptr);
  if (queue_.context->debug_sync) event->wait();
  return event;
}

std::string register_limit_option(const Queue& queue, int registers) {
  return queue_state(queue).context->device->register_limit_option(registers);
}

std::shared_ptr<Buffer> allocate_buffer(const Queue& queue, std::size_t bytes) {
  return queue_state(queue).context->device->allocate(bytes);
}

std::shared_ptr<void> allocate_host(const Queue& queue, std::size_t bytes) {
  return queue_state(queue).context->device->allocate_host(bytes);
}

std::shared_ptr<EventImpl> fill_buffer(const Queue& queue, const Buffer& dst, std::size_t offset, std::size_t bytes,
                                       std::uint32_t pattern, std::size_t pattern_size) {
  return queue_state(queue).impl->fill(dst, offset, bytes, pattern, pattern_size);
}

std::shared_ptr<EventImpl> write_buffer(const Queue& queue, const Buffer& dst, const void* src, std::size_t bytes, bool blocking) {
  return queue_state(queue).impl->write_rect(dst, BufferRect{0, bytes}, src, bytes, bytes, 1, blocking);
}

std::shared_ptr<EventImpl> read_buffer(const Queue& queue, const Buffer& src, void* dst, std::size_t bytes, bool blocking) {
  return read_buffer(queue_state(queue), src, 0, dst, bytes, blocking);
}

std::shared_ptr<EventImpl> read_buffer(QueueState& queue, const Buffer& src, std::size_t offset, void* dst, std::size_t bytes,
                                       bool blocking) {
  return queue.impl->read_rect(src, BufferRect{offset, bytes}, dst, bytes, bytes, 1, blocking);
}

ScratchLease scratch(const Queue& queue, std::string_view key, std::size_t bytes, std::uint32_t tickets) {
  QueueState& q = queue_state(queue);
  std::lock_guard lock(q.scratch_mutex);
  auto it = q.scratch.find(key);
  if (it == q.scratch.end()) it = q.scratch.emplace(std::string(key), Scratch{}).first;
  Scratch& s = it->second;
  bool fresh = false;
  if (!s.buffer || s.buffer->size() < bytes) {
    s.buffer = q.context->device->allocate(bytes);
    fresh = true;
  }
  ++s.epoch;
  if (s.epoch >= (1u << 30)) fresh = true;  // epochs restart: old status words could look current
  if (fresh) {
    s.epoch = 1;
    s.tickets = 0;
  }
  const ScratchLease lease{s.buffer.get(), s.epoch, s.tickets, fresh};
  s.tickets += tickets;  // wraps modulo 2^32, as the device counter does
  return lease;
}

}  // namespace plinth::detail
