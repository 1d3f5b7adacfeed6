#include <cstring>
#include <string>

#include "backend/opencl/objects.hpp"
#include "plinth/error.hpp"

namespace plinth::opencl {
namespace {

const cl::Buffer& cl_buffer(const detail::Buffer& buffer) { return static_cast<const ClBuffer&>(buffer).get(); }

cl::NDRange to_cl(const detail::NDRange& r) {
  switch (r.dims) {
    case 1: return cl::NDRange(r.size[0]);
    case 2: return cl::NDRange(r.size[0], r.size[1]);
    default: return cl::NDRange(r.size[0], r.size[1], r.size[2]);
  }
}

}  // namespace

std::shared_ptr<detail::EventImpl> ClQueue::result(cl::Event event) const {
  if (timing_) return std::make_shared<ClEvent>(std::move(event));
  return std::make_shared<ClPendingEvent>(shared_queue_);
}

ClEvent& ClPendingEvent::marker() {
  std::call_once(once_, [this] {
    cl::Event event;
    check(queue_->enqueueMarkerWithWaitList(nullptr, &event), "clEnqueueMarkerWithWaitList");
    marker_ = std::make_unique<ClEvent>(std::move(event));
  });
  return *marker_;
}

cl_int ClKernel::set_arg(cl_uint index, const detail::KernelArg& arg) {
  SetArg value{arg.kind, arg.size, {}};
  switch (arg.kind) {
    case detail::KernelArg::Kind::buffer: {
      const cl_mem mem = cl_buffer(*arg.buffer)();
      value.size = sizeof mem;
      std::memcpy(value.bytes.data(), &mem, sizeof mem);
      break;
    }
    case detail::KernelArg::Kind::scalar: std::memcpy(value.bytes.data(), arg.bytes.data(), arg.size); break;
    case detail::KernelArg::Kind::local: break;
  }
  if (set_.size() <= index) set_.resize(index + 1);
  std::optional<SetArg>& last = set_[index];
  const std::size_t compared = arg.kind == detail::KernelArg::Kind::local ? 0 : value.size;  // local: its size only
  if (last && last->kind == value.kind && last->size == value.size &&
      std::memcmp(last->bytes.data(), value.bytes.data(), compared) == 0) {
    return CL_SUCCESS;
  }
  const cl_int status = ::clSetKernelArg(kernel_(), index, value.size,
                                         arg.kind == detail::KernelArg::Kind::local ? nullptr : value.bytes.data());
  if (status == CL_SUCCESS) {
    last = value;
  } else {
    last.reset();
  }
  return status;
}

void ClEvent::wait() {
  cl_int status = event_.wait();
  cl_int exec = CL_COMPLETE;
  cl_int info_status = event_.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &exec);
  if (status == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST || (info_status == CL_SUCCESS && exec < 0)) {
    throw Error(ErrorCode::device, "OpenCL", "",
                "a command failed on the device (" + std::string(status_name(exec < 0 ? exec : status)) + ")");
  }
  check(status, "clWaitForEvents");
}

std::uint64_t ClEvent::start_ns() {
  wait();
  cl_ulong t = 0;
  check(event_.getProfilingInfo(CL_PROFILING_COMMAND_START, &t), "clGetEventProfilingInfo(START)");
  return t;
}

std::uint64_t ClEvent::end_ns() {
  wait();
  cl_ulong t = 0;
  check(event_.getProfilingInfo(CL_PROFILING_COMMAND_END, &t), "clGetEventProfilingInfo(END)");
  return t;
}

std::shared_ptr<detail::EventImpl> ClQueue::launch(detail::Kernel& kernel, std::span<const detail::KernelArg> args,
                                                   const detail::NDRange& global, const detail::NDRange* local) {
  auto& k = static_cast<ClKernel&>(kernel);
  std::lock_guard lock(k.mutex());
  cl_uint index = 0;
  for (const detail::KernelArg& a : args) {
    const cl_int status = k.set_arg(index, a);
    if (status != CL_SUCCESS) {
      throw Error(ErrorCode::internal, "launch", k.name(),
                  "argument " + std::to_string(index) + " rejected: " + std::string(status_name(status)));
    }
    ++index;
  }
  cl::Event event;
  cl_int status = queue_.enqueueNDRangeKernel(k.get(), cl::NullRange, to_cl(global), local ? to_cl(*local) : cl::NullRange,
                                              nullptr, event_slot(event));
  if (status == CL_MEM_OBJECT_ALLOCATION_FAILURE || status == CL_OUT_OF_HOST_MEMORY) {
    // The first use of the kernel's buffers, which the device could not allocate. (NVIDIA's
    // CL_OUT_OF_RESOURCES at a launch also means too many registers: that stays a device error,
    // which the ops that retry with a smaller configuration look for.)
    std::size_t bytes = 0;
    for (const detail::KernelArg& a : args) {
      if (a.kind == detail::KernelArg::Kind::buffer) bytes += a.buffer->size();
    }
    throw Error(ErrorCode::out_of_memory, "launch", k.name(),
                "the device could not provide memory for the kernel's buffers (" + std::to_string(bytes) +
                    " bytes in all; " + std::string(status_name(status)) + ")");
  }
  if (status != CL_SUCCESS) {
    throw Error(ErrorCode::device, "launch", k.name(), "clEnqueueNDRangeKernel failed with " + std::string(status_name(status)));
  }
  return result(std::move(event));
}

std::shared_ptr<detail::EventImpl> ClQueue::write_rect(const detail::Buffer& dst, detail::BufferRect dst_rect,
                                                       const void* src, std::size_t src_pitch, std::size_t row_bytes,
                                                       std::size_t rows, bool blocking) {
  cl::Event event;
  check_use(queue_.enqueueWriteBufferRect(cl_buffer(dst), blocking ? CL_TRUE : CL_FALSE,
                                      {dst_rect.offset % dst_rect.pitch, dst_rect.offset / dst_rect.pitch, 0}, {0, 0, 0},
                                      {row_bytes, rows, 1}, dst_rect.pitch, 0, src_pitch, 0, src, nullptr, event_slot(event)),
            "clEnqueueWriteBufferRect", dst.size());
  return result(std::move(event));
}

std::shared_ptr<detail::EventImpl> ClQueue::read_rect(const detail::Buffer& src, detail::BufferRect src_rect, void* dst,
                                                      std::size_t dst_pitch, std::size_t row_bytes, std::size_t rows,
                                                      bool blocking) {
  cl::Event event;
  check_use(queue_.enqueueReadBufferRect(cl_buffer(src), blocking ? CL_TRUE : CL_FALSE,
                                     {src_rect.offset % src_rect.pitch, src_rect.offset / src_rect.pitch, 0}, {0, 0, 0},
                                     {row_bytes, rows, 1}, src_rect.pitch, 0, dst_pitch, 0, dst, nullptr, event_slot(event)),
            "clEnqueueReadBufferRect", src.size());
  return result(std::move(event));
}

std::shared_ptr<detail::EventImpl> ClQueue::copy_rect(const detail::Buffer& src, detail::BufferRect src_rect,
                                                      const detail::Buffer& dst, detail::BufferRect dst_rect,
                                                      std::size_t row_bytes, std::size_t rows) {
  cl::Event event;
  if ((src_rect.pitch == row_bytes && dst_rect.pitch == row_bytes) || rows == 1) {
    // Contiguous: a plain copy, which drivers run faster than a rectangular one.
    check_use(queue_.enqueueCopyBuffer(cl_buffer(src), cl_buffer(dst), src_rect.offset, dst_rect.offset, row_bytes * rows,
                                   nullptr, event_slot(event)),
              "clEnqueueCopyBuffer", src.size() + dst.size());
    return result(std::move(event));
  }
  check_use(queue_.enqueueCopyBufferRect(cl_buffer(src), cl_buffer(dst),
                                     {src_rect.offset % src_rect.pitch, src_rect.offset / src_rect.pitch, 0},
                                     {dst_rect.offset % dst_rect.pitch, dst_rect.offset / dst_rect.pitch, 0},
                                     {row_bytes, rows, 1}, src_rect.pitch, 0, dst_rect.pitch, 0, nullptr, event_slot(event)),
            "clEnqueueCopyBufferRect", src.size() + dst.size());
  return result(std::move(event));
}

std::shared_ptr<detail::EventImpl> ClQueue::fill(const detail::Buffer& dst, std::size_t offset, std::size_t bytes,
                                                 std::uint32_t pattern, std::size_t pattern_size) {
  cl::Event event;
  check_use(::clEnqueueFillBuffer(queue_(), cl_buffer(dst)(), &pattern, pattern_size, offset, bytes, 0, nullptr, timing_ ? &event() : nullptr),
            "clEnqueueFillBuffer", dst.size());
  return result(std::move(event));
}

void ClQueue::finish() { check(queue_.finish(), "clFinish"); }
void ClQueue::flush() { check(queue_.flush(), "clFlush"); }

}  // namespace plinth::opencl
