#include "cache/build_step.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>

#include "cache/content_key.h"
#include "cache/lockfile.h"
#include "cache/result_json.h"
#include "cache/results_cache.h"
#include "common/sha256.h"
#include "cache/tune_flight.h"
#include "common/file_util.h"

namespace fs = std::filesystem;

namespace kernelblaster::cache {

namespace {

std::string gpu_label(const GpuFingerprint& gpu) { return gpu.name.empty() ? gpu.id() : gpu.name; }

std::string rsp_text(const std::vector<std::string>& flags) {
  std::string out;
  for (const auto& f : flags) out += (f.find_first_of(" \t") == std::string::npos ? f : "\"" + f + "\"") + "\n";
  return out;
}

std::string one_decimal_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f s", s);
  return buf;
}

TunedResult result_from_tuning(const TuneOutcome& t, const BuildRequest& req, const std::string& source_name,
                               const std::string& key, const GpuFingerprint& gpu, const std::string& original_text,
                               const std::string& tool_version) {
  TunedResult r;
  r.key = key;
  r.source = source_name;
  r.improved = t.exit_code == 0;
  if (r.improved) {
    absorb_tuned_text(r, t.tuned_text, fs::absolute(req.source).lexically_normal().string(), original_text);
    r.flags = t.flags;
    r.config = t.config;
    r.speedup = t.speedup;
  }
  r.reference_median_us = t.reference_median_us;
  r.median_us = t.median_us;
  r.q1_us = t.q1_us;
  r.q3_us = t.q3_us;
  r.gpu = gpu;
  r.measured_at = utc_now_iso8601();
  r.tool_version = tool_version;
  return r;
}

}  // namespace

bool mode_from_name(const std::string& name, Mode* out) {
  std::string n = name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (n == "AUTO") *out = Mode::automatic;
  else if (n == "APPLY") *out = Mode::apply;
  else if (n == "TUNE") *out = Mode::tune;
  else if (n == "OFF") *out = Mode::off;
  else return false;
  return true;
}

const char* build_cause_name(BuildCause c) {
  switch (c) {
    case BuildCause::applied: return "applied";
    case BuildCause::tuned: return "tuned";
    case BuildCause::no_gain: return "no_gain";
    case BuildCause::below_min_speedup: return "below_min_speedup";
    case BuildCause::mode_off: return "mode_off";
    case BuildCause::manifest_unreadable: return "manifest_unreadable";
    case BuildCause::nvcc_unusable: return "nvcc_unusable";
    case BuildCause::gpu_unusable: return "gpu_unusable";
    case BuildCause::no_gpu: return "no_gpu";
    case BuildCause::other_gpu: return "other_gpu";
    case BuildCause::no_target: return "no_target";
    case BuildCause::apply_without_result: return "apply_without_result";
    case BuildCause::tuning_failed: return "tuning_failed";
    case BuildCause::dry_run: return "dry_run";
    case BuildCause::recording: return "recording";
    case BuildCause::no_harness: return "no_harness";
  }
  return "unknown";
}

BuildReport run_build_step(const BuildRequest& req, const BuildEnvironment& env) {
  BuildReport rep;
  const std::string original_text = read_file(req.source);
  const std::string original_path = fs::absolute(req.source).lexically_normal().string();
  const std::string name = fs::path(req.source).filename().string();
  const std::string prefix = "kernelblaster: " + name + ": ";
  const std::string lockfile_name = req.lockfile.empty() ? "" : fs::path(req.lockfile).filename().string();

  std::vector<std::string> search_dirs = req.include_dirs;
  rep.headers = scan_includes(req.source, search_dirs, env.skip_include_prefixes);
  if (!req.depfile.empty() && !req.dry_run) {
    std::vector<std::string> deps = {original_path};
    deps.insert(deps.end(), rep.headers.begin(), rep.headers.end());
    write_if_changed(req.depfile, make_depfile(req.stamp.empty() ? req.out : req.stamp, deps));
  }

  // Whatever happens below ends here: the chosen text, its flags, one line.
  auto finish = [&](BuildCause cause, const std::optional<TunedResult>& r, const std::string& why,
                    bool verified_outcome) {
    rep.cause = cause;
    bool use = r && r->improved;
    std::string text = use ? render_tuned(*r, original_path, original_text) : render_original(original_path, original_text);
    std::vector<std::string> flags = use ? r->flags : std::vector<std::string>{};
    rep.result = r;
    rep.action = use ? (rep.origin == "tuning" ? "tuned" : "applied") : "original";
    rep.line = prefix + req.harness_note + why;
    rep.strict_failure = req.strict && !use && !verified_outcome;
    if (!req.dry_run) {
      rep.wrote_source = write_if_changed(req.out, text);
      if (!req.rsp.empty()) write_if_changed(req.rsp, rsp_text(flags));
      if (!req.stamp.empty()) write_file(req.stamp, rep.key + "\n" + rep.line + "\n");
    }
    return rep;
  };

  if (req.mode == Mode::off) return finish(BuildCause::mode_off, std::nullopt, "MODE OFF; using the original", true);
  // Without the target's settings there is no key to look a result up by.
  if (!req.unusable_manifest.empty()) return finish(BuildCause::manifest_unreadable, std::nullopt, req.unusable_manifest + "; using the original", false);

  KeyInputs key_in;
  key_in.tool_version = env.tool_version;
  key_in.kb_version = env.kb_version;
  key_in.policy_hash = req.policy.empty() ? "" : sha256_hex(read_file(req.policy));
  if (env.nvcc_version) {
    std::string why_not;
    key_in.nvcc_version = env.nvcc_version(&why_not);
    // Without nvcc's version no key matches: say why, not that an entry is stale.
    if (key_in.nvcc_version.empty())
      return finish(BuildCause::nvcc_unusable, std::nullopt, (why_not.empty() ? std::string("nvcc gave no version") : why_not) +
                                      "; using the original", false);
  }
  key_in.arch = req.arch;
  key_in.source_text = original_text;
  for (const auto& h : rep.headers) {
    try {
      key_in.header_texts.push_back(read_file(h));
    } catch (const std::exception& e) {
      // An unreadable header still counts in the key, as what was seen of
      // it: the key changes when it becomes readable again.
      key_in.header_texts.push_back(std::string("unreadable header ") + h + ": " + e.what());
    }
  }
  key_in.definitions = req.definitions;
  key_in.flags = req.flags;
  key_in.rewriter = req.rewriter;
  rep.key = content_key(key_in);

  std::string why_no_gpu;
  std::optional<GpuFingerprint> gpu = env.probe_gpu ? env.probe_gpu(&why_no_gpu) : std::nullopt;
  // A GPU other than the named target is no place to measure for it.
  const bool local = gpu && (req.target_gpu.empty() || gpu_matches(*gpu, req.target_gpu));
  // The first real cause: a GPU that CUDA cannot use is not "no GPU".
  const bool gpu_broken = !gpu && env.gpu_device_present && env.gpu_device_present();
  const std::string no_gpu = gpu_broken ? "a GPU is here but CUDA cannot use it (" + why_no_gpu + ")" : "no GPU";
  rep.selector = local ? gpu->id() : (!req.target_gpu.empty() ? req.target_gpu : req.arch);
  const std::string target_label = local ? gpu_label(*gpu) : rep.selector;
  const std::string source_name =
      req.lockfile.empty() ? name : lockfile_source_name(req.lockfile, req.source);

  ResultsCache cache(req.cache_dir, req.cache_max_bytes);
  std::optional<TunedResult> found;
  std::string stale_note;
  // TUNE skips the lookups only where it can tune; elsewhere it must not
  // throw away a known result.
  if (!(req.mode == Mode::tune && local) && !rep.selector.empty()) {
    found = local ? cache.find(*gpu, rep.key) : cache.find_for(rep.selector, rep.key);
    if (found) {
      rep.origin = "cache";
    } else if (!req.lockfile.empty()) {
      try {
        Lockfile lock = read_lockfile(req.lockfile);
        if (auto entry = select_entry(lock, source_name, rep.selector)) {
          if (entry->key == rep.key) {
            found = entry;
            rep.origin = "lockfile";
          } else {
            rep.stale_lockfile = true;
            stale_note = "the " + lockfile_name + " entry for " + gpu_label(entry->gpu) +
                         " is stale (the source, a header, the flags or the tool changed since it was measured)";
          }
        }
      } catch (const std::exception& e) {
        stale_note = std::string("cannot use the lockfile: ") + e.what();
      }
    }
  }

  // A known result, from `where`: applied, or the original where it is none.
  auto use_known = [&](const TunedResult& known, const std::string& where) {
    const std::string when = known.measured_at.empty() ? "" : " measured " + known.measured_at.substr(0, 10);
    if (!known.improved)
      return finish(BuildCause::no_gain, known, "nothing beat the original on " + gpu_label(known.gpu) + " (" + where + when + "); using the original", true);
    if (known.speedup < req.min_speedup) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.2fx is below MIN_SPEEDUP %.2f", known.speedup, req.min_speedup);
      return finish(BuildCause::below_min_speedup, std::nullopt, "the result for " + gpu_label(known.gpu) + " in " + where + " is " + buf + "; using the original", true);
    }
    return finish(BuildCause::applied, known, "applied tuned result for " + gpu_label(known.gpu) + " from " + where + " (" + describe(known) + ")", true);
  };
  if (found) return use_known(*found, rep.origin == "cache" ? "the cache" : lockfile_name);

  std::string lead = stale_note.empty() ? "" : stale_note + "; ";
  // No harness (nothing recorded yet): the recording shim, or the original
  // while the kernel recorder records, wherever it runs.
  if (!req.recording_shim.empty() || req.recording_kernels) {
    const bool shim = !req.recording_shim.empty();
    rep.cause = BuildCause::recording;
    rep.action = "recording";
    rep.line = prefix + lead + "no harness yet: " + req.harness_note +
               (shim ? " (a shim compiled in the original's place, calling it); " : " (the original compiled as it is); ") +
               (req.recording_next.empty() ? "run the project's tests or programs on a GPU, and the next build "
                                             "synthesizes a harness from what they recorded" + std::string(local ? " and tunes" : "")
                                           : req.recording_next);
    rep.strict_failure = req.strict;
    if (!req.dry_run) {
      rep.wrote_source = write_if_changed(req.out, shim ? req.recording_shim : render_original(original_path, original_text));
      if (!req.rsp.empty()) write_if_changed(req.rsp, rsp_text(shim ? req.recording_flags : std::vector<std::string>{}));
      if (!req.stamp.empty()) write_file(req.stamp, rep.key + "\n" + rep.line + "\n");
    }
    return rep;
  }
  if (!req.no_harness.empty()) return finish(BuildCause::no_harness, std::nullopt, lead + req.no_harness + "; using the original", false);
  if (!local) {
    if (gpu) return finish(BuildCause::other_gpu, std::nullopt, lead + "this machine's GPU (" + gpu_label(*gpu) + ") is not the target " + req.target_gpu + " and no result for it is cached or locked; using the original", false);
    if (rep.selector.empty())
      return finish(BuildCause::no_target, std::nullopt, lead + no_gpu + ", and no target GPU or architecture to look results up for; using the original", false);
    return finish(gpu_broken ? BuildCause::gpu_unusable : BuildCause::no_gpu, std::nullopt, lead + no_gpu + " and no cached result for " + target_label + "; using the original", false);
  }
  if (req.mode == Mode::apply)
    return finish(BuildCause::apply_without_result, std::nullopt, lead + "no cached or locked result for " + target_label + " (MODE APPLY does not tune); using the original", false);
  if (req.dry_run) return finish(BuildCause::dry_run, std::nullopt, lead + "would tune on " + target_label, false);

  // Single flight: another build tuning this key on this GPU is waited for,
  // and its result used; where it ended without one, this build tunes.
  TuningFlight flight(req.cache_dir, *gpu, rep.key, name + " (pid " + std::to_string(::getpid()) + ")",
                      [&](const std::string& line) {
                        if (env.say) env.say(prefix + line);
                      });
  if (flight.waited()) {
    if (std::optional<TunedResult> done = cache.find(*gpu, rep.key)) {
      rep.origin = "cache";
      return use_known(*done, "the cache, tuned by " + flight.holder() + " while this build waited");
    }
    lead += flight.holder() + " ended without a result, so this build tunes; ";
  }

  fs::path tuned_out = fs::path(req.stamp.empty() ? req.out : req.stamp).replace_extension(".tuned.cu");
  TuneRequest tr{req.source, req.harness, req.manifest, tuned_out.string(), req.policy, req.kb, req.budget_s, req.min_speedup,
                 req.rewriter};
  TuneOutcome t = env.tune ? env.tune(tr) : TuneOutcome{};
  rep.origin = "tuning";
  if (t.exit_code == 0 || t.exit_code == 1) {
    TunedResult r = result_from_tuning(t, req, source_name, rep.key, *gpu, original_text, env.tool_version);
    std::string store_note;
    try {
      cache.store(r);
    } catch (const std::exception& e) {
      store_note = std::string(" (not cached: ") + e.what() + ")";
    }
    if (req.update_lockfile && !req.lockfile.empty()) {
      try {
        update_lockfile(req.lockfile, r);
      } catch (const std::exception& e) {
        store_note += std::string(" (lockfile not updated: ") + e.what() + ")";
      }
    }
    const std::string took = (t.rewrite_note.empty() ? "" : t.rewrite_note + "; ") + "tuned on " + gpu_label(*gpu) +
                             " in " + one_decimal_seconds(t.seconds) + ": ";
    if (!r.improved) return finish(BuildCause::no_gain, r, lead + took + "nothing beat the original; using the original" + store_note, true);
    return finish(BuildCause::tuned, r, lead + took + describe(r) + store_note, true);
  }
  std::string reason = (t.rewrite_note.empty() ? "" : t.rewrite_note + "; ") +
                       (t.exit_code == 77 ? "the tuner found no GPU" : "tuning failed (" + t.error + ")");
  return finish(BuildCause::tuning_failed, std::nullopt, lead + reason + "; using the original", false);
}

}  // namespace kernelblaster::cache
