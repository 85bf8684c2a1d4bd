// The contract between the tool and a harness process: the plan the tool
// hands over (plan.json) and the report the harness writes back
// (report.json). Both sides parse JSON into these structs at the edge.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kernelblaster {

// The file a harness process writes into its output directory once it holds
// the GPU lock: the tool's deadline for the process starts then.
inline constexpr const char* kLockHeldMarker = "gpu-lock-held";
// The report so far, written beside the dumps once a harness process's
// correctness runs are done, before its timing: the judge compares those
// runs while the timing goes on and stops a candidate that failed them
// (judge_correctness_early). Only report.json, written last, vouches for a run.
inline constexpr const char* kCorrectnessReportFile = "report.correctness.json";

struct RunRequest {
  int size = 0;            // index into the harness's sizes
  std::uint64_t seed = 0;  // input seed
};

// A timed call whose outputs are kept and judged like a correctness run's:
// the fresh timed run `at` of the way through the timed runs (1: the last),
// on inputs from `seed`. The tool picks both per evaluation, so a candidate
// cannot tell a checked timed call from the others, nor an earlier call's
// inputs from these.
struct TimedCheck {
  double at = 1.0;
  std::uint64_t seed = 0;
};

struct TimingRequest {
  bool enabled = true;
  double budget_ms = 300.0;     // per timed size, timed runs only
  double warmup_ms = 30.0;
  int min_runs = 10;
  int max_runs = 2000;
  bool flush_l2 = true;
  int repeat_probe_runs = 15;   // runs on unchanged inputs, to expose result caching
  std::uint64_t seed = 0x6b62'0000;  // first seed of the fresh inputs of timed runs
  std::vector<int> sizes;       // empty: every timed (non-validation) size
  std::vector<TimedCheck> checks;  // per timed size, in order of `at`
  // Per size index: each timed run calls the launcher this many times back
  // to back, with nothing between the calls, and counts a call as the run's
  // time over the calls (as a program that launches a kernel in a loop sees
  // it). Missing or below 2: one call per run.
  std::vector<int> calls_per_run;
};

// The calls each timed run of size `size` makes (at least 1).
int calls_per_run(const TimingRequest& request, int size);

// One profiled call of the launcher, after everything else in the plan and
// never timed. Empty `metrics` with size >= 0: launch facts only.
struct ProfileRequest {
  int size = -1;                     // size index to profile; -1: no profiling
  std::string set;                   // "cheap" or "full": names the metric set (config image cache key)
  std::vector<std::string> metrics;  // CUPTI metric names to collect
  std::uint64_t seed = 0x6b62'7072;  // inputs of the profiled call
  int max_kernels = 256;             // kernels (ranges) profiled per call
};

struct Plan {
  std::vector<RunRequest> runs;  // correctness runs, executed in this order
  TimingRequest timing;
  ProfileRequest profile;
  std::string lock_dir;          // empty: no inter-process GPU lock
  double lock_timeout_s = 600.0;
  int device = 0;
  // Outputs handed to the launcher as the caller made them rather than
  // poisoned: the original needs their initial content (a KernelBench driver
  // that allocates torch::zeros and a launcher that accumulates into it).
  std::vector<std::string> keep_initial_outputs;
  // Find such outputs (asked of the original only): an output the original
  // leaves poisoned or non-finite where an unpoisoned call wrote a value.
  bool probe_initial_outputs = false;
  // KernelBench: dump torch's side of each comparison (the oracle). Asked of
  // the original only: a candidate's process could tamper with its own
  // torch, so its oracles would never be read.
  bool dump_oracles = true;
  // KernelBench: the candidate's process. Before every launcher call, every
  // byte the driver's allocator holds is overwritten with kScrubWord except
  // the launcher's own pointer arguments: torch's reference, intermediate
  // tensors and freed memory are out of the call's reach. The driver's own
  // verdict then means nothing (its reference is gone) and is not reported;
  // the tool applies the driver's allclose to the original's oracle instead.
  bool isolate = false;
};

// What isolation writes over memory a launcher was not given: a NaN in f16,
// bf16, f32 and f64 alike (bytes F5 7F repeated, by address parity), which
// no arithmetic produces. An output holding it was copied from such memory.
inline constexpr std::uint32_t kScrubWord = 0x7FF57FF5u;

struct ToleranceSpec {
  double rel_l2 = 0.0;
  double atol = 0.0;
  double rtol = 0.0;
};

struct BufferDecl {
  std::string name;
  std::string dtype;   // "f32", "f16", ...
  std::string role;    // "input", "output", "inout", "workspace"
  ToleranceSpec tolerance;  // resolved (dtype defaults applied)
  std::map<std::string, std::int64_t> elements_per_size;  // size label -> element count
};

struct SizeDecl {
  std::string label;
  std::map<std::string, std::int64_t> dims;
  bool validation_only = false;
  double flops = -1;  // the harness's declared FLOPs per call at this size; < 0: not declared
};

struct OutputDump {
  std::string name;
  std::string file;  // relative to the report's directory
  std::int64_t count = 0;
  std::uint8_t poison_byte = 0xFF;
  std::string dtype;  // empty: the buffer's own (an oracle may come in another type)
  // An oracle from a driver's torch::allclose: the tolerances it compared
  // with (allclose_rtol < 0: none known).
  double allclose_rtol = -1, allclose_atol = -1;
  bool allclose_equal_nan = false;
};

// What an input program (a KernelBench driver) said of its own run: the last
// line with "passed" or "failed" as a word; named only in the report's JSON
// ("", "passed", "failed"; anything else reads as none).
enum class DriverVerdict { none, passed, failed };
const char* driver_verdict_name(DriverVerdict v);

struct RunReport {
  int index = 0;
  int size = 0;
  std::uint64_t seed = 0;
  std::vector<OutputDump> outputs;
  std::vector<std::string> inputs_modified;
  // Buffers whose guard bytes (kept by the runtime on both sides of each)
  // the call changed, each with the side: "C (after its end)".
  std::vector<std::string> outside_writes;
  // What a third party computed for the same inputs, one per output (torch's
  // result in a KernelBench driver); empty for native harnesses.
  std::vector<OutputDump> oracle;
  // The input program's own verdict on this run, and its last lines.
  DriverVerdict driver_verdict = DriverVerdict::none;
  std::string driver_detail;
  int activities = -1;             // GPU activities the call launched; -1: not traced
  bool repeated_pointers = false;  // the call got buffers an earlier call already got
  // A timed call whose outputs were kept (TimingRequest::checks): its index
  // among the fresh timed runs of its size; -1 for a correctness run.
  int timed_call = -1;
  std::map<std::string, std::uint64_t> input_checksums;  // before the call
};

// One kernel of the timed call, by its place in the launch order: what the
// judge compares kernel by kernel (a change that speeds the call up may
// slow one of its kernels down).
struct KernelTiming {
  std::string name;  // mangled, as the GPU reported it
  double median_ns = 0, q1_ns = 0, q3_ns = 0;
};

struct TimingReport {
  int size = 0;
  std::string method;  // "cupti" (device-wide activity span) or "events"
  int runs = 0;
  double median_ns = 0, q1_ns = 0, q3_ns = 0, min_ns = 0;
  double event_median_ns = 0;       // CUDA events on the legacy stream, for cross-checking
  double busy_median_ns = 0;        // "cupti": time the GPU ran some of the run's work (no idle gaps)
  double busy_q1_ns = 0, busy_q3_ns = 0;
  double kernels_per_run = 0;       // median GPU activities per run
  // The host's time to issue one call's launches (the calls of a run one
  // after the other, no wait between), median over the fresh runs: where a
  // kernel runs shorter than its launch takes, a loop of it waits on the host.
  double issue_median_ns = 0;
  std::vector<KernelTiming> kernels;  // "cupti": each kernel of the call, in launch order
  int repeat_runs = 0;
  double repeat_median_ns = 0;      // same inputs every run (result-caching probe)
  int untimed_runs = 0;             // runs whose GPU work escaped the event bracket
  int foreign_activities = 0;       // GPU work launched outside every timed window
  std::string untimed_detail;
  int empty_runs = 0;               // timed runs that launched no GPU work at all
  int unwritten_runs = 0;           // timed runs that left output elements poisoned
  std::string unwritten_detail;
  // The most output elements one fresh run left holding the poison byte:
  // an integer output's legitimate values can be that byte (a u8 255, an
  // i32 -1), so the judge holds a candidate to the original's count.
  std::int64_t unwritten_max = 0;
  double sm_clock_mhz = 0;          // read, never set
  double wall_s = 0;
};

struct DeviceInfo {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t memory_bytes = 0;
  int driver_version = 0;
  std::string uuid;
};

// What stopped a harness process, as its report says; named only in the
// report's JSON. A name this tool does not know reads as `unknown`, never as
// `none`: a report cannot pass for a clean run by spelling its error oddly.
enum class HarnessErrorKind { none, cuda_error, launch_error, harness_error, lock_timeout, unknown };
const char* harness_error_kind_name(HarnessErrorKind k);  // "" for none

struct HarnessError {
  HarnessErrorKind kind = HarnessErrorKind::none;
  std::string message;
  int run = -1;      // correctness run index, -1 when not in a run
  std::string phase; // "setup", "correctness", "timing"
};

// One kernel of the profiled call, in launch order.
struct ProfiledKernel {
  std::string name;                        // as the driver names it (mangled)
  std::map<std::string, double> counters;  // CUPTI metric name -> value
  std::map<std::string, double> launch;    // launch and occupancy facts, under METRICS.md names
};

struct ProfileReport {
  bool requested = false;
  std::string set;
  std::string chip;                   // e.g. "GH100"
  int passes = 0;                     // replay passes the metric set needed
  std::string note;                   // empty when counters were collected; else why not
  std::vector<std::string> missing;   // metric names the chip rejected
  std::vector<ProfiledKernel> kernels;
  double flops = -1, bytes = -1;      // the harness's declared work at the profiled size; < 0: not declared
  double wall_s = 0;
  std::map<std::string, double> phase_s;  // where wall_s went (setup steps, passes, evaluation)
};

// HarnessReport::harness of a KernelBench driver (a native harness names itself).
inline constexpr const char* kKernelBenchHarness = "kernelbench";

struct HarnessReport {
  std::string harness;
  DeviceInfo device;
  std::vector<SizeDecl> sizes;
  std::vector<BufferDecl> buffers;
  std::vector<RunReport> runs;
  std::vector<TimingReport> timings;
  ProfileReport profile;
  // GPU work of correctness runs outside the call's order: launched by
  // another thread after the launcher returned, or run on a stream that is
  // not ordered after the caller's (attributed like timed runs).
  int foreign_activities = 0;
  std::string foreign_detail;
  std::vector<std::string> notes;
  HarnessError error;
  double wall_s = 0;
  // Outputs the process found the original needs unpoisoned (Plan::probe_initial_outputs).
  std::vector<std::string> kept_initial_outputs;
  // Where wall_s went, in order: "setup", "correctness", "timing", ...
  std::vector<std::pair<std::string, double>> phase_s;
  // The most L2 the launcher's calls left set aside for persisting accesses
  // (cudaLimitPersistingL2CacheSize) when they returned; the runtime resets
  // it after every call, so lines kept resident never outlive a call.
  std::uint64_t persisting_l2_bytes = 0;
  // Isolation (Plan::isolate): the most bytes overwritten before one call.
  std::uint64_t isolated_bytes = 0;
  // What the process changed about itself while it ran (runtime/process_state.h):
  // its environment against the one it started with, its signal handlers.
  std::vector<std::string> process_changes;
};

// JSON round trips. Parsing throws std::runtime_error with the reason.
std::string plan_to_json(const Plan& plan);
Plan plan_from_json(const std::string& text);
std::string report_to_json(const HarnessReport& report);
HarnessReport report_from_json(const std::string& text);

}  // namespace kernelblaster
