// Invariants of a parsed cascade and the facts derived from it; Cascade's accessors.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "ops/cascade_model.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace detail {

namespace {

constexpr const char* kOp = "cascade";

[[noreturn]] void fail(const CascadeModel& m, ErrorCode code, const std::string& what) {
  throw Error(code, kOp, m.name, what);
}

std::string rect_text(int x, int y, int w, int h) {
  return std::to_string(x) + "," + std::to_string(y) + " " + std::to_string(w) + "x" + std::to_string(h);
}

void check_haar_feature(const CascadeModel& m, const HaarFeature& f, std::size_t index) {
  const int W = m.window.width, H = m.window.height;
  for (int r = 0; r < 3; ++r) {
    const HaarRectangle& q = f.rects[r];
    if (q.width == 0 && q.height == 0 && q.x == 0 && q.y == 0) continue;  // unused
    const std::string where = "feature " + std::to_string(index) + " rectangle " + std::to_string(r) + " (" +
                              rect_text(q.x, q.y, q.width, q.height) + (f.tilted ? ", tilted" : "") + ")";
    if (q.width < 0 || q.height < 0) fail(m, ErrorCode::out_of_range, where + " has a negative size");
    // Sizes are at most max_window, so these sums cannot overflow once each term is bounded.
    if (q.x < -CascadeLimits::max_window || q.x > CascadeLimits::max_window || q.y < -CascadeLimits::max_window ||
        q.y > CascadeLimits::max_window || q.width > CascadeLimits::max_window ||
        q.height > CascadeLimits::max_window) {
      fail(m, ErrorCode::out_of_range, where + " lies outside the " + std::to_string(W) + "x" + std::to_string(H) + " window");
    }
    const bool inside = f.tilted ? (q.x - q.height >= 0 && q.y >= 0 && q.x + q.width <= W && q.y + q.width + q.height <= H)
                                 : (q.x >= 0 && q.y >= 0 && q.x + q.width <= W && q.y + q.height <= H);
    if (!inside) {
      fail(m, ErrorCode::out_of_range, where + " lies outside the " + std::to_string(W) + "x" + std::to_string(H) + " window");
    }
  }
}

void check_lbp_feature(const CascadeModel& m, const LbpFeature& f, std::size_t index) {
  const int W = m.window.width, H = m.window.height;
  const bool sane = f.width >= 1 && f.height >= 1 && f.width <= W && f.height <= H && f.x >= 0 && f.y >= 0 &&
                    f.x <= W && f.y <= H;
  if (!sane || f.x + 3 * f.width > W || f.y + 3 * f.height > H) {
    fail(m, ErrorCode::out_of_range,
         "feature " + std::to_string(index) + " (blocks of " + rect_text(f.x, f.y, f.width, f.height) +
             ") lies outside the " + std::to_string(W) + "x" + std::to_string(H) + " window");
  }
}

// Every partial sum of a stage is a multiple of the smallest leaf ulp and at most the sum of
// the trees' largest |leaf|; below 2^53 such multiples are doubles, so no addition rounds.
bool stage_sums_order_free(const CascadeModel& m, const CascadeStage& s) {
  double bound = 0;
  int min_exp = std::numeric_limits<int>::max();
  for (int t = s.first_tree; t < s.first_tree + s.tree_count; ++t) {
    const CascadeTree& tree = m.trees[t];
    float largest = 0;
    for (int l = tree.first_leaf; l <= tree.first_leaf + tree.node_count; ++l) {
      const float v = m.leaves[l];
      largest = std::max(largest, std::fabs(v));
      if (v != 0.f) {
        int e = 0;
        std::frexp(v, &e);
        min_exp = std::min(min_exp, e - std::numeric_limits<float>::digits);
      }
    }
    bound += static_cast<double>(largest);
  }
  if (min_exp == std::numeric_limits<int>::max()) return true;
  return bound < std::ldexp(1.0, 52 + min_exp);
}

}  // namespace

void finish_cascade_model(CascadeModel& m) {
  const std::size_t nfeatures = m.type == CascadeFeatureType::haar ? m.haar.size() : m.lbp.size();
  for (std::size_t i = 0; i < m.haar.size(); ++i) check_haar_feature(m, m.haar[i], i);
  for (std::size_t i = 0; i < m.lbp.size(); ++i) check_lbp_feature(m, m.lbp[i], i);
  m.max_nodes_per_tree = 0;
  m.max_trees_per_stage = 0;
  for (const CascadeStage& s : m.stages) m.max_trees_per_stage = std::max(m.max_trees_per_stage, s.tree_count);
  for (std::size_t t = 0; t < m.trees.size(); ++t) {
    const CascadeTree& tree = m.trees[t];
    m.max_nodes_per_tree = std::max(m.max_nodes_per_tree, tree.node_count);
    for (int n = 0; n < tree.node_count; ++n) {
      const CascadeNode& node = m.nodes[tree.first_node + n];
      const std::string where = "tree " + std::to_string(t) + " node " + std::to_string(n);
      if (node.feature < 0 || static_cast<std::size_t>(node.feature) >= nfeatures) {
        fail(m, ErrorCode::out_of_range,
             where + " uses feature " + std::to_string(node.feature) + " of " + std::to_string(nfeatures));
      }
      for (int child : {node.left, node.right}) {
        // Children after their parent keep every walk finite.
        if (child > 0 && (child <= n || child >= tree.node_count)) {
          fail(m, ErrorCode::out_of_range, where + " has child node " + std::to_string(child) + " (must be after it, below " +
                                               std::to_string(tree.node_count) + ")");
        }
        if (child <= 0 && -static_cast<long long>(child) > tree.node_count) {
          fail(m, ErrorCode::out_of_range, where + " has leaf " + std::to_string(-static_cast<long long>(child)) + " of " +
                                               std::to_string(tree.node_count + 1));
        }
      }
    }
  }
  m.tilted = false;
  for (const HaarFeature& f : m.haar) m.tilted = m.tilted || f.tilted;
  m.order_free_sums = true;
  for (const CascadeStage& s : m.stages) m.order_free_sums = m.order_free_sums && stage_sums_order_free(m, s);
}

}  // namespace detail

Cascade Cascade::load(const std::string& path) {
  Cascade c;
  c.model_ = detail::load_cascade_file(path);
  return c;
}

Cascade Cascade::parse(std::string_view xml, const std::string& name) {
  Cascade c;
  c.model_ = detail::parse_cascade_xml(xml, name);
  return c;
}

const detail::CascadeModel& Cascade::model() const {
  if (!model_) throw Error(ErrorCode::invalid_argument, "cascade", "cascade", "empty (nothing loaded)");
  return *model_;
}

Size Cascade::window_size() const { return model().window; }
CascadeFeatureType Cascade::feature_type() const { return model().type; }
int Cascade::stage_count() const { return static_cast<int>(model().stages.size()); }
int Cascade::tree_count() const { return static_cast<int>(model().trees.size()); }
int Cascade::feature_count() const {
  return static_cast<int>(model().type == CascadeFeatureType::haar ? model().haar.size() : model().lbp.size());
}
bool Cascade::has_tilted_features() const { return model().tilted; }
bool Cascade::is_stump_based() const { return model().max_nodes_per_tree == 1; }
const std::string& Cascade::name() const { return model().name; }

std::string find_cascade(std::string_view name_or_path) {
  namespace fs = std::filesystem;
  const std::string given(name_or_path);
  if (given.empty()) throw Error(ErrorCode::invalid_argument, "cascade", "name", "empty cascade name");
  std::error_code ec;
  if (fs::is_regular_file(given, ec)) return given;
  std::string base = given;
  if (base.size() > 4 && base.substr(base.size() - 4) == ".xml") base.resize(base.size() - 4);
  std::vector<std::string> tried;
  const bool has_dir = given.find('/') != std::string::npos;
  if (!has_dir) {
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("PLINTH_CASCADE_DIR"); env != nullptr && *env != '\0') dirs.emplace_back(env);
    dirs.emplace_back(opencv_haarcascade_dir);
    dirs.emplace_back(opencv_lbpcascade_dir);
    for (const std::string& dir : dirs) {
      for (const std::string& stem : {base, "haarcascade_" + base, "lbpcascade_" + base}) {
        const std::string path = dir + "/" + stem + ".xml";
        if (fs::is_regular_file(path, ec)) return path;
        tried.push_back(path);
      }
    }
  }
  std::string message = "no cascade file '" + given + "'";
  if (!tried.empty()) message += " (also tried " + std::string(opencv_haarcascade_dir) + "/[haarcascade_]" + base +
                                 ".xml and " + opencv_lbpcascade_dir + "/[lbpcascade_]" + base + ".xml; Debian's opencv-data package installs them)";
  throw Error(ErrorCode::io, "cascade", given, message);
}

}  // namespace plinth
