#include "tuner/harness_space.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "common/kernel_replay.h"
#include "common/source_lines.h"
#include "common/source_text.h"
#include "common/text.h"
#include "tuner/kernel_rewrites.h"
#include "tuner/launch_reading.h"
#include "tuner/launch_reach.h"
#include "tuner/replay_shapes.h"

namespace kernelblaster::tuner {
namespace {

// Everything in `decl` but `kept` is left as written.
void keep_only(SpaceDecl& decl, const std::vector<std::string>& kept, HarnessSpace& out) {
  for (const Tunable& t : decl.tunables)
    if (std::find(kept.begin(), kept.end(), t.name) == kept.end()) out.left.push_back(t.name);
  keep_tunables(decl, kept);
}

void follow_replayed_launches(const std::string& harness, const SourceSpace& found, const std::string& text,
                              const std::string& source, const std::vector<std::string>& include_dirs,
                              SpaceDecl& decl, HarnessSpace& out, bool partial) {
  const ReplayShapes shapes = reshape_replayed_launches(harness, text, source, found.launch, include_dirs);
  // An unroll factor or a launch bound changes no launch's shape: the
  // recorded shapes hold for it as for a flag (but not where the harness
  // runs only part of the source: a rewrite may reach a kernel it never runs).
  std::vector<std::string> kept = shapes.tunables;
  for (const Tunable& t : decl.tunables)
    if (is_kernel_rewrite(t) && !partial) kept.push_back(t.name);
  keep_only(decl, kept, out);
  out.harness = shapes.harness;
  out.harness_macros = shapes.tunables;
  out.lines.insert(out.lines.end(), shapes.notes.begin(), shapes.notes.end());
  if (shapes.tunables.empty())
    out.lines.push_back("the harness launches kernels as they were recorded, so only compiler flags are searched");
  else
    out.lines.push_back("the harness launches " + joined(shapes.reshaped) +
                        " with the shapes the source's launch expressions give, so " + joined(shapes.tunables) +
                        " are searched");
}

// `__restrict__` holds only where a kernel's buffers never overlap: it is
// kept where the harness replays recorded launches that all had disjoint
// buffers, else left as written with a line that says why.
void keep_backed_restrict(const std::string& harness, SpaceDecl& decl, HarnessSpace& out) {
  std::vector<std::string> kept;
  for (const Tunable& t : decl.tunables) {
    const std::string k = restricted_kernel(t);
    if (k.empty() || harness.find(std::string(kDisjointBuffersNote) + k + "\n") != std::string::npos) {
      kept.push_back(t.name);
      continue;
    }
    out.lines.push_back(t.name + " stays as written: no recorded launch of " + k +
                        " shows its buffers apart (__restrict__ holds only where they never overlap)");
  }
  if (kept.size() != decl.tunables.size()) keep_only(decl, kept, out);
}

// A harness that runs only part of the source (the build found kernels no
// recorded call runs) may search only what changes nothing it does not run:
// the tunables of launch-site groups it reaches whole, none a function it
// never calls reads, none outside a group (a rewrite of its own, a macro).
void keep_reached_groups(const LaunchReach& reach, const SourceSpace& found, const std::vector<std::string>& headers,
                         SpaceDecl& decl, HarnessSpace& out) {
  std::set<std::string> groups, partial;
  for (const LaunchSite& site : found.launch.sites) {
    groups.insert(site.group);
    if (std::find(reach.unreached.begin(), reach.unreached.end(), site.line) != reach.unreached.end())
      partial.insert(site.group);
  }
  std::set<std::string> read_elsewhere;
  for (const FoundTunable& t : found.launch.tunables) {
    if (std::find(reach.read_uncalled.begin(), reach.read_uncalled.end(), t.written_as) != reach.read_uncalled.end())
      read_elsewhere.insert(t.tunable.name);
    // A header's code is no function of this file: whether what reads the
    // macro there runs is not known, so it stays as written.
    if (t.kind == "define" && std::any_of(headers.begin(), headers.end(), [&](const std::string& h) {
          return mentions(code_only(h), t.written_as);
        }))
      read_elsewhere.insert(t.tunable.name);
  }
  std::vector<std::string> kept;
  for (const Tunable& t : decl.tunables)
    if (!t.group.empty() && groups.count(t.group) && !partial.count(t.group) && !read_elsewhere.count(t.name))
      kept.push_back(t.name);
  const std::size_t before = decl.tunables.size();
  keep_only(decl, kept, out);
  out.lines.push_back("the harness runs only part of this source (kernels no recorded call ran are never run): " +
                      std::to_string(kept.size()) + " of " + std::to_string(before) +
                      " tunables are searched, those of the launch sites it runs; no compiler flag (flags reach every kernel)");
}

}  // namespace

HarnessSpace harness_space(const std::string& harness_text, const SourceSpace& found, const std::string& text,
                           const std::string& source, const std::vector<std::string>& include_dirs, SpaceDecl& decl,
                           bool partial) {
  HarnessSpace out;
  keep_backed_restrict(harness_text, decl, out);
  if (decl.tunables.empty()) return out;
  if (harness_text.find(kKernelReplayMarker) != std::string::npos) {
    follow_replayed_launches(harness_text, found, text, source, include_dirs, decl, out, partial);
    return out;
  }
  const LaunchReach reach = launch_reach(harness_text, text, found.launch);
  std::vector<std::string> kept;  // (out.lines may hold keep_backed_restrict's)
  for (const Tunable& t : decl.tunables)
    if (std::find(reach.left.begin(), reach.left.end(), t.name) == reach.left.end()) kept.push_back(t.name);
  if (kept.size() != decl.tunables.size()) keep_only(decl, kept, out);
  out.lines.insert(out.lines.end(), reach.notes.begin(), reach.notes.end());
  if (partial)
    keep_reached_groups(reach, found, reading::included_texts(text, std::filesystem::path(source).parent_path(), include_dirs),
                        decl, out);
  return out;
}

}  // namespace kernelblaster::tuner
