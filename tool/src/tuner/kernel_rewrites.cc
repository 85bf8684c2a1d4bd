#include "tuner/kernel_rewrites.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "common/kernel_replay.h"
#include "common/rewrite_tunables.h"
#include "common/source_lines.h"
#include "common/source_text.h"
#include "tuner/candidate_source.h"
#include "tuner/constraint.h"
#include "tuner/counted_loops.h"
#include "tuner/launch_reading.h"

namespace kernelblaster::tuner {
namespace {

using reading::Block;
using Env = std::map<std::string, std::string>;

// A loop the source runs this many times or fewer the compiler unrolls whole already.
constexpr long long kCompilerUnrollsWhole = 4;
// A group's combinations this many times over the rewrites' still fit a part (config_space.h).
constexpr double kGroupRoom = 1e6;
const std::vector<long long> kUnrollFactors = {2, 4, 8};
const std::vector<int> kMinBlocks = {1, 2, 4};
const std::string kUnrollPrefix = kUnrollTunablePrefix;
const std::string kBoundsPrefix = kBoundsTunablePrefix;
const std::string kRestrictPrefix = kRestrictTunablePrefix;

// Whether the loop at `at` (in the text) has a pragma of its own: a
// `_Pragma` before it on its line, or a `#pragma` on the line before it
// (blank and comment lines between skipped).
bool has_own_pragma(const std::string& text, std::size_t at) {
  std::size_t start = text.rfind('\n', at);
  start = start == std::string::npos ? 0 : start + 1;
  if (text.substr(start, at - start).find("_Pragma") != std::string::npos) return true;
  while (start > 0) {
    const std::size_t end = start - 1;  // the newline ending the line before
    const std::size_t nl = end == 0 ? std::string::npos : text.rfind('\n', end - 1);
    start = nl == std::string::npos ? 0 : nl + 1;
    const std::string line = reading::trim_all(text.substr(start, end - start));
    if (line.empty() || line.rfind("//", 0) == 0) continue;
    return line.rfind("#pragma", 0) == 0 || line.rfind("# pragma", 0) == 0;
  }
  return false;
}

std::string unique_name(std::string name, std::set<std::string>* taken) {
  const std::string base = name;
  for (int k = 2; !taken->insert(name).second; ++k) name = base + "_" + std::to_string(k);
  return name;
}

struct Rewriter {
  const std::string& text;
  const std::string& file;
  const std::string code;
  const std::vector<Block> blocks;
  std::set<std::string> taken;
  std::vector<Edit> edits;
  KernelRewrites out;
  const SpaceDecl& declared;
  const std::vector<LaunchSite>& sites;
  std::vector<std::string> header_codes;  // the headers the text includes, code only

  Rewriter(const std::string& t, const std::string& f, const SpaceDecl& d, const std::vector<LaunchSite>& s)
      : text(t), file(f), code(without_preprocessor_lines(code_only(t))), blocks(reading::blocks_of(code)),
        declared(d), sites(s) {}

  void add_tunable(const std::string& name, std::vector<std::string> values, const std::string& technique,
                   std::size_t at, const std::string& role, const std::string& group) {
    Tunable t;
    t.group = group;
    t.name = name;
    t.default_value = "0";
    t.values = std::move(values);
    t.technique = technique;
    t.origin = file + ":" + std::to_string(logical_line(text, at)) + " (rewrite: " + role + ")";
    out.tunables.push_back(std::move(t));
  }

  // The group a function's rewrites join: the one group of the sites
  // that launch it where it is small enough, else a group of their own.
  std::string group_of(const std::string& function) const {
    std::string g;
    for (const LaunchSite& site : sites) {
      if (site.kernel != function) continue;
      if (site.group.empty() || (!g.empty() && site.group != g)) return "rewrites of " + function;
      g = site.group;
    }
    if (g.empty()) return "rewrites of " + function;
    double combinations = kMinBlocks.size() + 1.0;
    for (const Tunable& t : declared.tunables)
      if (t.group == g) combinations *= static_cast<double>(t.values.size());
    return combinations * (kUnrollFactors.size() + 1.0) <= kGroupRoom ? g : "rewrites of " + function;
  }

  // One unroll factor per function for its counted loops without a pragma
  // of their own that the compiler would not unroll whole anyway.
  void unroll_loops(const Env& env) {
    std::map<int, std::vector<std::size_t>> loops;  // function block -> its loops
    for (std::size_t at : word_positions(code, "for")) {
      const int f = reading::block_at(blocks, at, true);
      if (f < 0 || !blocks[static_cast<std::size_t>(f)].device || has_own_pragma(text, at)) continue;
      const std::optional<CountedLoop> loop = counted_loop(code, at, env);
      if (loop && !(loop->trips && *loop->trips <= kCompilerUnrollsWhole)) loops[f].push_back(at);
    }
    int found = 0;
    for (const auto& [f, ats] : loops) {
      const Block& b = blocks[static_cast<std::size_t>(f)];
      const std::string name = unique_name(kUnrollPrefix + b.name, &taken);
      for (std::size_t at : ats) edits.push_back({{at, at}, "KERNELBLASTER_PRAGMA_UNROLL_AT(" + name + ") "});
      std::vector<std::string> values = {"0"};
      for (long long k : kUnrollFactors) values.push_back(std::to_string(k));
      add_tunable(name, values, "loop_unrolling", ats.front(),
                  "unroll factor of " + std::to_string(ats.size()) + " counted loop" + (ats.size() == 1 ? "" : "s") +
                      " in " + b.name, group_of(b.name));
      found += static_cast<int>(ats.size());
    }
    if (found > 0)
      out.summary.push_back(std::to_string(found) + " counted loop" + (found == 1 ? "" : "s") + " in " +
                            std::to_string(loops.size()) + " function" + (loops.size() == 1 ? "" : "s") +
                            " (unroll factor: as written, 2, 4, 8)");
  }

  // The block every launch of `kernel` in the source has, as an expression
  // of integers and the tunables' macros; "" when one is not fixed so.
  std::string fixed_block(const std::string& kernel, const std::vector<reading::LaunchRead>& launches, const Env& env,
                          const std::set<std::string>& tunables) {
    std::string block;
    for (const reading::LaunchRead& l : launches) {
      if (l.site.kernel != kernel) continue;
      std::string product;
      for (const std::string& d : reading::block_dimensions(code, l)) {
        const std::string f = reading::folded(d, env, tunables);
        if (f.empty()) return "";
        product += (product.empty() ? "(" : " * (") + f + ")";
      }
      if (product.empty() || (!block.empty() && product != block)) return "";
      block = product;
    }
    return block;
  }

  // Whether a declaration of `kernel` (here or in a header) has __launch_bounds__ of its own.
  bool bounded_elsewhere(const std::string& kernel) const {
    std::vector<const std::string*> codes = {&code};
    for (const std::string& h : header_codes) codes.push_back(&h);
    for (const std::string* c : codes)
      for (std::size_t p : word_positions(*c, "__launch_bounds__")) {
        const std::size_t open = c->find('(', p);
        const std::size_t close = open == std::string::npos ? open : matching(*c, open, '(', ')');
        const std::size_t paren = close == std::string::npos ? close : c->find('(', close + 1);
        if (paren == std::string::npos) continue;
        const std::vector<std::string> ids = identifiers(c->substr(close + 1, paren - close - 1));
        if (!ids.empty() && ids.back() == kernel) return true;
      }
    return false;
  }

  void bound_kernels(const Env& env, const std::set<std::string>& tunables) {
    const std::vector<reading::LaunchRead> launches = reading::read_launches(code, text, blocks);
    int found = 0;
    for (const Block& b : blocks) {
      if (!b.function || !b.device) continue;
      const std::size_t name_at = b.name_at;
      if (!mentions(b.head, "__global__") || mentions(b.head, "__launch_bounds__") || bounded_elsewhere(b.name)) continue;
      const std::string block = fixed_block(b.name, launches, env, tunables);
      if (block.empty()) continue;
      const std::string name = unique_name(kBoundsPrefix + b.name, &taken);
      edits.push_back({{name_at, name_at}, "KERNELBLASTER_BOUNDS_AT(" + name + ", " + block + ") "});
      std::vector<std::string> values = {"0"};
      for (int k : kMinBlocks) values.push_back(std::to_string(k));
      add_tunable(name, values, "launch_bounds", name_at, "__launch_bounds__(" + block + ", blocks per SM)",
                  group_of(b.name));
      ++found;
    }
    if (found > 0)
      out.summary.push_back(std::to_string(found) + " kernel" + (found == 1 ? "" : "s") +
                            " launched with a fixed block (launch bounds: as written, 1, 2, 4 blocks per SM)");
  }

  // Where `__restrict__` goes in each pointer parameter (after its last
  // `*`); none when a parameter already has one, or fewer than two are pointers.
  std::vector<std::size_t> restrict_points(const Block& b) const {
    std::vector<std::size_t> at;
    std::size_t from = b.params.begin + 1;
    for (const std::string& param : split_top(code.substr(b.params.begin + 1, b.params.end - b.params.begin - 1), ',')) {
      const std::size_t begin = code.find(param, from);
      if (begin == std::string::npos) return {};
      from = begin + param.size();
      if (mentions(param, "__restrict__") || mentions(param, "restrict")) return {};
      const std::size_t star = param.rfind('*');
      if (star == std::string::npos || param.find_first_of("&[", star) != std::string::npos) continue;
      at.push_back(begin + star + 1);
    }
    if (at.size() < 2) return {};
    return at;
  }

  // `__restrict__` on every pointer of a kernel with two or more: offered
  // here, kept by harness_space only where the recorded launches had
  // disjoint buffers.
  void restrict_kernels() {
    int found = 0;
    for (const Block& b : blocks) {
      if (!b.function || !b.device) continue;
      if (!mentions(b.head, "__global__")) continue;
      const std::vector<std::size_t> points = restrict_points(b);
      if (points.empty()) continue;
      const std::string name = unique_name(kRestrictPrefix + b.name, &taken);
      for (std::size_t at : points) edits.push_back({{at, at}, " KERNELBLASTER_RESTRICT_WHEN(" + name + ")"});
      add_tunable(name, {"0", "1"}, "read_only_cache", b.name_at,
                  "__restrict__ on " + std::to_string(points.size()) + " pointers of " + b.name, group_of(b.name));
      ++found;
    }
    if (found > 0)
      out.summary.push_back(std::to_string(found) + " kernel" + (found == 1 ? "" : "s") +
                            " with two or more pointers (__restrict__, where recorded launches had disjoint buffers)");
  }

  std::string head() const {
    std::string h;
    auto any = [&](const char* technique) {
      return std::any_of(out.tunables.begin(), out.tunables.end(), [&](const Tunable& t) { return t.technique == technique; });
    };
    if (any("loop_unrolling")) {
      h += "#define KERNELBLASTER_PRAGMA_UNROLL_PICK_(n) KERNELBLASTER_PRAGMA_UNROLL_##n\n"
           "#define KERNELBLASTER_PRAGMA_UNROLL_AT(n) KERNELBLASTER_PRAGMA_UNROLL_PICK_(n)\n"
           "#define KERNELBLASTER_PRAGMA_UNROLL_0\n";
      for (long long k : kUnrollFactors)
        h += "#define KERNELBLASTER_PRAGMA_UNROLL_" + std::to_string(k) + " _Pragma(\"unroll " + std::to_string(k) + "\")\n";
    }
    if (any("launch_bounds")) {
      h += "#define KERNELBLASTER_BOUNDS_PICK_(n, threads) KERNELBLASTER_BOUNDS_##n(threads)\n"
           "#define KERNELBLASTER_BOUNDS_AT(n, threads) KERNELBLASTER_BOUNDS_PICK_(n, threads)\n"
           "#define KERNELBLASTER_BOUNDS_0(threads)\n";
      for (int k : kMinBlocks)
        h += "#define KERNELBLASTER_BOUNDS_" + std::to_string(k) + "(threads) __launch_bounds__(threads, " +
             std::to_string(k) + ")\n";
    }
    if (any("read_only_cache"))
      h += "#define KERNELBLASTER_PICK_RESTRICT_(n) KERNELBLASTER_PICK_RESTRICT_##n\n"
           "#define KERNELBLASTER_RESTRICT_WHEN(n) KERNELBLASTER_PICK_RESTRICT_(n)\n"
           "#define KERNELBLASTER_PICK_RESTRICT_0\n"
           "#define KERNELBLASTER_PICK_RESTRICT_1 __restrict__\n";
    for (const Tunable& t : out.tunables) h += "#ifndef " + t.name + "\n#define " + t.name + " 0\n#endif\n";
    return h;
  }

  void finish() {
    out.text = text;
    if (edits.empty()) return;
    std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.span.begin > b.span.begin; });
    std::string body = text;
    for (const Edit& e : edits) body.replace(e.span.begin, e.span.end - e.span.begin, e.with);
    out.text = head() + line_directive(file) + body;
  }
};

}  // namespace

bool is_kernel_rewrite(const Tunable& t) {
  return t.name.rfind(kUnrollPrefix, 0) == 0 || t.name.rfind(kBoundsPrefix, 0) == 0 || is_restrict_rewrite(t);
}

bool is_restrict_rewrite(const Tunable& t) { return t.name.rfind(kRestrictPrefix, 0) == 0; }

std::string restricted_kernel(const Tunable& t) {
  return is_restrict_rewrite(t) ? t.name.substr(kRestrictPrefix.size()) : "";
}

int logical_line(const std::string& text, std::size_t pos) { return line_as_written(text, pos); }

KernelRewrites prepare_kernel_rewrites(const std::string& text, const std::string& file, const SpaceDecl& declared,
                                      const std::vector<LaunchSite>& sites, const std::vector<std::string>& include_dirs) {
  Rewriter r(text, file, declared, sites);
  for (const std::string& h : reading::included_texts(text, std::filesystem::path(file).parent_path(), include_dirs))
    r.header_codes.push_back(without_preprocessor_lines(code_only(h)));
  for (const Tunable& t : declared.tunables) r.taken.insert(t.name);
  if (!declared.discover) {
    r.out.text = text;
    return r.out;
  }
  // Trip counts with every tunable at its default; bounds keep the tunables' names.
  Env env;
  reading::add_known_constants(text, &env);
  std::set<std::string> tunables;
  Env fixed = env;
  for (const Tunable& t : declared.tunables) {
    tunables.insert(t.name);
    fixed.erase(t.name);
    if (integer_literal(t.default_value) >= 0) env[t.name] = t.default_value;
  }
  r.unroll_loops(env);
  r.bound_kernels(fixed, tunables);
  r.restrict_kernels();
  r.finish();
  return r.out;
}

}  // namespace kernelblaster::tuner
