// plinth bovw train DESC.npy... --k K -o vocab.npy   (k-means vocabulary)
// plinth bovw encode DESC.npy... --vocab vocab.npy [-o hist.npy | --json]   (histograms of words)
// Inputs are descriptor arrays (.npy files of n x dim float32, one per image, from any extractor)
// or image files, which stand for their 64-d SURF descriptors (plinth features).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli_surf.hpp"
#include "command.hpp"

namespace plinth::cli {
namespace {

struct Descriptors {
  std::string file;
  int n = 0;
  int dim = 0;
  std::vector<float> values;
};

// An image file (not .npy) stands for its SURF descriptors where `images` is true.
Descriptors read_descriptors(const std::string& path, const char* what, Globals* images = nullptr) {
  if (images != nullptr && !has_extension(path, ".npy")) {
    SurfFeatures f = image_features(*images, path, "bovw", SurfParams{});
    return Descriptors{path, static_cast<int>(f.keypoints.size()), f.descriptor_size, std::move(f.descriptors)};
  }
  if (!has_extension(path, ".npy")) {
    throw Error(ErrorCode::invalid_argument, "bovw", path, std::string("is not a .npy file of ") + what);
  }
  const HostImage a = read_npy(path);
  if (a.depth() != Depth::f32 || a.channels() != 1) {
    throw Error(ErrorCode::unsupported_type, "bovw", path,
                std::string("holds ") + std::string(to_string(a.depth())) + " x" + std::to_string(a.channels()) + "; " + what +
                    " must be a 2-D float32 array (rows of dim values)");
  }
  Descriptors d{path, a.height(), a.width(), {}};
  d.values.reserve(static_cast<std::size_t>(d.n) * d.dim);
  for (int y = 0; y < a.height(); ++y) d.values.insert(d.values.end(), a.row_as<float>(y), a.row_as<float>(y) + a.width());
  return d;
}

// Writes through a temporary file in the same folder, renamed when complete.
void write_npy_whole(const std::string& path, const HostImage& image) {
  const std::filesystem::path target(path);
  // Appended piece by piece: GCC 12 reports a false -Wrestrict on `"." + std::string` here.
  std::string name = ".";
  name.append(target.filename().string()).append(".tmp-").append(std::to_string(::getpid())).append(".npy");
  const std::filesystem::path temp = target.parent_path() / name;
  try {
    write_npy(temp.string(), image);
    std::filesystem::rename(temp, target);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(temp, ec);
    throw;
  }
}

HostImage rows_image(const std::vector<float>& values, int rows, int cols) {
  HostImage out(cols, rows, Format{Depth::f32, 1});
  for (int y = 0; y < rows; ++y) std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(y) * cols, cols, out.row_as<float>(y));
  return out;
}

struct TrainOptions {
  std::vector<std::string> inputs;
  std::string output;
  int k = 256;
  int attempts = 1;
  int iterations = 100;
  std::uint64_t seed = 0;
};

void train(const TrainOptions& o, Globals& globals) {
  if (!has_extension(o.output, ".npy")) throw Error(ErrorCode::invalid_argument, "bovw train", "-o", "the vocabulary must be a .npy file");
  check_writable(o.output, globals);
  std::vector<float> all;
  int dim = 0;
  for (const std::string& path : o.inputs) {
    const Descriptors d = read_descriptors(path, "descriptors", &globals);
    if (dim != 0 && d.dim != dim) {
      throw Error(ErrorCode::invalid_argument, "bovw train", path, "has descriptors of " + std::to_string(d.dim) + " values, the others " + std::to_string(dim));
    }
    dim = d.dim;
    all.insert(all.end(), d.values.begin(), d.values.end());
  }
  KmeansOptions options;
  options.attempts = o.attempts;
  options.max_count = o.iterations;
  options.seed = o.seed;
  const KmeansResult r = kmeans(globals.queue(), all, dim, o.k, options);
  write_npy_whole(o.output, rows_image(r.centers, o.k, dim));
  std::cout << "wrote " << o.output << ": " << o.k << " words of " << dim << " values from " << all.size() / static_cast<std::size_t>(dim)
            << " descriptors; compactness " << r.compactness << '\n';
}

struct EncodeOptions {
  std::vector<std::string> inputs;
  std::string vocabulary;
  std::string output;
  bool json = false;
};

void encode(const EncodeOptions& o, Globals& globals) {
  if (!o.output.empty()) {
    if (!has_extension(o.output, ".npy")) throw Error(ErrorCode::invalid_argument, "bovw encode", "-o", "the histograms must go to a .npy file");
    check_writable(o.output, globals);
  }
  const Descriptors vocab = read_descriptors(o.vocabulary, "a vocabulary");
  std::vector<float> all;
  std::vector<std::int32_t> starts{0};
  for (const std::string& path : o.inputs) {
    const Descriptors d = read_descriptors(path, "descriptors", &globals);
    if (d.dim != vocab.dim) {
      throw Error(ErrorCode::invalid_argument, "bovw encode", path,
                  "has descriptors of " + std::to_string(d.dim) + " values but the vocabulary's words have " + std::to_string(vocab.dim));
    }
    all.insert(all.end(), d.values.begin(), d.values.end());
    starts.push_back(starts.back() + d.n);
  }
  if (vocab.dim % 4 != 0) throw Error(ErrorCode::invalid_argument, "bovw encode", o.vocabulary, "words must have a multiple of 4 values");
  const BowResult r = bow_assign(globals.queue(), all, starts, vocab.values, vocab.dim);
  const int k = vocab.n;
  if (!o.output.empty()) {
    std::vector<float> rows(o.inputs.size() * static_cast<std::size_t>(k), 0.0f);  // an image without descriptors: zeros
    for (std::size_t i = 0; i < r.histograms.size(); ++i) std::copy(r.histograms[i].begin(), r.histograms[i].end(), rows.begin() + static_cast<std::ptrdiff_t>(i * k));
    write_npy_whole(o.output, rows_image(rows, static_cast<int>(o.inputs.size()), k));
  }
  if (o.json) {
    std::string text = "{\"vocabulary\": \"" + o.vocabulary + "\", \"k\": " + std::to_string(k) + ", \"images\": [";
    char number[32];
    for (std::size_t i = 0; i < o.inputs.size(); ++i) {
      text += std::string(i ? ", " : "") + "{\"file\": \"" + o.inputs[i] + "\", \"descriptors\": " + std::to_string(starts[i + 1] - starts[i]) + ", \"histogram\": [";
      for (std::size_t j = 0; j < r.histograms[i].size(); ++j) {
        std::snprintf(number, sizeof number, "%.9g", static_cast<double>(r.histograms[i][j]));  // round-trips a float
        text += std::string(j ? ", " : "") + number;
      }
      text += "]}";
    }
    std::cout << text << "]}\n";
  } else {
    for (std::size_t i = 0; i < o.inputs.size(); ++i) {
      std::cout << o.inputs[i] << ": " << starts[i + 1] - starts[i] << " descriptors"
                << (r.histograms[i].empty() ? " (no descriptors: empty histogram)" : "") << '\n';
    }
    if (!o.output.empty()) std::cout << "wrote " << o.output << '\n';
  }
}

void setup(Args& command, Globals& globals) {
  command.require_subcommand(1);
  auto t = std::make_shared<TrainOptions>();
  Args tr = command.add_subcommand("train", "k-means vocabulary of descriptor files");
  tr.add_option("inputs", t->inputs, "descriptor files (.npy, n x dim float32, one per image) or images (their SURF descriptors)").required();
  tr.add_option("--k", t->k, "words (clusters); at most the number of descriptors").positive_number();
  tr.add_option("-o,--output", t->output, "the vocabulary, k x dim float32 .npy").required();
  tr.add_option("--attempts", t->attempts, "k-means runs; the most compact is kept").positive_number();
  tr.add_option("--iterations", t->iterations, "iterations at most (2 to 100, as cv::kmeans)").positive_number();
  tr.add_option("--seed", t->seed, "seed of the k-means++ choice");
  tr.callback([t, &globals] { train(*t, globals); });
  auto e = std::make_shared<EncodeOptions>();
  Args en = command.add_subcommand("encode", "histograms of visual words (cv::BOWImgDescriptorExtractor)");
  en.add_option("inputs", e->inputs, "descriptor files (.npy, n x dim float32, one per image) or images (their SURF descriptors)").required();
  en.add_option("--vocab", e->vocabulary, "the vocabulary from bovw train").required();
  en.add_option("-o,--output", e->output, "histograms, images x k float32 .npy (zeros for an image without descriptors)");
  en.add_flag("--json", e->json, "print the histograms as JSON (floats with 9 significant digits)");
  en.callback([e, &globals] { encode(*e, globals); });
}

const Command registration("bovw", "bags of visual words: vocabularies and histograms", setup);

}  // namespace
}  // namespace plinth::cli
