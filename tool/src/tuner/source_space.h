// What one source offers to tune, gathered the one way both `tune` and
// `tune --list` gather it: its directives and the manifest's tunables, the
// launch sites' tunables (launch_tunables.h: #defines, constants and
// template arguments that shape a launch), guarded macros (discovery.h) and
// literal block sizes, and the rewrites without a model (kernel_rewrites.h:
// unroll factors, launch bounds); and the copy the candidates are made from.
#pragma once

#include <string>
#include <vector>

#include "tuner/launch_tunables.h"
#include "tuner/space_decl.h"

namespace kernelblaster::tuner {

struct SourceSpaceInput {
  std::string text, source, arch, manifest;
  std::vector<std::string> definitions, include_dirs;
};

struct SourceSpace {
  SpaceDecl decl;
  std::string text;                  // the copy candidates are made from
  LaunchTunables launch;             // what the launch sites gave
  std::vector<std::string> summary;  // one phrase per tunable found without a directive
};

// Throws SpaceError for a malformed declaration.
SourceSpace source_space(const SourceSpaceInput& in);

// Only the tunables `kept` stay, with the constraints that read nothing else
// (a harness that follows those tunables alone: tuner/replay_shapes.h).
void keep_tunables(SpaceDecl& decl, const std::vector<std::string>& kept);

}  // namespace kernelblaster::tuner
