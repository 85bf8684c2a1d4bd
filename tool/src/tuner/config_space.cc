#include "tuner/config_space.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "tuner/flag_space.h"

namespace kernelblaster::tuner {
namespace {

bool parse_integer(const std::string& s, long long* out) {
  if (s.empty()) return false;
  std::size_t used = 0;
  try {
    *out = std::stoll(s, &used, 0);  // 0x.. and 0.. as C reads them
  } catch (const std::exception&) {
    return false;  // not an integer: the caller treats the value as a token
  }
  return used == s.size();
}

// Integer values of the tunables the constraints read, per value index.
std::vector<std::vector<long long>> integer_values(const SpaceDecl& decl) {
  std::set<std::string> read;
  for (const Constraint& c : decl.constraints) read.insert(c.names().begin(), c.names().end());
  std::vector<std::vector<long long>> out(decl.tunables.size());
  for (std::size_t t = 0; t < decl.tunables.size(); ++t) {
    const Tunable& tu = decl.tunables[t];
    for (const std::string& v : tu.values) {
      long long x = 0;
      if (!parse_integer(v, &x) && read.count(tu.name))
        throw SpaceError(tu.origin + ": a constraint reads " + tu.name + ", but its value '" + v +
                         "' is not an integer");
      out[t].push_back(x);
    }
  }
  return out;
}

}  // namespace

Configuration make_configuration(const std::vector<Tunable>& tunables, const std::map<std::string, std::string>& values,
                                 const std::vector<std::string>& flags) {
  Configuration c;
  std::set<std::string> groups;  // of the tunables it changes
  bool ungrouped = false;        // it changes an ungrouped tunable or a flag
  for (const Tunable& t : tunables) {
    auto it = values.find(t.name);
    std::string v = it == values.end() ? t.default_value : it->second;
    c.values[t.name] = v;
    if (v != t.default_value) {
      c.settings.push_back({t.name, v, t.technique, false});
      if (t.group.empty()) ungrouped = true;
      else groups.insert(t.group);
    }
  }
  for (const std::string& f : flags) {
    if (f.empty()) continue;
    c.flags.push_back(f);
    c.settings.push_back({flag_technique(f), f, flag_technique(f), true});
    ungrouped = true;
  }
  if (!groups.empty()) c.part = groups.size() == 1 && !ungrouped ? *groups.begin() : std::string(kMixedPart);
  for (const Setting& s : c.settings) c.id += (c.id.empty() ? "" : ",") + s.key();
  if (c.id.empty()) c.id = "default";
  return c;
}


namespace {

// One part of the space: the tunables it varies (every other at its
// default) and every flag dimension. Without groups the space is one part
// that varies every tunable; with groups, the ungrouped tunables vary in
// every part and each group varies in its own part only, where it is off
// its defaults (the part with every group at its defaults comes first).
struct Part {
  std::vector<std::size_t> tunables;  // indexes into decl.tunables
  std::string group;                  // "" for the first part
};

std::vector<Part> parts_of(const SpaceDecl& decl) {
  std::vector<std::string> groups;
  Part base;
  for (std::size_t t = 0; t < decl.tunables.size(); ++t) {
    const std::string& g = decl.tunables[t].group;
    if (g.empty()) base.tunables.push_back(t);
    else if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
  }
  std::vector<Part> out = {base};
  for (const std::string& g : groups) {
    Part p = base;
    p.group = g;
    for (std::size_t t = 0; t < decl.tunables.size(); ++t)
      if (decl.tunables[t].group == g) p.tunables.push_back(t);
    std::sort(p.tunables.begin(), p.tunables.end());
    out.push_back(p);
  }
  return out;
}

std::size_t default_digit(const Tunable& t) {
  std::size_t digit = 0;
  while (digit < t.values.size() && t.values[digit] != t.default_value) ++digit;
  return digit < t.values.size() ? digit : 0;
}

// One valid configuration: its part, its number among the part's tunable
// combinations, and its flag combination.
struct Point {
  std::size_t part, index, flag;
};

// The space walked part by part, depth first.
class Walk {
 public:
  Walk(const SpaceDecl& decl, const std::vector<FlagDimension>& flags)
      : m_decl(decl), m_flags(flags), m_parts(parts_of(decl)), m_ints(integer_values(decl)) {
    for (const Tunable& t : decl.tunables) m_defaults.push_back(default_digit(t));
    for (std::size_t t = 0; t < decl.tunables.size(); ++t) m_env[decl.tunables[t].name] = m_ints[t][m_defaults[t]];
  }

  // The raw combinations, flags included; throws SpaceError for a part too large to walk.
  std::size_t count_combinations() {
    for (const Tunable& t : m_decl.tunables)
      if (t.values.empty()) throw SpaceError("a dimension of the space has no values");
    for (const FlagDimension& f : m_flags) {
      if (f.values.empty()) throw SpaceError("a dimension of the space has no values");
      if (m_flag_combinations > kMaxCombinations / f.values.size()) throw SpaceError("too many flag combinations");
      m_flag_combinations *= f.values.size();
    }
    std::size_t total = 0;
    for (const Part& p : m_parts) {
      std::size_t n = 1;
      for (std::size_t t : p.tunables) {
        const std::size_t r = m_decl.tunables[t].values.size();
        n = n > kMaxCombinations / r ? kMaxCombinations + 1 : n * r;
      }
      if (n > kMaxCombinations)
        throw SpaceError("the space has more than " + std::to_string(kMaxCombinations) +
                         " combinations of tunable values" + (p.group.empty() ? "" : " in group " + p.group) +
                         "; declare fewer values");
      total += n * m_flag_combinations;
    }
    return total;
  }

  // Every valid point but the original, in enumeration order; `valid`
  // counts the original too.
  std::vector<Point> valid_points(std::size_t* valid) {
    std::vector<Point> out;
    for (std::size_t p = 0; p < m_parts.size(); ++p) {
      m_levels = constraint_levels(m_parts[p]);
      m_digits = m_defaults;
      if (holds(0)) walk(p, 0, 0, out, valid);
    }
    return out;
  }

  // Each part gets an equal share of the cap (a part smaller than its share
  // keeps all of it, and the rest is shared again), evenly strided within
  // it: a group of five configurations is not thinned away because another
  // has thousands.
  std::vector<Point> thin(const std::vector<Point>& points, std::size_t cap) const {
    std::vector<std::size_t> begin(m_parts.size() + 1, 0), quota(m_parts.size(), 0);
    for (const Point& pt : points) ++begin[pt.part + 1];
    for (std::size_t p = 0; p < m_parts.size(); ++p) begin[p + 1] += begin[p];
    std::size_t left = cap, open = 0;
    for (std::size_t p = 0; p < m_parts.size(); ++p) open += begin[p + 1] > begin[p];
    while (left > 0 && open > 0) {
      const std::size_t share = std::max<std::size_t>(1, left / open);
      open = 0;
      for (std::size_t p = 0; p < m_parts.size() && left > 0; ++p) {
        const std::size_t more = std::min({share, begin[p + 1] - begin[p] - quota[p], left});
        quota[p] += more;
        left -= more;
        open += quota[p] < begin[p + 1] - begin[p];
      }
    }
    std::vector<Point> out;
    for (std::size_t p = 0; p < m_parts.size(); ++p) {
      const std::size_t n = begin[p + 1] - begin[p];
      for (std::size_t k = 0; k < quota[p]; ++k) out.push_back(points[begin[p] + k * n / quota[p]]);
    }
    return out;
  }

  // How many settings `pt` changes from the original: tunables off their
  // default and flag dimensions set.
  std::size_t steps(const Point& pt) const {
    std::size_t n = 0, index = pt.index, flag_index = pt.flag;
    const Part& part = m_parts[pt.part];
    for (std::size_t k = part.tunables.size(); k-- > 0;) {
      const std::size_t t = part.tunables[k], r = m_decl.tunables[t].values.size();
      n += index % r != m_defaults[t];
      index /= r;
    }
    for (std::size_t f = m_flags.size(); f-- > 0;) {
      n += flag_index % m_flags[f].values.size() != 0;
      flag_index /= m_flags[f].values.size();
    }
    return n;
  }

  Configuration configuration(const Point& pt) const {
    std::vector<std::size_t> d = m_defaults;
    std::size_t index = pt.index;
    const Part& part = m_parts[pt.part];
    for (std::size_t k = part.tunables.size(); k-- > 0;) {
      const std::size_t t = part.tunables[k];
      d[t] = index % m_decl.tunables[t].values.size();
      index /= m_decl.tunables[t].values.size();
    }
    std::map<std::string, std::string> values;
    std::vector<std::string> fl(m_flags.size());
    for (std::size_t t = 0; t < m_decl.tunables.size(); ++t) values[m_decl.tunables[t].name] = m_decl.tunables[t].values[d[t]];
    std::size_t flag_index = pt.flag;
    for (std::size_t f = m_flags.size(); f-- > 0;) {
      fl[f] = m_flags[f].values[flag_index % m_flags[f].values.size()];
      flag_index /= m_flags[f].values.size();
    }
    Configuration c = make_configuration(m_decl.tunables, values, fl);
    // The flag's dimension and technique come from the declaration, not the guess.
    for (Setting& s : c.settings)
      if (s.flag)
        for (const FlagDimension& fd : m_flags)
          for (const std::string& v : fd.values)
            if (v == s.value) {
              s.name = fd.name;
              s.technique = fd.technique;
            }
    return c;
  }

 private:
  // Each constraint at the depth where the part has given every name it
  // reads a value (0: it reads none of the part's), so a refused prefix is
  // never expanded.
  std::vector<std::vector<const Constraint*>> constraint_levels(const Part& p) const {
    std::vector<std::vector<const Constraint*>> at(p.tunables.size() + 1);
    for (const Constraint& c : m_decl.constraints) {
      std::size_t level = 0;
      for (std::size_t k = 0; k < p.tunables.size(); ++k)
        if (c.names().count(m_decl.tunables[p.tunables[k]].name)) level = k + 1;
      at[level].push_back(&c);
    }
    return at;
  }

  bool holds(std::size_t level) const {
    for (const Constraint* c : m_levels[level])
      if (!c->holds(m_env)) return false;
    return true;
  }

  // In a group's part, at least one of the group's tunables is off its default.
  bool off_defaults(const Part& p) const {
    if (p.group.empty()) return true;
    for (std::size_t t : p.tunables)
      if (m_decl.tunables[t].group == p.group && m_digits[t] != m_defaults[t]) return true;
    return false;
  }

  // Depth k: the part's first k tunables have values; `index` numbers them.
  void walk(std::size_t p, std::size_t k, std::size_t index, std::vector<Point>& out, std::size_t* valid) {
    const Part& part = m_parts[p];
    if (k == part.tunables.size()) {
      if (!off_defaults(part)) return;
      const bool at_defaults = m_digits == m_defaults;
      for (std::size_t f = 0; f < m_flag_combinations; ++f) {
        ++*valid;
        if (!(at_defaults && f == 0)) out.push_back({p, index, f});
      }
      return;
    }
    const std::size_t t = part.tunables[k];
    const std::size_t r = m_decl.tunables[t].values.size();
    for (std::size_t v = 0; v < r; ++v) {
      m_digits[t] = v;
      m_env[m_decl.tunables[t].name] = m_ints[t][v];
      if (holds(k + 1)) walk(p, k + 1, index * r + v, out, valid);
    }
    m_digits[t] = m_defaults[t];
    m_env[m_decl.tunables[t].name] = m_ints[t][m_defaults[t]];
  }

  const SpaceDecl& m_decl;
  const std::vector<FlagDimension>& m_flags;
  const std::vector<Part> m_parts;
  const std::vector<std::vector<long long>> m_ints;
  std::vector<std::size_t> m_defaults, m_digits;
  std::map<std::string, long long> m_env;
  std::vector<std::vector<const Constraint*>> m_levels;
  std::size_t m_flag_combinations = 1;
};

}  // namespace

ConfigSpace enumerate_space(const SpaceDecl& decl, const std::vector<FlagDimension>& flags, std::size_t cap) {
  ConfigSpace space;
  Walk walk(decl, flags);
  space.combinations = walk.count_combinations();
  std::vector<Point> candidates = walk.valid_points(&space.valid);
  space.original = make_configuration(decl.tunables, {}, {});
  if (cap > 0 && candidates.size() > cap) {
    // The original's neighbourhood (up to kNearSteps settings changed) is
    // kept whole where it fits in half the cap: an author's hand-tuned
    // settings are where a search starts (policy/guided_search.h), and an
    // even stride would keep few of their neighbours. The rest is thinned.
    std::vector<Point> near, far;
    for (std::size_t limit = kNearSteps; limit > 0; --limit) {
      near.clear(), far.clear();
      for (const Point& pt : candidates) (walk.steps(pt) <= limit ? near : far).push_back(pt);
      space.near_steps = limit;
      if (near.size() <= cap / 2) break;
    }
    if (near.size() > cap / 2) near.clear(), far = candidates, space.near_steps = 0;
    space.near = near.size();
    candidates = walk.thin(far, cap - near.size());
    candidates.insert(candidates.begin(), near.begin(), near.end());
    space.capped = true;
  }
  for (const Point& pt : candidates) space.configs.push_back(walk.configuration(pt));
  return space;
}

}  // namespace kernelblaster::tuner
