// One source's build step, as `kernelblaster build` runs it for the CMake
// module: find the best result for this GPU (cache, lockfile, or a tuning
// run), write the source the target compiles and its flags file only when
// their content changes, and say in one line what happened and why.
// Everything outside (the GPU, the tuner, nvcc) comes through seams, so the
// decisions are tested without a GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "build_step/gpu_fingerprint.h"
#include "common/file_util.h"
#include "common/status.h"
#include "build_step/remote_storage.h"
#include "build_step/tuned_result.h"

namespace kernelblaster::build_step {

enum class Mode { automatic, apply, tune, off };
// "AUTO", "APPLY", "TUNE", "OFF" (any case); false for anything else.
bool mode_from_name(const std::string& name, Mode* out);

struct BuildRequest {
  std::string target;    // the CMake target, from the manifest (for the record)
  std::string source;    // the original
  std::string harness;
  std::string manifest;  // handed to the tuner
  std::string out;       // the source the target compiles
  std::string rsp;       // nvcc options file with the flags the result needs
  std::string stamp;     // touched on every run (the custom command's output)
  std::string depfile;   // optional: the headers the source includes
  Mode mode = Mode::automatic;
  std::string cache_dir;
  std::uint64_t cache_max_bytes = 256ull << 20;
  std::string lockfile;  // optional
  bool update_lockfile = false;
  // With update_lockfile: this GPU's own file beside the lockfile
  // (lockfile_fragment_path), so runners on other GPUs never write the same
  // file; `kernelblaster lock merge` folds the fragments in.
  bool lockfile_fragment = false;
  std::string target_gpu;  // a GPU name, fingerprint id or architecture
  double budget_s = 60;
  double min_speedup = 0;  // 0: the tuner's own threshold
  std::string policy;    // Lua policy file (optional)
  std::string kb;        // user KB file (optional, handed to the tuner)
  bool strict = false;
  // A CI build that must apply a known result (KERNELBLASTER_REQUIRE_RESULT,
  // as Helion's assert-cache-hit): a miss fails the build, never tunes, and
  // the line says how this build's key differs from the nearest stored one.
  bool require_result = false;
  bool dry_run = false;  // decide, but neither tune nor write
  // From the manifest: what the key covers.
  std::string unusable_manifest;  // why the manifest could not be read: the original is used, and the line says so
  std::string arch;
  std::vector<std::string> include_dirs, definitions, flags;
  // The manifest's LLM ("provider/model", or the model alone): with one, the
  // kernel is rewritten by `kernelblaster optimize` before it is tuned.
  std::string rewriter;
  // A source with no harness of its own (the CMake module's capture;
  // harness/capture_step.h). Where no result is cached or locked:
  std::string recording_shim;                // compiled instead of the original until its calls are recorded
  std::vector<std::string> recording_flags;  // the nvcc flags the shim needs
  bool recording_kernels = false;            // the kernel recorder records meanwhile (no shim: the original is compiled)
  std::string kernel_records;                // with recording_kernels: where the kernel recorder writes
  std::string no_harness;                    // why neither a harness nor a shim: the original is compiled
  std::string harness_note;                  // how the harness came to be, leading the line ("" for a user's)
  // The synthesized harness runs only part of the source: what it leaves
  // unrun, named ("" when it runs everything). The tuner then searches only
  // the launch sites it runs, with no flags and no LLM rewrite.
  std::string unharnessed;
  std::string recording_next;                // recording: what must happen for a harness, where not the usual
};

struct TuneRequest {
  std::string source, harness, manifest, out, policy, kb;
  double budget_s = 60;
  double min_speedup = 0;  // 0: not passed, the tuner's default
  std::string rewriter;    // BuildRequest::rewriter
  bool partial_harness = false;  // BuildRequest::unharnessed is set
  // The source's last winner on this GPU, as the lockfile holds it (its
  // entry's key may be stale): measured first ("NAME=VALUE,...,-flag",
  // tuner/start_from.h); empty: none.
  std::string start_from;
  // Where the search's state is kept between builds (ResultsCache::tuning_dir:
  // tuner/search_state.h); empty: none. fresh_search: not resumed (MODE TUNE).
  std::string state_dir;
  bool fresh_search = false;
};

// How a tuning ended, as the build step reads it; the tuner's exit status
// (0, 1, 77, anything else) is read into it where the tuner's process ends.
enum class TuneEnd { tuned, no_gain, no_gpu, failed };

struct TuneOutcome {
  TuneEnd end = TuneEnd::failed;
  std::string error;  // why, when it failed
  std::string tuned_text;
  std::map<std::string, std::string> config;
  std::map<std::string, std::string> original_config;  // the source's own values (its summary's "original_config")
  std::map<std::string, double> kernel_speedups;       // the winner's, kernel by kernel (its "kernel_speedups")
  std::vector<std::string> flags;
  double speedup = 1, seconds = 0;
  double reference_median_us = 0, median_us = 0, q1_us = 0, q3_us = 0;
  long long evaluations = 0, space_valid = 0;  // configurations tried (so far, over the builds), and valid (0: not said)
  long long evaluations_now = 0;               // of them, in this build
  bool continues = false;    // the search is not over: the next build on this GPU resumes it
  bool harness_failed = false;  // the original failed with its harness on every try (its "harness_failed")
  long long builds_searched = 0;  // builds its search has spanned, this one included (its "builds_searched")
  double preparation_s = 0;  // the tuner's seconds before its search (its "preparation_s")
  std::map<std::string, double> phases_s;  // where its seconds went (its "phases_s")
  std::map<Status, long long> outcomes;  // how the tries that ran ended (its summary's "outcomes", read into statuses)
  long long duplicates = 0;              // tries with the machine code of an earlier one (its "duplicate")
  std::string rewrite_note;  // what the LLM rewrite did, for the build line (empty: none was asked for)
  std::string reason;        // the tuner's reason when it kept nothing (its summary's "reason")
  std::string per_launcher;  // a winner composed per launcher: each one's speedup (its summary's "per_launcher")
  std::string memcheck;      // compute-sanitizer's memcheck on the winner, or why it did not run (its "memcheck")
  std::string slower_at_a_size;  // a kernel the winner slows at one recorded size only (its "slower_at_a_size")
  std::string other_sizes;       // the winner at the recorded sizes the search does not time (its "other_sizes")
  std::string launch_paced;      // kernels now shorter than their launch (its "launch_paced")
  std::string shape_guard;       // where the launcher stays as written, or why not (its "shape_guard")
  std::string edge_check;        // the winner at its launchers' branch edges (its "edge_check")
};

// How a tuning's tries ended, for the build line: "10 verified, 8 wrong
// result, 4 crashed" (the verified first, then the most frequent); empty
// when the tuner did not say.
std::string tried_breakdown(const std::map<Status, long long>& outcomes, long long duplicates);

struct BuildEnvironment {
  std::function<std::optional<GpuFingerprint>(std::string* why_not)> probe_gpu;
  // Whether an NVIDIA device is here even when probe_gpu finds none: then
  // the line names CUDA's failure instead of "no GPU". Optional.
  std::function<bool()> gpu_device_present;
  std::function<TuneOutcome(const TuneRequest&)> tune;
  // nvcc's release line for the key; empty, with `why` set, when nvcc
  // cannot be run (the line then says so: no key can be trusted without it).
  std::function<std::string(std::string* why)> nvcc_version;
  std::string tool_version;
  std::string kb_version;
  std::vector<std::string> skip_include_prefixes;  // the CUDA toolkit's headers
  // Whether the recording shim compiles with the target's settings: empty
  // when it does, else the compiler's first line. Asked only where the shim
  // would be compiled (a GPU here, MODE AUTO or TUNE). Optional: taken to compile.
  std::function<std::string(const BuildRequest&)> shim_compile_error;
  // Why a result kept outside this run (the cache, the lockfile, remote
  // storage) must not be compiled with: "" when it may be, else one phrase
  // (tuner/shared_entry.h: flags the tuner never sets, defines that name no
  // tunable of the source or a value outside its domain). A refused entry
  // counts as a miss. Optional: all accepted.
  std::function<std::string(const TunedResult&, const BuildRequest&)> refuse_entry;
  // A line to show now, before the step's own (waiting for another build). Optional.
  std::function<void(const std::string& line)> say;
  // Results shared with other machines (remote_storage.h): asked on a local
  // miss, given each new tuning result. Optional.
  std::shared_ptr<RemoteStorage> remote;
};

// Why a build step compiled what it did: the first real cause, counted per
// cache directory (build_stats.h) the way `ccache -s` counts its outcomes.
enum class BuildCause {
  applied,               // a cached or locked result
  tuned,                 // tuned now, and it beat the original
  no_gain,               // tuned now or before: nothing beat the original
  below_min_speedup,     // a known result under MIN_SPEEDUP
  mode_off,
  manifest_unreadable,
  nvcc_unusable,
  gpu_unusable,          // a GPU is here but CUDA cannot use it
  no_gpu,                // no GPU and nothing cached or locked
  other_gpu,             // this machine's GPU is not the target
  no_target,             // no GPU and no target to look results up for
  apply_without_result,  // MODE APPLY and nothing cached or locked
  tuning_failed,
  dry_run,
  recording,   // no harness yet: the project's runs record calls (the shim) or launches (the kernel recorder)
  result_required,  // no result applies and one is required (KERNELBLASTER_REQUIRE_RESULT): the build fails
  no_harness,  // no harness, and no way to record one: the original
};
const char* build_cause_name(BuildCause c);
// The cause build_cause_name gives `name`; false for anything else.
bool build_cause_from_name(const std::string& name, BuildCause* out);

// What a build step compiles: the original, a known result applied, a
// result tuned in this build, or the original with the recording shim.
enum class BuildAction { original, applied, tuned, recording };
const char* build_action_name(BuildAction a);  // "original", "applied", "tuned", "recording"
// Where the step's result came from.
enum class ResultOrigin { none, cache, lockfile, remote_storage, tuning };
const char* result_origin_name(ResultOrigin o);  // "", "cache", "lockfile", "remote storage", "tuning"
// The values those names spell, read on arrival (a build record); false for
// a name this tool does not know.
bool build_action_from_name(const std::string& name, BuildAction* out);
bool result_origin_from_name(const std::string& name, ResultOrigin* out);

struct BuildReport {
  std::string line;        // "kernelblaster: softmax.cu: ..." (no newline)
  BuildAction action = BuildAction::original;
  ResultOrigin origin = ResultOrigin::none;
  std::string key;
  std::string selector;    // the GPU results were looked up for
  std::vector<std::string> headers;
  bool wrote_source = false;
  bool strict_failure = false;  // no verified result and --strict
  BuildCause cause = BuildCause::no_gpu;
  bool stale_lockfile = false;  // a lockfile entry for the GPU was there but did not match
  std::string refused_entry;    // why a cached, locked or served entry was not used ("" none refused)
  std::string remote;           // the remote storage the result came from (its URL, no credentials), when it did
  // The tuning failed because the original failed with its harness (or the
  // harness could not be used): a synthesized harness may be made another way.
  bool harness_failed = false;
  std::string tuning_error;     // the tuning's failure, as the line gives it
  std::optional<TunedResult> result;
};

// What the depfile of a step whose search goes on (or whose remote storage
// could not answer) lists after its target's name: a file never made, so
// the build tool runs the step again.
inline constexpr const char* kSearchGoesOn = ".search-goes-on";

// Throws std::runtime_error only when the original source cannot be read
// (the build fails anyway then); every other problem ends in the original
// source and a line saying why.
BuildReport run_build_step(const BuildRequest& req, const BuildEnvironment& env);

// write_if_changed: common/file_util.h.
using kernelblaster::write_if_changed;

}  // namespace kernelblaster::build_step
