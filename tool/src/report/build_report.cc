#include "report/build_report.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "build_step/build_record.h"
#include "build_step/lockfile.h"
#include "build_step/results_cache.h"
#include "common/file_util.h"
#include "common/sha256.h"
#include "report/format.h"
#include "report/roofline_chart.h"

namespace kernelblaster::report {
namespace {

namespace fs = std::filesystem;
using build_step::BuildAction;
using build_step::BuildCause;
using build_step::BuildRecord;
using build_step::GateRecord;

// One optimized source as the build tree has it.
struct SourceEntry {
  BuildRecord record;
  std::string name;  // the source's file name
  std::optional<GateRecord> correctness, speed;
  bool correctness_stale = false, speed_stale = false;
};

struct Found {
  std::vector<SourceEntry> sources;
  std::vector<std::string> unreadable;  // records that are not (an older tool's stamps)
};

// A gate's last verdict, and whether it judged another text than the one compiled now.
std::optional<GateRecord> gate_of(const std::string& out, const char* check, const std::string& out_sha, bool* stale) {
  std::string text;
  if (!read_file_if_present(build_step::gate_record_path(out, check), &text)) return std::nullopt;
  std::optional<GateRecord> g = build_step::parse_gate_record(text);
  *stale = g && !g->judged_sha256.empty() && g->judged_sha256 != out_sha;
  return g;
}

Found find_sources(const fs::path& tree) {
  Found f;
  for (BuildRecord& r : build_step::build_tree_records(tree.string(), &f.unreadable)) {
    SourceEntry e{r, fs::path(r.source).filename().string(), std::nullopt, std::nullopt};
    std::string out_text;
    const std::string out_sha = read_file_if_present(r.out, &out_text) ? sha256_hex(out_text) : "";
    e.correctness = gate_of(r.out, "correctness", out_sha, &e.correctness_stale);
    e.speed = gate_of(r.out, "speed", out_sha, &e.speed_stale);
    f.sources.push_back(std::move(e));
  }
  std::sort(f.sources.begin(), f.sources.end(), [](const SourceEntry& a, const SourceEntry& b) {
    return std::tie(a.record.target, a.name, a.record.source) < std::tie(b.record.target, b.name, b.record.source);
  });
  return f;
}

// Why the step compiled what it did, in a few words.
std::string cause_words(BuildCause c) {
  switch (c) {
    case BuildCause::applied: return "a known result for this GPU";
    case BuildCause::tuned: return "tuned in this build";
    case BuildCause::no_gain: return "nothing beat the original";
    case BuildCause::below_min_speedup: return "the known result is below MIN_SPEEDUP";
    case BuildCause::mode_off: return "MODE OFF";
    case BuildCause::manifest_unreadable: return "the target's settings could not be read";
    case BuildCause::nvcc_unusable: return "nvcc cannot be run";
    case BuildCause::gpu_unusable: return "a GPU is here but CUDA cannot use it";
    case BuildCause::no_gpu: return "no GPU, and no result for the target";
    case BuildCause::other_gpu: return "this GPU is not the target";
    case BuildCause::no_target: return "no GPU and no target GPU named";
    case BuildCause::apply_without_result: return "MODE APPLY and no result";
    case BuildCause::tuning_failed: return "tuning failed";
    case BuildCause::dry_run: return "dry run";
    case BuildCause::recording: return "recording calls for a harness";
    case BuildCause::no_harness: return "no usable harness";
    case BuildCause::result_required: return "a result was required and none applies";
  }
  return "?";
}

bool cause_is_failure(BuildCause c) {
  return c == BuildCause::tuning_failed || c == BuildCause::nvcc_unusable || c == BuildCause::gpu_unusable ||
         c == BuildCause::manifest_unreadable || c == BuildCause::result_required;
}

bool compiles_tuned(const SourceEntry& e) {
  return e.record.action == BuildAction::tuned || e.record.action == BuildAction::applied;
}

Cell compiled_cell(const SourceEntry& e) {
  const BuildRecord& r = e.record;
  if (r.action == BuildAction::applied)
    return {"tuned (from " +
                (r.origin == build_step::ResultOrigin::remote_storage ? "remote storage " + r.remote
                                                          : "the " + std::string(build_step::result_origin_name(r.origin))) +
                ")",
            "good"};
  if (r.action == BuildAction::tuned) return {"tuned (in this build)", "good"};
  if (r.action == BuildAction::recording) return {"a recording shim (calling the original)", "neutral"};
  return {"the original", cause_is_failure(r.cause) ? "bad" : "neutral"};
}

std::string gpu_name(const build_step::TunedResult& r) { return r.gpu.name.empty() ? r.gpu.id() : r.gpu.name; }

std::string speedup_of(const SourceEntry& e) {
  const auto& r = e.record.result;
  if (!r) return "-";
  return r->improved ? speedup_text(r->speedup) : "1.000x (nothing faster)";
}

void add_summary(Document& doc, const Found& f) {
  int tuned = 0, failed = 0, shims = 0;
  std::map<std::string, int> targets;
  for (const SourceEntry& e : f.sources) {
    tuned += compiles_tuned(e);
    shims += e.record.action == BuildAction::recording;
    failed += cause_is_failure(e.record.cause);
    ++targets[e.record.target];
  }
  const int n = static_cast<int>(f.sources.size());
  doc.add(Paragraph{std::to_string(n) + (n == 1 ? " source" : " sources") + " in " + std::to_string(targets.size()) +
                    (targets.size() == 1 ? " target" : " targets") + ": " + std::to_string(tuned) +
                    " compiled tuned, " + (shims ? std::to_string(shims) + " a recording shim, " : "") +
                    std::to_string(n - tuned - shims) + " compiled as written" +
                    (failed ? " (" + std::to_string(failed) + " because something failed)" : "") +
                    ". Each row is what the last build step decided."});
  // The machine's GPU as the steps found it: a page from a machine without
  // one says so, or its grey reads as "nothing beat the original".
  int without_gpu = 0;
  for (const SourceEntry& e : f.sources)
    without_gpu += e.record.cause == BuildCause::no_gpu || e.record.cause == BuildCause::no_target ||
                   e.record.cause == BuildCause::gpu_unusable;
  if (without_gpu > 0)
    doc.add(Paragraph{"The machine that last built " + std::to_string(without_gpu) + " of them had no usable GPU: those "
                      "compile what the cache or the lockfile holds for the target GPU, or the original. Nothing was "
                      "tuned or measured for them in that build."});
  Strip s{"sources", "Sources by what they compile (green: tuned; grey: the original; red: the original because "
                     "something failed)", {}, true};
  for (const SourceEntry& e : f.sources) {
    Cell c = compiled_cell(e);
    s.cells.push_back({e.record.target + " / " + e.name + ": " + c.text, c.tone});
  }
  if (!f.sources.empty()) doc.add(s);
}

void add_sources(Document& doc, const Found& f) {
  doc.add(Heading{"What each source compiles, and why"});
  Table t{{"target", "source", "compiles", "why", "speedup", "GPU", "decided at"}, {}};
  for (const SourceEntry& e : f.sources) {
    const BuildRecord& r = e.record;
    std::string why = cause_words(r.cause);
    if (r.stale_lockfile) why += " (the lockfile's entry for this GPU is stale)";
    if (!r.refused_entry.empty()) why += " (an entry was refused: " + r.refused_entry + ")";
    const std::string gpu = r.result ? gpu_name(*r.result) : r.selector;
    t.rows.push_back({{r.target}, {e.name}, compiled_cell(e), {why, cause_is_failure(r.cause) ? "bad" : ""},
                      {speedup_of(e)}, {gpu}, {r.decided_at}});
  }
  doc.add(t);
}

std::string config_text(const build_step::TunedResult& r) {
  if (!r.improved) return "(the original)";
  std::string out;
  for (const std::string& s : build_step::settings_text(r)) out += (out.empty() ? "" : ", ") + s;
  for (const auto& flag : r.flags) out += (out.empty() ? "" : " ") + flag;
  if (const std::string a = build_step::assumptions(r); !a.empty()) out += " (" + a + ")";
  return out.empty() ? "(defaults, no flags)" : out;
}

// One row per GPU for the source: the cache's entry for the current key, the
// lockfile's entry (current or stale).
void add_results_per_gpu(Document& doc, const Found& f) {
  doc.add(Heading{"Results per GPU"});
  doc.add(Paragraph{"Every GPU with a result for the source: from the results cache (for the source as it is now) "
                    "and from the lockfile (stale where the source, a header, the flags or the tool changed since)."});
  Table t{{"source", "GPU", "speedup", "from", "configuration", "measured"}, {}};
  for (const SourceEntry& e : f.sources) {
    const BuildRecord& r = e.record;
    // One row per GPU and measurement: the cache and the lockfile share a row
    // where they hold the same measurement.
    std::map<std::pair<std::string, std::string>, std::pair<build_step::TunedResult, std::string>> rows;
    if (!r.cache_dir.empty() && !r.key.empty())
      for (const build_step::TunedResult& c : build_step::ResultsCache(r.cache_dir, 0).all_for(r.key))
        rows[{c.gpu.id(), c.measured_at}] = {c, "cache"};
    std::string lock_note;
    if (!r.lockfile.empty()) {
      try {
        const build_step::Lockfile lock = build_step::read_lockfile(r.lockfile);
        auto it = lock.sources.find(build_step::lockfile_source_name(r.lockfile, r.source));
        if (it != lock.sources.end())
          for (const auto& [id, entry] : it->second) {
            const std::string where = entry.key == r.key ? "lockfile" : "lockfile (stale)";
            auto [row, fresh] = rows.try_emplace({id, entry.measured_at}, entry, where);
            if (!fresh) row->second.second += ", " + where;
          }
      } catch (const std::exception& x) {
        lock_note = std::string("the lockfile cannot be read: ") + x.what();
      }
    }
    for (const auto& [id_when, row] : rows) {
      const build_step::TunedResult& res = row.first;
      const bool stale = row.second == "lockfile (stale)";
      t.rows.push_back({{e.name}, {gpu_name(res) + " (" + id_when.first + ")"},
                        {res.improved ? speedup_text(res.speedup) : "1.000x", stale ? "neutral" : res.improved ? "good" : ""},
                        {row.second, stale ? "neutral" : ""}, {config_text(res)}, {res.measured_at}});
    }
    if (rows.empty()) t.rows.push_back({{e.name}, {"-"}, {"-"}, {lock_note.empty() ? "no result on any GPU" : lock_note, lock_note.empty() ? "" : "bad"}, {""}, {""}});
    else if (!lock_note.empty()) t.rows.push_back({{e.name}, {"-"}, {"-"}, {lock_note, "bad"}, {""}, {""}});
  }
  doc.add(t);
}

Cell gate_cell(const std::optional<GateRecord>& g, bool stale) {
  if (!g) return {"not run", ""};
  std::string text = g->verdict;
  std::string tone = g->exit_code == 0 ? "good" : g->exit_code == 77 ? "neutral" : "bad";
  if (stale) {
    text += " (judged an earlier build's source)";
    tone = "neutral";
  }
  return {text, tone};
}

void add_gates(Document& doc, const Found& f) {
  doc.add(Heading{"CTest gates"});
  doc.add(Paragraph{"The last verdict of each source's gates (ctest -L kernelblaster), as the gates recorded it."});
  Table t{{"target", "source", "correctness", "speed", "judged on", "judged at"}, {}};
  for (const SourceEntry& e : f.sources) {
    // The device and time of the gate that ran the engine (a skip names none).
    const GateRecord* any = e.speed && !e.speed->device.empty() ? &*e.speed : e.correctness ? &*e.correctness : nullptr;
    t.rows.push_back({{e.record.target}, {e.name}, gate_cell(e.correctness, e.correctness_stale),
                      gate_cell(e.speed, e.speed_stale), {any ? any->device : ""}, {any ? any->judged_at : ""}});
  }
  doc.add(t);
}

// Each source whose last tuning run in this tree left a log with this GPU's
// ceilings: its original and winner under the roofline (roofline_chart.h).
// The log is `<compiled copy>.tuned.cu.log.json` (build_step.h), the last
// run here; the build may since have taken a cached or locked result.
void add_rooflines(Document& doc, const Found& f) {
  std::vector<Chart> charts;
  for (const SourceEntry& e : f.sources) {
    std::string text;
    if (!read_file_if_present(e.record.out + ".tuned.cu.log.json", &text)) continue;
    const nlohmann::json log = nlohmann::json::parse(text, nullptr, false);
    if (!log.is_object() || !log.contains("metrics") || !log["metrics"].is_object()) continue;
    const double speedup = log.value("best_speedup", 0.0);
    std::optional<Chart> c = roofline_chart(log["metrics"], log.value("best", std::string()).empty() ? 1.0 : speedup);
    if (!c) continue;
    c->id = "roofline-" + e.record.target + "-" + e.name;
    c->title = e.record.target + "/" + e.name + " under the roofline of " + log.value("gpu", std::string("its GPU")) +
               " (its last tuning run here, " + log.value("date", std::string("undated")) + ")";
    charts.push_back(std::move(*c));
  }
  if (charts.empty()) return;
  doc.add(Heading{"Under the roofline"});
  doc.add(Paragraph{"Where each source's last tuning run in this build tree put its original (its dominant kernel's "
                    "profile) and its winner, against the GPU's measured ceilings. Sources whose run had no ceilings "
                    "or whose harness declares no FLOPs are not drawn."});
  for (Chart& c : charts) doc.add(std::move(c));
}

void add_lines(Document& doc, const Found& f) {
  doc.add(Heading{"The build's lines"});
  Table t{{"source", "what the last build step said"}, {}};
  for (const SourceEntry& e : f.sources) t.rows.push_back({{e.name}, {e.record.line}});
  doc.add(t);
}

}  // namespace

bool is_build_tree(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / "CMakeCache.txt", ec);
}

Document build_report(const std::string& dir) {
  Document doc;
  doc.title = "KernelBlaster build report";
  doc.subtitle = fs::absolute(dir).lexically_normal().string();
  if (doc.subtitle.size() > 1 && doc.subtitle.back() == '/') doc.subtitle.pop_back();
  const Found f = find_sources(dir);
  if (f.sources.empty()) {
    doc.add(Paragraph{"No KernelBlaster build step has run in this build tree yet: build a target that calls "
                      "kernelblaster_optimize()."});
  } else {
    add_summary(doc, f);
    add_sources(doc, f);
    add_results_per_gpu(doc, f);
    add_gates(doc, f);
    add_rooflines(doc, f);
    add_lines(doc, f);
  }
  if (!f.unreadable.empty()) {
    Table t{{"records this report could not read"}, {}};
    for (const std::string& why : f.unreadable) t.rows.push_back({{why, "bad"}});
    doc.add(t);
  }
  return doc;
}

}  // namespace kernelblaster::report
