// plinth features IMAGE [--threshold T] [--octaves N] [--layers L] [--extended] [--upright]
//   [--json | -o keypoints.npy] [--descriptors desc.npy]: SURF keypoints (and descriptors) of an
// image file, in OpenCV's order. keypoints.npy: n x 7 float32 (x, y, size, angle, response,
// octave, class_id); desc.npy: n x 64 (or 128) float32.
#include <bit>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>

#include "cli_surf.hpp"
#include "command.hpp"

namespace plinth::cli {
namespace {

constexpr const char* kCmd = "features";
constexpr int kKeypointColumns = 7;

struct Options {
  std::string input;
  std::string output;
  std::string descriptors;
  SurfParams params;
  bool json = false;
};

// rows x cols float32 as a .npy file (little-endian, C order), written here rather than through
// write_image so that an image without keypoints gives a valid (0, cols) array.
void write_rows_npy(OutputFile& out, const std::vector<float>& values, int rows, int cols) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " + std::to_string(cols) + "), }";
  header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";  // magic + version + length + header: a multiple of 64
  const std::uint16_t length = static_cast<std::uint16_t>(header.size());
  const unsigned char preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<unsigned char>(length & 0xff),
                                      static_cast<unsigned char>(length >> 8)};
  out.write(preamble, sizeof preamble);
  out.write(header);
  static_assert(std::endian::native == std::endian::little, "the .npy data are written as the host stores floats");
  if (!values.empty()) out.write(values.data(), values.size() * sizeof(float));
}

void check_npy_output(const std::string& path, const char* option, const Globals& globals) {
  if (path.empty()) return;
  if (!has_extension(path, ".npy")) throw Error(ErrorCode::invalid_argument, kCmd, option, path + " is not a .npy file");
  check_writable(path, globals);
}

void run(const Options& o, Globals& globals) {
  if (o.json && !o.output.empty()) throw Error(ErrorCode::invalid_argument, kCmd, "--json", "and -o are exclusive");
#ifdef PLINTH_HAS_SURF
  check_surf_params(o.params);
#endif
  check_npy_output(o.output, "-o", globals);
  check_npy_output(o.descriptors, "--descriptors", globals);
  if (!o.output.empty() && o.output == o.descriptors) throw Error(ErrorCode::invalid_argument, kCmd, "--descriptors", "must differ from -o");
  const SurfFeatures f = image_features(globals, o.input, kCmd, o.params);
  const int n = static_cast<int>(f.keypoints.size());

  // Both files are completed before either is put in place.
  std::vector<OutputFile> files;
  files.reserve(2);
  if (!o.output.empty()) {
    std::vector<float> rows;
    rows.reserve(static_cast<std::size_t>(n) * kKeypointColumns);
    for (const KeyPoint& k : f.keypoints) {
      rows.insert(rows.end(), {k.x, k.y, k.size, k.angle, k.response, static_cast<float>(k.octave), static_cast<float>(k.class_id)});
    }
    files.emplace_back(o.output, kCmd);
    write_rows_npy(files.back(), rows, n, kKeypointColumns);
  }
  if (!o.descriptors.empty()) {
    files.emplace_back(o.descriptors, kCmd);
    write_rows_npy(files.back(), f.descriptors, n, f.descriptor_size);
  }
  for (OutputFile& file : files) file.commit();

  if (o.json) {
    std::string text = "{\"descriptor_size\": " + std::to_string(f.descriptor_size) + ", \"keypoints\": [";
    for (int i = 0; i < n; ++i) {
      const KeyPoint& k = f.keypoints[static_cast<std::size_t>(i)];
      text += std::string(i ? ", " : "") + "{\"x\": " + exact_float(k.x) + ", \"y\": " + exact_float(k.y) + ", \"size\": " + exact_float(k.size) +
              ", \"angle\": " + exact_float(k.angle) + ", \"response\": " + exact_float(k.response) + ", \"octave\": " +
              std::to_string(k.octave) + ", \"class_id\": " + std::to_string(k.class_id) + "}";
    }
    std::cout << text << "]}\n";
    return;
  }
  std::cout << o.input << ": " << n << " SURF keypoints, " << f.descriptor_size << "-d descriptors\n";
  for (const OutputFile& file : files) std::cout << "wrote " << file.path() << '\n';
}

void setup(Args& command, Globals& globals) {
  auto o = std::make_shared<Options>();
  command.add_option("image", o->input, "image file (read as grey)").required();
  command.add_option("--threshold", o->params.hessian_threshold, "hessianThreshold (default 100)");
  command.add_option("--octaves", o->params.n_octaves, "nOctaves (default 4)");
  command.add_option("--layers", o->params.n_octave_layers, "nOctaveLayers (default 3)");
  command.add_flag("--extended", o->params.extended, "128-d descriptors");
  command.add_flag("--upright", o->params.upright, "no orientation (angle 270)");
  command.add_flag("--json", o->json, "print the keypoints as JSON (floats read back bit for bit)");
  command.add_option("-o,--output", o->output, "keypoints, n x 7 float32 .npy: x, y, size, angle, response, octave, class_id");
  command.add_option("--descriptors", o->descriptors, "descriptors, n x 64 (128 extended) float32 .npy");
  command.callback([o, &globals] { run(*o, globals); });
}

const Command registration("features", "SURF keypoints and descriptors of an image", setup);

}  // namespace
}  // namespace plinth::cli
