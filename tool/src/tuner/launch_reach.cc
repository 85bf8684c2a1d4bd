#include "tuner/launch_reach.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "common/launcher_mask.h"
#include "common/source_lines.h"
#include "common/source_text.h"
#include "common/text.h"
#include "tuner/constraint.h"
#include "tuner/harness_reading.h"
#include "tuner/launch_reading.h"

namespace kernelblaster::tuner {
namespace {

using namespace reading;
constexpr std::size_t npos = std::string::npos;

// The conditions of an if/else chain up to one of its blocks: the earlier
// branches' conditions, each negated, and the block's own ("1" for a final
// `else`); `known` is false where the header could not be read.
struct Branch {
  std::vector<std::string> conditions;
  bool known = true;
};

// The `(` matching the `)` at `close`, scanning back; npos when unbalanced.
std::size_t opening(const std::string& code, std::size_t close) {
  int depth = 0;
  for (std::size_t p = close + 1; p-- > 0;) {
    if (code[p] == ')') ++depth;
    if (code[p] == '(' && --depth == 0) return p;
  }
  return npos;
}

// The positions in `text` where `name(` (or `name<`) occurs: a call or a launch.
std::vector<std::size_t> calls(const std::string& text, const std::string& name) {
  std::vector<std::size_t> out;
  for (std::size_t at : word_positions(text, name)) {
    const std::size_t next = text.find_first_not_of(" \t\n", at + name.size());
    if (next != npos && (text[next] == '(' || text[next] == '<')) out.push_back(at);
  }
  return out;
}

class Reach {
 public:
  Reach(const std::string& harness, const std::string& text, const LaunchTunables& found)
      : m_harness(harness), m_code(without_preprocessor_lines(code_only(text))) {
    m_blocks = blocks_of(m_code);
    m_launches = read_launches(m_code, text, m_blocks, found.sites);
    add_known_constants(text, &m_known);
    for (const FoundTunable& t : found.tunables) {
      m_known.erase(t.written_as);
      if (t.kind == "define") m_defines.push_back(t.written_as);
    }
    m_sizes = harness_sizes(harness);
    if (harness.find(kSynthesizedMark) != npos) m_called = called_functions();
  }

  LaunchReach run() {
    LaunchReach out;
    out.called_known = m_called.has_value();
    if (m_called) out.called.assign(m_called->begin(), m_called->end());
    std::set<std::string> left;
    std::vector<std::string> uncalled;
    for (const LaunchRead& l : m_launches) {
      std::string conditions;
      if (m_called && !m_called->count(l.site.function)) {
        if (std::find(uncalled.begin(), uncalled.end(), l.site.function) == uncalled.end())
          uncalled.push_back(l.site.function);
      } else if (reached_at(l.at, &conditions)) {
        continue;
      } else {
        out.notes.push_back("the launch at line " + std::to_string(l.site.line) + " in " + l.site.function +
                            " runs for no size of the harness (" + conditions + "): its tunables stay as written");
      }
      out.unreached.push_back(l.site.line);
      left.insert(l.site.tunables.begin(), l.site.tunables.end());
    }
    if (!uncalled.empty()) out.notes.push_back(uncalled_line(uncalled));
    out.left.assign(left.begin(), left.end());
    if (m_called)
      for (const std::string& name : m_defines)
        if (read_uncalled(name)) out.read_uncalled.push_back(name);
    return out;
  }

 private:
  std::string uncalled_line(const std::vector<std::string>& uncalled) const {
    const std::string called = joined({m_called->begin(), m_called->end()});
    return "the launches in " + joined(uncalled) + " run in no call of the harness (it calls " +
           (called.empty() ? std::string("none of this source's functions") : called) +
           "): their tunables stay as written";
  }

  bool read_uncalled(const std::string& name) const {
    for (const Block& b : m_blocks)
      if (b.function && !m_called->count(b.name) &&
          mentions(m_code.substr(b.span.begin, b.span.end - b.span.begin), name))
        return true;
    return false;
  }

  // A synthesized harness calls only the launchers it was made from: the
  // source's functions it names as calls, and those their bodies call, in
  // turn, where some size of the harness reaches the call (a launcher's
  // `else` that no size takes calls nothing).
  std::set<std::string> called_functions() const {
    std::set<std::string> called;
    std::vector<const Block*> pending;  // called, their bodies not read yet
    // `text` starts at `offset` in m_code (npos: the harness's own text).
    auto visit = [&](const std::string& text, std::size_t offset) {
      for (const Block& b : m_blocks) {
        if (!b.function || b.name.empty() || called.count(b.name)) continue;
        const std::vector<std::size_t> at = calls(text, b.name);
        std::string conditions;
        if (std::any_of(at.begin(), at.end(),
                        [&](std::size_t p) { return offset == npos || reached_at(offset + p, &conditions); })) {
          called.insert(b.name);
          pending.push_back(&b);
        }
      }
    };
    visit(code_only(m_harness), npos);  // not the names its comments give
    while (!pending.empty()) {
      const Block* b = pending.back();
      pending.pop_back();
      visit(m_code.substr(b->span.begin, b->span.end - b->span.begin), b->span.begin);
    }
    return called;
  }

  // The chain of `if`s leading to the block whose `{` is at `open`.
  Branch branch(std::size_t open, int depth = 0) const {
    Branch b;
    const std::size_t at = skip_space_back(m_code, open);
    std::string own;  // "" for a final `else`
    std::size_t else_at = 0, word_at = 0;
    bool chained = true;
    if (at > 0 && m_code[at - 1] == ')') {
      const std::size_t paren = opening(m_code, at - 1);
      const std::string word = paren == npos ? "" : word_before(m_code, paren, &word_at);
      if (word != "if") return b;  // a loop, a switch, a function: no condition of its own
      own = m_code.substr(paren, at - paren);
      chained = word_before(m_code, word_at, &else_at) == "else";
    } else if (word_before(m_code, at, &else_at) != "else") {
      return b;  // a plain block
    }
    if (chained) {
      // The branch before: a block that closes just before `else`.
      const std::size_t close = skip_space_back(m_code, else_at);
      const auto prior = std::find_if(m_blocks.begin(), m_blocks.end(), [&](const Block& k) { return k.span.end + 1 == close; });
      if (prior == m_blocks.end() || depth > 16) return {{}, false};
      Branch before = branch(prior->span.begin, depth + 1);
      if (!before.known || before.conditions.empty()) return {{}, false};
      b.conditions = before.conditions;
      b.conditions.back() = "!" + b.conditions.back();
    }
    if (!own.empty()) b.conditions.push_back(own);
    return b;
  }

  // Whether some size of the harness reaches the position `at_pos` of
  // m_code (a launch, a call): the conditions of the branches around it in
  // a launcher the harness calls, folded with each size; `conditions` says
  // what none of them met.
  bool reached_at(std::size_t at_pos, std::string* conditions) const {
    const int fn = block_at(m_blocks, at_pos, true);
    if (fn < 0) return true;
    const Block& function = m_blocks[static_cast<std::size_t>(fn)];
    const std::vector<std::string> dims = passed_dims(m_harness, function.name);
    if (dims.empty()) return true;  // not a launcher the harness calls
    std::vector<std::string> params;
    const std::size_t close = skip_space_back(m_code, function.span.begin) - 1;
    const std::size_t open = opening(m_code, close);
    if (open == npos) return true;
    for (const std::string& p : split_top(m_code.substr(open + 1, close - open - 1), ','))
      params.push_back(identifiers(p).empty() ? "" : identifiers(p).back());
    std::vector<std::string> all;
    for (const Block& b : m_blocks)
      if (!b.function && b.span.begin > function.span.begin && b.span.begin < at_pos && at_pos < b.span.end) {
        const Branch br = branch(b.span.begin);
        if (!br.known) return true;
        all.insert(all.end(), br.conditions.begin(), br.conditions.end());
      }
    if (all.empty()) return true;
    std::string text;
    for (const std::string& c : all) text += (text.empty() ? "" : " && ") + c;
    *conditions = trim_all(text);
    std::map<std::string, std::string> env = m_known;
    add_derived(m_code.substr(function.span.begin, at_pos - function.span.begin), &env);
    for (const auto& size : m_sizes) {
      for (std::size_t i = 0; i < params.size() && i < dims.size(); ++i) {
        const auto v = dims[i].empty() ? size.end() : size.find(dims[i]);
        if (v == size.end()) env.erase(params[i]);
        else env[params[i]] = std::to_string(v->second);
      }
      const std::string value = folded(text, env, {});
      if (value.empty()) return true;  // it reads something the sizes do not say
      try {
        if (Constraint(value).holds({})) return true;
      } catch (const std::exception&) {  // an expression it cannot read: as if met
        return true;
      }
    }
    return m_sizes.empty();
  }

  const std::string& m_harness;
  const std::string m_code;
  std::vector<Block> m_blocks;
  std::vector<LaunchRead> m_launches;
  std::map<std::string, std::string> m_known;
  std::vector<std::map<std::string, long long>> m_sizes;
  std::optional<std::set<std::string>> m_called;  // for a synthesized harness only
  std::vector<std::string> m_defines;
};

}  // namespace

LaunchReach launch_reach(const std::string& harness_text, const std::string& source_text, const LaunchTunables& found) {
  if (found.tunables.empty() && found.sites.empty()) return {};
  return Reach(harness_text, source_text, found).run();
}

}  // namespace kernelblaster::tuner
