// plinth devices: every CUDA and OpenCL device, and which one a plain run would use.
#include <iostream>

#include "command.hpp"

namespace plinth::cli {
namespace {

void setup(Args& command, Globals& globals) {
  command.callback([&globals] {
    const auto devices = list_devices();
    const DeviceInfo chosen = select_device(globals.device);  // throws, naming each backend's problem, if none
    for (const DeviceInfo& d : devices) {
      const bool selected = d.backend == chosen.backend && d.index == chosen.index;
      std::cout << (selected ? "* " : "  ") << d.backend << ':' << d.index << ": " << d.name << " [" << d.platform << "]\n"
                << "     " << to_string(d.type) << ", " << d.device_version << ", driver " << d.driver_version << ", "
                << d.compute_units << " compute units @ " << d.clock_mhz << " MHz, " << (d.global_memory >> 20)
                << " MiB, local " << (d.local_memory >> 10) << " KiB" << (d.local_memory_is_global ? " (emulated)" : "")
                << ", fp64 " << (d.has_fp64 ? "yes" : "no") << '\n';
    }
    for (const char* backend : {"cuda", "opencl"}) {
      if (const std::string why = backend_unavailable(backend); !why.empty()) std::cout << "  (" << backend << ": " << why << ")\n";
    }
    std::cout << "(* = selected: --device, PLINTH_DEVICE, else the first GPU (CUDA first), else the CPU)\n";
  });
}

const Command registration("devices", "list the CUDA and OpenCL devices and the one selected", setup);

}  // namespace
}  // namespace plinth::cli
