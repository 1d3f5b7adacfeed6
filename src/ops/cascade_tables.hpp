#pragma once
// The device tables of a cascade (layouts in kernels/cascade.cl): stages, nodes as int4 chunks
// (chunk k of node n at k * node_count + n), trees and leaves.

#include <cstdint>
#include <vector>

#include "ops/cascade_model.hpp"

namespace plinth::detail {

struct CascadeTableData {
  std::vector<int> stages;  // 4 ints per stage: first tree, tree count, threshold bits, 0
  std::vector<int> nodes;   // chunks() int4 chunks per node, chunk-major
  std::vector<int> trees;   // 2 ints per tree: first node, first leaf
  int node_count = 0;
};

// int4 chunks per node: 5 for Haar, 7 for LBP.
int node_chunks(const CascadeModel& m);

// Corner offsets for integrals with `pitch` elements per row, the tilted plane `tilted_plane`
// elements after the sum plane. For stumps the left/right words hold the two leaf values.
CascadeTableData make_cascade_tables(const CascadeModel& m, int pitch, int tilted_plane);

}  // namespace plinth::detail
