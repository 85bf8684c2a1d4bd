// The shapes at the edges of a launcher's own branches (issue 38: correct
// over the domain, not only the recorded shapes). A launcher that picks its
// launch by the sizes it is given (`if (M >= 128 && N >= 128) { BM = 128;
// ... } else { BM = 64; ... }`) has an edge the recorded calls may never
// touch: a candidate's tile that is right at 128 and 4096 may be wrong at
// 127. Each comparison of a launcher parameter with an integer literal in
// an `if` of a launcher the harness calls gives the two sizes at its edge
// (`M >= 128`: 128 and 127). Each is a recorded size with that one
// dimension moved to the edge, and only ever moved down: the recorded
// buffers, which may be sized as recorded rather than by the dimensions,
// stay large enough. A value some recorded size already has is not added.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kernelblaster::tuner {

struct BoundaryShape {
  std::string dim;                        // the dimension moved to the edge: "M"
  long long value = 0;                    // where to: 127
  std::map<std::string, long long> dims;  // the recorded size's, `dim` at `value`
  std::string why;                        // "M >= 128 in run_tiles"
  std::string label() const { return "edge-" + dim + "-" + std::to_string(value); }  // the harness's size label
};

// At most `cap` shapes, in the order the comparisons appear.
std::vector<BoundaryShape> boundary_shapes(const std::string& harness_text, const std::string& source_text,
                                           std::size_t cap = 8);

// The harness with its sizes replaced by the shapes alone (for a check at
// the edges only); "" when there is none or its sizes cannot be read.
std::string edges_only_harness(const std::string& harness_text, const std::vector<BoundaryShape>& shapes);

}  // namespace kernelblaster::tuner
