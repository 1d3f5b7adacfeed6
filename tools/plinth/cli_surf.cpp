// SURF of image files for the CLI's feature commands (tools/plinth/cli_surf.hpp).
#include "cli_surf.hpp"

#include <cstdio>

namespace plinth::cli {

bool surf_available() {
#ifdef PLINTH_HAS_SURF
  return true;
#else
  return false;
#endif
}

SurfFeatures image_features(Globals& globals, const std::string& path, const char* command, const SurfParams& params) {
  // Read first, so that a bad file is reported as such with or without SURF.
  const HostImage image = read_image(path, ReadMode::gray);
#ifdef PLINTH_HAS_SURF
  (void)command;  // errors name the reading or SURF itself
  return surf(globals.queue(), image, params);
#else
  (void)globals;
  (void)params;
  throw Error(ErrorCode::invalid_argument, command, path,
              "is an image, but this plinth was built without SURF (PLINTH_WITH_SURF=OFF); pass .npy descriptors");
#endif
}

std::string exact_float(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}

}  // namespace plinth::cli
