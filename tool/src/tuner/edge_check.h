// The winner judged at the edges of its launchers' branches (issue 38:
// correct over the domain, not only the recorded shapes). The boundary
// shapes (boundary_shapes.h) are built into a harness of their own, with the
// original and the winner, on the pool while the winner's fresh look runs;
// then the winner is checked against the original there, for correctness
// only. Where they disagree, the original is checked against itself: an
// original that fails or disagrees with itself at an edge (a kernel that
// checks no bounds, at a size it was never meant for) says nothing about
// the winner, and the edges go unjudged, said so in the line; otherwise
// the winner is wrong where the original is right, and is refused.
#pragma once

#include <string>
#include <vector>

#include "tuner/boundary_shapes.h"
#include "tuner/engine_measurer.h"

namespace kernelblaster::tuner {

struct EdgeCheck {
  std::vector<BoundaryShape> shapes;  // none: nothing to check
  EngineMeasurer::OtherHarness builds;
};

// Whether a winner will be checked at edges: the harness (its text) has
// boundary shapes it can take (what start_edge_check derives, nothing built).
bool has_edges(const std::string& harness_text, const std::string& source_text);

// Derives the shapes from the measurer's harness and source and starts the
// builds; nothing when there are none or the harness cannot take them.
EdgeCheck start_edge_check(EngineMeasurer& measurer, const Configuration& winner);

struct EdgeVerdict {
  bool refused = false;  // the winner is wrong at an edge where the original is right
  std::string line;      // what was checked and found ("" when there were no edges)
};
EdgeVerdict finish_edge_check(const EdgeCheck& check, EngineMeasurer& measurer, int device, int seeds);

}  // namespace kernelblaster::tuner
