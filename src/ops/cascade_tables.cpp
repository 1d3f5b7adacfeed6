// Packing a cascade into the node tables of kernels/cascade.cl.
#include "ops/cascade_tables.hpp"

#include "plinth/error.hpp"

#include <cstring>
#include <string>

namespace plinth::detail {
namespace {

int f2i(float f) {
  int i = 0;
  std::memcpy(&i, &f, sizeof i);
  return i;
}

// Offsets of the four corners of an upright rectangle (p0 - p1 - p2 + p3) in a plane of `pitch`.
void upright(int* o, int x, int y, int w, int h, int pitch) {
  o[0] = y * pitch + x;
  o[1] = y * pitch + x + w;
  o[2] = (y + h) * pitch + x;
  o[3] = (y + h) * pitch + x + w;
}

// OpenCV's CV_TILTED_OFS: (x, y), (x - h, y + h), (x + w, y + w), (x + w - h, y + w + h).
void tilted(int* o, int x, int y, int w, int h, int pitch, int plane) {
  o[0] = plane + y * pitch + x;
  o[1] = plane + (y + h) * pitch + x - h;
  o[2] = plane + (y + w) * pitch + x + w;
  o[3] = plane + (y + w + h) * pitch + x + w - h;
}

}  // namespace

int node_chunks(const CascadeModel& m) { return m.type == CascadeFeatureType::lbp ? 7 : 5; }

CascadeTableData make_cascade_tables(const CascadeModel& m, int pitch, int tilted_plane) {
  const bool lbp = m.type == CascadeFeatureType::lbp;
  const bool stumps = m.max_nodes_per_tree == 1;
  const int chunks = node_chunks(m);
  const std::size_t nn = m.nodes.size();
  CascadeTableData out;
  out.node_count = static_cast<int>(nn);
  for (const CascadeStage& s : m.stages) out.stages.insert(out.stages.end(), {s.first_tree, s.tree_count, f2i(s.threshold), 0});
  out.nodes.assign(nn * static_cast<std::size_t>(chunks) * 4, 0);
  // Word j of chunk k of node n.
  const auto at = [&](std::size_t n, int k, int j) -> int& { return out.nodes[(static_cast<std::size_t>(k) * nn + n) * 4 + j]; };
  const int lr_chunk = lbp ? 6 : 4;
  for (std::size_t n = 0; n < nn; ++n) {
    const CascadeNode& node = m.nodes[n];
    if (lbp) {
      const LbpFeature& f = m.lbp[node.feature];
      for (int j = 0; j < 4; ++j) {
        for (int i = 0; i < 4; ++i) at(n, j, i) = (f.y + j * f.height) * pitch + f.x + i * f.width;
      }
      for (int k = 0; k < 8; ++k) at(n, 4 + k / 4, k % 4) = m.subsets[n * static_cast<std::size_t>(m.subset_words) + k];
    } else {
      const HaarFeature& f = m.haar[node.feature];
      for (int k = 0; k < 3; ++k) {
        const HaarRectangle& q = f.rects[k];
        int o[4];
        if (f.tilted) {
          tilted(o, q.x, q.y, q.width, q.height, pitch, tilted_plane);
        } else {
          upright(o, q.x, q.y, q.width, q.height, pitch);
        }
        for (int j = 0; j < 4; ++j) at(n, k, j) = o[j];
        at(n, 3, k) = f2i(q.weight);
      }
      at(n, 3, 3) = f2i(node.threshold);
    }
    at(n, lr_chunk, 0) = node.left;
    at(n, lr_chunk, 1) = node.right;
  }
  if (stumps) {
    // A stump takes leaf 0 on the left branch and leaf 1 on the right, whatever its child fields.
    // The kernels find tree t's node at index t.
    for (std::size_t t = 0; t < m.trees.size(); ++t) {
      if (m.trees[t].first_node != static_cast<int>(t)) {
        throw Error(ErrorCode::internal, "cascade", m.name, "stump " + std::to_string(t) + " is not node " + std::to_string(t));
      }
    }
    for (const CascadeTree& t : m.trees) {
      at(static_cast<std::size_t>(t.first_node), lr_chunk, 0) = f2i(m.leaves[t.first_leaf]);
      at(static_cast<std::size_t>(t.first_node), lr_chunk, 1) = f2i(m.leaves[t.first_leaf + 1]);
    }
  }
  for (const CascadeTree& t : m.trees) out.trees.insert(out.trees.end(), {t.first_node, t.first_leaf});
  return out;
}

}  // namespace plinth::detail
