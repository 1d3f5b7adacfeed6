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

std::shared_ptr<detail::EventImpl> wrap(cl::Event event) { return std::make_shared<ClEvent>(std::move(event)); }

}  // namespace

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
    cl_int status = CL_SUCCESS;
    switch (a.kind) {
      case detail::KernelArg::Kind::buffer: status = k.get().setArg(index, cl_buffer(*a.buffer)); break;
      case detail::KernelArg::Kind::scalar: status = ::clSetKernelArg(k.get()(), index, a.size, a.bytes.data()); break;
      case detail::KernelArg::Kind::local: status = ::clSetKernelArg(k.get()(), index, a.size, nullptr); break;
    }
    if (status != CL_SUCCESS) {
      throw Error(ErrorCode::internal, "launch", k.name(),
                  "argument " + std::to_string(index) + " rejected: " + std::string(status_name(status)));
    }
    ++index;
  }
  cl::Event event;
  cl_int status = queue_.enqueueNDRangeKernel(k.get(), cl::NullRange, to_cl(global), local ? to_cl(*local) : cl::NullRange,
                                              nullptr, &event);
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
  return wrap(std::move(event));
}

std::shared_ptr<detail::EventImpl> ClQueue::write_rect(const detail::Buffer& dst, detail::BufferRect dst_rect,
                                                       const void* src, std::size_t src_pitch, std::size_t row_bytes,
                                                       std::size_t rows, bool blocking) {
  cl::Event event;
  check_use(queue_.enqueueWriteBufferRect(cl_buffer(dst), blocking ? CL_TRUE : CL_FALSE,
                                      {dst_rect.offset % dst_rect.pitch, dst_rect.offset / dst_rect.pitch, 0}, {0, 0, 0},
                                      {row_bytes, rows, 1}, dst_rect.pitch, 0, src_pitch, 0, src, nullptr, &event),
            "clEnqueueWriteBufferRect", dst.size());
  return wrap(std::move(event));
}

std::shared_ptr<detail::EventImpl> ClQueue::read_rect(const detail::Buffer& src, detail::BufferRect src_rect, void* dst,
                                                      std::size_t dst_pitch, std::size_t row_bytes, std::size_t rows,
                                                      bool blocking) {
  cl::Event event;
  check_use(queue_.enqueueReadBufferRect(cl_buffer(src), blocking ? CL_TRUE : CL_FALSE,
                                     {src_rect.offset % src_rect.pitch, src_rect.offset / src_rect.pitch, 0}, {0, 0, 0},
                                     {row_bytes, rows, 1}, src_rect.pitch, 0, dst_pitch, 0, dst, nullptr, &event),
            "clEnqueueReadBufferRect", src.size());
  return wrap(std::move(event));
}

std::shared_ptr<detail::EventImpl> ClQueue::copy_rect(const detail::Buffer& src, detail::BufferRect src_rect,
                                                      const detail::Buffer& dst, detail::BufferRect dst_rect,
                                                      std::size_t row_bytes, std::size_t rows) {
  cl::Event event;
  if ((src_rect.pitch == row_bytes && dst_rect.pitch == row_bytes) || rows == 1) {
    // Contiguous: a plain copy, which drivers run faster than a rectangular one.
    check_use(queue_.enqueueCopyBuffer(cl_buffer(src), cl_buffer(dst), src_rect.offset, dst_rect.offset, row_bytes * rows,
                                   nullptr, &event),
              "clEnqueueCopyBuffer", src.size() + dst.size());
    return wrap(std::move(event));
  }
  check_use(queue_.enqueueCopyBufferRect(cl_buffer(src), cl_buffer(dst),
                                     {src_rect.offset % src_rect.pitch, src_rect.offset / src_rect.pitch, 0},
                                     {dst_rect.offset % dst_rect.pitch, dst_rect.offset / dst_rect.pitch, 0},
                                     {row_bytes, rows, 1}, src_rect.pitch, 0, dst_rect.pitch, 0, nullptr, &event),
            "clEnqueueCopyBufferRect", src.size() + dst.size());
  return wrap(std::move(event));
}

std::shared_ptr<detail::EventImpl> ClQueue::fill(const detail::Buffer& dst, std::size_t offset, std::size_t bytes,
                                                 std::uint32_t pattern, std::size_t pattern_size) {
  cl::Event event;
  check_use(::clEnqueueFillBuffer(queue_(), cl_buffer(dst)(), &pattern, pattern_size, offset, bytes, 0, nullptr, &event()),
            "clEnqueueFillBuffer", dst.size());
  return wrap(std::move(event));
}

void ClQueue::finish() { check(queue_.finish(), "clFinish"); }
void ClQueue::flush() { check(queue_.flush(), "clFlush"); }

}  // namespace plinth::opencl
