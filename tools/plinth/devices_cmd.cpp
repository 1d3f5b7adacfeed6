// plinth devices: every OpenCL device, and which one a plain run would use.
#include <iostream>

#include "command.hpp"

namespace plinth::cli {
namespace {

void setup(CLI::App& command, Globals& globals) {
  command.callback([&globals] {
    const auto devices = list_devices();
    if (devices.empty()) {
      throw Error(ErrorCode::device, "devices", "",
                  "no OpenCL device found: install a GPU driver with OpenCL support or the CPU device "
                  "(Debian: pocl-opencl-icd)");
    }
    const DeviceInfo chosen = select_device(globals.device);
    for (const DeviceInfo& d : devices) {
      std::cout << (d.index == chosen.index ? "* " : "  ") << d.index << ": " << d.name << " [" << d.platform << "]\n"
                << "     " << to_string(d.type) << ", " << d.device_version << ", driver " << d.driver_version << ", "
                << d.compute_units << " compute units @ " << d.clock_mhz << " MHz, " << (d.global_memory >> 20)
                << " MiB, local " << (d.local_memory >> 10) << " KiB" << (d.local_memory_is_global ? " (emulated)" : "")
                << ", fp64 " << (d.has_fp64 ? "yes" : "no") << '\n';
    }
    std::cout << "(* = selected: --device, PLINTH_DEVICE, else the first GPU, else the CPU)\n";
  });
}

const Command registration("devices", "list the OpenCL devices and the one selected", setup);

}  // namespace
}  // namespace plinth::cli
