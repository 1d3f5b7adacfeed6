#pragma once
// What the commands that take images as features (plinth features, match, bovw) share: SURF of an
// image file, and whether a path names descriptors (.npy) or an image.
#include <string>

#include "command.hpp"

namespace plinth::cli {

// Whether plinth was built with SURF (PLINTH_WITH_SURF).
bool surf_available();

// SURF keypoints and descriptors of an image file read as grey; `command` names the caller in
// errors. Throws Error(invalid_argument) when plinth was built without SURF.
SurfFeatures image_features(Globals& globals, const std::string& path, const char* command, const SurfParams& params = {});

// A float with enough digits that it reads back bit for bit ("%.9g").
std::string exact_float(float v);

}  // namespace plinth::cli
