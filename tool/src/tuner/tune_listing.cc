#include "tuner/tune_listing.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "tuner/config_space.h"
#include "tuner/harness_space.h"

namespace kernelblaster::tuner {
namespace {

// The tunables of `group` and the constraints that read only them.
SpaceDecl group_decl(const SpaceDecl& decl, const std::string& group) {
  SpaceDecl out;
  std::set<std::string> names;
  for (const Tunable& t : decl.tunables)
    if (t.group == group) {
      Tunable copy = t;
      copy.group.clear();
      out.tunables.push_back(copy);
      names.insert(t.name);
    }
  for (const Constraint& c : decl.constraints) {
    bool ours = !c.names().empty();
    for (const std::string& n : c.names()) ours = ours && names.count(n) > 0;
    if (ours) out.constraints.push_back(c);
  }
  return out;
}

std::string values_text(const Tunable& t) {
  std::string out;
  for (const std::string& v : t.values) out += (out.empty() ? "" : " ") + v;
  return out;
}

const FoundTunable* found_as(const TuneListing& l, const std::string& name) {
  for (const FoundTunable& f : l.space.launch.tunables)
    if (f.tunable.name == name) return &f;
  return nullptr;
}

// "line 12", or "FDTD3dGPU.h line 12" for a tunable defined in a header.
std::string where(const Tunable& t, const FoundTunable* f, const std::string& source) {
  const std::size_t open = t.origin.find(" (");
  std::string at = t.origin.substr(0, open);
  const std::size_t colon = at.rfind(':');
  if (colon == std::string::npos) return at;
  // A header's: the found tunable says which; a discovered macro's origin is the header's path.
  std::string header = f ? f->header : "";
  if (!f && at.substr(0, colon) != source) header = at.substr(0, colon);
  const std::string in = header.empty() ? "" : std::filesystem::path(header).filename().string() + " ";
  return in + "line " + at.substr(colon + 1);
}

std::string tunable_line(const TuneListing& l, const Tunable& t) {
  const FoundTunable* f = found_as(l, t.name);
  const std::size_t open = t.origin.find(" (");
  std::string what = f ? f->kind + " " + f->written_as : open == std::string::npos ? "declared" : t.origin.substr(open + 2);
  if (!f && !what.empty() && what.back() == ')') what.pop_back();
  std::string line = "    " + t.name + " = " + t.default_value + "  [" + what + ", " + where(t, f, l.source) + "]  values: " +
                     values_text(t);
  return line;
}

}  // namespace

TuneListing list_tunables(const SourceSpaceInput& in, const std::string& harness_text, bool partial) {
  TuneListing l;
  l.source = in.source;
  l.space = source_space(in);
  if (!harness_text.empty()) {
    const HarnessSpace hs = harness_space(harness_text, l.space, in.text, in.source, in.include_dirs, l.space.decl, partial);
    l.left = hs.left;
    l.harness_lines = hs.lines;
    l.edges = boundary_shapes(harness_text, in.text);
  }
  std::vector<std::string> order = {""};
  for (const Tunable& t : l.space.decl.tunables)
    if (std::find(order.begin(), order.end(), t.group) == order.end()) order.push_back(t.group);
  for (const std::string& g : order) {
    GroupCount c;
    c.group = g;
    SpaceDecl sub = group_decl(l.space.decl, g);
    for (const Tunable& t : sub.tunables) c.tunables.push_back(t.name);
    if (c.tunables.empty()) continue;
    try {
      ConfigSpace s = enumerate_space(sub, {}, 1);
      c.combinations = s.combinations;
      c.valid = s.valid;
    } catch (const std::exception& e) {
      c.error = e.what();
    }
    l.groups.push_back(c);
  }
  try {
    l.valid = enumerate_space(l.space.decl, {}, 1).valid;
  } catch (const std::exception& e) {
    l.error = e.what();
  }
  return l;
}

std::string listing_text(const TuneListing& l) {
  const std::string name = std::filesystem::path(l.source).filename().string();
  std::string out = name + ": " + std::to_string(l.space.decl.tunables.size()) + " tunables, " +
                    std::to_string(l.space.launch.sites.size()) + " launch sites\n";
  std::set<std::string> shown;
  for (const LaunchSite& s : l.space.launch.sites) {
    out += "  " + (s.function.empty() ? std::string("file scope") : s.function) + ", line " +
           std::to_string(s.line) + ": " + (s.kernel.empty() ? "?" : s.kernel) + "<<<...>>>  (group " + s.group +
           ")\n";
    if (s.tunables.empty()) out += "    no tunables\n";
    for (const std::string& n : s.tunables) {
      for (const Tunable& t : l.space.decl.tunables)
        if (t.name == n) {
          out += tunable_line(l, t) + "\n";
          shown.insert(n);
        }
      if (std::find(l.left.begin(), l.left.end(), n) != l.left.end()) out += "    " + n + "  left as written (the harness, below)\n";
    }
    for (const std::string& c : s.constraints) out += "    constraint: " + c + "\n";
  }
  std::string others;
  for (const Tunable& t : l.space.decl.tunables)
    if (!shown.count(t.name)) others += tunable_line(l, t) + "\n";
  if (!others.empty()) out += "  other tunables (directives, the manifest, #ifndef macros, literal block sizes):\n" + others;
  for (const GroupCount& g : l.groups)
    out += "  space of " + (g.group.empty() ? std::string("the ungrouped tunables") : "group " + g.group) + ": " +
           (g.error.empty() ? std::to_string(g.valid) + " valid of " + std::to_string(g.combinations) : g.error) + "\n";
  out += "  whole space (one group changed at a time, before flags): " +
         (l.error.empty() ? std::to_string(l.valid) + " configurations, the original included" : l.error) + "\n";
  for (const std::string& n : l.space.launch.notes) out += "  note: " + n + "\n";
  for (const std::string& n : l.harness_lines) out += "  harness: " + n + "\n";
  for (const BoundaryShape& e : l.edges) out += "  edge: " + e.label() + " (" + e.why + "): a winner is checked there\n";
  return out;
}

std::string listing_json(const TuneListing& l) {
  nlohmann::json j;
  j["source"] = l.source;
  j["sites"] = nlohmann::json::array();
  for (const LaunchSite& s : l.space.launch.sites)
    j["sites"].push_back({{"line", s.line}, {"function", s.function}, {"kernel", s.kernel}, {"group", s.group},
                          {"tunables", s.tunables}, {"constraints", s.constraints}});
  j["tunables"] = nlohmann::json::array();
  for (const Tunable& t : l.space.decl.tunables) {
    const FoundTunable* f = found_as(l, t.name);
    j["tunables"].push_back({{"name", t.name}, {"default", t.default_value}, {"values", t.values},
                             {"technique", t.technique}, {"origin", t.origin}, {"group", t.group},
                             {"kind", f ? f->kind : "macro"}, {"written_as", f ? f->written_as : t.name},
                             {"header", f ? f->header : std::string()}});
  }
  j["constraints"] = nlohmann::json::array();
  for (const Constraint& c : l.space.decl.constraints) j["constraints"].push_back(c.text());
  j["groups"] = nlohmann::json::array();
  for (const GroupCount& g : l.groups)
    j["groups"].push_back({{"group", g.group}, {"tunables", g.tunables}, {"combinations", g.combinations},
                           {"valid", g.valid}, {"error", g.error}});
  j["valid"] = l.valid;
  j["error"] = l.error;
  j["notes"] = l.space.launch.notes;
  j["left_as_written"] = l.left;
  j["harness"] = l.harness_lines;
  j["edges"] = nlohmann::json::array();
  for (const BoundaryShape& e : l.edges) j["edges"].push_back({{"label", e.label()}, {"dims", e.dims}, {"why", e.why}});
  return j.dump(2);
}

}  // namespace kernelblaster::tuner
