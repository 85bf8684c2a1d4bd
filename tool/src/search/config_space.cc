#include "search/config_space.h"

#include <cctype>
#include <set>

#include "search/flag_space.h"

namespace kernelblaster::search {
namespace {

bool parse_integer(const std::string& s, long long* out) {
  if (s.empty()) return false;
  std::size_t used = 0;
  try {
    *out = std::stoll(s, &used, 0);  // 0x.. and 0.. as C reads them
  } catch (const std::exception&) {
    return false;
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
  for (const Tunable& t : tunables) {
    auto it = values.find(t.name);
    std::string v = it == values.end() ? t.default_value : it->second;
    c.values[t.name] = v;
    if (v != t.default_value) c.settings.push_back({t.name, v, t.technique, false});
  }
  for (const std::string& f : flags) {
    if (f.empty()) continue;
    c.flags.push_back(f);
    c.settings.push_back({flag_technique(f), f, flag_technique(f), true});
  }
  for (const Setting& s : c.settings) c.id += (c.id.empty() ? "" : ",") + s.key();
  if (c.id.empty()) c.id = "default";
  return c;
}

namespace {

// The original's index in the mixed-radix numbering of the space: every
// tunable at its default, every flag off.
std::size_t index_of_original(const SpaceDecl& decl, const std::vector<std::size_t>& radix) {
  std::size_t index = 0;
  for (std::size_t k = 0; k < radix.size(); ++k) {
    std::size_t digit = 0;
    if (k < decl.tunables.size()) {
      const Tunable& t = decl.tunables[k];
      while (digit < t.values.size() && t.values[digit] != t.default_value) ++digit;
    }
    index = index * radix[k] + digit;
  }
  return index;
}

}  // namespace

ConfigSpace enumerate_space(const SpaceDecl& decl, const std::vector<FlagDimension>& flags, std::size_t cap) {
  ConfigSpace space;
  // Dimensions: tunables, then flag dimensions; radix = number of values.
  std::vector<std::size_t> radix;
  for (const Tunable& t : decl.tunables) radix.push_back(t.values.size());
  for (const FlagDimension& f : flags) radix.push_back(f.values.size());
  std::size_t total = 1;
  for (std::size_t r : radix) {
    if (r == 0) throw SpaceError("a dimension of the space has no values");
    if (total > kMaxCombinations / r)
      throw SpaceError("the space has more than " + std::to_string(kMaxCombinations) +
                       " combinations; declare fewer values");
    total *= r;
  }
  space.combinations = total;
  std::vector<std::vector<long long>> ints = integer_values(decl);

  auto digits_of = [&](std::size_t index) {
    std::vector<std::size_t> d(radix.size());
    for (std::size_t k = radix.size(); k-- > 0;) {
      d[k] = index % radix[k];
      index /= radix[k];
    }
    return d;
  };
  auto valid = [&](const std::vector<std::size_t>& d) {
    if (decl.constraints.empty()) return true;
    std::map<std::string, long long> env;
    for (std::size_t t = 0; t < decl.tunables.size(); ++t) env[decl.tunables[t].name] = ints[t][d[t]];
    for (const Constraint& c : decl.constraints)
      if (!c.holds(env)) return false;
    return true;
  };
  auto build = [&](const std::vector<std::size_t>& d) {
    std::map<std::string, std::string> values;
    std::vector<std::string> fl;
    for (std::size_t t = 0; t < decl.tunables.size(); ++t) values[decl.tunables[t].name] = decl.tunables[t].values[d[t]];
    for (std::size_t f = 0; f < flags.size(); ++f) fl.push_back(flags[f].values[d[decl.tunables.size() + f]]);
    Configuration c = make_configuration(decl.tunables, values, fl);
    // The flag's dimension and technique come from the declaration, not the guess.
    for (Setting& s : c.settings)
      if (s.flag)
        for (const FlagDimension& fd : flags)
          for (const std::string& v : fd.values)
            if (v == s.value) {
              s.name = fd.name;
              s.technique = fd.technique;
            }
    return c;
  };

  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < total; ++i) {
    auto d = digits_of(i);
    if (!valid(d)) continue;
    kept.push_back(i);
  }
  space.valid = kept.size();
  space.original = make_configuration(decl.tunables, {}, {});
  const std::size_t original_index = index_of_original(decl, radix);
  std::vector<std::size_t> candidates;
  for (std::size_t i : kept)
    if (i != original_index) candidates.push_back(i);
  if (cap > 0 && candidates.size() > cap) {
    std::vector<std::size_t> thinned;
    for (std::size_t k = 0; k < cap; ++k) thinned.push_back(candidates[k * candidates.size() / cap]);
    candidates.swap(thinned);
    space.capped = true;
  }
  for (std::size_t i : candidates) space.configs.push_back(build(digits_of(i)));
  return space;
}

}  // namespace kernelblaster::search
