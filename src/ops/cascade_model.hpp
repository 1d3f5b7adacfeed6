#pragma once
// The parsed form of a cascade (src/io/cascade_xml.cpp builds it; src/ops/cascade*.cpp use it).
// It mirrors OpenCV's in-memory cascade: stage thresholds already lowered by 1e-5f, tree
// children > 0 naming nodes of the same tree and <= 0 naming leaf -child, stumps taking leaf 0
// when the feature is below the threshold (or in the LBP subset) and leaf 1 otherwise.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "plinth/cascade.hpp"

namespace plinth::detail {

// Limits that keep hostile files from exhausting memory; generous for real cascades (the
// largest in opencv-data has 47 stages, 2,100 trees and 20x20 windows).
struct CascadeLimits {
  static constexpr std::size_t max_file_bytes = std::size_t{64} << 20;
  static constexpr int max_window = 1024;
  static constexpr int max_stages = 4096;
  static constexpr int max_trees_per_stage = 16384;
  static constexpr int max_trees = 1 << 20;
  static constexpr int max_nodes_per_tree = 1024;
  static constexpr int max_features = 1 << 20;
  static constexpr int max_categories = 256;
};

struct CascadeStage {
  int first_tree = 0;
  int tree_count = 0;
  float threshold = 0.f;  // the file's threshold - 1e-5f, as OpenCV keeps it
};

struct CascadeTree {
  int first_node = 0;
  int node_count = 0;
  int first_leaf = 0;  // node_count + 1 leaves
};

struct CascadeNode {
  int left = 0;   // > 0: node of this tree; <= 0: leaf -left
  int right = 0;
  int feature = 0;
  float threshold = 0.f;  // Haar only
};

struct HaarRectangle {
  int x = 0, y = 0, width = 0, height = 0;
  float weight = 0.f;
};

struct HaarFeature {
  HaarRectangle rects[3];  // unused rectangles are empty with weight 0
  bool tilted = false;
};

struct LbpFeature {
  int x = 0, y = 0, width = 0, height = 0;  // one of the 3x3 blocks
};

struct CascadeModel {
  std::string name;
  CascadeFeatureType type = CascadeFeatureType::haar;
  Size window;
  int categories = 0;   // LBP: 256
  int subset_words = 0;  // (categories + 31) / 32
  std::vector<CascadeStage> stages;
  std::vector<CascadeTree> trees;
  std::vector<CascadeNode> nodes;
  std::vector<float> leaves;
  std::vector<std::int32_t> subsets;  // subset_words per node (LBP)
  std::vector<HaarFeature> haar;
  std::vector<LbpFeature> lbp;
  int max_nodes_per_tree = 0;
  int max_trees_per_stage = 0;
  bool tilted = false;
  // True when every partial sum of every stage is exactly representable in double, so that
  // adding the leaves in any order gives OpenCV's sequential double sum.
  bool order_free_sums = false;
};

// Parses XML text (used by Cascade::load / Cascade::parse).
std::shared_ptr<CascadeModel> parse_cascade_xml(std::string_view xml, const std::string& name);
// Reads a file (capped at CascadeLimits::max_file_bytes) and parses it.
std::shared_ptr<CascadeModel> load_cascade_file(const std::string& path);
// Checks the model's invariants (indices, rectangles inside the window) and derives the
// summary fields; throws Error(format / out_of_range).
void finish_cascade_model(CascadeModel& model);

}  // namespace plinth::detail
