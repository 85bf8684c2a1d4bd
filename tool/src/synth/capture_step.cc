#include "synth/capture_step.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "common/file_util.h"
#include "synth/capture_gather.h"
#include "synth/capture_harness.h"
#include "synth/capture_runtime.h"
#include "synth/capture_shim.h"
#include "synth/launcher_scan.h"

namespace fs = std::filesystem;

namespace kernelblaster::synth {

namespace {

std::string plural(std::size_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
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

// The kernels a tuning would change that no harness call runs: by kernel when
// the scan knows which launcher reaches which, else by launcher.
void describe_unverified(const SourceScan& scan, const std::vector<std::string>& covered,
                         const std::vector<std::string>& never_called, CaptureOutcome& out) {
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
  if (scan.kernels.empty()) {
    out.unverified = never_called;
    for (const Launcher& l : scan.launchers)
      if (!replayable(l)) out.unverified.push_back(l.name);
    out.unverified_kind = "launcher";
  } else {
    for (const std::string& k : scan.kernels)
      if (std::find(covered.begin(), covered.end(), k) == covered.end()) out.unverified.push_back(k);
    out.unverified_kind = "kernel";
    if (why.empty() && !out.unverified.empty())
      why.push_back("launched only where no harness reaches (main(), a function of internal linkage)");
  }
  for (const std::string& w : why) out.unverified_why += (out.unverified_why.empty() ? "" : "; ") + w;
}

}  // namespace

CaptureOutcome prepare_capture_step(const CaptureStep& step) {
  CaptureOutcome out;
  const std::string source = fs::absolute(step.source).lexically_normal().string();
  // The source as it is now: calls recorded with another signature of a
  // launcher (the source changed since) cannot drive it.
  SourceScan scan;
  bool scanned = false;
  std::string scan_error = "this kernelblaster was built without libclang";
  if (have_parser()) {
    ScanOptions opt;
    opt.include_dirs = step.include_dirs;
    opt.definitions = step.definitions;
    try {
      scan = scan_source(source, opt);
      scanned = true;
    } catch (const std::exception& x) {
      scan_error = x.what();
    }
  }
  Gathered g = gather_recorded_calls(step.lines);
  // This source's recorded calls, per launcher (recordings of the same
  // signature merged); the launcher called in most shapes drives the harness.
  std::map<std::string, Capture> recorded;
  std::size_t stale = 0;
  for (const Capture& c : g.captures) {
    if (fs::path(c.source).lexically_normal() != fs::path(source)) continue;
    if (scanned && std::none_of(scan.launchers.begin(), scan.launchers.end(),
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
  const std::string stale_note =
      stale ? " (" + plural(stale, "recorded call") + " of an earlier signature ignored)" : "";
  if (!recorded.empty()) {
    // One harness calls every recorded launcher a harness can call: a
    // tuning changes the whole file, so every kernel it touches must run.
    // In the source's order.
    std::vector<Capture> captures;
    std::vector<std::string> covered;  // kernels the harness's launchers reach
    std::size_t calls = 0;
    std::string names;
    auto add = [&](const Capture& c, const Launcher* scanned_as) {
      captures.push_back(c);
      calls += c.calls.size();
      names += (names.empty() ? "" : ", ") + c.launcher.name;
      if (scanned_as) covered.insert(covered.end(), scanned_as->kernels.begin(), scanned_as->kernels.end());
    };
    if (scanned) {
      std::vector<std::string> never_called;
      for (const Launcher& l : scan.launchers) {
        auto it = recorded.find(l.name);
        if (it != recorded.end() && replayable(l)) add(it->second, &l);
        else if (it == recorded.end()) never_called.push_back(l.name);
      }
      describe_unverified(scan, covered, never_called, out);
    } else {
      for (const auto& [name, c] : recorded) add(c, nullptr);
    }
    if (captures.empty()) {
      out.note = "no harness: the launchers recorded take arguments a recorded call cannot give a harness (" +
                 unreplayable_params(scan) + ")";
      return out;
    }
    try {
      HarnessDraft d = synthesize_harness(captures);
      if (!step.dry_run) write_if_changed(step.harness, d.text);
      out.state = CaptureOutcome::State::harness_ready;
      out.note = "harness synthesized from " + plural(calls, "recorded call") + " of " + names + stale_note + "; ";
      return out;
    } catch (const std::exception& x) {
      out.note = "the recorded calls of " + names + " give no harness (" + x.what() + ")";
      return out;
    }
  }
  if (!scanned) {
    out.note = have_parser() ? "no harness, and the source could not be read for a recording shim (" + scan_error + ")"
                             : "no harness, and this kernelblaster was built without libclang, so it cannot write the "
                               "recording shim (give HARNESS, or rebuild kernelblaster with libclang-dev)";
    return out;
  }
  if (scan.launchers.empty()) {
    if (scan.kernels.empty() && !scan.defines_kernels)
      out.note = "no harness, and neither a kernel nor a kernel launch in it: nothing to record";
    else if (scan.kernels.empty())
      out.note = "no harness, and no host launcher to record (a function that launches the kernels)";
    else if (scan.defines_main)
      out.note = "no harness, and no host launcher to record: the kernels here are launched from main(), the "
                 "program itself (a function that launches them could be recorded; kernels launched from main() "
                 "are not recorded yet)";
    else
      out.note = "no harness, and no host launcher to record: the kernels " + joined(scan.kernels) +
                 " are launched only from functions a harness cannot call (internal linkage, templates)";
    return out;
  }
  if (std::none_of(scan.launchers.begin(), scan.launchers.end(), replayable)) {
    out.note = "no harness, and no launcher a harness could call: " + unreplayable_params(scan) +
               " (kernels reached only through such launchers are not recorded yet)";
    return out;
  }
  out.state = CaptureOutcome::State::recording;
  out.shim_text =
      capture_shim(scan.launchers, source, step.on_request ? "" : fs::absolute(step.lines).lexically_normal().string(),
                   read_file(source));
  out.shim_flags = {"-I" + fs::absolute(step.runtime_dir).lexically_normal().string(),
                    "-I" + fs::path(source).parent_path().string()};
  std::string names;
  for (const Launcher& l : scan.launchers) names += (names.empty() ? "" : ", ") + l.name;
  out.note = "recording the calls of " + names + " into " + step.lines +
             (step.on_request ? " while the CAPTURE_TESTS run" : "") + stale_note;
  if (!g.errors.empty()) out.note += " (earlier recordings refused: " + g.errors.front() + ")";
  int outside = 0;
  for (const auto& [recorded_source, n] : g.left_out_by_source)
    if (fs::path(recorded_source).lexically_normal() == fs::path(source)) outside += n;
  if (outside > 0)
    out.next = "the " + plural(static_cast<std::size_t>(outside), "call") + " recorded so far passed buffers that are "
               "not device memory, so they give no harness: the program ran without a GPU (or its launcher takes "
               "host pointers); run the project's tests or programs on a machine with a GPU";
  if (!step.dry_run) {
    write_if_changed((fs::path(step.runtime_dir) / "kernelblaster" / "capture.h").string(), capture_runtime_header());
    std::error_code ec;
    fs::create_directories(fs::path(step.lines).parent_path(), ec);
  }
  return out;
}

}  // namespace kernelblaster::synth
