#include "harness/capture_step.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/file_util.h"
#include "common/fnv.h"
#include "common/text.h"
#include "harness/capture_gather.h"
#include "harness/capture_harness.h"
#include "harness/capture_runtime.h"
#include "harness/capture_shim.h"
#include "harness/kernel_capture.h"
#include "harness/kernel_names.h"
#include "harness/launcher_scan.h"
#include "harness/launcher_state.h"

namespace fs = std::filesystem;

namespace kernelblaster::harness {

namespace {

std::string plural(std::size_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// A harness can call a launcher whose every argument a recorded call gives:
// no handle, reference or object the recording could only name.
bool replayable(const Launcher& l) {
  return std::none_of(l.params.begin(), l.params.end(), [](const LauncherParam& p) { return p.kind == ParamKind::other; });
}

// "run_kernel takes cublasHandle_t handle": what makes launchers unreplayable.
std::string unreplayable_params(const SourceScan& scan) {
  std::vector<std::string> why;
  for (const Launcher& l : scan.launchers)
    for (const LauncherParam& p : l.params)
      if (p.kind == ParamKind::other) {
        why.push_back(l.name + " takes " + p.type + " " + p.name);
        break;
      }
  return joined(why);
}

// The kernels a tuning of the file changes: those compiled into it, else
// (an older scan) those its host code launches.
const std::vector<std::string>& file_kernels(const SourceScan& scan) {
  return scan.defined_kernels.empty() ? scan.kernels : scan.defined_kernels;
}

// The kernels a tuning would change that no harness call runs: by kernel when
// the scan knows which launcher reaches which, else by launcher.
void describe_unverified(const SourceScan& scan, const std::vector<std::string>& covered,
                         const std::vector<std::string>& never_called, bool launches_recorded, CaptureOutcome& out) {
  std::vector<std::string> why;
  if (!never_called.empty())
    why.push_back(joined(never_called) + (never_called.size() == 1 ? " was" : " were") +
                  " never called while calls were recorded");
  for (const Launcher& l : scan.launchers)
    if (!replayable(l))
      for (const LauncherParam& p : l.params)
        if (p.kind == ParamKind::other) {
          why.push_back(l.name + " takes " + p.type + " " + p.name + ", which no recorded call can give a harness");
          break;
        }
  if (file_kernels(scan).empty()) {
    out.unverified = never_called;
    for (const Launcher& l : scan.launchers)
      if (!replayable(l)) out.unverified.push_back(l.name);
    out.unverified_kind = "launcher";
  } else {
    for (const std::string& k : file_kernels(scan))
      if (std::find(covered.begin(), covered.end(), k) == covered.end()) out.unverified.push_back(k);
    out.unverified_kind = "kernel";
    if (!out.unverified.empty() && launches_recorded)
      why.push_back(std::string(out.unverified.size() == 1 ? "it was" : "they were") +
                    " never launched while launches were recorded");
  }
  for (const std::string& w : why) out.unverified_why += (out.unverified_why.empty() ? "" : "; ") + w;
}



struct ReadSource {
  SourceScan scan;
  bool scanned = false;
  std::string error = "this kernelblaster was built without libclang";
  // The kernels a tuning of the file changes: the parser's, else read from
  // the text (kernel_names.h), which is all kernel-level capture needs.
  std::vector<std::string> kernels;
};

ReadSource read_source(const CaptureStep& step, const std::string& source) {
  ReadSource r;
  if (have_parser()) {
    ScanOptions opt;
    opt.include_dirs = step.include_dirs;
    opt.definitions = step.definitions;
    try {
      r.scan = scan_source(source, opt);
      r.scanned = true;
      r.kernels = file_kernels(r.scan);
      return r;
    } catch (const std::exception& x) {
      r.error = x.what();
    }
  }
  r.kernels = kernels_defined_in(source, step.include_dirs, default_cuda_include());
  return r;
}

// This source's recorded launcher calls, per launcher (recordings of the
// same signature merged). Calls recorded with another signature of a
// launcher (the source changed since) cannot drive it: counted in `stale`.
std::map<std::string, Capture> launcher_recordings(const Gathered& g, const ReadSource& src, const std::string& source,
                                                   std::size_t& stale) {
  std::map<std::string, Capture> recorded;
  for (const Capture& c : g.captures) {
    if (fs::path(c.source).lexically_normal() != fs::path(source)) continue;
    if (src.scanned && std::none_of(src.scan.launchers.begin(), src.scan.launchers.end(),
                                    [&](const Launcher& l) { return same_signature(l, c.launcher); })) {
      stale += c.calls.size();
      continue;
    }
    auto it = recorded.find(c.launcher.name);
    if (it == recorded.end()) {
      recorded.emplace(c.launcher.name, c);
    } else if (same_signature(it->second.launcher, c.launcher)) {
      it->second.calls.insert(it->second.calls.end(), c.calls.begin(), c.calls.end());
    } else if (c.calls.size() > it->second.calls.size()) {
      it->second = c;  // unread source, two signatures: the one recorded more
    }
  }
  return recorded;
}

// What one harness for the source is made of: the recorded launchers a
// harness can call (in the source's order), then, for the file's kernels
// none of them reaches, their recorded launches (kernel_capture.h).
struct HarnessPlan {
  std::vector<Capture> captures;
  std::vector<std::string> definitions;  // per capture; empty: a launcher of the source
  std::vector<std::string> covered;      // kernels that run in it
  std::vector<std::string> never_called;  // launchers with no recorded call
  std::vector<std::string> notes;        // launches left out, unreadable records
  std::size_t calls = 0, launches = 0;
  std::string launcher_names, kernel_names;
  bool launches_recorded = false;  // the kernel recorder recorded some kernel (of any source)
};

// The launchers an earlier build found the original failing under
// (refuse_launchers), with why; none once the source has changed.
std::map<std::string, std::string> refused_launchers(const CaptureStep& step, const std::string& text) {
  std::map<std::string, std::string> out;
  std::string kept;
  if (!read_file_if_present(refused_launchers_path(step.harness), &kept)) return out;
  const nlohmann::json j = nlohmann::json::parse(kept, nullptr, false);
  if (!j.is_object() || j.value("source_fnv", std::string()) != std::to_string(fnv1a_64(text))) return out;
  for (const auto& name : j.value("launchers", nlohmann::json::array()))
    if (name.is_string()) out[name.get<std::string>()] = j.value("why", std::string());
  return out;
}

void plan_launchers(const std::map<std::string, Capture>& recorded, const ReadSource& src, const std::string& text,
                    const std::map<std::string, std::string>& refused, HarnessPlan& plan) {
  auto add = [&](const Capture& c, const Launcher* scanned_as) {
    plan.captures.push_back(c);
    plan.definitions.emplace_back();
    plan.calls += c.calls.size();
    plan.launcher_names += (plan.launcher_names.empty() ? "" : ", ") + c.launcher.name;
    if (scanned_as) plan.covered.insert(plan.covered.end(), scanned_as->kernels.begin(), scanned_as->kernels.end());
  };
  if (!src.scanned) {
    for (const auto& [name, c] : recorded) add(c, nullptr);
    return;
  }
  for (const Launcher& l : src.scan.launchers) {
    auto it = recorded.find(l.name);
    if (it == recorded.end()) {
      plan.never_called.push_back(l.name);
    } else if (auto no = refused.find(l.name); no != refused.end()) {
      plan.notes.push_back(l.name + " is not replayed: the original failed under its recorded calls (" + no->second + ")");
    } else if (const std::string state = state_set_elsewhere(text, l); !state.empty()) {
      // Called alone it would find its state unset: its kernels' recorded
      // launches stand in for it where the kernel recorder has them.
      plan.notes.push_back(l.name + " is not replayed: it " + state + ", which its recorded arguments do not give");
    } else if (replayable(l)) {
      add(it->second, &l);
    }
  }
}

void plan_kernels(const CaptureStep& step, const ReadSource& src, const std::string& source, HarnessPlan& plan) {
  if (src.kernels.empty() || step.kernel_records.empty()) return;
  KernelRecords records = read_kernel_records(step.kernel_records);
  const std::vector<std::string>& mine = src.kernels;
  const std::vector<std::string> by_launchers = plan.covered;
  for (const std::string& e : records.errors) plan.notes.push_back("a kernel record refused: " + e);
  plan.launches_recorded = !records.kernels.empty();
  std::string text;
  read_file_if_present(source, &text);
  std::set<std::string> launchers;  // the names the harness defines so far
  for (const KernelRecording& r : records.kernels) {
    const std::string& base = r.signature.base_name;
    if (std::find(mine.begin(), mine.end(), base) == mine.end()) continue;
    if (std::find(by_launchers.begin(), by_launchers.end(), base) != by_launchers.end())
      continue;  // a recorded launcher of the source runs it, with the launch code the tuning changes
    // Programs of one build tree share the recorder's directory: a kernel of
    // the same name in another program is not this source's.
    const std::vector<std::size_t> counts = kernel_parameter_counts(text, base);
    if (!counts.empty() && std::find(counts.begin(), counts.end(), r.signature.params.size()) == counts.end()) {
      plan.notes.push_back("a recorded " + r.name + " is not this source's " + base + " (its parameters differ): " +
                           "another program's kernel of the same name, left out");
      continue;
    }
    try {
      KernelCapture kc = kernel_capture(r, source);
      // Two recorded kernels of one name (overloads): the second launcher gets a number.
      const std::string first = kc.capture.launcher.name;
      for (int n = 2; launchers.count(kc.capture.launcher.name); ++n)
        kc = kernel_capture(r, source, first.substr(0, 56) + "_" + std::to_string(n));
      launchers.insert(kc.capture.launcher.name);
      for (const std::string& l : kc.left_out) plan.notes.push_back(r.signature.name + ": " + l);
      plan.launches += kc.capture.calls.size();
      plan.kernel_names += (plan.kernel_names.empty() ? "" : ", ") + r.signature.name;
      plan.captures.push_back(std::move(kc.capture));
      plan.definitions.push_back(std::move(kc.definition));
      plan.covered.push_back(base);
    } catch (const std::exception& x) {
      plan.notes.push_back(x.what());
    }
  }
}

std::string harness_origin(const HarnessPlan& plan) {
  std::string what;
  if (plan.calls) what = plural(plan.calls, "recorded call") + " of " + plan.launcher_names;
  if (plan.launches)
    what += (what.empty() ? "" : " and ") + std::to_string(plan.launches) + " recorded launch" +
            (plan.launches == 1 ? "" : "es") + " of " + plan.kernel_names;
  return "harness synthesized from " + what;
}

// No harness yet: why none can come, or what records meanwhile.
CaptureOutcome waiting_outcome(const CaptureStep& step, const ReadSource& src, const std::string& source,
                               const Gathered& g, const std::string& stale_note) {
  CaptureOutcome out;
  if (!src.scanned && !src.kernels.empty() && !step.kernel_records.empty()) {
    out.state = CaptureOutcome::State::recording;
    out.note = "recording the launches of " + joined(src.kernels) + " into " + step.kernel_records + " (" + src.error +
               ": no launcher is recorded)";
    return out;
  }
  if (!src.scanned && !step.kernel_records.empty()) {  // the text holds no kernel definition
    out.note = "no harness, and no kernel defined in it or the headers it includes: nothing to record";
    return out;
  }
  if (!src.scanned) {
    out.note = have_parser() ? "no harness, and the source could not be read for recording (" + src.error + ")"
                             : "no harness, and this kernelblaster was built without libclang, so it cannot tell "
                               "which kernels the source holds (give HARNESS, or rebuild kernelblaster with libclang-dev)";
    return out;
  }
  const SourceScan& scan = src.scan;
  const std::vector<std::string>& kernels = file_kernels(scan);
  const bool shim = std::any_of(scan.launchers.begin(), scan.launchers.end(), replayable);
  if (kernels.empty() && !scan.defines_kernels && !shim) {
    out.note = "no harness, and neither a kernel nor a kernel launch in it: nothing to record";
    return out;
  }
  if (kernels.empty() && !shim) {
    out.note = "no harness, and no kernel it compiles that a recording could name";
    return out;
  }
  if (!shim && step.kernel_records.empty()) {  // no kernel recorder: only launchers could be recorded
    if (!scan.launchers.empty())
      out.note = "no harness, and no launcher a harness could call: " + unreplayable_params(scan);
    else if (scan.kernels.empty())
      out.note = "no harness, and no host launcher to record (a function that launches the kernels)";
    else if (scan.defines_main)
      out.note = "no harness, and no host launcher to record: the kernels here are launched from main(), the "
                 "program itself (the kernel recorder would record them; this build has none)";
    else
      out.note = "no harness, and no host launcher to record: the kernels " + joined(scan.kernels) +
                 " are launched only from functions a harness cannot call (internal linkage, templates)";
    return out;
  }
  out.state = CaptureOutcome::State::recording;
  std::string names;
  for (const Launcher& l : scan.launchers) names += (names.empty() ? "" : ", ") + l.name;
  if (shim) {
    // No path is compiled in, only the source's name: the shim records only
    // where the environment names a file or directory
    // (kernelblaster_generated/record, ctest), so a program built with it
    // runs at its own speed anywhere else and holds no build-tree path.
    out.shim_text = capture_shim(scan.launchers, source, step.name, read_file(source));
    out.shim_flags = {"-I" + fs::absolute(step.runtime_dir).lexically_normal().string(),
                      "-I" + fs::path(source).parent_path().string()};
    out.note = "recording the calls of " + names + " into " + step.lines;
    if (!kernels.empty() && !step.kernel_records.empty()) out.note += " and the launches of " + joined(kernels);
  } else {
    out.note = "recording the launches of " + joined(kernels) + " into " + step.kernel_records;
  }
  out.note += (step.on_request ? " while the CAPTURE_TESTS run" : "") + stale_note;
  if (!g.errors.empty()) out.note += " (earlier recordings refused: " + g.errors.front() + ")";
  int outside = 0;
  for (const auto& [recorded_source, n] : g.left_out_by_source)
    if (fs::path(recorded_source).lexically_normal() == fs::path(source)) outside += n;
  if (outside > 0)
    out.next = "the " + plural(static_cast<std::size_t>(outside), "call") + " recorded so far passed buffers that are "
               "not device memory, so they give no harness: the program ran without a GPU (or its launcher takes "
               "host pointers); run the project's tests or programs on a machine with a GPU";
  if (!step.dry_run && shim) {
    write_if_changed((fs::path(step.runtime_dir) / "kernelblaster" / "capture.h").string(), capture_runtime_header());
    std::error_code ec;
    fs::create_directories(fs::path(step.lines).parent_path(), ec);
  }
  return out;
}

}  // namespace

std::string refused_launchers_path(const std::string& harness) { return harness + ".refused.json"; }

void refuse_launchers(const CaptureStep& step, const std::vector<std::string>& launchers, const std::string& why) {
  std::string text;
  read_file_if_present(fs::absolute(step.source).lexically_normal().string(), &text);
  const nlohmann::json j = {{"source_fnv", std::to_string(fnv1a_64(text))}, {"launchers", launchers}, {"why", why}};
  try {
    write_file_atomic(refused_launchers_path(step.harness), j.dump(1) + "\n");
  } catch (const std::exception&) {
    // Not kept: the next build synthesizes the same harness and finds the same failure.
  }
}

CaptureOutcome prepare_capture_step(const CaptureStep& step) {
  const std::string source = fs::absolute(step.source).lexically_normal().string();
  const ReadSource src = read_source(step, source);  // the source as it is now
  const Gathered g = gather_recorded_calls(step.lines);
  std::size_t stale = 0;
  const std::map<std::string, Capture> recorded = launcher_recordings(g, src, source, stale);
  const std::string stale_note =
      stale ? " (" + plural(stale, "recorded call") + " of an earlier signature ignored)" : "";
  // One harness runs every kernel the records reach: a tuning changes the
  // whole file, so every kernel it touches must run.
  HarnessPlan plan;
  std::string text;
  read_file_if_present(source, &text);
  plan_launchers(recorded, src, text, refused_launchers(step, text), plan);
  plan_kernels(step, src, source, plan);
  if (plan.captures.empty()) {
    if (!recorded.empty()) {
      CaptureOutcome out;
      out.note = plan.notes.empty() ? "no harness: the launchers recorded take arguments a recorded call cannot give "
                                      "a harness (" + unreplayable_params(src.scan) + ")"
                                    : "no harness: " + joined(plan.notes, "; ") +
                                          (step.kernel_records.empty()
                                               ? " (the kernel recorder would record its kernels' launches; this "
                                                 "build has none)"
                                               : ", and no launch of its kernels was recorded");
      return out;
    }
    return waiting_outcome(step, src, source, g, stale_note);
  }
  CaptureOutcome out;
  if (src.scanned) {
    describe_unverified(src.scan, plan.covered, plan.never_called, plan.launches_recorded, out);
  } else {  // kernel-level only: the kernels of the text no recorded launch ran
    for (const std::string& k : src.kernels)
      if (std::find(plan.covered.begin(), plan.covered.end(), k) == plan.covered.end()) out.unverified.push_back(k);
    out.unverified_kind = "kernel";
    if (!out.unverified.empty())
      out.unverified_why = std::string(out.unverified.size() == 1 ? "it was" : "they were") +
                           " never launched while launches were recorded";
  }
  try {
    HarnessDraft d = synthesize_harness(plan.captures, plan.definitions);
    if (!step.dry_run) write_if_changed(step.harness, d.text);
    out.state = CaptureOutcome::State::harness_ready;
    for (std::size_t i = 0; i < plan.captures.size(); ++i)
      if (plan.definitions[i].empty()) out.launchers_replayed.push_back(plan.captures[i].launcher.name);
    out.note = harness_origin(plan) + stale_note + "; ";
    if (!plan.notes.empty()) out.note += plan.notes.front() + (plan.notes.size() > 1 ? " (and " + plural(plan.notes.size() - 1, "more") + ")" : "") + "; ";
  } catch (const std::exception& x) {
    out = CaptureOutcome{};
    out.note = "the recorded calls of " + plan.launcher_names + plan.kernel_names + " give no harness (" + x.what() + ")";
  }
  return out;
}

}  // namespace kernelblaster::harness
