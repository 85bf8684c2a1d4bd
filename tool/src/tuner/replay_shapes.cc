#include "tuner/replay_shapes.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/kernel_replay.h"
#include "common/source_lines.h"
#include "common/source_text.h"
#include "recorder/kernel_signature.h"
#include "tuner/constraint.h"
#include "tuner/harness_reading.h"
#include "tuner/launch_reading.h"

namespace kernelblaster::tuner {
namespace {

using namespace reading;
constexpr std::size_t npos = std::string::npos;

// The launcher's parameters that carry the launch's shape, in the order a
// shape's expressions are kept.
constexpr const char* kShapeParams[7] = {"grid_x",  "grid_y",  "grid_z",      "block_x",
                                         "block_y", "block_z", "shared_bytes"};

// A launcher the harness defines for a recorded kernel.
struct Replayed {
  std::string launcher;                     // k_copy
  std::string kernel;                       // the kernel's name, as a launch names it
  std::vector<std::string> params;          // p0 .., grid_x .. shared_bytes
  std::size_t anchor = npos;                // where the lines of its shape go
  std::map<std::string, std::string> dims;  // parameter -> the harness dimension main() passes to it
};

// A launch's shape as expressions of tunables and of the launcher's
// parameters (the values the launch passes to the kernel).
struct Shape {
  int line = 0;
  std::vector<std::string> exprs;  // kShapeParams' order
};

std::string last_identifier(const std::string& declaration) {
  const std::vector<std::string> ids = identifiers(declaration);
  return ids.empty() ? "" : ids.back();
}

// The launchers a kernel-replay harness defines (harness/kernel_capture.cc writes them).
std::vector<Replayed> replayed_launchers(const std::string& h) {
  std::vector<Replayed> out;
  const std::string note = kReplayedLauncherNote;
  for (std::size_t at = h.find(note); at != npos; at = h.find(note, at + note.size())) {
    const std::size_t line = h.rfind('\n', at) + 1;
    if (h.compare(line, 3, "// ") != 0) continue;
    const recorder::KernelSignature sig = recorder::read_signature(h.substr(line + 3, at - line - 3));
    const std::size_t def = h.find('\n', at) + 1;
    if (!sig.ok || h.compare(def, 5, "void ") != 0) continue;
    Replayed r;
    r.kernel = sig.base_name;
    const std::size_t open = h.find('(', def);
    const std::size_t close = open == npos ? npos : matching(h, open, '(', ')');
    if (close == npos) continue;
    r.launcher = trim_all(h.substr(def + 5, open - def - 5));
    for (const std::string& p : split_top(h.substr(open + 1, close - open - 1), ',')) r.params.push_back(last_identifier(p));
    r.anchor = h.find(kLaunchShapeAnchor, close);
    if (r.anchor == npos || r.anchor > h.find("\n}\n", close)) continue;
    const std::vector<std::string> dims = passed_dims(h, r.launcher);
    for (std::size_t i = 0; i < dims.size() && i < r.params.size(); ++i)
      if (!dims[i].empty()) r.dims[r.params[i]] = dims[i];
    out.push_back(r);
  }
  return out;
}

class Reshaper {
 public:
  Reshaper(const std::string& harness, const std::string& text, const std::string& file, const LaunchTunables& found,
           const std::vector<std::string>& include_dirs)
      : m_harness(harness), m_file(file), m_found(found),
        m_code(without_preprocessor_lines(code_only(text))) {
    m_blocks = blocks_of(m_code);
    m_launches = read_launches(m_code, text, m_blocks, found.sites);
    for (const std::string& h : included_texts(text, std::filesystem::path(file).parent_path(), include_dirs))
      add_known_constants(h, &m_known);
    add_known_constants(text, &m_known);
    for (const FoundTunable& t : found.tunables) {
      m_defaults[t.tunable.name] = std::stoll(t.tunable.default_value);
      if (t.kind == "define") m_known.erase(t.written_as);
    }
    for (const Block& b : m_blocks)
      if (b.function && b.device) m_device_functions.insert(b.name);
    m_sizes = harness_sizes(harness);
  }

  ReplayShapes run() {
    for (Replayed& r : replayed_launchers(m_harness)) reshape(r);
    if (m_shaped.empty()) return finish();
    choose_tunables();
    return finish();
  }

 private:
  struct Shaped {
    Replayed launcher;
    Shape shape;
    std::vector<std::size_t> sites;  // into m_launches
  };

  // The launches that may be `r`'s: those naming its kernel, else those
  // through a name that is no function of the source (a kernel pointer).
  std::vector<std::size_t> sites_of(const Replayed& r) const {
    std::vector<std::size_t> named, through_pointer;
    for (std::size_t i = 0; i < m_launches.size(); ++i) {
      const std::string& k = m_launches[i].site.kernel;
      if (k == r.kernel) named.push_back(i);
      else if (is_identifier(k) && !m_device_functions.count(k)) through_pointer.push_back(i);
    }
    return named.empty() ? through_pointer : named;
  }

  // The names a launch's expressions may use, each to its replacement, and
  // the names that may remain (tunables and the launcher's parameters).
  std::map<std::string, std::string> environment(const LaunchRead& l, const Replayed& r,
                                                 std::set<std::string>* allowed) const {
    std::map<std::string, std::string> env = m_known;
    for (const FoundTunable& t : m_found.tunables) {
      allowed->insert(t.tunable.name);
      if (t.kind == "constant" && std::count(l.site.tunables.begin(), l.site.tunables.end(), t.tunable.name))
        env[t.written_as] = t.tunable.name;
    }
    const std::vector<std::string> args = call_arguments(m_code, l);
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string param = "p" + std::to_string(i);
      if (is_identifier(args[i]) && r.dims.count(param)) {
        env[args[i]] = param;
        allowed->insert(param);
      }
    }
    add_derived(m_code.substr(l.region.begin, l.region.end - l.region.begin), &env);
    return env;
  }

  // `expr` as an expression of the allowed names: locals set once before
  // the launch are followed (three deep); "" when a name stays unknown.
  std::string resolved(const std::string& expr, const LaunchRead& l, std::map<std::string, std::string>& env,
                       const std::set<std::string>& allowed) const {
    return resolved_names(with_dim3_members(expr, l), l, env, allowed);
  }

  // `block.x` where `dim3 block(TILE, ROWS)` is set once before the launch:
  // its dimension, `(TILE)` (`.y` and `.z` past those written are 1). The
  // idiom `dim3 grid((n + block.x - 1) / block.x)` reads its block so.
  std::string with_dim3_members(const std::string& expr, const LaunchRead& l) const {
    std::string out;
    std::size_t i = 0;
    while (i < expr.size()) {
      if (!is_identifier_char(expr[i]) || (i > 0 && is_identifier_char(expr[i - 1]))) {
        out += expr[i++];
        continue;
      }
      std::size_t e = i;
      while (e < expr.size() && is_identifier_char(expr[e])) ++e;
      const std::string name = expr.substr(i, e - i);
      std::size_t dot = expr.find_first_not_of(" \t", e);
      std::size_t axis = dot == std::string::npos || expr[dot] != '.' ? std::string::npos
                                                                       : expr.find_first_not_of(" \t", dot + 1);
      const bool member = axis != std::string::npos && std::string("xyz").find(expr[axis]) != std::string::npos &&
                          (axis + 1 == expr.size() || !is_identifier_char(expr[axis + 1])) &&
                          !std::isdigit(static_cast<unsigned char>(name[0]));
      const std::vector<std::string> sets = member ? settings_in(m_code, l.region, name) : std::vector<std::string>{};
      const std::vector<std::string> dims = sets.size() == 1 ? split_top(sets.front(), ',') : std::vector<std::string>{};
      if (dims.empty() || dims.size() > 3) {
        out += name;
        i = e;
        continue;
      }
      const std::size_t k = static_cast<std::size_t>(expr[axis] - 'x');
      out += k < dims.size() ? "(" + trim_all(dims[k]) + ")" : "1";
      i = axis + 1;
    }
    return out;
  }

  std::string resolved_names(const std::string& expr, const LaunchRead& l, std::map<std::string, std::string>& env,
                             const std::set<std::string>& allowed) const {
    std::string text = expr;
    for (int depth = 0; depth < 3; ++depth) {
      bool more = false;
      for (const std::string& id : identifiers(text)) {
        if (env.count(id) || allowed.count(id)) continue;
        const std::vector<std::string> sets = settings_in(m_code, l.region, id);
        if (sets.size() != 1) continue;
        env[id] = "(" + trim_all(sets.front()) + ")";
        text += " ; " + sets.front();
        more = true;
      }
      if (!more) break;
    }
    return folded(expr, env, allowed);
  }

  // Why `expr` could not be resolved: the first name it reads that is
  // neither a constant, a tunable, a value passed to the kernel nor a local
  // set once before the launch.
  std::string unknown_name(const std::string& expr, const LaunchRead& l, std::map<std::string, std::string> env,
                           const std::set<std::string>& allowed) const {
    for (const std::string& id : identifiers(with_dim3_members(expr, l))) {
      if (env.count(id) || allowed.count(id)) continue;
      const std::size_t sets = settings_in(m_code, l.region, id).size();
      if (sets > 1) return "reads `" + id + "`, set more than once before the launch (the program's input may change it)";
      if (sets == 0) return "reads `" + id + "`, neither a value the launch passes to the kernel nor an integer constant";
      if (resolved(id, l, env, allowed).empty()) return "reads `" + id + "`, which reads a value not known here";
    }
    return "reads a value the launch does not pass to the kernel";
  }

  bool shape_of(const LaunchRead& l, const Replayed& r, Shape* out, std::string* why) const {
    std::set<std::string> allowed;
    std::map<std::string, std::string> env = environment(l, r, &allowed);
    for (const FoundTunable& t : m_found.tunables)
      if (t.kind == "template argument" && std::count(l.site.tunables.begin(), l.site.tunables.end(), t.tunable.name))
        return *why = "its template argument " + t.written_as + " is tuned (another kernel)", false;
    if (l.templ.end > l.templ.begin) {
      const std::string targs = m_code.substr(l.templ.begin, l.templ.end - l.templ.begin);
      for (const std::string& id : identifiers(resolved(targs, l, env, allowed)))
        if (m_defaults.count(id)) return *why = "its template arguments read " + id + " (another kernel)", false;
    }
    std::vector<std::string> grid = launch_dimensions(m_code, l, 0), block = launch_dimensions(m_code, l, 1);
    if (grid.empty() || grid.size() > 3 || block.empty() || block.size() > 3)
      return *why = "its grid or block is not read", false;
    grid.resize(3, "1");
    block.resize(3, "1");
    std::vector<std::string> written = grid;
    written.insert(written.end(), block.begin(), block.end());
    written.push_back(l.args.size() > 2 ? trim_all(m_code.substr(l.args[2].begin, l.args[2].end - l.args[2].begin)) : "0");
    out->line = l.site.line;
    for (const std::string& w : written) {
      const std::string e = resolved(w, l, env, allowed);
      if (e.empty()) return *why = "`" + trim_all(w) + "` " + unknown_name(w, l, env, allowed), false;
      out->exprs.push_back(trim_all(e));
    }
    return true;
  }

  // The shape's expressions, with the original's values, give every
  // recorded call's grid, block and shared bytes.
  bool matches_records(const Replayed& r, const Shape& s, std::string* why) const {
    int checked = 0;
    for (const std::map<std::string, long long>& size : m_sizes) {
      std::map<std::string, long long> values = m_defaults;
      bool complete = true;
      for (const auto& [param, dim] : r.dims) {
        const auto v = size.find(dim);
        complete = complete && v != size.end();
        if (v != size.end()) values[param] = v->second;
      }
      if (!complete) continue;
      for (std::size_t d = 0; d < 7; ++d) {
        const auto recorded = values.find(kShapeParams[d]);
        if (recorded == values.end()) return *why = "the harness passes it no " + std::string(kShapeParams[d]), false;
        bool holds = false;
        try {
          holds = Constraint("(" + s.exprs[d] + ") == " + std::to_string(recorded->second)).holds(values);
        } catch (const std::exception&) {  // a number out of range, an expression it cannot read: no match
        }
        if (!holds)
          return *why = std::string(kShapeParams[d]) + " = " + s.exprs[d] + " is not the recorded " +
                        std::to_string(recorded->second),
                 false;
      }
      ++checked;
    }
    if (checked == 0) return *why = "no recorded call to check its shape against", false;
    return true;
  }

  void reshape(const Replayed& r) {
    const std::vector<std::size_t> sites = sites_of(r);
    std::string why = sites.empty() ? "no launch of it in " + std::filesystem::path(m_file).filename().string() : "";
    Shaped s{r, {}, sites};
    for (std::size_t i : sites) {
      Shape one;
      if (!shape_of(m_launches[i], r, &one, &why)) break;
      if (!s.shape.exprs.empty() && one.exprs != s.shape.exprs) {
        why = "launched at lines " + std::to_string(s.shape.line) + " and " + std::to_string(one.line) +
              " with different shapes";
        break;
      }
      if (s.shape.exprs.empty()) s.shape = one;
    }
    if (why.empty()) matches_records(r, s.shape, &why);
    if (!why.empty()) {
      m_notes.push_back(r.kernel + " keeps its recorded shape: " + why);
      return;
    }
    for (std::size_t i : sites) m_shaped_sites.insert(i);
    m_shaped.push_back(std::move(s));
  }

  // Why the tunable cannot be searched through this harness; "" when it can.
  std::string unfollowed(const FoundTunable& t) const {
    for (std::size_t i = 0; i < m_launches.size(); ++i) {
      const LaunchRead& l = m_launches[i];
      if (!std::count(l.site.tunables.begin(), l.site.tunables.end(), t.tunable.name)) continue;
      if (!m_shaped_sites.count(i)) return "it also shapes the launch at line " + std::to_string(l.site.line) + ", which the harness does not reshape";
      std::string passed;
      for (const std::string& a : call_arguments(m_code, l)) {
        passed += " ; " + a;
        for (const std::string& id : identifiers(a))
          for (const std::string& s : settings_in(m_code, l.region, id)) passed += " ; " + s;
      }
      if (mentions(passed, t.written_as) || mentions(passed, t.tunable.name))
        return "the launch at line " + std::to_string(l.site.line) + " passes a value it sets to the kernel";
    }
    if (t.kind != "define") return "";
    std::set<std::string> recorded;
    for (const Shaped& s : m_shaped) recorded.insert(s.launcher.kernel);
    for (const Block& b : m_blocks) {
      if (!b.function || !b.device || recorded.count(b.name)) continue;
      const std::size_t head = m_code.find_last_of(";}", b.span.begin);
      const bool global = mentions(m_code.substr(head == npos ? 0 : head, b.span.begin - (head == npos ? 0 : head)), "__global__");
      if (global && mentions(m_code.substr(b.span.begin, b.span.end - b.span.begin), t.written_as))
        return "kernel " + b.name + " reads it and was not recorded";
    }
    return "";
  }

  void choose_tunables() {
    std::set<std::string> shaping;
    for (std::size_t i : m_shaped_sites)
      shaping.insert(m_launches[i].site.tunables.begin(), m_launches[i].site.tunables.end());
    for (const FoundTunable& t : m_found.tunables) {
      if (!shaping.count(t.tunable.name)) continue;
      const std::string why = unfollowed(t);
      if (why.empty()) m_tunables.push_back(t);
      else m_notes.push_back(t.written_as + " stays as written: " + why);
    }
  }

  ReplayShapes finish() const {
    ReplayShapes out;
    out.notes = m_notes;
    if (m_tunables.empty()) return out;
    std::string h = m_harness;
    std::vector<const Shaped*> order;
    for (const Shaped& s : m_shaped) order.push_back(&s);
    std::sort(order.begin(), order.end(), [](const Shaped* a, const Shaped* b) { return a->launcher.anchor > b->launcher.anchor; });
    const std::string file = std::filesystem::path(m_file).filename().string();
    for (const Shaped* s : order) {
      std::string lines = "  // kernelblaster: the shape " + file + ":" + std::to_string(s->shape.line) +
                          " gives this launch with this build's values\n";
      for (std::size_t d = 0; d < 7; ++d)
        lines += "  " + std::string(kShapeParams[d]) + " = static_cast<long long>(" + s->shape.exprs[d] + ");\n";
      h.insert(s->launcher.anchor, lines);
      out.reshaped.push_back(s->launcher.kernel + " (line " + std::to_string(s->shape.line) + ")");
    }
    std::string defaults = "\n// The tunables the launchers below compute their launch shapes with; a candidate\n"
                           "// passes its own values with -D.\n";
    // Every tunable a shape reads, the searched ones and those left as written.
    for (const FoundTunable& t : m_found.tunables) {
      const bool read = std::any_of(m_shaped.begin(), m_shaped.end(), [&](const Shaped& s) {
        return std::any_of(s.shape.exprs.begin(), s.shape.exprs.end(), [&](const std::string& e) { return mentions(e, t.tunable.name); });
      });
      if (read)
        defaults += "#ifndef " + t.tunable.name + "\n#define " + t.tunable.name + " " + t.tunable.default_value + "\n#endif\n";
    }
    for (const FoundTunable& t : m_tunables) out.tunables.push_back(t.tunable.name);
    const std::size_t marker = h.find(kKernelReplayMarker);
    h.insert(h.find('\n', marker) + 1, defaults);
    std::reverse(out.reshaped.begin(), out.reshaped.end());
    out.harness = std::move(h);
    return out;
  }

  const std::string& m_harness;
  const std::string m_file;
  const LaunchTunables& m_found;
  const std::string m_code;
  std::vector<Block> m_blocks;
  std::vector<LaunchRead> m_launches;
  std::map<std::string, std::string> m_known;
  std::map<std::string, long long> m_defaults;
  std::set<std::string> m_device_functions;
  std::vector<std::map<std::string, long long>> m_sizes;
  std::vector<Shaped> m_shaped;
  std::set<std::size_t> m_shaped_sites;
  std::vector<FoundTunable> m_tunables;
  std::vector<std::string> m_notes;
};

}  // namespace

ReplayShapes reshape_replayed_launches(const std::string& harness_text, const std::string& source_text,
                                       const std::string& source_file, const LaunchTunables& found,
                                       const std::vector<std::string>& include_dirs) {
  if (found.tunables.empty() || harness_text.find(kKernelReplayMarker) == npos) return {};
  return Reshaper(harness_text, source_text, source_file, found, include_dirs).run();
}

TunedShapes shapes_for_tuned(const std::string& harness_text, const std::string& source_text,
                             const std::string& source_file, const std::string& tuned_text,
                             const std::vector<std::string>& include_dirs) {
  std::map<std::string, std::string> values;  // the tuned source's leading `#define NAME VALUE` lines
  for (const std::string& line : lines_of(tuned_text)) {
    if (line.rfind("#undef ", 0) == 0) continue;
    if (line.rfind("#define ", 0) != 0) break;
    const std::string rest = trim_all(line.substr(8));
    const std::size_t space = rest.find_first_of(" \t");
    if (space != npos) values[rest.substr(0, space)] = trim_all(rest.substr(space));
  }
  if (values.empty()) return {};
  const LaunchTunables found = find_launch_tunables(source_text, source_file, SpaceDecl{}, include_dirs);
  const ReplayShapes shapes = reshape_replayed_launches(harness_text, source_text, source_file, found, include_dirs);
  TunedShapes out;
  for (const std::string& t : shapes.tunables)
    if (values.count(t)) out.definitions.push_back(t + "=" + values[t]);
  if (!out.definitions.empty()) out.harness = shapes.harness;
  return out;
}

}  // namespace kernelblaster::tuner
