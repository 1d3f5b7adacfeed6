// The readers' object files also hold device code (DeviceImage, the NV12 upload), which reaches
// a device only through these functions (src/core/context.cpp, queue.cpp). The fuzz targets
// create no Context or Queue, so none of them runs; defining them here keeps OpenCL and the
// backend out of the fuzz build.
#include <cstdlib>

#include "core/context_state.hpp"
#include "plinth/core.hpp"
#include "plinth/image.hpp"

namespace plinth {

DeviceImage Queue::upload(const HostImage&) { std::abort(); }
HostImage Queue::download(const DeviceImage&) { std::abort(); }

namespace detail {

const std::shared_ptr<ContextState>& context_state(const Context&) { std::abort(); }
QueueState& queue_state(const Queue&) { std::abort(); }

}  // namespace detail
}  // namespace plinth
