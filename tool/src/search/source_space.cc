#include "search/source_space.h"

#include "search/directives.h"
#include "search/discovery.h"
#include "search/manifest_space.h"

namespace kernelblaster::search {

SourceSpace source_space(const SourceSpaceInput& in) {
  SourceSpace s;
  s.decl = parse_directives(in.text, in.source, in.arch);
  if (!in.manifest.empty()) add_manifest_space(s.decl, in.manifest, in.text, in.source, in.definitions);
  s.launch = add_launch_tunables(s.decl, in.text, in.source, in.include_dirs);
  for (const FoundTunable& t : s.launch.tunables)
    s.summary.push_back(t.written_as + " (" + t.kind + ", line " + std::to_string(t.line) + ")");
  Discovery discovered = add_discovered_space(s.decl, s.launch.text, in.source);
  s.summary.insert(s.summary.end(), discovered.summary.begin(), discovered.summary.end());
  PreparedSource prepared = prepare_literal_blocks(s.launch.text, in.source, s.decl);
  s.decl.tunables.insert(s.decl.tunables.end(), prepared.tunables.begin(), prepared.tunables.end());
  s.summary.insert(s.summary.end(), prepared.summary.begin(), prepared.summary.end());
  s.text = prepared.text;
  return s;
}

void keep_flags_only(SpaceDecl& decl) {
  decl.tunables.clear();
  decl.constraints.clear();
}

}  // namespace kernelblaster::search
