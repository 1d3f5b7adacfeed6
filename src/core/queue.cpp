#include "core/context_state.hpp"
#include "core/image_checks.hpp"
#include "plinth/error.hpp"
#include "plinth/image.hpp"

namespace plinth {

Event::Event(std::shared_ptr<detail::EventImpl> first, std::shared_ptr<detail::EventImpl> last)
    : first_(std::move(first)), last_(std::move(last)) {}

void Event::wait() const {
  if (last_) last_->wait();
}

std::uint64_t Event::start_ns() const {
  if (!first_) throw Error(ErrorCode::invalid_argument, "Event::start_ns", "event", "the event is empty");
  return first_->start_ns();
}

std::uint64_t Event::end_ns() const {
  if (!last_) throw Error(ErrorCode::invalid_argument, "Event::end_ns", "event", "the event is empty");
  return last_->end_ns();
}

double Event::elapsed_us() const {
  if (!first_ || !last_) throw Error(ErrorCode::invalid_argument, "Event::elapsed_us", "event", "the event is empty");
  return last_->elapsed_ns_since(*first_) * 1e-3;
}

namespace detail {
void throw_no_timestamps() {
  throw Error(ErrorCode::invalid_argument, "Event", "timing",
              "this command has no device timestamps: turn timing on for its queue first (Queue::set_timing(true))");
}

QueueState& queue_state(const Queue& queue) {
  if (!queue.state()) throw Error(ErrorCode::invalid_argument, "", "queue", "the queue is empty (moved from?)");
  return *queue.state();
}
}  // namespace detail

Queue::Queue(const Context& context) : context_(context) {
  auto state = std::make_shared<detail::QueueState>();
  state->context = detail::context_state(context);
  state->impl = state->context->device->create_queue();
  state_ = std::move(state);
}

Queue::Queue(const Context& context, std::shared_ptr<detail::QueueState> state)
    : context_(context), state_(std::move(state)) {}

Queue Queue::from_native(const Context& context, void* cl_command_queue) {
  if (cl_command_queue == nullptr) {
    throw Error(ErrorCode::invalid_argument, "Queue::from_native", "cl_command_queue", "is null");
  }
  auto state = std::make_shared<detail::QueueState>();
  state->context = detail::context_state(context);
  state->impl = state->context->device->wrap_queue(cl_command_queue);
  return Queue(context, std::move(state));
}

const Context& Queue::context() const { return context_; }
void* Queue::native() const { return detail::queue_state(*this).impl->native(); }
void Queue::finish() { detail::queue_state(*this).impl->finish(); }
void Queue::flush() { detail::queue_state(*this).impl->flush(); }
void Queue::set_timing(bool on) { detail::queue_state(*this).impl->set_timing(on); }
bool Queue::timing() const { return detail::queue_state(*this).impl->timing(); }

Event Queue::upload(const HostImage& src, const DeviceImage& dst) {
  detail::check_host(src, "upload", "src");
  detail::check_device(*this, dst, "upload", "dst");
  detail::check_same_shape(src.size(), src.format(), dst.size(), dst.format(), "upload", "dst");
  auto& q = detail::queue_state(*this);
  return Event(q.impl->write_rect(*dst.buffer(), {dst.offset(), dst.pitch()}, src.data(), src.pitch(),
                                  src.row_bytes(), static_cast<std::size_t>(src.height()), false));
}

Event Queue::download(const DeviceImage& src, const HostImage& dst) {
  detail::check_device(*this, src, "download", "src");
  detail::check_host(dst, "download", "dst");
  detail::check_same_shape(src.size(), src.format(), dst.size(), dst.format(), "download", "dst");
  auto& q = detail::queue_state(*this);
  return Event(q.impl->read_rect(*src.buffer(), {src.offset(), src.pitch()}, dst.data(), dst.pitch(),
                                 src.row_bytes(), static_cast<std::size_t>(src.height()), false));
}

Event Queue::copy(const DeviceImage& src, const DeviceImage& dst) {
  detail::check_device(*this, src, "copy", "src");
  detail::check_device(*this, dst, "copy", "dst");
  detail::check_same_shape(src.size(), src.format(), dst.size(), dst.format(), "copy", "dst");
  if (src.overlaps(dst)) throw Error(ErrorCode::invalid_argument, "copy", "dst", "overlaps src");
  auto& q = detail::queue_state(*this);
  return Event(q.impl->copy_rect(*src.buffer(), {src.offset(), src.pitch()}, *dst.buffer(),
                                 {dst.offset(), dst.pitch()}, src.row_bytes(), static_cast<std::size_t>(src.height())));
}

Event Queue::fill_bytes(const DeviceImage& dst, std::uint8_t value) {
  detail::check_device(*this, dst, "fill_bytes", "dst");
  auto& q = detail::queue_state(*this);
  if (dst.pitch() == dst.row_bytes() || dst.height() == 1) {
    return Event(q.impl->fill(*dst.buffer(), dst.offset(), dst.row_bytes() * static_cast<std::size_t>(dst.height()),
                              value, 1));
  }
  // Row by row, so that padding and pixels outside a view keep their values.
  std::shared_ptr<detail::EventImpl> first, last;
  for (int y = 0; y < dst.height(); ++y) {
    last = q.impl->fill(*dst.buffer(), dst.offset() + static_cast<std::size_t>(y) * dst.pitch(), dst.row_bytes(), value, 1);
    if (!first) first = last;
  }
  return Event(first, last);
}

DeviceImage Queue::upload(const HostImage& src) {
  detail::check_host(src, "upload", "src");
  DeviceImage dst(context_, src.width(), src.height(), src.format());
  upload(src, dst).wait();
  return dst;
}

HostImage Queue::download(const DeviceImage& src) {
  detail::check_device(*this, src, "download", "src");
  HostImage dst(src.width(), src.height(), src.format());
  download(src, dst).wait();
  return dst;
}

}  // namespace plinth
