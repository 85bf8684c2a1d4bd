#include "build_step/build_step.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>

#include "build_step/build_record.h"
#include "build_step/content_key.h"
#include "build_step/lockfile.h"
#include "common/text.h"
#include "build_step/result_json.h"
#include "build_step/results_cache.h"
#include "common/sha256.h"
#include "build_step/tune_flight.h"
#include "common/enum_names.h"
#include "common/file_util.h"

namespace fs = std::filesystem;

namespace kernelblaster::build_step {

namespace {

// What the tuner said of a run that kept nothing, where it says more than
// the count of tries does: the best below the minimum gain, a winner that
// did not hold, a faster configuration that slowed a kernel down.
std::string why_no_gain(const std::string& reason) {
  const std::string plain = "no verified configuration beat the original in ";
  if (reason.empty() || (reason.rfind(plain, 0) == 0 && reason.find('(') == std::string::npos)) return "";
  return " (" + reason + ")";
}

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
  r.improved = t.end == TuneEnd::tuned;
  if (r.improved) {
    absorb_tuned_text(r, t.tuned_text, fs::absolute(req.source).lexically_normal().string(), original_text);
    r.flags = t.flags;
    r.config = t.config;
    r.original = t.original_config;
    r.kernels = t.kernel_speedups;
    r.speedup = t.speedup;
    r.reverified = true;  // the tuner keeps only a winner that held on its second look
  }
  r.evaluations = t.evaluations;
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

namespace {
constexpr EnumName<BuildCause> kCauseNames[] = {
    {BuildCause::applied, "applied"},                            {BuildCause::tuned, "tuned"},
    {BuildCause::no_gain, "no_gain"},                            {BuildCause::below_min_speedup, "below_min_speedup"},
    {BuildCause::mode_off, "mode_off"},                          {BuildCause::manifest_unreadable, "manifest_unreadable"},
    {BuildCause::nvcc_unusable, "nvcc_unusable"},                {BuildCause::gpu_unusable, "gpu_unusable"},
    {BuildCause::no_gpu, "no_gpu"},                              {BuildCause::other_gpu, "other_gpu"},
    {BuildCause::no_target, "no_target"},                        {BuildCause::apply_without_result, "apply_without_result"},
    {BuildCause::tuning_failed, "tuning_failed"},                {BuildCause::dry_run, "dry_run"},
    {BuildCause::recording, "recording"},                        {BuildCause::no_harness, "no_harness"},
    {BuildCause::result_required, "result_required"},
};
}  // namespace

const char* build_cause_name(BuildCause c) { return name_in(kCauseNames, c, "unknown"); }

namespace {
constexpr EnumName<BuildAction> kActionNames[] = {{BuildAction::original, "original"},
                                                  {BuildAction::applied, "applied"},
                                                  {BuildAction::tuned, "tuned"},
                                                  {BuildAction::recording, "recording"}};
constexpr EnumName<ResultOrigin> kOriginNames[] = {{ResultOrigin::none, ""},
                                                   {ResultOrigin::cache, "cache"},
                                                   {ResultOrigin::lockfile, "lockfile"},
                                                   {ResultOrigin::remote_storage, "remote storage"},
                                                   {ResultOrigin::tuning, "tuning"}};
}  // namespace

const char* build_action_name(BuildAction a) { return name_in(kActionNames, a, "original"); }
const char* result_origin_name(ResultOrigin o) { return name_in(kOriginNames, o, ""); }

bool build_action_from_name(const std::string& name, BuildAction* out) {
  const std::optional<BuildAction> a = value_in(kActionNames, name);
  if (a) *out = *a;
  return a.has_value();
}

bool result_origin_from_name(const std::string& name, ResultOrigin* out) {
  const std::optional<ResultOrigin> o = value_in(kOriginNames, name);
  if (o) *out = *o;
  return o.has_value();
}

std::string tried_breakdown(const std::map<Status, long long>& outcomes, long long duplicates) {
  std::string text;
  std::vector<std::pair<long long, std::string>> rest;
  for (const auto& [status, n] : outcomes) {
    if (status == Status::ok) text = std::to_string(n) + " verified";
    else rest.emplace_back(n, status_name(status));
  }
  if (duplicates > 0) rest.emplace_back(duplicates, "duplicate");
  std::sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.second < b.second; });  // by name
  std::stable_sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (auto& [n, name] : rest) {
    std::replace(name.begin(), name.end(), '_', ' ');
    text += (text.empty() ? "" : ", ") + std::to_string(n) + " " + name;
  }
  return text;
}

bool build_cause_from_name(const std::string& name, BuildCause* out) {
  std::optional<BuildCause> c = value_in(kCauseNames, name);
  if (c) *out = *c;
  return c.has_value();
}

namespace {

// One build step: its state and the steps run_build_step takes, in order.
// depfile → MODE OFF / manifest → content key → GPU → cache / lockfile →
// recording / no harness / no GPU / APPLY / dry run → single flight → tune.
// Every path ends in finish() (or record()): the text, its flags, one line.
class BuildStepRun {
 public:
  BuildStepRun(const BuildRequest& req, const BuildEnvironment& env)
      : m_req(req), m_env(env), m_original_text(read_file(req.source)),
        m_original_path(fs::absolute(req.source).lexically_normal().string()),
        m_name(fs::path(req.source).filename().string()), m_prefix("kernelblaster: " + m_name + ": "),
        m_lockfile_name(req.lockfile.empty() ? "" : fs::path(req.lockfile).filename().string()),
        m_harness_note(req.harness_note), m_cache(req.cache_dir, req.cache_max_bytes) {}

  BuildReport run() {
    write_depfile();
    if (m_req.mode == Mode::off) return finish(BuildCause::mode_off, std::nullopt, "MODE OFF; using the original", true);
    // Without the target's settings there is no key to look a result up by.
    if (!m_req.unusable_manifest.empty())
      return finish(BuildCause::manifest_unreadable, std::nullopt, m_req.unusable_manifest + "; using the original", false);
    if (std::string why = make_key(); !why.empty())
      return finish(BuildCause::nvcc_unusable, std::nullopt, why + "; using the original", false);
    locate_gpu();
    if (std::optional<TunedResult> found = look_up())
      return use_known(*found, m_rep.origin == ResultOrigin::cache            ? "the cache"
                               : m_rep.origin == ResultOrigin::remote_storage ? "remote storage " + m_env.remote->where()
                                                                              : m_lockfile_name);
    if (m_req.require_result) {  // never tunes: an open search's best so far is a result
      if (m_open) return use_known(*m_open, "the cache, the search's best so far");
      return required_but_missing();
    }
    if (!m_req.recording_shim.empty() || m_req.recording_kernels) return record();
    if (std::optional<BuildReport> done = without_tuning()) return *done;
    return tune();
  }

 private:
  // The headers the source includes, for the key and the depfile. A search
  // that goes on (`continues`) adds a file that never exists: the build
  // tool then runs the step again next build, which resumes the search.
  void write_depfile(bool continues = false) {
    if (!continues) {
      std::vector<std::string> search_dirs = m_req.include_dirs;
      m_rep.headers = scan_includes(m_req.source, search_dirs, m_env.skip_include_prefixes);
    }
    if (m_req.depfile.empty() || m_req.dry_run) return;
    const std::string target = m_req.stamp.empty() ? m_req.out : m_req.stamp;
    std::vector<std::string> deps = {m_original_path};
    deps.insert(deps.end(), m_rep.headers.begin(), m_rep.headers.end());
    if (continues) deps.push_back(target + kSearchGoesOn);
    write_if_changed(m_req.depfile, make_depfile(target, deps));
  }

  // The content key; the reason when there can be none (nvcc gives no version).
  std::string make_key() {
    KeyInputs key_in;
    key_in.tool_version = m_env.tool_version;
    key_in.kb_version = m_env.kb_version;
    key_in.policy_hash = m_req.policy.empty() ? "" : sha256_hex(read_file(m_req.policy));
    if (m_env.nvcc_version) {
      std::string why_not;
      key_in.nvcc_version = m_env.nvcc_version(&why_not);
      // Without nvcc's version no key matches: say why, not that an entry is stale.
      if (key_in.nvcc_version.empty()) return why_not.empty() ? std::string("nvcc gave no version") : why_not;
    }
    key_in.arch = m_req.arch;
    key_in.source_text = m_original_text;
    for (const auto& h : m_rep.headers) {
      try {
        key_in.header_texts.push_back(read_file(h));
      } catch (const std::exception& e) {
        // An unreadable header still counts in the key, as what was seen of
        // it: the key changes when it becomes readable again.
        key_in.header_texts.push_back(std::string("unreadable header ") + h + ": " + e.what());
      }
    }
    key_in.definitions = m_req.definitions;
    key_in.flags = m_req.flags;
    key_in.rewriter = m_req.rewriter;
    key_in.unharnessed = m_req.unharnessed;
    m_key_parts = key_parts(key_in);
    m_rep.key = content_key(key_in);
    return "";
  }

  // This machine's GPU, whether it is the target, and what results are looked up for.
  void locate_gpu() {
    std::string why_no_gpu;
    m_gpu = m_env.probe_gpu ? m_env.probe_gpu(&why_no_gpu) : std::nullopt;
    // A GPU other than the named target is no place to measure for it.
    m_local = m_gpu && (m_req.target_gpu.empty() || gpu_matches(*m_gpu, m_req.target_gpu));
    // The first real cause: a GPU that CUDA cannot use is not "no GPU".
    m_gpu_broken = !m_gpu && m_env.gpu_device_present && m_env.gpu_device_present();
    m_no_gpu = m_gpu_broken ? "a GPU is here but CUDA cannot use it (" + why_no_gpu + ")" : "no GPU";
    m_rep.selector = m_local ? m_gpu->id() : (!m_req.target_gpu.empty() ? m_req.target_gpu : m_req.arch);
    m_target_label = m_local ? gpu_label(*m_gpu) : m_rep.selector;
    m_source_name = m_req.lockfile.empty() ? m_name : lockfile_source_name(m_req.lockfile, m_req.source);
  }

  // A result for this key: the cache's, else the lockfile's (a stale or
  // unreadable lockfile is noted for the line).
  std::optional<TunedResult> look_up() {
    // TUNE skips the lookups only where it can tune; elsewhere it must not
    // throw away a known result.
    if ((m_req.mode == Mode::tune && m_local) || m_rep.selector.empty()) return std::nullopt;
    std::string unreadable;
    std::optional<TunedResult> found = m_local ? m_cache.find(*m_gpu, m_rep.key, &unreadable)
                                               : m_cache.find_for(m_rep.selector, m_rep.key, &unreadable);
    if (found && refused(*found, "cached")) found.reset();
    if (found && found->search_open && resumes()) {
      m_open = found;  // the best so far: the search goes on, and this stands if it cannot
      return std::nullopt;
    }
    if (found) {
      m_rep.origin = ResultOrigin::cache;
      return found;
    }
    if (!unreadable.empty()) m_lead += "a cached result cannot be read (" + unreadable + "), so it counts as a miss; ";
    if ((found = from_remote())) return found;
    say_nearest_cached();
    if (m_req.lockfile.empty()) return std::nullopt;
    try {
      if (const std::optional<TunedResult>& entry = lock_entry()) {
        if (entry->key == m_rep.key) {
          if (refused(*entry, "the " + m_lockfile_name)) return std::nullopt;
          m_rep.origin = ResultOrigin::lockfile;
          return entry;
        }
        m_rep.stale_lockfile = true;
        const std::string differs = key_difference(m_key_parts, entry->key_parts);
        m_lead += "the " + m_lockfile_name + " entry for " + gpu_label(entry->gpu) + " is stale (" +
                  (differs.empty() ? "the source, a header, the flags or the tool changed since it was measured"
                                   : "measured with another " + differs) +
                  "); ";
      }
    } catch (const std::exception& e) {
      m_lead += std::string("cannot use the lockfile: ") + e.what() + "; ";
    }
    return std::nullopt;
  }

  // On a miss: which parts of this build's key differ from those of the
  // cache's nearest result for this source on this GPU (one measured with
  // another build type, nvcc or tool), said in the line; nothing when the
  // cache holds none with its key's parts.
  void say_nearest_cached() {
    const std::string selector = m_local ? m_gpu->id() : m_rep.selector;
    const TunedResult* nearest = nullptr;
    int best = -1;
    const std::vector<TunedResult> entries = m_cache.all_of_source(selector, m_source_name);
    for (const TunedResult& r : entries) {
      const int common = r.key_parts.empty() ? -1 : parts_in_common(m_key_parts, r.key_parts);
      if (common > best) {
        best = common;
        nearest = &r;
      }
    }
    if (!nearest) return;
    if (const std::string differs = key_difference(m_key_parts, nearest->key_parts); !differs.empty())
      m_lead += "the nearest cached result for " + gpu_label(nearest->gpu) + " was measured with another " + differs + "; ";
  }

  // The id of the GPU the lockfile's entry for this source that the
  // selector picks was measured on; "" without one.
  std::string locked_gpu_id() {
    if (m_req.lockfile.empty()) return "";
    try {
      const std::optional<TunedResult>& entry = lock_entry();
      return entry ? entry->gpu.id() : "";
    } catch (const std::exception&) {
      return "";  // the lookup names an unreadable lockfile
    }
  }

  // KERNELBLASTER_REQUIRE_RESULT and no result applies: the original, and a
  // failure (the line leads with what the lookups found: a near miss).
  BuildReport required_but_missing() {
    BuildReport r = finish(BuildCause::result_required, std::nullopt,
                           m_lead + "no result for " + m_target_label +
                               " and this key, and a result is required (KERNELBLASTER_REQUIRE_RESULT); using the original",
                           false);
    m_rep.strict_failure = r.strict_failure = true;
    return r;
  }

  // Whether `entry` (from `where`: "cached", "the kernelblaster.lock") must
  // not be compiled with (BuildEnvironment::refuse_entry); the line says why.
  bool refused(const TunedResult& entry, const std::string& where) {
    if (!m_env.refuse_entry) return false;
    const std::string why = m_env.refuse_entry(entry, m_req);
    if (why.empty()) return false;
    m_rep.refused_entry = why;
    m_lead += where + " entry for " + gpu_label(entry.gpu) + " is refused (" + why + "), so it counts as a miss; ";
    return true;
  }

  // Whether this build goes on with an open search of its key (the cache's
  // result is the best so far): where it could tune.
  bool resumes() const {
    return m_local && m_req.mode != Mode::apply && !m_req.dry_run && m_req.no_harness.empty() &&
           m_req.recording_shim.empty() && !m_req.recording_kernels;
  }

  // The lockfile's entry for this source and GPU, whatever its key, read
  // once: the lookup and the tuning's start both want it. Throws what
  // read_lockfile throws (and reads again next time).
  const std::optional<TunedResult>& lock_entry() {
    if (!m_lock_entry) m_lock_entry = select_entry(read_lockfile(m_req.lockfile), m_source_name, m_rep.selector);
    return *m_lock_entry;
  }

  // The lockfile's winner for this source on this GPU, whatever its key
  // (an edit since, MODE TUNE): the tuning measures it first, so a winner
  // a short budget finds only by luck is not lost to an unrelated edit.
  // Nothing when there is none, it kept the original, or the lockfile
  // cannot be read (look_up said so).
  std::string last_winner() {
    if (m_req.lockfile.empty() || m_rep.selector.empty()) return "";
    try {
      const std::optional<TunedResult>& entry = lock_entry();
      if (!entry || !entry->improved) return "";
      std::vector<std::string> items;
      for (const auto& [name, value] : entry->config) items.push_back(name + "=" + value);
      items.insert(items.end(), entry->flags.begin(), entry->flags.end());
      return joined(items, ",");
    } catch (const std::exception&) {
      return "";  // look_up named the unreadable lockfile in the line; a tuning from scratch is no failure
    }
  }

  // On a local miss, the remote storage's entry for this GPU and key, kept
  // in the local cache too; what went wrong with the server leads the line.
  // A machine without the GPU asks for it by its id: TARGET_GPU's, or that
  // of the lockfile's entry TARGET_GPU selects (a name or an architecture
  // names no one file there); with neither, the line says it was not asked.
  std::optional<TunedResult> from_remote() {
    if (!m_env.remote) return std::nullopt;
    const std::string id = m_local                                  ? m_gpu->id()
                           : GpuFingerprint::is_id(m_rep.selector) ? m_rep.selector
                                                                   : locked_gpu_id();
    if (id.empty()) {
      m_lead += std::string("remote storage not asked: ") +
                (m_req.target_gpu.empty() ? "no GPU here and no TARGET_GPU"
                                          : "TARGET_GPU " + m_req.target_gpu + " names no one GPU's results there") +
                " (a GPU's id does: 'kernelblaster gpu info' prints it on that GPU); ";
      return std::nullopt;
    }
    std::string note;
    std::optional<TunedResult> found = m_env.remote->get(id, m_rep.key, &note);
    if (!note.empty()) m_lead += note + "; ";
    m_remote_failed = !found && !note.empty();
    if (!found && note.empty()) m_lead += "remote storage " + m_env.remote->where() + " has no result for this key; ";
    if (!found || refused(*found, "remote storage's")) return std::nullopt;
    try {
      m_cache.store(*found);
    } catch (const std::exception&) {
      // Used all the same: the local cache is only a copy.
    }
    m_rep.origin = ResultOrigin::remote_storage;
    m_rep.remote = m_env.remote->where();
    return found;
  }

  // Whatever happens ends here: the chosen text, its flags, one line.
  BuildReport finish(BuildCause cause, const std::optional<TunedResult>& r, const std::string& why,
                     bool verified_outcome) {
    m_rep.cause = cause;
    bool use = r && r->improved;
    std::string text =
        use ? render_tuned(*r, m_original_path, m_original_text) : render_original(m_original_path, m_original_text);
    std::vector<std::string> flags = use ? r->flags : std::vector<std::string>{};
    m_rep.result = r;
    m_rep.action = use ? (m_rep.origin == ResultOrigin::tuning ? BuildAction::tuned : BuildAction::applied)
                       : BuildAction::original;
    m_rep.line = m_prefix + m_harness_note + why;
    // A server that could not answer is asked again: the next build runs
    // this step though nothing changed (a plain rebuild kept the original).
    if (m_remote_failed && !use) {
      m_rep.line += "; remote storage is asked again next build";
      write_depfile(true);
    }
    m_rep.strict_failure = m_req.strict && !use && !verified_outcome;
    write_outputs(text, flags);
    return m_rep;
  }

  void write_outputs(const std::string& text, const std::vector<std::string>& flags) {
    if (m_req.dry_run) return;
    m_rep.wrote_source = write_if_changed(m_req.out, text);
    if (!m_req.rsp.empty()) write_if_changed(m_req.rsp, rsp_text(flags));
    if (!m_req.stamp.empty()) write_file(m_req.stamp, build_record_text(m_req, m_rep));
  }

  // A known result, from `where`: applied, or the original where it is none.
  // `lead`: what the line says first (why a tuning's result is not used).
  BuildReport use_known(const TunedResult& known, const std::string& where, const std::string& lead = "") {
    const std::string when = known.measured_at.empty() ? "" : " measured " + known.measured_at.substr(0, 10);
    if (!known.improved)
      return finish(BuildCause::no_gain, known, lead + "nothing beat the original on " + gpu_label(known.gpu) + " (" + where + when + "); using the original", true);
    if (known.speedup < m_req.min_speedup) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.2fx is below MIN_SPEEDUP %.2f", known.speedup, m_req.min_speedup);
      return finish(BuildCause::below_min_speedup, std::nullopt, lead + "the result for " + gpu_label(known.gpu) + " in " + where + " is " + buf + "; using the original", true);
    }
    return finish(BuildCause::applied, known, lead + "applied tuned result for " + gpu_label(known.gpu) + " from " + where + " (" + describe_change(known) + ")", true);
  }

  // No harness (nothing recorded yet). Only a build that could tune next
  // (a GPU here that is the target, MODE AUTO or TUNE) compiles the
  // recording shim; anywhere else the original, so a binary built without a
  // GPU or in MODE APPLY runs as the user wrote it. The kernel recorder
  // records the original's launches wherever a program runs under it.
  BuildReport record() {
    if (!m_local || m_req.mode == Mode::apply) return without_recording();
    std::string shim_error;
    if (!m_req.recording_shim.empty() && m_env.shim_compile_error) shim_error = m_env.shim_compile_error(m_req);
    if (!shim_error.empty() && !m_req.recording_kernels) {
      m_harness_note.clear();
      return finish(BuildCause::no_harness, std::nullopt,
                    m_lead + "no harness, and the recording shim does not compile (" + shim_error + "); using the original",
                    false);
    }
    const bool shim = !m_req.recording_shim.empty() && shim_error.empty();
    const std::string note = shim_error.empty() ? m_req.harness_note
                                                : "the recording shim does not compile (" + shim_error +
                                                      "), so the launches of the kernels are recorded into " +
                                                      m_req.kernel_records;
    m_rep.cause = BuildCause::recording;
    m_rep.action = BuildAction::recording;
    m_rep.line = m_prefix + m_lead + "no harness yet: " + note +
                 (shim ? " (a shim compiled in the original's place, calling it; it records only under "
                         "kernelblaster_generated/record or ctest); "
                       : " (the original compiled as it is); ") +
                 (m_req.recording_next.empty() ? "run the project's tests (ctest) or its programs through "
                                                 "kernelblaster_generated/record, and the next build synthesizes a "
                                                 "harness from what they recorded and tunes"
                                               : m_req.recording_next);
    m_rep.strict_failure = m_req.strict;
    write_outputs(shim ? m_req.recording_shim : render_original(m_original_path, m_original_text),
                  shim ? m_req.recording_flags : std::vector<std::string>{});
    return m_rep;
  }

  // No harness yet, on a build that will not tune: the original, and why.
  BuildReport without_recording() {
    m_harness_note.clear();  // what would have recorded: nothing does
    const std::string why = m_req.mode == Mode::apply
                                ? "no cached or locked result for " + m_target_label +
                                      " and no harness yet (MODE APPLY neither records nor tunes)"
                            : m_gpu ? "this machine's GPU (" + gpu_label(*m_gpu) + ") is not the target " +
                                          m_req.target_gpu + ", no result for it is cached or locked, and no harness yet"
                                    : m_no_gpu + ", no cached result for " + m_target_label +
                                          " and no harness yet (a build on a machine with the GPU records)";
    const BuildCause cause = m_req.mode == Mode::apply ? BuildCause::apply_without_result
                             : m_gpu                    ? BuildCause::other_gpu
                             : m_gpu_broken             ? BuildCause::gpu_unusable
                                                        : BuildCause::no_gpu;
    return finish(cause, std::nullopt, m_lead + why + "; using the original", false);
  }

  // Why this build does not tune (the original then), or nothing when it does.
  std::optional<BuildReport> without_tuning() {
    if (!m_req.no_harness.empty())
      return finish(BuildCause::no_harness, std::nullopt, m_lead + m_req.no_harness + "; using the original", false);
    if (!m_local) {
      if (m_gpu) return finish(BuildCause::other_gpu, std::nullopt, m_lead + "this machine's GPU (" + gpu_label(*m_gpu) + ") is not the target " + m_req.target_gpu + " and no result for it is cached or locked; using the original", false);
      if (m_rep.selector.empty())
        return finish(BuildCause::no_target, std::nullopt, m_lead + m_no_gpu + ", and no target GPU or architecture to look results up for; using the original", false);
      return finish(m_gpu_broken ? BuildCause::gpu_unusable : BuildCause::no_gpu, std::nullopt, m_lead + m_no_gpu + " and no cached result for " + m_target_label + "; using the original", false);
    }
    if (m_req.mode == Mode::apply)
      return finish(BuildCause::apply_without_result, std::nullopt, m_lead + "no cached or locked result for " + m_target_label + " (MODE APPLY does not tune); using the original", false);
    if (m_req.dry_run) return finish(BuildCause::dry_run, std::nullopt, m_lead + "would tune on " + m_target_label, false);
    return std::nullopt;
  }

  // Single flight, then the tuner; its result cached (and locked).
  BuildReport tune() {
    // Another build tuning this key on this GPU is waited for, and its result
    // used; where it ended without one, this build tunes.
    TuningFlight flight(m_req.cache_dir, *m_gpu, m_rep.key, m_name + " (pid " + std::to_string(::getpid()) + ")",
                        [&](const std::string& line) {
                          if (m_env.say) m_env.say(m_prefix + line);
                        });
    if (flight.waited()) {
      if (std::optional<TunedResult> done = m_cache.find(*m_gpu, m_rep.key)) {
        m_rep.origin = ResultOrigin::cache;
        return use_known(*done, "the cache, tuned by " + flight.holder() + " while this build waited");
      }
      m_lead += flight.holder() + " ended without a result, so this build tunes; ";
    }
    fs::path tuned_out = fs::path(m_req.stamp.empty() ? m_req.out : m_req.stamp).replace_extension(".tuned.cu");
    TuneRequest tr{m_req.source, m_req.harness, m_req.manifest, tuned_out.string(), m_req.policy, m_req.kb,
                   m_req.budget_s, m_req.min_speedup, m_req.rewriter, !m_req.unharnessed.empty(),
                   last_winner(), m_cache.tuning_dir(*m_gpu, m_rep.key), m_req.mode == Mode::tune};
    TuneOutcome t = m_env.tune ? m_env.tune(tr) : TuneOutcome{};
    m_rep.origin = ResultOrigin::tuning;
    if (t.end == TuneEnd::no_gpu || t.end == TuneEnd::failed) {
      std::string reason = (t.rewrite_note.empty() ? "" : t.rewrite_note + "; ") +
                           (t.end == TuneEnd::no_gpu ? "the tuner found no GPU" : "tuning failed (" + t.error + ")");
      m_rep.harness_failed = t.end == TuneEnd::failed && t.harness_failed;
      m_rep.tuning_error = t.error;
      if (m_open) {  // the search's best so far stands
        m_rep.origin = ResultOrigin::cache;
        return use_known(*m_open, "the cache, the search's best so far", m_lead + reason + "; ");
      }
      return finish(BuildCause::tuning_failed, std::nullopt, m_lead + reason + "; using the original", false);
    }
    TunedResult r = result_from_tuning(t, m_req, m_source_name, m_rep.key, *m_gpu, m_original_text, m_env.tool_version);
    r.key_parts = m_key_parts;
    r.search_open = t.continues;
    // Nothing tried (one evaluation did not fit the budget) is not "nothing
    // beat the original": it is not kept, so a larger BUDGET tries again;
    // a search that goes on keeps it open, and the next build resumes it.
    const bool none_tried = !r.improved && t.evaluations == 0 && t.space_valid > 0 && !t.reason.empty();
    const std::string store_note =
        none_tried && !t.continues ? "; not cached, so the next build tries again" : keep(r);
    if (t.continues) write_depfile(true);
    const std::string took = (t.rewrite_note.empty() ? "" : t.rewrite_note + "; ") + "tuned on " + gpu_label(*m_gpu) +
                             " in " + one_decimal_seconds(t.seconds) + tried_text(t) + ": ";
    const std::string goes_on = preparation_note(t) + (t.continues ? "; continues next build" : "");
    if (!r.improved)
      return finish(BuildCause::no_gain, r,
                    m_lead + took +
                        (none_tried ? t.reason
                                    : "nothing beat the original" + std::string(t.continues ? " yet" : "") +
                                          why_no_gain(t.reason)) +
                        "; using the original" + goes_on + store_note,
                    true);
    const std::string per_launcher = t.per_launcher.empty() ? "" : " (per launcher: " + t.per_launcher + ")";
    const std::string memcheck = t.memcheck.empty() ? "" : "; " + t.memcheck;
    const std::string sizes = (t.slower_at_a_size.empty() ? "" : "; slower at one size: " + t.slower_at_a_size) +
                              (t.other_sizes.empty() ? "" : "; at the other recorded sizes: " + t.other_sizes) +
                              (t.launch_paced.empty() ? "" : "; paced by its launches: " + t.launch_paced) +
                              (t.shape_guard.empty() ? "" : "; " + t.shape_guard) +
                              (t.edge_check.empty() ? "" : "; " + t.edge_check);
    return finish(BuildCause::tuned, r,
                  m_lead + took + describe_change(r) + per_launcher + memcheck + sizes + goes_on + store_note, true);
  }

  // " (41 of 24802 configurations measured so far, 12 in this build: 30
  // verified, 11 crashed)", or "tried" where no search went on before.
  static std::string tried_text(const TuneOutcome& t) {
    if (t.space_valid <= 0) return "";
    const std::string ended = tried_breakdown(t.outcomes, t.duplicates);
    const bool spans = t.continues || t.builds_searched > 1;
    return " (" + std::to_string(t.evaluations) + " of " + std::to_string(t.space_valid) + " configurations " +
           (spans ? "measured so far, " + std::to_string(t.evaluations_now) + " in this build" : std::string("tried")) +
           (ended.empty() ? "" : ": " + ended) + ")";
  }

  // What preparing the original (its build and profile, the space) took,
  // where it was a tenth of the budget or more: "" otherwise.
  std::string preparation_note(const TuneOutcome& t) const {
    if (t.preparation_s < 0.1 * m_req.budget_s || t.preparation_s <= 0) return "";
    std::vector<std::string> parts;
    for (const auto& [phase, what] : {std::pair{"reference_build", "its build"}, std::pair{"profile", "its profile"},
                                      std::pair{"setup", "reading the space"}})
      if (auto it = t.phases_s.find(phase); it != t.phases_s.end() && it->second >= 0.5)
        parts.push_back(std::string(what) + " " + one_decimal_seconds(it->second));
    return "; preparing the original took " + one_decimal_seconds(t.preparation_s) + " of the " +
           one_decimal_seconds(m_req.budget_s) + " budget" + (parts.empty() ? "" : " (" + joined(parts) + ")") +
           (t.continues ? ", kept for the next build" : "");
  }

  // The tuning's result into the cache (and the lockfile when asked); a
  // note for the line of what could not be stored.
  std::string keep(const TunedResult& r) {
    std::string note;
    try {
      m_cache.store(r);
    } catch (const std::exception& e) {
      note = std::string(" (not cached: ") + e.what() + ")";
    }
    if (std::string why; m_env.remote && !m_env.remote->put(r, &why)) note += " (" + why + ")";
    if (m_req.update_lockfile && !m_req.lockfile.empty()) {
      try {
        update_lockfile(m_req.lockfile_fragment ? lockfile_fragment_path(m_req.lockfile, r.gpu.id()) : m_req.lockfile, r);
      } catch (const std::exception& e) {
        note += std::string(" (lockfile not updated: ") + e.what() + ")";
      }
    }
    return note;
  }

  const BuildRequest& m_req;
  const BuildEnvironment& m_env;
  const std::string m_original_text, m_original_path, m_name, m_prefix, m_lockfile_name;
  std::string m_harness_note;  // leads the line: how the harness came to be ("" for a user's, or where none is used)
  ResultsCache m_cache;
  BuildReport m_rep;
  std::optional<GpuFingerprint> m_gpu;
  bool m_local = false, m_gpu_broken = false;
  std::string m_no_gpu, m_target_label, m_source_name;
  std::optional<std::optional<TunedResult>> m_lock_entry;  // lock_entry(), once read
  std::optional<TunedResult> m_open;  // the cache's result of a search that goes on (resumes())
  bool m_remote_failed = false;  // remote storage was asked and could not answer
  std::map<std::string, std::string> m_key_parts;  // this build's key, part by part (content_key.h)
  std::string m_lead;  // an unreadable cache entry, a stale or unreadable lockfile, a waited-for build that ended
                       // without a result
};

}  // namespace

BuildReport run_build_step(const BuildRequest& req, const BuildEnvironment& env) { return BuildStepRun(req, env).run(); }

}  // namespace kernelblaster::build_step
