// kernelblaster kb: validate, show, summarize, merge and classify with
// knowledge-base files.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "kb/classifier.h"
#include "common/file_lock.h"
#include "kb/kb_report.h"
#include "kb/kb_store.h"

namespace kernelblaster {
namespace {

const char* kHelp = R"(usage: kernelblaster kb <subcommand> [options]

  validate FILE [--json]
      Checks a KB file; never modifies it. Exit 0 valid, 1 invalid (one line:
      file: key: reason), 2 bad usage or unreadable file.
  show [FILE] [--state S] [--technique T] [--arch A] [--json]
      Lists states, techniques and statistics; with --state or --technique,
      in detail. --json prints the selected part as a KB document.
  stats [FILE] [--arch A] [--top N] [--json]
      Counts, and the best techniques per state and architecture by predicted
      speedup (top 3 unless --top).
  merge A B [--out OUT] [--json]
      Adds B's statistics, states and techniques to A, in place under A's
      lock (A is created if missing), or writes the result to OUT instead.
  classify --metrics FILE.json [--kb FILE] [--json]
      Prints the performance state the KB's rules give for the metrics (a JSON
      object of metric name -> number, optionally under "metrics").
  path [--seed-kb] [--json]
      Prints the user KB path (with --seed-kb, the seed KB's; --json: both).

Without FILE, show, stats and classify read the user KB layered on the seed
KB. The user KB is $KERNELBLASTER_KB, else ${XDG_CACHE_HOME:-~/.cache}/kernelblaster/kb.json.
)";

void expect_operands(const Operands& p, std::size_t min, std::size_t max, const char* what) {
  if (p.positional.size() < min) throw UsageError(std::string("missing ") + what);
  if (p.positional.size() > max) throw UsageError("unexpected argument '" + p.positional[max] + "'");
}

void require_readable(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw UsageError("no such file: " + path);
  if (!std::filesystem::is_regular_file(path, ec)) throw UsageError("not a regular file: " + path);
}

// FILE if given, else the user KB layered on the seed.
kb::KnowledgeBase load_selected(const std::vector<std::string>& positional, const std::string& self_exe) {
  if (!positional.empty()) {
    require_readable(positional.front());
    return kb::load_kb(positional.front());
  }
  return kb::load_layered(kb::seed_kb_path(self_exe), kb::default_user_kb_path());
}

// One JSON object on one line, as the other commands print theirs.
void print_json(const nlohmann::ordered_json& j) {
  // Bytes that are not UTF-8 (a path) are replaced, never a throw.
  std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
}

int validate(const std::vector<std::string>& argv) {
  Operands p = split_operands(argv, {});
  Args args(p.options, {}, {"--json"});
  expect_operands(p, 1, 1, "FILE");
  const std::string& file = p.positional.front();
  require_readable(file);
  try {
    kb::KnowledgeBase kb = kb::load_kb(file);
    if (args.flag("--json"))
      print_json({{"valid", true},
                  {"file", file},
                  {"schema_version", kb.schema_version},
                  {"states", kb.states.size()},
                  {"techniques", kb.techniques.size()},
                  {"stats", kb.stats.size()},
                  {"transitions", kb.transitions.size()}});
    else
      std::printf("%s: valid (%zu states, %zu techniques, %zu statistics entries, %zu transitions)\n", file.c_str(),
                  kb.states.size(), kb.techniques.size(), kb.stats.size(), kb.transitions.size());
    return 0;
  } catch (const kb::KbError& e) {
    if (args.flag("--json"))
      print_json({{"valid", false}, {"file", e.file()}, {"key", e.key()}, {"reason", e.reason()}});
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}

int show(const std::vector<std::string>& argv, const std::string& self_exe) {
  Operands p = split_operands(argv, {"--state", "--technique", "--arch"});
  Args args(p.options, {"--state", "--technique", "--arch"}, {"--json"});
  expect_operands(p, 0, 1, "FILE");
  kb::KbFilter filter{args.value("--state"), args.value("--technique"), args.value("--arch")};
  kb::KnowledgeBase selected = kb::filter_kb(load_selected(p.positional, self_exe), filter);
  std::fputs((args.flag("--json") ? kb::serialize_kb(selected) : kb::show_text(selected, filter)).c_str(), stdout);
  return 0;
}

int stats(const std::vector<std::string>& argv, const std::string& self_exe) {
  Operands p = split_operands(argv, {"--arch", "--top"});
  Args args(p.options, {"--arch", "--top"}, {"--json"});
  expect_operands(p, 0, 1, "FILE");
  double top = args.number("--top", 3);
  if (top < 1 || top != static_cast<int>(top)) throw UsageError("--top needs a positive whole number");
  kb::KbSummary s = kb::summarize(load_selected(p.positional, self_exe), args.value("--arch"), static_cast<std::size_t>(top));
  std::fputs((args.flag("--json") ? kb::summary_json(s) : kb::summary_text(s)).c_str(), stdout);
  return 0;
}

int merge(const std::vector<std::string>& argv) {
  // --out as every other command says it; --output, its old name, still works.
  Operands p = split_operands(argv, {"--out", "--output"});
  Args args(p.options, {"--out", "--output"}, {"--json"});
  expect_operands(p, 2, 2, "A and B");
  const std::string& a = p.positional[0];
  const std::string& b = p.positional[1];
  std::string output = args.value("--out", args.value("--output"));
  require_readable(b);
  kb::KnowledgeBase from = kb::load_kb(b);
  std::size_t added = 0, combined = 0;
  auto apply = [&](kb::KnowledgeBase& into) {
    for (const auto& [key, s] : from.stats) (into.stats.count(key) ? combined : added)++;
    kb::merge_into(into, from);
  };
  std::string target = output.empty() ? a : output;
  if (output.empty()) {
    kb::update_kb(a, apply);
  } else {
    require_readable(a);
    kb::KnowledgeBase into = kb::load_kb(a);
    apply(into);
    kb::compact(into);
    FileLock lock(output + ".lock");  // excludes update_kb writers of OUT
    std::error_code ec;
    if (std::filesystem::exists(output, ec)) kb::load_kb(output);  // a malformed OUT is refused, not overwritten
    kb::save_kb(output, into);
  }
  if (args.flag("--json"))
    print_json({{"output", target}, {"added", added}, {"combined", combined}});
  else
    std::printf("merged %s into %s: %zu statistics entries added, %zu combined\n", b.c_str(), target.c_str(), added,
                combined);
  return 0;
}

int classify(const std::vector<std::string>& argv, const std::string& self_exe) {
  Operands p = split_operands(argv, {"--metrics", "--kb"});
  Args args(p.options, {"--metrics", "--kb"}, {"--json"});
  expect_operands(p, 0, 0, "");
  std::string metrics_file = args.value("--metrics");
  if (metrics_file.empty()) throw UsageError("--metrics FILE.json is required");
  require_readable(metrics_file);
  std::string kb_file = args.value("--kb");
  kb::KnowledgeBase kb = load_selected(kb_file.empty() ? std::vector<std::string>{} : std::vector<std::string>{kb_file}, self_exe);
  kb::Classification c = kb::classify(kb, kb::read_metrics_file(metrics_file));
  std::fputs((args.flag("--json") ? kb::classification_json(kb, c) : kb::classification_text(kb, c)).c_str(), stdout);
  return 0;
}

int path(const std::vector<std::string>& argv, const std::string& self_exe) {
  Operands p = split_operands(argv, {});
  refuse_renamed(p.options, {{"--seed", "now --seed-kb (--seed is the policy's seed in every command)"}});
  Args args(p.options, {}, {"--json", "--seed-kb"});
  expect_operands(p, 0, 0, "");
  if (args.flag("--json")) {
    std::string seed;
    try {
      seed = kb::seed_kb_path(self_exe);
    } catch (const kb::KbError&) {
      // An empty "seed" says none was found; the user path is still the answer.
    }
    print_json({{"user", kb::default_user_kb_path()}, {"seed", seed}});
  } else {
    std::printf("%s\n", (args.flag("--seed-kb") ? kb::seed_kb_path(self_exe) : kb::default_user_kb_path()).c_str());
  }
  return 0;
}

}  // namespace

int kb_command(const CommandArgs& argv, const std::string& self_exe) {
  const std::vector<std::string> known = {"validate", "show", "stats", "merge", "classify", "path"};
  const bool named = !argv.empty() && std::find(known.begin(), known.end(), argv.front()) != known.end();
  // A subcommand's errors name it: "kernelblaster kb merge: ...".
  const std::string name = named ? "kb " + argv.front() : "kb";
  return run_command(name.c_str(), kHelp, argv, [&]() -> int {
    if (!named) throw subcommand_error(argv, known);
    const std::string& sub = argv.front();
    std::vector<std::string> rest(argv.begin() + 1, argv.end());
    if (sub == "validate") return validate(rest);
    if (sub == "show") return show(rest, self_exe);
    if (sub == "stats") return stats(rest, self_exe);
    if (sub == "merge") return merge(rest);
    if (sub == "classify") return classify(rest, self_exe);
    return path(rest, self_exe);
  });
}

}  // namespace kernelblaster
