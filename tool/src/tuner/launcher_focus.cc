#include "tuner/launcher_focus.h"

#include <set>

#include "common/launcher_mask.h"

namespace kernelblaster::tuner {

LauncherFocus launcher_focus(const std::vector<std::string>& launchers, const std::vector<LaunchSite>& sites,
                             const std::vector<Tunable>& tunables) {
  LauncherFocus f;
  f.launchers = launchers;
  for (const Tunable& t : tunables) f.group_of[t.name] = t.group;
  if (launchers.size() < 2) return f;
  const std::uint64_t all = launchers.size() >= static_cast<std::size_t>(kMaskedLaunchers) ? ~0ull : (1ull << launchers.size()) - 1;
  std::map<std::string, std::uint64_t> masks;
  std::set<std::string> whole;  // groups with a site outside every named launcher
  for (const LaunchSite& s : sites) {
    if (s.group.empty()) continue;
    int bit = -1;
    for (std::size_t k = 0; k < launchers.size() && k < static_cast<std::size_t>(kMaskedLaunchers); ++k)
      if (launchers[k] == s.function) bit = static_cast<int>(k);
    if (bit < 0) whole.insert(s.group);
    else masks[s.group] |= 1ull << bit;
  }
  for (const auto& [group, mask] : masks)
    if (!whole.count(group) && (mask & all) != all) f.group_masks[group] = mask;
  return f;
}

std::string LauncherFocus::group(const Configuration& c) const {
  std::string found;
  for (const Setting& s : c.settings) {
    if (s.flag) continue;
    auto it = group_of.find(s.name);
    const std::string g = it == group_of.end() ? "" : it->second;
    if (g.empty() || !group_masks.count(g) || (!found.empty() && g != found)) return "";
    found = g;
  }
  return found;
}

std::uint64_t LauncherFocus::mask(const Configuration& c) const {
  const std::string g = group(c);
  return g.empty() ? 0 : group_masks.at(g);
}

std::string LauncherFocus::names(std::uint64_t mask) const {
  std::string out;
  for (std::size_t k = 0; k < launchers.size() && k < static_cast<std::size_t>(kMaskedLaunchers); ++k)
    if ((mask >> k) & 1) out += (out.empty() ? "" : " ") + launchers[k];
  return out;
}

}  // namespace kernelblaster::tuner
