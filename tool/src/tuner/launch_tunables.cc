#include "tuner/launch_tunables.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "common/source_lines.h"
#include "tuner/candidate_source.h"
#include "tuner/config_space.h"
#include "tuner/discovery.h"
#include "tuner/header_defines.h"
#include "tuner/counted_loops.h"
#include "tuner/launch_reading.h"
#include "tuner/vector_alignment.h"
#include "common/source_text.h"

namespace kernelblaster::tuner {
namespace {

using namespace reading;

class Finder {
 public:
  Finder(const std::string& text, const std::string& file, const SpaceDecl& declared,
         const std::vector<std::string>& include_dirs)
      : m_text(text), m_file(file), m_code(without_preprocessor_lines(code_only(text))), m_include_dirs(include_dirs) {
    for (const Tunable& t : declared.tunables) m_taken.insert(t.name);
    m_blocks = blocks_of(m_code);
    m_launches = read_launches(m_code, text, m_blocks);
    m_headers = included_texts(text, std::filesystem::path(file).parent_path(), include_dirs);
    for (const std::string& h : m_headers) add_known_constants(h, &m_known);
    m_header_code.reserve(m_headers.size());
    for (const std::string& h : m_headers) m_header_code.push_back(without_preprocessor_lines(code_only(h)));
    for (const std::string& h : m_header_code) m_header_blocks.push_back(blocks_of(h));
    std::vector<std::string> unread;
    m_included = project_headers(text, file, include_dirs, &unread);
    m_notes.insert(unread.begin(), unread.end());
  }

  LaunchTunables run() {
    find_defines();
    find_header_defines();
    find_constants();
    find_template_literals();
    add_known_constants(m_text, &m_known);
    group_sites();
    for (LaunchRead& l : m_launches) derive_constraints(l);
    return finish();
  }

 private:
  struct Found {
    FoundTunable t;
    std::vector<Edit> edits;
    std::set<std::size_t> sites;
  };

  // Whether the launch's shape, or the kernel it launches (here or in a
  // header the source includes), reads `name`.
  bool site_reads(const LaunchRead& l, const std::string& name) const {
    if (mentions(l.shape_text, name)) return true;
    KernelText k;
    if (kernel_text(m_code, l.site.kernel, &k)) return mentions(k.body, name);
    for (const std::string& h : m_header_code)
      if (kernel_text(h, l.site.kernel, &k)) return mentions(k.body, name);
    return false;
  }

  // Whether a kernel or device function of the source or of its headers reads `name`.
  bool device_code_reads(const std::string& name) const {
    for (const Block& b : m_blocks)
      if (b.function && b.device && mentions(m_code.substr(b.span.begin, b.span.end - b.span.begin), name))
        return true;
    for (std::size_t i = 0; i < m_header_code.size(); ++i)
      for (const Block& b : m_header_blocks[i])
        if (b.function && b.device && mentions(m_header_code[i].substr(b.span.begin, b.span.end - b.span.begin), name))
          return true;
    return false;
  }

  // A value the host's allocations or copies are sized with is the
  // problem's size: left as written, with a note. So is one a constant or
  // macro so used is defined from (`const int OPT_SZ = OPT_N * sizeof(float)`).
  bool sizes_host_data(const std::string& name) {
    const std::string use = data_use(name, 3);
    if (!use.empty()) m_notes.insert(name + " sizes the program's data (" + use + "): the problem's size, left as written");
    return !use.empty();
  }

  std::string data_use(const std::string& name, int depth) const {
    const std::string use = host_data_use(m_code, name);
    if (!use.empty() || depth == 0) return use;
    for (const std::string& derived : defined_from(name))
      if (const std::string through = data_use(derived, depth - 1); !through.empty())
        return through + " through " + derived;
    return "";
  }

  // The constants and macros of the source and its headers defined from `name`.
  std::vector<std::string> defined_from(const std::string& name) const {
    std::vector<std::string> out;
    for (std::size_t p : word_positions(m_code, name)) {
      const std::size_t start = m_code.find_last_of(";{}", p);
      const std::string before = m_code.substr(start == std::string::npos ? 0 : start + 1,
                                               p - (start == std::string::npos ? 0 : start + 1));
      const std::size_t eq = before.find('=');
      if (eq == std::string::npos || eq == 0 || (eq + 1 < before.size() && before[eq + 1] == '=') ||
          std::string("<>!=").find(before[eq - 1]) != std::string::npos)
        continue;
      const std::vector<std::string> ids = identifiers(before.substr(0, eq));
      if (!ids.empty() && ids.back() != name) out.push_back(ids.back());
    }
    std::vector<const std::string*> texts = {&m_text};
    for (const std::string& h : m_headers) texts.push_back(&h);
    for (const std::string* t : texts)
      for (const std::string& line : lines_of(*t)) {
        const auto [directive, rest] = preprocessor_line(line);
        std::istringstream words(rest);
        std::string defined;
        if (directive == "define" && (words >> defined) && defined.find('(') == std::string::npos &&
            defined != name && mentions(rest.substr(rest.find(defined) + defined.size()), name))
          out.push_back(defined);
      }
    return out;
  }

  void find_defines() {
    std::set<std::string> guarded;
    std::vector<std::string> lines = lines_of(m_text);
    for (const PlainDefine& d : plain_integer_defines(lines, &guarded)) {
      if (m_taken.count(d.name) || names_the_warp_size(d.name, d.value)) continue;
      Found f;
      for (std::size_t i = 0; i < m_launches.size(); ++i)
        if (site_reads(m_launches[i], d.name)) f.sites.insert(i);
      bool in_kernel = false;
      for (const Block& b : m_blocks)
        if (b.function && b.device && mentions(m_code.substr(b.span.begin, b.span.end - b.span.begin), d.name))
          in_kernel = true;
      if (f.sites.empty() && !in_kernel) continue;
      if (sizes_host_data(d.name)) continue;
      bool block_size = false;
      for (std::size_t s : f.sites) block_size = block_size || bare_block(m_code, m_launches[s], d.name);
      f.t.tunable.name = d.name;
      f.t.tunable.default_value = std::to_string(d.value);
      f.t.tunable.values = values_around(d.value, block_size);
      f.t.kind = "define";
      f.t.written_as = d.name;
      f.t.line = d.line;
      std::size_t begin = 0;
      for (int i = 1; i < d.line; ++i) begin = m_text.find('\n', begin) + 1;
      std::size_t end = m_text.find('\n', begin);
      if (end == std::string::npos) end = m_text.size();
      const std::string original_line = m_text.substr(begin, end - begin);
      f.edits.push_back({{begin, end},
                         "#ifndef " + d.name + "\n" + original_line + "\n#endif\n#line " + std::to_string(d.line + 1) +
                             line_directive(m_file).substr(7, std::string::npos)});
      // line_directive ends in a newline; the original line's own newline follows: drop one.
      f.edits.back().with.pop_back();
      add(std::move(f));
    }
  }

  // Plain integer #defines of the project headers the source includes
  // itself (header_defines.h) that a launch or a kernel reads: the copy
  // takes the header's text in its include's place (finish()).
  void find_header_defines() {
    for (const ProjectHeader& h : m_included) {
      std::set<std::string> guarded;
      for (const PlainDefine& d : plain_integer_defines(lines_inside_guard(h.text), &guarded)) {
        if (m_taken.count(d.name) || names_the_warp_size(d.name, d.value)) continue;
        Found f;
        for (std::size_t i = 0; i < m_launches.size(); ++i)
          if (site_reads(m_launches[i], d.name)) f.sites.insert(i);
        if (f.sites.empty() && !device_code_reads(d.name)) continue;
        if (sizes_host_data(d.name)) continue;
        bool block_size = false;
        for (std::size_t s : f.sites) block_size = block_size || bare_block(m_code, m_launches[s], d.name);
        f.t.tunable.name = f.t.written_as = d.name;
        f.t.tunable.default_value = std::to_string(d.value);
        f.t.tunable.values = values_around(d.value, block_size);
        f.t.kind = "define";
        f.t.line = d.line;
        f.t.header = h.path;
        add(std::move(f));
      }
    }
  }

  void find_constants() {
    for (const Constant& c : literal_constants(m_code, m_blocks)) {
      if (c.device || m_taken.count(c.name) || names_the_warp_size(c.name, c.value)) continue;
      std::set<std::size_t> sites;
      for (std::size_t i = 0; i < m_launches.size(); ++i) {
        const LaunchRead& l = m_launches[i];
        if (l.at > c.at && l.at < c.scope.end && l.at > c.scope.begin && mentions(l.shape_text, c.name)) sites.insert(i);
      }
      if (sites.empty() || sizes_host_data(c.name)) continue;
      const std::map<std::size_t, std::set<std::size_t>> branches = branches_of(c, sites);
      if (branches.empty()) {
        Found f = constant_found(c, sites, line_at(m_text, c.at));
        f.edits.push_back({c.literal, f.t.tunable.name});
        add(std::move(f));
        continue;
      }
      // Each branch declares its own, shadowing the original at its top on
      // the same line; the original declaration stays as written.
      const std::size_t start = m_code.find_last_of(";{}", c.at) + 1;
      const std::string declaration = trim_all(m_code.substr(start, c.literal.begin - start));
      std::string lines;
      for (const auto& [block, in_branch] : branches) {
        const std::size_t open = m_blocks[block].span.begin;
        Found f = constant_found(c, in_branch, line_at(m_text, open));
        f.edits.push_back({{open + 1, open + 1}, " " + declaration + " " + f.t.tunable.name + ";"});
        lines += (lines.empty() ? "" : ", ") + std::to_string(f.t.line);
        add(std::move(f));
      }
      m_notes.insert(c.name + " (line " + std::to_string(line_at(m_text, c.at)) + ") shapes launches in " +
                     std::to_string(branches.size()) + " branches: each has its own (lines " + lines + ")");
    }
  }

  Found constant_found(const Constant& c, const std::set<std::size_t>& sites, int line) const {
    Found f;
    f.sites = sites;
    bool block_size = false;
    for (std::size_t s : f.sites) block_size = block_size || bare_block(m_code, m_launches[s], c.name);
    f.t.tunable.name = macro_name(c.name, line);
    f.t.tunable.default_value = std::to_string(c.value);
    f.t.tunable.values = values_around(c.value, block_size);
    f.t.kind = "constant";
    f.t.written_as = c.name;
    f.t.line = line;
    return f;
  }

  // The blocks of the constant's scope (each one outermost there: the
  // branches of an `if`, a loop's body, a function at file scope) that hold
  // its sites, each with its sites, where the sites lie in two or more and
  // the name is read nowhere else after its declaration. Each then gets its
  // own tunable, so that a launch no harness size reaches keeps the
  // author's value while its sibling is tuned: SGEMM_CUDA's launchers
  // share `BK`, `TM` and `TN` between the `M >= 128` launch and the one
  // below it (issue 38: "each launch site gets its own set"). Empty where
  // the sites share a block, or a use outside them (a dim3 both launch
  // with, a static_assert above the branches) ties them together.
  std::map<std::size_t, std::set<std::size_t>> branches_of(const Constant& c, const std::set<std::size_t>& sites) const {
    std::map<std::size_t, std::set<std::size_t>> out;
    for (std::size_t s : sites) {
      const std::size_t at = m_launches[s].at;
      std::optional<std::size_t> outer;
      for (std::size_t b = 0; b < m_blocks.size(); ++b) {
        const Span& span = m_blocks[b].span;
        if (span.begin > c.literal.end && span.end < c.scope.end && span.begin < at && at < span.end &&
            (!outer || span.begin < m_blocks[*outer].span.begin))
          outer = b;
      }
      if (!outer || !statement_block(m_blocks[*outer].span.begin)) return {};
      out[*outer].insert(s);
    }
    if (out.size() < 2) return {};
    const std::string after = m_code.substr(c.literal.end, c.scope.end - c.literal.end);
    for (std::size_t p : word_positions(after, c.name)) {
      const std::size_t at = c.literal.end + p;
      const bool inside = std::any_of(out.begin(), out.end(), [&](const auto& b) {
        return m_blocks[b.first].span.begin < at && at < m_blocks[b.first].span.end;
      });
      if (!inside || declared_at(at)) return {};
    }
    for (const auto& [block, in_branch] : out)
      if (m_taken.count(macro_name(c.name, line_at(m_text, m_blocks[block].span.begin)))) return {};
    return out;
  }

  // Whether the `{` at `open` opens a block of statements, where a
  // declaration may go first: a function's or lambda's body, an `if`'s,
  // `for`'s, `while`'s or `switch`'s (after `)`), an `else` or `do`, or a
  // bare compound statement. Not a class, namespace or initializer: a
  // declaration there would be a member, or no statement at all.
  bool statement_block(std::size_t open) const {
    const std::size_t e = skip_space_back(m_code, open);
    if (e == 0) return false;
    const char before = m_code[e - 1];
    if (before == ')' || before == ';' || before == '{' || before == '}') return true;
    const std::string word = word_before(m_code, e);
    return word == "else" || word == "do";
  }

  // Whether the name at `at` is declared there (`uint BK`, `auto BK`): a
  // word before it that is not an expression's keyword.
  bool declared_at(std::size_t at) const {
    const std::string word = word_before(m_code, at);
    return !word.empty() && word != "return" && word != "case" && word != "sizeof";
  }

  // Integer literals among a launch's template arguments, each with the
  // equal literals of the launch's grid and block and of the same
  // instantiation named again in the function (`cudaFuncSetAttribute(k<32>, ...)`).
  void find_template_literals() {
    for (std::size_t i = 0; i < m_launches.size(); ++i) {
      const LaunchRead& l = m_launches[i];
      if (l.templ.end <= l.templ.begin) continue;
      const std::string targs = m_code.substr(l.templ.begin, l.templ.end - l.templ.begin);
      std::vector<std::string> parts = split_top(targs, ',');
      std::set<long long> done;
      for (std::size_t k = 0; k < parts.size(); ++k) {
        long long v = integer_literal(parts[k]);
        if (v < 2 || !done.insert(v).second) continue;
        if (dispatched(l, v)) {
          m_notes.insert(l.site.kernel + "<" + trim_all(targs) + "> at line " + std::to_string(l.site.line) + ": " +
                         std::to_string(v) + " is chosen by a run-time value (a case or == " + std::to_string(v) +
                         " around the launch): not tuned");
          continue;
        }
        Found f;
        f.sites.insert(i);
        const int line = line_at(m_text, l.at);
        f.t.tunable.name = macro_name(l.site.kernel + "_T" + std::to_string(k), line);
        f.t.tunable.default_value = std::to_string(v);
        f.t.tunable.values = values_around(v, false);
        f.t.kind = "template argument";
        f.t.written_as = l.site.kernel + "<" + trim_all(targs) + "> argument " + std::to_string(k + 1);
        f.t.line = line;
        link_literal(l, v, f.t.tunable.name, &f.edits);
        add(std::move(f));
      }
    }
  }

  // Whether the launch sits under `case V:` or a condition `... == V`: the
  // literal then names a run-time value's case (a switch over block sizes),
  // not a choice of the author's.
  bool dispatched(const LaunchRead& l, long long v) const {
    const std::string value = std::to_string(v);
    const std::string region = m_code.substr(l.region.begin, l.region.end - l.region.begin);
    const std::vector<std::size_t> cases = word_positions(region, "case");
    if (!cases.empty()) {
      std::size_t colon = region.find(':', cases.back());
      const std::string label = colon == std::string::npos ? "" : region.substr(cases.back() + 4, colon - cases.back() - 4);
      if (integer_literal(label) == v && word_positions(region.substr(colon), "break").empty()) return true;
    }
    for (const Block& b : m_blocks) {
      if (!(b.span.begin < l.at && l.at < b.span.end) || b.span.begin < l.region.begin) continue;
      std::size_t head = m_code.find_last_of(";{}", b.span.begin - 1);
      head = head == std::string::npos ? 0 : head + 1;
      std::string condition = m_code.substr(head, b.span.begin - head);
      if (trim_all(condition) == "else" && head > 0 && m_code[head - 1] == '}') {
        // The other branch of `if (x == 16) {...} else {...}`: chosen by the same run-time value.
        for (const Block& taken : m_blocks)
          if (taken.span.end == head - 1) {
            std::size_t h = m_code.find_last_of(";{}", taken.span.begin - 1);
            h = h == std::string::npos ? 0 : h + 1;
            const std::string branch = m_code.substr(h, taken.span.begin - h);
            for (std::size_t p = branch.find("=="); p != std::string::npos; p = branch.find("==", p + 2))
              if (integer_literal(branch.substr(p + 2, branch.find(')', p) - p - 2)) > 0) return true;
          }
      }
      for (std::size_t p = condition.find("=="); p != std::string::npos; p = condition.find("==", p + 2)) {
        std::size_t r = p + 2;
        while (r < condition.size() && std::isspace(static_cast<unsigned char>(condition[r]))) ++r;
        std::size_t e = r;
        while (e < condition.size() && is_identifier_char(condition[e])) ++e;
        std::size_t le = skip_space_back(condition, p), lb = le;
        while (lb > 0 && is_identifier_char(condition[lb - 1])) --lb;
        if (condition.substr(r, e - r) == value || condition.substr(lb, le - lb) == value) return true;
      }
    }
    return false;
  }

  void link_literal(const LaunchRead& l, long long v, const std::string& name, std::vector<Edit>* edits) {
    std::set<std::size_t> at;
    auto take = [&](Span s) {
      for (std::size_t i = s.begin; i < s.end;) {
        if (std::isdigit(static_cast<unsigned char>(m_code[i])) && (i == 0 || !is_identifier_char(m_code[i - 1]))) {
          std::size_t j = i;
          while (j < s.end && is_identifier_char(m_code[j])) ++j;
          if (integer_literal(m_code.substr(i, j - i)) == v && at.insert(i).second) edits->push_back({{i, j}, name});
          i = j;
        } else {
          ++i;
        }
      }
    };
    take(l.templ);
    for (std::size_t a = 0; a < l.args.size() && a < 3; ++a) take(l.args[a]);
    // The grid's and block's variables, where the function sets them; the
    // same instantiation named elsewhere in the function.
    const std::string region = m_code.substr(l.region.begin, l.region.end - l.region.begin);
    for (std::size_t a = 0; a < l.args.size() && a < 2; ++a) {
      std::string arg = trim_all(m_code.substr(l.args[a].begin, l.args[a].end - l.args[a].begin));
      if (!is_identifier(arg)) continue;
      for (std::size_t p : word_positions(region, arg)) {
        std::size_t q = l.region.begin + p + arg.size();
        while (q < m_code.size() && (m_code[q] == ' ' || m_code[q] == '\t')) ++q;
        if (q < m_code.size() && (m_code[q] == '(' || m_code[q] == '{')) {
          std::size_t close = matching(m_code, q, m_code[q], m_code[q] == '(' ? ')' : '}');
          if (close != std::string::npos) take({q + 1, close});
        }
      }
    }
    const std::string instantiation = l.site.kernel + "<";
    for (std::size_t p : word_positions(region, l.site.kernel)) {
      std::size_t q = l.region.begin + p + l.site.kernel.size();
      if (q < m_code.size() && m_code[q] == '<') {
        std::size_t e = m_code.find('>', q);
        if (e != std::string::npos && e < l.at) take({q + 1, e});
      }
    }
  }

  void add(Found f) {
    m_taken.insert(f.t.tunable.name);
    m_found.push_back(std::move(f));
  }

  // Sites that share a tunable are one group: the space changes one group
  // at a time.
  void group_sites() {
    std::vector<std::size_t> parent(m_launches.size());
    for (std::size_t i = 0; i < parent.size(); ++i) parent[i] = i;
    auto root = [&](std::size_t i) {
      while (parent[i] != i) i = parent[i] = parent[parent[i]];
      return i;
    };
    for (const Found& f : m_found)
      for (std::size_t s : f.sites) parent[root(s)] = root(*f.sites.begin());
    for (std::size_t i = 0; i < m_launches.size(); ++i) {
      const LaunchRead& first = m_launches[root(i)];
      m_launches[i].site.group = (first.site.function.empty() ? "file" : first.site.function) + ":" +
                                 std::to_string(first.site.line);
    }
    for (Found& f : m_found) f.t.tunable.group = f.sites.empty() ? "unlaunched" : m_launches[*f.sites.begin()].site.group;
    limit_groups();
    for (Found& f : m_found) {
      f.t.tunable.technique = infer_technique(f.t.written_as);
      f.t.tunable.origin = (f.t.header.empty() ? m_file : f.t.header) + ":" + std::to_string(f.t.line) +
                           " (discovered: " + f.t.kind + " " + f.t.written_as + ")";
      for (std::size_t s : f.sites) m_launches[s].site.tunables.push_back(f.t.tunable.name);
    }
  }

  static std::size_t combinations(const std::vector<Found*>& group) {
    std::size_t n = 1;
    for (const Found* f : group) n = n > kMaxCombinations ? n : n * f->t.tunable.values.size();
    return n;
  }

  // A group whose combinations one part of the space cannot hold
  // (config_space.h) keeps the tunables its launches read themselves (grid,
  // block, template arguments, shared bytes), then only the default's
  // neighbours as values; one still too large is left as written. Said in
  // the notes either way.
  void limit_groups() {
    std::map<std::string, std::vector<Found*>> groups;
    for (Found& f : m_found) groups[f.t.tunable.group].push_back(&f);
    std::set<const Found*> dropped;
    for (auto& [group, members] : groups) {
      if (combinations(members) <= kMaxCombinations) continue;
      std::vector<Found*> direct;
      for (Found* f : members) {
        bool read_by_launch = false;
        for (std::size_t s : f->sites) read_by_launch = read_by_launch || mentions(m_launches[s].shape_text, f->t.written_as);
        if (read_by_launch) direct.push_back(f);
        else dropped.insert(f);
      }
      std::string what = std::to_string(members.size()) + " tunables of " + group;
      if (combinations(direct) > kMaxCombinations)
        for (Found* f : direct) {
          std::vector<std::string>& v = f->t.tunable.values;
          const long long d = std::stoll(f->t.tunable.default_value);
          std::vector<std::string> near = {v.front()};
          for (long long x : {d / 2, d * 2})
            if (x >= 1 && x != d && std::find(v.begin(), v.end(), std::to_string(x)) != v.end())
              near.push_back(std::to_string(x));
          v = near;
        }
      if (combinations(direct) > kMaxCombinations) {
        dropped.insert(direct.begin(), direct.end());
        m_notes.insert(what + " make more than " + std::to_string(kMaxCombinations) +
                       " combinations even narrowed: left as written");
      } else if (direct.size() < members.size()) {
        m_notes.insert(what + " make more than " + std::to_string(kMaxCombinations) + " combinations: the " +
                       std::to_string(direct.size()) + " its launches read themselves are tuned, the others left as written");
      }
    }
    std::vector<Found> kept;
    for (const Found& f : m_found)
      if (!dropped.count(&f)) kept.push_back(f);
    m_found = std::move(kept);
  }

  // The names a site's expressions may use, each to its replacement.
  std::map<std::string, std::string> environment(const LaunchRead& l, std::set<std::string>* tunables) const {
    std::map<std::string, std::string> env = m_known;
    for (const Found& f : m_found) {
      tunables->insert(f.t.tunable.name);
      if (f.t.kind == "define") env.erase(f.t.written_as);
    }
    // The constants in scope at the launch: the latest declaration of each name before it.
    for (const Found& f : m_found)
      if (f.t.kind == "constant" && f.sites.count(static_cast<std::size_t>(&l - m_launches.data())))
        env[f.t.written_as] = f.t.tunable.name;
    add_derived(m_code.substr(l.region.begin, l.region.end - l.region.begin), &env);
    return env;
  }

  void add_constraint(LaunchRead& l, const std::string& expr, const std::map<std::string, std::string>& env,
                      const std::set<std::string>& tunables, const std::string& what) {
    std::string text = folded(expr, env, tunables);
    if (text.empty() || identifiers(text).empty()) {
      if (!text.empty() || identifiers(expr).empty() || what == "block") return;
      m_notes.insert(what + " at line " + std::to_string(l.site.line) + " reads values known only when it runs: `" +
                     trim_all(expr) + "` (checked by running)");
      return;
    }
    std::string one_line;  // the code's line breaks and indentation, as one space
    for (char ch : text) {
      const bool space = std::isspace(static_cast<unsigned char>(ch)) != 0;
      if (!space) one_line += ch;
      else if (!one_line.empty() && one_line.back() != ' ') one_line += ' ';
    }
    try {
      Constraint c(trim_all(one_line));
      std::map<std::string, long long> defaults;
      for (const Found& f : m_found) defaults[f.t.tunable.name] = std::stoll(f.t.tunable.default_value);
      for (const std::string& n : c.names())
        if (!defaults.count(n)) return;
      if (!c.holds(defaults)) {
        m_notes.insert(what + " `" + trim_all(expr) + "` does not hold for the code as written; not used");
        return;
      }
      l.site.constraints.push_back(c.text());
      if (m_constraint_texts.insert(c.text()).second) m_constraints.push_back(std::move(c));
    } catch (const ConstraintError&) {  // said in the listing's own words: the expression, not the parser's column
      m_notes.insert(what + " `" + trim_all(expr) + "` is not an expression the space can state");
    }
  }

  void derive_constraints(LaunchRead& l) {
    if (l.site.tunables.empty()) return;
    std::set<std::string> tunables;
    std::map<std::string, std::string> env = environment(l, &tunables);
    const std::string region = m_code.substr(l.region.begin, l.region.end - l.region.begin);
    for (const std::string& a : first_arguments(region, "static_assert")) add_constraint(l, a, env, tunables, "static_assert");
    for (const std::string& a : first_arguments(region, "assert")) add_constraint(l, a, env, tunables, "assert");
    // The block's thread limits.
    std::vector<std::string> dims = block_dimensions(m_code, l);
    std::string product;
    static const long long kLimits[] = {kMaxThreadsPerBlock, kMaxThreadsPerBlock, 64};
    for (std::size_t d = 0; d < dims.size() && d < 3; ++d) {
      product += (product.empty() ? "(" : " * (") + dims[d] + ")";
      if (dims.size() > 1 && !is_identifier(trim_all(dims[d])))  // a bare name's values keep the limit
        add_constraint(l, "(" + dims[d] + ") <= " + std::to_string(kLimits[d]), env, tunables, "block");
    }
    if (!product.empty() && !(dims.size() == 1 && is_identifier(trim_all(dims[0]))))  // a bare name: its values keep the limit
      add_constraint(l, product + " <= " + std::to_string(kMaxThreadsPerBlock), env, tunables, "block");
    // The kernel's own __launch_bounds__, wherever it is declared: no block above it.
    std::vector<const std::string*> codes = {&m_code};
    for (const std::string& h : m_header_code) codes.push_back(&h);
    if (const long long bound = launch_bound(codes, l.site.kernel, m_known); bound > 0 && !product.empty())
      add_constraint(l, product + " <= " + std::to_string(bound), env, tunables, "block");
    kernel_constraints(l, env, tunables);
  }

  // The launched kernel's own static_asserts and static shared memory, its
  // template parameters replaced by the launch's arguments.
  void kernel_constraints(LaunchRead& l, std::map<std::string, std::string> env, const std::set<std::string>& tunables) {
    KernelText k;
    bool found = kernel_text(m_code, l.site.kernel, &k);
    for (std::size_t h = 0; !found && h < m_header_code.size(); ++h) found = kernel_text(m_header_code[h], l.site.kernel, &k);
    if (!found) return;
    std::vector<std::string> args = l.templ.end > l.templ.begin
                                        ? split_top(m_code.substr(l.templ.begin, l.templ.end - l.templ.begin), ',')
                                        : std::vector<std::string>{};
    // A literal argument that is a tunable of this site stands for its macro.
    std::map<long long, std::string> literal_tunables;
    for (const Found& f : m_found)
      if (f.t.kind == "template argument" && f.sites.count(static_cast<std::size_t>(&l - m_launches.data())))
        literal_tunables[std::stoll(f.t.tunable.default_value)] = f.t.tunable.name;
    for (std::size_t i = 0; i < k.params.size() && i < args.size(); ++i) {
      auto literal = literal_tunables.find(integer_literal(args[i]));
      const std::string value = literal != literal_tunables.end() ? literal->second : folded(args[i], env, tunables);
      if (!k.params[i].empty() && !value.empty()) env[k.params[i]] = "(" + value + ")";
    }
    add_derived(k.body, &env);
    for (const std::string& a : first_arguments(k.body, "static_assert"))
      add_constraint(l, a, env, tunables, "static_assert in " + l.site.kernel);
    // `assert(BM * BK == blockDim.x)`: the launch's block is known in terms of the tunables.
    const std::vector<std::string> dims = block_dimensions(m_code, l);
    for (std::string a : first_arguments(k.body, "assert")) {
      if (a.find("blockDim.") == std::string::npos) continue;
      for (std::size_t d = 0; d < 3; ++d) {
        const std::string member = std::string("blockDim.") + "xyz"[d];
        const std::string with = "(" + (d < dims.size() ? dims[d] : std::string("1")) + ")";
        for (std::size_t p = a.find(member); p != std::string::npos; p = a.find(member, p + with.size()))
          a.replace(p, member.size(), with);
      }
      add_constraint(l, a, env, tunables, "assert in " + l.site.kernel);
    }
    alignment_constraints(l, k, env, tunables);
    loop_step_constraints(l, k, env, tunables);
    std::string bytes = shared_bytes(k.body);
    if (!bytes.empty())
      add_constraint(l, bytes + " <= " + std::to_string(kMaxStaticSharedBytes), env, tunables,
                     "static shared memory of " + l.site.kernel);
  }

  // What the kernel's vector accesses need of the tunables
  // (vector_alignment.h): `reinterpret_cast<float4*>(&C[col * TN + i])`
  // misaligns with TN = 2.
  void alignment_constraints(LaunchRead& l, const KernelText& k, const std::map<std::string, std::string>& env,
                             const std::set<std::string>& tunables) {
    std::set<std::string> arguments;
    for (const std::string& a : parameter_names(k.signature)) arguments.insert(a);
    std::function<bool(const std::string&, int)> reaches_argument = [&](const std::string& name, int depth) {
      if (arguments.count(name)) return true;
      auto e = env.find(name);
      if (e == env.end() || depth > 6) return false;
      for (const std::string& id : identifiers(e->second))
        if (reaches_argument(id, depth + 1)) return true;
      return false;
    };
    AlignmentNames names;
    names.compile_time = [&](const std::string& e) { return !folded(e, env, tunables).empty(); };
    names.tunable = [&](const std::string& e) { return !identifiers(folded(e, env, tunables)).empty(); };
    names.problem = [&](const std::string& n) { return reaches_argument(n, 0); };
    names.definition = [&](const std::string& n) {
      auto e = env.find(n);
      return e == env.end() ? std::string() : e->second;
    };
    for (const AlignmentNeed& need : vector_alignment_needs(k.body, k.signature, names))
      add_constraint(l, "(" + need.expr + ") % " + std::to_string(need.elements) + " == 0", env, tunables,
                     "the " + need.access + " in " + l.site.kernel);
  }

  // A counted loop whose step a configuration folds to 0 never ends, and a
  // candidate that hangs costs the search its whole timeout (15 s at
  // least): SGEMM_CUDA's kernel 5 loads its tiles in loops stepping by
  // numThreads / BK and numThreads / BN, 0 for 832 of the 2,356
  // configurations of its space (bench/sgemm_exhaustive).
  void loop_step_constraints(LaunchRead& l, const KernelText& k, const std::map<std::string, std::string>& env,
                             const std::set<std::string>& tunables) {
    std::set<std::string> seen;
    for (std::size_t at : word_positions(k.body, "for")) {
      const std::optional<CountedLoop> loop = counted_loop(k.body, at, env);
      if (!loop || loop->step_written.empty()) continue;
      const std::string step = trim_all(loop->step_written);
      const std::string value = folded(step, env, tunables);
      if (value.empty() || identifiers(value).empty() || !seen.insert(value).second) continue;
      if (!some_values_break(value + " != 0")) continue;  // `bkIdx += BK`: no value of BK is 0
      add_constraint(l, "(" + step + ") != 0", env, tunables,
                     "the step of the loop over `" + loop->var + "` in " + l.site.kernel);
    }
  }

  // Whether some combination of the tunables' values breaks `text` (in the
  // tunables' names), counted by the enumeration `tune` uses; true where
  // they are too many to try, or it cannot be read.
  bool some_values_break(const std::string& text) const {
    constexpr std::size_t kMostTried = 1 << 12;
    try {
      SpaceDecl decl;
      decl.constraints.emplace_back(text);
      std::size_t combinations = 1;
      for (const std::string& n : decl.constraints.front().names()) {
        auto f = std::find_if(m_found.begin(), m_found.end(), [&](const Found& x) { return x.t.tunable.name == n; });
        if (f == m_found.end()) return true;
        decl.tunables.push_back(f->t.tunable);
        decl.tunables.back().group.clear();  // one part: every combination, the defaults' included
        combinations *= std::max<std::size_t>(1, f->t.tunable.values.size());
        if (combinations > kMostTried) return true;
      }
      const ConfigSpace space = enumerate_space(decl, {}, 0);
      return space.valid < space.combinations;
    } catch (const std::exception&) {  // ConstraintError, SpaceError (values that are not integers)
      return true;
    }
  }

  LaunchTunables finish() {
    LaunchTunables out;
    std::vector<Edit> edits;
    std::string head;
    // Defines of headers tuned: the project headers' texts in their
    // includes' places, those defines under #ifndef (header_defines.h).
    std::map<std::string, std::set<int>> guarded;  // header -> its tuned defines' lines
    for (const Found& f : m_found)
      if (!f.t.header.empty()) guarded[f.t.header].insert(f.t.line);
    if (!guarded.empty()) {
      std::string why;
      std::vector<Edit> flat = flattened_includes(m_text, m_file, m_include_dirs, guarded, &why);
      if (flat.empty()) {
        m_found.erase(std::remove_if(m_found.begin(), m_found.end(), [](const Found& f) { return !f.t.header.empty(); }),
                      m_found.end());
        m_notes.insert("the defines of the project headers are left as written: " + why);
      }
      edits.insert(edits.end(), flat.begin(), flat.end());
    }
    for (Found& f : m_found) {
      edits.insert(edits.end(), f.edits.begin(), f.edits.end());
      if (f.t.kind != "define")
        head += "#ifndef " + f.t.tunable.name + "\n#define " + f.t.tunable.name + " " + f.t.tunable.default_value +
                "\n#endif\n";
      out.tunables.push_back(f.t);
    }
    // From the end of the text back; inserts at one place (a branch's own
    // declarations) applied last-found first, so they read in source order.
    std::reverse(edits.begin(), edits.end());
    std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.span.begin > b.span.begin; });
    std::string body = m_text;
    std::size_t last = std::string::npos;
    for (const Edit& e : edits) {
      if (e.span.end > last) continue;  // overlapping edits: the later one in the text wins
      body.replace(e.span.begin, e.span.end - e.span.begin, e.with);
      last = e.span.begin;
    }
    out.text = edits.empty() ? m_text : head + (head.empty() ? "" : line_directive(m_file)) + body;
    for (const LaunchRead& l : m_launches) out.sites.push_back(l.site);
    out.constraints = m_constraints;
    out.notes.assign(m_notes.begin(), m_notes.end());
    return out;
  }

  const std::string& m_text;
  const std::string m_file;
  const std::string m_code;
  std::vector<Block> m_blocks;
  std::vector<LaunchRead> m_launches;
  std::vector<std::string> m_headers, m_header_code;
  std::vector<std::vector<Block>> m_header_blocks;  // of each m_header_code, read once
  std::vector<ProjectHeader> m_included;  // the project headers the source reaches (header_defines.h)
  std::vector<std::string> m_include_dirs;
  std::map<std::string, std::string> m_known;
  std::set<std::string> m_taken;
  std::vector<Found> m_found;
  std::vector<Constraint> m_constraints;
  std::set<std::string> m_constraint_texts;
  std::set<std::string> m_notes;
};

}  // namespace

LaunchTunables find_launch_tunables(const std::string& text, const std::string& file, const SpaceDecl& declared,
                                    const std::vector<std::string>& include_dirs) {
  return Finder(text, file, declared, include_dirs).run();
}

LaunchTunables add_launch_tunables(SpaceDecl& decl, const std::string& text, const std::string& file,
                                   const std::vector<std::string>& include_dirs) {
  if (!decl.discover) return {text, {}, {}, {}, {}};
  LaunchTunables found = find_launch_tunables(text, file, decl, include_dirs);
  for (const FoundTunable& t : found.tunables) decl.tunables.push_back(t.tunable);
  decl.constraints.insert(decl.constraints.end(), found.constraints.begin(), found.constraints.end());
  return found;
}

}  // namespace kernelblaster::tuner
