// keep_busy: the launch of kernels/keep_busy.cl.
#include "ops/keep_busy.hpp"

#include "core/image_checks.hpp"
#include "core/launch.hpp"
#include "plinth/error.hpp"

namespace plinth::detail {

Event keep_busy(Queue& queue, DeviceArray& out, std::uint32_t steps) {
  constexpr const char* kOp = "keep_busy";
  check_device(queue, out, kOp, "out");
  if (out.depth() != Depth::u32 || out.channels() != 1) {
    throw Error(ErrorCode::invalid_argument, kOp, "out", "must be a u32 array of one channel");
  }
  if (out.size() > 1024) throw Error(ErrorCode::invalid_argument, kOp, "out", "holds more than 1024 elements");
  const auto program = get_program(queue, "keep_busy.cl", BuildOptions{});
  Launch launch(queue, program, "keep_busy");
  launch.array(out).arg(static_cast<int>(out.size())).arg(steps);
  const std::size_t group = 32;
  return Event(launch.run(range(round_up(static_cast<std::size_t>(out.size()), group)), range(group)));
}

}  // namespace plinth::detail
