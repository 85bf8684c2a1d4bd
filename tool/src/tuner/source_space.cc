#include "tuner/source_space.h"

#include <algorithm>
#include <map>
#include <set>

#include "tuner/directives.h"
#include "tuner/discovery.h"
#include "tuner/kernel_rewrites.h"
#include "tuner/manifest_space.h"

namespace kernelblaster::tuner {
namespace {

// A few found: each by name; many: counted by kind and site (the listing
// names each).
std::vector<std::string> launch_summary(const LaunchTunables& found) {
  std::vector<std::string> out;
  if (found.tunables.size() <= 6) {
    for (const FoundTunable& t : found.tunables)
      out.push_back(t.written_as + " (" + t.kind + ", line " + std::to_string(t.line) + ")");
    return out;
  }
  std::map<std::string, int> kinds;
  for (const FoundTunable& t : found.tunables) ++kinds[t.kind];
  int sites = 0;
  for (const LaunchSite& site : found.sites) sites += !site.tunables.empty();
  std::string by_kind;
  for (const auto& [kind, n] : kinds) by_kind += (by_kind.empty() ? "" : ", ") + std::to_string(n) + " " + kind + (n == 1 ? "" : "s");
  out.push_back(std::to_string(found.tunables.size()) + " at " + std::to_string(sites) + " launch sites (" + by_kind +
                "; 'kernelblaster tune --list' names each)");
  return out;
}

}  // namespace

SourceSpace source_space(const SourceSpaceInput& in) {
  SourceSpace s;
  s.decl = parse_directives(in.text, in.source, in.arch);
  if (!in.manifest.empty()) add_manifest_space(s.decl, in.manifest, in.text, in.source, in.definitions);
  s.launch = add_launch_tunables(s.decl, in.text, in.source, in.include_dirs);
  s.summary = launch_summary(s.launch);
  Discovery discovered = add_discovered_space(s.decl, s.launch.text, in.source, in.include_dirs);
  s.summary.insert(s.summary.end(), discovered.summary.begin(), discovered.summary.end());
  PreparedSource prepared = prepare_literal_blocks(s.launch.text, in.source, s.decl, in.include_dirs);
  s.decl.tunables.insert(s.decl.tunables.end(), prepared.tunables.begin(), prepared.tunables.end());
  s.summary.insert(s.summary.end(), prepared.summary.begin(), prepared.summary.end());
  KernelRewrites rewrites = prepare_kernel_rewrites(prepared.text, in.source, s.decl, s.launch.sites, in.include_dirs);
  s.decl.tunables.insert(s.decl.tunables.end(), rewrites.tunables.begin(), rewrites.tunables.end());
  s.summary.insert(s.summary.end(), rewrites.summary.begin(), rewrites.summary.end());
  s.text = rewrites.text;
  return s;
}

void keep_tunables(SpaceDecl& decl, const std::vector<std::string>& kept) {
  const std::set<std::string> names(kept.begin(), kept.end());
  std::vector<Tunable> tunables;
  for (const Tunable& t : decl.tunables)
    if (names.count(t.name)) tunables.push_back(t);
  decl.tunables = std::move(tunables);
  std::vector<Constraint> constraints;
  for (const Constraint& c : decl.constraints)
    if (std::all_of(c.names().begin(), c.names().end(), [&](const std::string& n) { return names.count(n) > 0; }))
      constraints.push_back(c);
  decl.constraints = std::move(constraints);
}

}  // namespace kernelblaster::tuner
