// `kernelblaster tune --list`: every tunable a source offers, per launch
// site, with the constraints derived and the size of the valid space,
// read from the text alone (no GPU). Given a harness, what that harness
// lets `tune` search (harness_space.h): the rest is shown left as written.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tuner/boundary_shapes.h"
#include "tuner/source_space.h"

namespace kernelblaster::tuner {

// The tunables of one group of launch sites (or of none: group "") and
// how many of their combinations the constraints keep.
struct GroupCount {
  std::string group;
  std::vector<std::string> tunables;
  std::size_t combinations = 0;
  std::size_t valid = 0;
  std::string error;  // why it was not counted (a space too large to enumerate)
};

struct TuneListing {
  std::string source;
  SourceSpace space;
  std::vector<GroupCount> groups;
  std::size_t valid = 0;  // configurations of the whole space, before flags, the original included
  std::string error;
  std::vector<std::string> left;           // with a harness: tunables left as written
  std::vector<std::string> harness_lines;  // with a harness: why
  std::vector<BoundaryShape> edges;        // with a harness: the branch edges a winner is checked at
};

TuneListing list_tunables(const SourceSpaceInput& in, const std::string& harness_text = "", bool partial = false);
std::string listing_text(const TuneListing& l);
std::string listing_json(const TuneListing& l);

}  // namespace kernelblaster::tuner
