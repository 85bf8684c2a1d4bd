#include "tuner/edge_check.h"

#include "common/file_util.h"
#include "common/status.h"
#include "common/text.h"

namespace kernelblaster::tuner {
namespace {

std::string labels(const std::vector<BoundaryShape>& shapes) {
  std::vector<std::string> out;
  for (const BoundaryShape& s : shapes) out.push_back(s.dim + "=" + std::to_string(s.value));
  return joined(out);
}

}  // namespace

bool has_edges(const std::string& harness_text, const std::string& source_text) {
  return !edges_only_harness(harness_text, boundary_shapes(harness_text, source_text)).empty();
}

EdgeCheck start_edge_check(EngineMeasurer& measurer, const Configuration& winner) {
  EdgeCheck c;
  const std::string harness = read_file(measurer.target().harness);
  std::vector<BoundaryShape> shapes = boundary_shapes(harness, measurer.target().source_text);
  const std::string edges = edges_only_harness(harness, shapes);
  if (edges.empty()) return c;
  c.shapes = std::move(shapes);
  c.builds = measurer.build_with_harness(edges, winner);
  return c;
}

EdgeVerdict finish_edge_check(const EdgeCheck& check, EngineMeasurer& measurer, int device, int seeds) {
  EdgeVerdict v;
  if (check.shapes.empty()) return v;
  const std::string at = "at its launchers' branch edges (" + labels(check.shapes) + ")";
  const EvalResult winner = measurer.check_with_harness(check.builds, false, device, seeds);
  if (winner.status == Status::ok) {
    v.line = "the winner agrees with the original " + at;
    return v;
  }
  const EvalResult original = winner.status == Status::reference_failed
                                  ? winner
                                  : measurer.check_with_harness(check.builds, true, device, seeds);
  if (original.status != Status::ok) {
    v.line = "the winner was not judged " + at + ": the original itself fails there (" + std::string(status_name(original.status)) +
             ": " + original.detail.substr(0, 200) + ")";
    return v;
  }
  if (!judges_the_candidate(winner.status)) {  // the tool's or the machine's failure, not the code's
    v.line = "the winner was not judged " + at + ": " + std::string(status_name(winner.status)) + ": " + winner.detail.substr(0, 200);
    return v;
  }
  v.refused = true;
  v.line = "the winner is wrong " + at + ", where the original is right: " + std::string(status_name(winner.status)) + ": " +
           winner.detail.substr(0, 300);
  return v;
}

}  // namespace kernelblaster::tuner
