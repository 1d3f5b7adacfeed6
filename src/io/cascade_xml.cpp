// OpenCV cascade XML -> CascadeModel. Two layouts:
//   current (opencv-cascade-classifier): stageType BOOST, featureType HAAR or LBP, width, height,
//     featureParams/maxCatCount, stages/_/{stageThreshold, weakClassifiers/_/{internalNodes,
//     leafValues}}, features/_/{rects/_ "x y w h weight" [tilted] | rect "x y w h"};
//   old (opencv-haar-classifier): size "w h", stages/_/{trees/_/_ (nodes with feature, threshold,
//     left_val|left_node, right_val|right_node), stage_threshold}; converted as OpenCV 4.6's
//     CascadeClassifier::convert does (one feature per node, leaves numbered per tree).
// Numbers are read as double and narrowed to float where OpenCV keeps floats. Every count is
// capped (CascadeLimits) before anything is allocated from it.
#include <pugixml.hpp>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "io/io_detail.hpp"
#include "ops/cascade_model.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace detail {
namespace {

using Limits = CascadeLimits;
constexpr const char* kOp = "cascade";

class Parser {
 public:
  explicit Parser(std::string name) : name_(std::move(name)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw Error(ErrorCode::format, kOp, name_, where.empty() ? what : where + ": " + what);
  }
  [[noreturn]] void range(const std::string& where, const std::string& what) const {
    throw Error(ErrorCode::out_of_range, kOp, name_, where.empty() ? what : where + ": " + what);
  }

  // The text of an element: its character data children joined (comments may split it).
  static std::string text(pugi::xml_node node) {
    std::string out;
    for (pugi::xml_node c : node.children()) {
      if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) {
        out += ' ';
        out += c.value();
      }
    }
    return out;
  }

  static std::vector<pugi::xml_node> elements(pugi::xml_node node) {
    std::vector<pugi::xml_node> out;
    for (pugi::xml_node c : node.children()) {
      if (c.type() == pugi::node_element) out.push_back(c);
    }
    return out;
  }

  static std::size_t element_count(pugi::xml_node node) {
    std::size_t n = 0;
    for (pugi::xml_node c : node.children()) n += c.type() == pugi::node_element;
    return n;
  }

  pugi::xml_node child(pugi::xml_node node, const char* key, const std::string& where) const {
    pugi::xml_node c = node.child(key);
    if (!c) fail(where, std::string("missing <") + key + ">");
    return c;
  }

  // Whitespace-separated words (copies: the text is usually a temporary).
  std::vector<std::string> tokens(const std::string& s) const {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < s.size()) {
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      const std::size_t start = i;
      while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      if (i > start) out.emplace_back(s.data() + start, i - start);
    }
    return out;
  }

  // A token as messages show it: at most 32 characters of it.
  static std::string shown(std::string_view token) {
    if (token.size() <= 32) return std::string(token);
    return std::string(token.substr(0, 32)) + "... (" + std::to_string(token.size()) + " characters)";
  }

  double real(std::string_view token, const std::string& where) const {
    const char* first = token.data();
    const char* last = token.data() + token.size();
    if (first != last && *first == '+') ++first;
    double value = 0;
    auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || ptr != last || !std::isfinite(value)) {
      fail(where, "'" + shown(token) + "' is not a finite number");
    }
    return value;
  }

  // A value kept as a float: finite as a double is not enough, 1e39 would become inf.
  float real32(std::string_view token, const std::string& where) const {
    const double value = real(token, where);
    if (std::fabs(value) > static_cast<double>(std::numeric_limits<float>::max())) {
      fail(where, "'" + shown(token) + "' is beyond the range of a float");
    }
    return static_cast<float>(value);
  }

  float scalar_real32(pugi::xml_node node, const char* key, const std::string& where) const {
    const auto t = tokens(text(child(node, key, where)));
    if (t.size() != 1) fail(where + "/" + key, "expected one number");
    return real32(t[0], where + "/" + key);
  }

  long long integer(std::string_view token, const std::string& where) const {
    const char* first = token.data();
    const char* last = token.data() + token.size();
    if (first != last && *first == '+') ++first;
    long long value = 0;
    auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec == std::errc() && ptr == last) return value;
    const double d = real(token, where);
    if (d != std::floor(d) || std::fabs(d) > 9.0e15) fail(where, "'" + shown(token) + "' is not an integer");
    return static_cast<long long>(d);
  }

  int int32(std::string_view token, const std::string& where) const {
    const long long v = integer(token, where);
    if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max()) {
      range(where, "'" + shown(token) + "' does not fit 32 bits");
    }
    return static_cast<int>(v);
  }

  // A count or size in [lo, hi]; out_of_range otherwise.
  int bounded(std::string_view token, int lo, int hi, const std::string& where) const {
    const long long v = integer(token, where);
    if (v < lo || v > hi) {
      range(where, std::to_string(v) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    return static_cast<int>(v);
  }

  int scalar_int(pugi::xml_node node, const char* key, int lo, int hi, const std::string& where) const {
    const auto t = tokens(text(child(node, key, where)));
    if (t.size() != 1) fail(where + "/" + key, "expected one number");
    return bounded(t[0], lo, hi, where + "/" + key);
  }

  double scalar_real(pugi::xml_node node, const char* key, const std::string& where) const {
    const auto t = tokens(text(child(node, key, where)));
    if (t.size() != 1) fail(where + "/" + key, "expected one number");
    return real(t[0], where + "/" + key);
  }

  std::string scalar_text(pugi::xml_node node, const char* key, const std::string& where) const {
    const auto t = tokens(text(child(node, key, where)));
    if (t.size() != 1) fail(where + "/" + key, "expected one word");
    return std::string(t[0]);
  }

  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

std::string at(const std::string& where, const char* what, std::size_t i) {
  return where + "/" + what + "[" + std::to_string(i) + "]";
}

// ---- current format --------------------------------------------------------------------------

void read_haar_features(const Parser& p, pugi::xml_node list, CascadeModel& m) {
  const std::size_t n = Parser::element_count(list);
  if (n == 0) p.fail("features", "no features");
  if (n > static_cast<std::size_t>(Limits::max_features)) p.range("features", std::to_string(n) + " features");
  m.haar.resize(n);
  std::size_t i = 0;
  for (pugi::xml_node f : Parser::elements(list)) {
    const std::string where = at("features", "", i);
    HaarFeature& feature = m.haar[i++];
    const pugi::xml_node rects = p.child(f, "rects", where);
    const auto items = Parser::elements(rects);
    if (items.empty() || items.size() > 3) p.fail(where, std::to_string(items.size()) + " rectangles (1 to 3 allowed)");
    for (std::size_t r = 0; r < items.size(); ++r) {
      const std::string rw = at(where + "/rects", "", r);
      const auto t = p.tokens(Parser::text(items[r]));
      if (t.size() != 5) p.fail(rw, "expected 'x y width height weight'");
      HaarRectangle& rect = feature.rects[r];
      rect.x = p.int32(t[0], rw);
      rect.y = p.int32(t[1], rw);
      rect.width = p.int32(t[2], rw);
      rect.height = p.int32(t[3], rw);
      rect.weight = p.real32(t[4], rw);
    }
    if (pugi::xml_node tilted = f.child("tilted")) {
      const auto t = p.tokens(Parser::text(tilted));
      if (t.size() != 1) p.fail(where + "/tilted", "expected 0 or 1");
      feature.tilted = p.integer(t[0], where + "/tilted") != 0;
    }
  }
}

void read_lbp_features(const Parser& p, pugi::xml_node list, CascadeModel& m) {
  const std::size_t n = Parser::element_count(list);
  if (n == 0) p.fail("features", "no features");
  if (n > static_cast<std::size_t>(Limits::max_features)) p.range("features", std::to_string(n) + " features");
  m.lbp.resize(n);
  std::size_t i = 0;
  for (pugi::xml_node f : Parser::elements(list)) {
    const std::string where = at("features", "", i);
    const auto t = p.tokens(Parser::text(p.child(f, "rect", where)));
    if (t.size() != 4) p.fail(where + "/rect", "expected 'x y width height'");
    LbpFeature& feature = m.lbp[i++];
    feature.x = p.int32(t[0], where);
    feature.y = p.int32(t[1], where);
    feature.width = p.int32(t[2], where);
    feature.height = p.int32(t[3], where);
  }
}

void read_current(const Parser& p, pugi::xml_node root, CascadeModel& m) {
  const std::string stage_type = p.scalar_text(root, "stageType", "");
  if (stage_type != "BOOST") p.fail("stageType", "'" + stage_type + "' is not supported (only BOOST)");
  const std::string feature_type = p.scalar_text(root, "featureType", "");
  if (feature_type == "HAAR") {
    m.type = CascadeFeatureType::haar;
  } else if (feature_type == "LBP") {
    m.type = CascadeFeatureType::lbp;
  } else {
    p.fail("featureType", "'" + feature_type + "' is not supported (HAAR or LBP)");
  }
  m.window.width = p.scalar_int(root, "width", 1, Limits::max_window, "");
  m.window.height = p.scalar_int(root, "height", 1, Limits::max_window, "");
  const pugi::xml_node feature_params = p.child(root, "featureParams", "");
  m.categories = p.scalar_int(feature_params, "maxCatCount", 0, Limits::max_categories, "featureParams");
  if (m.type == CascadeFeatureType::lbp && m.categories != 256) {
    p.fail("featureParams/maxCatCount", "LBP cascades have 256 categories, not " + std::to_string(m.categories));
  }
  if (m.type == CascadeFeatureType::haar && m.categories != 0) {
    p.fail("featureParams/maxCatCount", "Haar cascades have no categories");
  }
  m.subset_words = (m.categories + 31) / 32;
  const int node_words = 3 + (m.categories > 0 ? m.subset_words : 1);

  const pugi::xml_node stages = p.child(root, "stages", "");
  const std::size_t nstages = Parser::element_count(stages);
  if (nstages == 0) p.fail("stages", "no stages");
  if (nstages > static_cast<std::size_t>(Limits::max_stages)) p.range("stages", std::to_string(nstages) + " stages");
  if (root.child("stageNum")) {
    const int declared = p.scalar_int(root, "stageNum", 0, Limits::max_stages, "");
    if (static_cast<std::size_t>(declared) != nstages) {
      p.fail("stageNum", "declares " + std::to_string(declared) + " stages but " + std::to_string(nstages) + " follow");
    }
  }
  m.stages.reserve(nstages);
  std::size_t si = 0;
  for (pugi::xml_node s : Parser::elements(stages)) {
    const std::string where = at("stages", "", si++);
    CascadeStage stage;
    stage.threshold = p.scalar_real32(s, "stageThreshold", where) - 1e-5f;
    const pugi::xml_node weak = p.child(s, "weakClassifiers", where);
    const std::size_t ntrees = Parser::element_count(weak);
    if (ntrees == 0) p.fail(where, "no weak classifiers");
    if (ntrees > static_cast<std::size_t>(Limits::max_trees_per_stage) || m.trees.size() + ntrees > Limits::max_trees) {
      p.range(where, std::to_string(ntrees) + " weak classifiers");
    }
    if (s.child("maxWeakCount")) {
      const int declared = p.scalar_int(s, "maxWeakCount", 0, Limits::max_trees_per_stage, where);
      if (static_cast<std::size_t>(declared) != ntrees) {
        p.fail(where + "/maxWeakCount",
               "declares " + std::to_string(declared) + " weak classifiers but " + std::to_string(ntrees) + " follow");
      }
    }
    stage.first_tree = static_cast<int>(m.trees.size());
    stage.tree_count = static_cast<int>(ntrees);
    std::size_t ti = 0;
    for (pugi::xml_node w : Parser::elements(weak)) {
      const std::string tw = at(where + "/weakClassifiers", "", ti++);
      const auto nodes = p.tokens(Parser::text(p.child(w, "internalNodes", tw)));
      const auto leaves = p.tokens(Parser::text(p.child(w, "leafValues", tw)));
      if (nodes.empty() || nodes.size() % static_cast<std::size_t>(node_words) != 0) {
        p.fail(tw + "/internalNodes", std::to_string(nodes.size()) + " numbers is not a multiple of " +
                                          std::to_string(node_words));
      }
      const std::size_t nnodes = nodes.size() / static_cast<std::size_t>(node_words);
      if (nnodes > static_cast<std::size_t>(Limits::max_nodes_per_tree)) p.range(tw, std::to_string(nnodes) + " nodes");
      if (leaves.size() != nnodes + 1) {
        p.fail(tw + "/leafValues", std::to_string(leaves.size()) + " leaves for " + std::to_string(nnodes) +
                                       " nodes (a binary tree has one more leaf than nodes)");
      }
      CascadeTree tree;
      tree.first_node = static_cast<int>(m.nodes.size());
      tree.node_count = static_cast<int>(nnodes);
      tree.first_leaf = static_cast<int>(m.leaves.size());
      std::size_t k = 0;
      for (std::size_t n = 0; n < nnodes; ++n) {
        CascadeNode node;
        node.left = p.int32(nodes[k++], tw);
        node.right = p.int32(nodes[k++], tw);
        node.feature = p.int32(nodes[k++], tw);
        if (m.categories > 0) {
          for (int j = 0; j < m.subset_words; ++j) m.subsets.push_back(p.int32(nodes[k++], tw));
        } else {
          node.threshold = p.real32(nodes[k++], tw);
        }
        m.nodes.push_back(node);
      }
      for (const std::string& leaf : leaves) m.leaves.push_back(p.real32(leaf, tw + "/leafValues"));
      m.trees.push_back(tree);
    }
    m.stages.push_back(stage);
  }

  const pugi::xml_node features = p.child(root, "features", "");
  if (m.type == CascadeFeatureType::haar) {
    read_haar_features(p, features, m);
  } else {
    read_lbp_features(p, features, m);
  }
}

// ---- old format --------------------------------------------------------------------------------

void read_old(const Parser& p, pugi::xml_node root, CascadeModel& m) {
  m.type = CascadeFeatureType::haar;
  m.categories = 0;
  m.subset_words = 0;
  const auto size = p.tokens(Parser::text(p.child(root, "size", "")));
  if (size.size() != 2) p.fail("size", "expected 'width height'");
  m.window.width = p.bounded(size[0], 1, Limits::max_window, "size");
  m.window.height = p.bounded(size[1], 1, Limits::max_window, "size");

  const pugi::xml_node stages = p.child(root, "stages", "");
  const std::size_t nstages = Parser::element_count(stages);
  if (nstages == 0) p.fail("stages", "no stages");
  if (nstages > static_cast<std::size_t>(Limits::max_stages)) p.range("stages", std::to_string(nstages) + " stages");
  std::size_t si = 0;
  for (pugi::xml_node s : Parser::elements(stages)) {
    const std::string where = at("stages", "", si++);
    CascadeStage stage;
    stage.threshold = p.scalar_real32(s, "stage_threshold", where) - 1e-5f;
    const pugi::xml_node trees = p.child(s, "trees", where);
    const std::size_t ntrees = Parser::element_count(trees);
    if (ntrees == 0) p.fail(where, "no trees");
    if (ntrees > static_cast<std::size_t>(Limits::max_trees_per_stage) || m.trees.size() + ntrees > Limits::max_trees) {
      p.range(where, std::to_string(ntrees) + " trees");
    }
    stage.first_tree = static_cast<int>(m.trees.size());
    stage.tree_count = static_cast<int>(ntrees);
    std::size_t ti = 0;
    for (pugi::xml_node t : Parser::elements(trees)) {
      const std::string tw = at(where + "/trees", "", ti++);
      const std::size_t nnodes = Parser::element_count(t);
      if (nnodes == 0) p.fail(tw, "no nodes");
      if (nnodes > static_cast<std::size_t>(Limits::max_nodes_per_tree)) p.range(tw, std::to_string(nnodes) + " nodes");
      if (m.haar.size() + nnodes > static_cast<std::size_t>(Limits::max_features)) p.range(tw, "too many features");
      CascadeTree tree;
      tree.first_node = static_cast<int>(m.nodes.size());
      tree.node_count = static_cast<int>(nnodes);
      tree.first_leaf = static_cast<int>(m.leaves.size());
      int leaf_count = 0;
      std::size_t ni = 0;
      for (pugi::xml_node n : Parser::elements(t)) {
        const std::string nw = at(tw, "", ni++);
        const pugi::xml_node f = p.child(n, "feature", nw);
        HaarFeature feature;
        const auto items = Parser::elements(p.child(f, "rects", nw + "/feature"));
        if (items.empty() || items.size() > 3) p.fail(nw, std::to_string(items.size()) + " rectangles (1 to 3 allowed)");
        for (std::size_t r = 0; r < items.size(); ++r) {
          const auto v = p.tokens(Parser::text(items[r]));
          if (v.size() != 5) p.fail(nw + "/feature/rects", "expected 'x y width height weight'");
          HaarRectangle& rect = feature.rects[r];
          rect.x = p.int32(v[0], nw);
          rect.y = p.int32(v[1], nw);
          rect.width = p.int32(v[2], nw);
          rect.height = p.int32(v[3], nw);
          rect.weight = p.real32(v[4], nw);
        }
        // OpenCV's conversion drops a third rectangle of (almost) zero weight.
        if (std::fabs(feature.rects[2].weight) < std::numeric_limits<float>::epsilon()) feature.rects[2] = HaarRectangle{};
        if (pugi::xml_node tilted = f.child("tilted")) {
          const auto v = p.tokens(Parser::text(tilted));
          if (v.size() != 1) p.fail(nw + "/feature/tilted", "expected 0 or 1");
          feature.tilted = p.integer(v[0], nw) != 0;
        }
        CascadeNode node;
        node.feature = static_cast<int>(m.haar.size());
        m.haar.push_back(feature);
        node.threshold = p.scalar_real32(n, "threshold", nw);
        if (n.child("left_val")) {
          node.left = -leaf_count++;
          m.leaves.push_back(p.scalar_real32(n, "left_val", nw));
        } else {
          node.left = p.scalar_int(n, "left_node", 1, Limits::max_nodes_per_tree, nw);
        }
        if (n.child("right_val")) {
          node.right = -leaf_count++;
          m.leaves.push_back(p.scalar_real32(n, "right_val", nw));
        } else {
          node.right = p.scalar_int(n, "right_node", 1, Limits::max_nodes_per_tree, nw);
        }
        m.nodes.push_back(node);
      }
      if (static_cast<std::size_t>(leaf_count) != nnodes + 1) {
        p.fail(tw, std::to_string(leaf_count) + " leaves for " + std::to_string(nnodes) + " nodes");
      }
      m.trees.push_back(tree);
    }
    m.stages.push_back(stage);
  }
}

std::string read_file(const std::string& path) {
  InputFile input = open_input(path, kOp);
  if (input.size > Limits::max_file_bytes) {
    throw Error(ErrorCode::out_of_range, kOp, path,
                std::to_string(input.size) + " bytes is larger than a cascade can be (" +
                    std::to_string(Limits::max_file_bytes) + ")");
  }
  std::string data(static_cast<std::size_t>(input.size), '\0');
  if (!data.empty() && std::fread(data.data(), 1, data.size(), input.file.get()) != data.size()) {
    throw Error(ErrorCode::io, kOp, path, "read failed");
  }
  return data;
}

}  // namespace

std::shared_ptr<CascadeModel> parse_cascade_xml(std::string_view xml, const std::string& name) {
  const Parser p(name);
  if (xml.size() > Limits::max_file_bytes) p.range("", "the text is larger than a cascade can be");
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(xml.data(), xml.size(), pugi::parse_default, pugi::encoding_auto);
  if (!parsed) {
    p.fail("", std::string("not well-formed XML (") + parsed.description() + " at byte " +
                   std::to_string(parsed.offset) + ")");
  }
  const pugi::xml_node storage = doc.child("opencv_storage");
  if (!storage) p.fail("", "no <opencv_storage> root: not an OpenCV cascade file");
  pugi::xml_node root;
  for (pugi::xml_node c : storage.children()) {
    if (c.type() == pugi::node_element) {
      root = c;
      break;
    }
  }
  if (!root) p.fail("", "<opencv_storage> is empty");
  auto model = std::make_shared<CascadeModel>();
  model->name = name;
  if (root.child("stageType")) {
    read_current(p, root, *model);
  } else if (root.child("size") && root.child("stages")) {
    read_old(p, root, *model);
  } else {
    p.fail("", "<" + std::string(root.name()) + "> is neither a current nor an old-format cascade");
  }
  finish_cascade_model(*model);
  return model;
}

std::shared_ptr<CascadeModel> load_cascade_file(const std::string& path) {
  return parse_cascade_xml(read_file(path), path);
}

}  // namespace detail
}  // namespace plinth
