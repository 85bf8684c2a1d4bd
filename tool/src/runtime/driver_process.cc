// The runtime of a KernelBench driver process (kernelbench_runtime.h): the
// driver's main() runs once per seed, and every launcher call goes through
// on_launch(), which does what a native harness session does around a call:
// outputs poisoned, inputs checksummed, the call windowed for CUPTI, outputs
// dumped, and once, the timed runs. The driver's torch::allclose tells which
// argument is the output and what torch computed for the same inputs.
//
// Invocations of the driver's main, in order:
//   discovery  the plan's first seed, nothing poisoned: which pointer
//              arguments the driver compares (outputs), their types and sizes
//   runs       one per plan run, outputs poisoned (or, for outputs the
//              original needs as the driver made them, left alone)
//   timing     one invocation per timed run (harness/timed_runs.h), each
//              on inputs the driver makes anew from the run's seed: a warm-up
//              that sizes the sample, the fresh runs, and within the
//              invocation before the last, the repeat probe on unchanged
//              inputs. The checked timed runs (TimingRequest::checks) keep
//              their outputs, and in the original's process torch's answer
//              for the same inputs: judged like correctness runs.
//   profile    when the plan asks for one: one more invocation, its call
//              profiled (outputs poisoned, L2 flushed), as a native session does
//
// In the candidate's process (Plan::isolate), before every launcher call,
// everything torch's allocator holds except the launcher's own arguments is
// overwritten (kScrubWord): torch's reference of this invocation, earlier
// invocations' tensors and freed memory are out of the call's reach. An
// output copied from there holds the pattern; the tool says so.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "common/file_util.h"
#include "common/protocol.h"
#include "runtime/compare.h"
#include "runtime/cuda_check.h"
#include "runtime/device_ops.h"
#include "runtime/driver_output.h"
#include "runtime/process_main.h"
#include "runtime/process_runtime.h"
#include "runtime/profile_pass.h"
#include "runtime/spec.h"
#include "runtime/timed_runs.h"
#include "kernelblaster/kernelbench_runtime.h"

namespace kernelblaster::kernelbench {
namespace {


// A problem with the driver or the way it uses the launcher, not with the
// kernel source: reported as harness_error.
struct DriverProblem : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Mode { idle, discover, check, time, profile };

// A pointer parameter of the launcher, as discovery found it.
struct Arg {
  std::string name;
  bool resolved = false;  // a device tensor the driver made holds it
  std::string dtype;
  std::size_t width = 0;  // bytes per element
  std::int64_t count = 0;
  bool output = false;
};

bool dtype_width(const std::string& name, std::size_t* width) {
  ElementType t;
  if (!dtype_from_name(name, &t)) return false;
  *width = dtype_size(t);
  return true;
}

bool is_float_dtype(const std::string& name) {
  ElementType t;
  return dtype_from_name(name, &t) && dtype_is_float(t);
}

ToleranceSpec default_tolerance(const std::string& dtype) {
  static const std::map<std::string, DType> kTypes = {
      {"f32", DType::f32}, {"f64", DType::f64}, {"f16", DType::f16}, {"bf16", DType::bf16}, {"i8", DType::i8},
      {"u8", DType::u8},   {"i16", DType::i16}, {"i32", DType::i32}, {"u32", DType::u32},   {"i64", DType::i64}};
  auto it = kTypes.find(dtype);
  Tolerance t = resolve_tolerance(it == kTypes.end() ? DType::u8 : it->second, Tolerance{});
  return {t.rel_l2, t.atol, t.rtol};
}

class Runtime {
 public:
  Runtime(const DriverHooks& hooks, Plan plan, std::string out_dir)
      : m_hooks(hooks), m_plan(std::move(plan)), m_rt(m_plan, m_report, std::move(out_dir)) {
    m_report.harness = kKernelBenchHarness;
    m_report.sizes = {{"default", {}, false}};
  }
  ~Runtime() {
    for (auto& [name, saved] : m_initial) cudaFree(saved.second);
  }

  HarnessReport& report() { return m_report; }
  // Its lock, set-up and process end: those of every harness process. The
  // driver's torch work, its reference computation and module loading all
  // happen under the lock; never released by hand (the process's exit,
  // context teardown included, does).
  ProcessRuntime& runtime() { return m_rt; }

  void discover() {
    m_report.error.phase = "discovery";
    if (m_plan.runs.empty()) throw DriverProblem("the plan has no runs");
    invoke(Mode::discover, m_plan.runs.front().seed, nullptr);
    bool any_output = false;
    for (const Arg& a : m_args) any_output = any_output || a.output;
    if (!any_output)
      throw DriverProblem("driver.cpp compares none of the launcher's outputs with torch::allclose");
    for (const Arg& a : m_args) {
      if (!a.resolved) {
        m_report.notes.push_back("pointer argument '" + a.name +
                                 "' is not a device tensor the driver made: not poisoned, checksummed or compared");
        continue;
      }
      BufferDecl d;
      d.name = a.name;
      d.dtype = a.dtype;
      d.role = a.output ? "output" : "input";
      d.tolerance = default_tolerance(a.dtype);
      d.elements_per_size["default"] = a.count;
      m_report.buffers.push_back(d);
    }
    for (const std::string& name : m_plan.keep_initial_outputs) m_keep.insert(name);
  }

  void runs() {
    m_report.error.phase = "correctness";
    for (std::size_t k = 0; k < m_plan.runs.size(); ++k) {
      m_report.error.run = static_cast<int>(k);
      check_run(static_cast<int>(k), m_plan.runs[k].seed, k % 2 == 0 ? 0xFF : 0x5A);
      if (k == 0 && m_plan.probe_initial_outputs && probe_initial_outputs()) {
        // The original needs those outputs as the driver makes them: run 0 again so.
        m_rt.forget_last_checked_call();
        check_run(0, m_plan.runs[0].seed, 0xFF);
      }
    }
    m_report.error.run = -1;
    m_rt.attribute_checked_calls();
  }

  void timing() {
    if (!m_plan.timing.enabled) return;
    m_report.error.phase = "timing";
    const TimingRequest& tr = m_plan.timing;
    TimedLoop loop(m_rt.tracer(), tr, tr.repeat_probe_runs);
    m_loop = &loop;
    while (!loop.done()) {
      const TimedStep step = loop.next();
      std::uint64_t seed = step.phase == TimedPhase::warmup ? tr.seed + 0x5000 + static_cast<std::uint64_t>(step.index)
                           : step.check >= 0                ? tr.checks[static_cast<std::size_t>(step.check)].seed
                                                            : tr.seed + static_cast<std::uint64_t>(step.index);
      RunReport* checked = nullptr;
      if (step.check >= 0) {  // a checked timed call: its outputs (and the original's oracle) kept
        RunReport run;
        run.index = static_cast<int>(m_report.runs.size());
        run.seed = seed;
        run.timed_call = step.index;
        m_report.runs.push_back(run);
        checked = &m_report.runs.back();
      }
      m_timed = false;
      invoke(Mode::time, seed, checked);
      if (!m_timed) throw DriverProblem("a timing invocation never called the launcher");
      if (checked && checked->outputs.empty())
        throw DriverProblem("timed call " + std::to_string(step.index) + " dumped no output");
    }
    TimingReport t = loop.finish();
    t.size = 0;
    m_report.timings.push_back(t);
    m_rt.note_persisting_l2(loop.persisting_l2_bytes());
    m_loop = nullptr;
  }

  void profile() {
    if (m_plan.profile.size < 0) return;
    m_report.error.phase = "profile";
    m_timed = false;
    invoke(Mode::profile, m_plan.profile.seed, nullptr);
  }

  // --- called from the launcher wrapper and the torch side ---

  void on_launch(const LaunchArgs& args, const std::function<void()>& call) {
    if (m_mode == Mode::idle) {  // outside any invocation (a driver's static initializer): a plain call
      call();
      return;
    }
    ++m_launches;
    m_last_pointers = args.pointers;
    try {
      if (m_mode == Mode::discover) {
        if (m_args.empty()) learn_arguments(args);
        isolate(args);
        call();
        cuda_check(cudaGetLastError(), "kernel launch");
        cuda_check(cudaDeviceSynchronize(), "kernel execution");
        m_rt.note_persisting_l2(take_back_persisting_l2());
      } else if ((m_mode == Mode::time || m_mode == Mode::profile) && m_timed) {
        plain_call(args, call);  // a second launcher call in the invocation
      } else if (m_mode == Mode::time) {
        m_timed = true;
        timed_calls(args, call);
      } else if (m_mode == Mode::profile) {
        m_timed = true;
        check_arguments(args);
        isolate(args);
        save_initial_outputs(args);
        profile_call(args, call);
      } else {
        checked_call(args, call);
      }
    } catch (const CudaFailure& f) {
      if (!m_failure) m_failure = std::make_unique<CudaFailure>(f);
      throw;
    }
    for (const void* p : args.pointers)
      if (p) m_seen.insert(p);
  }

  void on_compare(int argument, const TensorView& oracle, bool allclose, const AllcloseTolerance& tolerance,
                  const std::string& text, const std::string& problem) {
    (void)allclose;  // the driver's own verdict is read from what it prints
    if (m_mode == Mode::idle) return;
    if (argument < 0 || argument >= static_cast<int>(m_args.size())) {
      if (m_problem.empty())
        m_problem = problem.empty() ? "cannot tell which side of " + text + " is the launcher's output" : problem;
      return;
    }
    Arg& a = m_args[static_cast<std::size_t>(argument)];
    if (m_mode == Mode::discover) {
      if (!a.resolved) {
        if (m_problem.empty())
          m_problem = "the launcher's output '" + a.name + "' compared in " + text +
                      " is not a device tensor the driver made";
        return;
      }
      a.output = true;
      // What the original wrote with nothing poisoned, for the probe of run 0.
      std::string bytes(static_cast<std::size_t>(a.count) * a.width, '\0');
      const void* p = m_last_pointers[static_cast<std::size_t>(argument)];
      cuda_check(cudaMemcpy(bytes.data(), p, bytes.size(), cudaMemcpyDeviceToHost), "read back '" + a.name + "'");
      m_unpoisoned[a.name] = std::move(bytes);
      return;
    }
    if (!m_run || !a.output || !dumps_oracles()) return;
    std::size_t width = 0;
    if (!dtype_width(oracle.dtype, &width)) {
      if (m_problem.empty()) m_problem = "torch's reference in " + text + " has a type the tool cannot compare";
      return;
    }
    if (oracle.count != a.count) {
      if (m_problem.empty())
        m_problem = "torch's reference in " + text + " has " + std::to_string(oracle.count) +
                    " elements, the launcher's output '" + a.name + "' " + std::to_string(a.count);
      return;
    }
    OutputDump d;
    d.name = a.name;
    d.file = "run" + std::to_string(m_run->index) + "_" + a.name + ".oracle.bin";
    d.count = oracle.count;
    d.dtype = oracle.dtype;
    d.poison_byte = 0;  // never compared as a candidate
    d.allclose_rtol = tolerance.rtol;
    d.allclose_atol = tolerance.atol;
    d.allclose_equal_nan = tolerance.equal_nan;
    write_file(m_rt.out_dir() + "/" + d.file,
               std::string(static_cast<const char*>(oracle.data), static_cast<std::size_t>(oracle.count) * width));
    replace_dump(m_run->oracle, d);
  }

  std::vector<const void*> last_pointers() const { return m_last_pointers; }
  std::uint64_t seed() const { return m_seed; }
  // Discovery needs no oracle; a run needs one only when the plan keeps them.
  bool dumps_oracles() const { return m_mode != Mode::discover && m_plan.dump_oracles; }

 private:
  void learn_arguments(const LaunchArgs& args) {
    for (std::size_t i = 0; i < args.pointers.size(); ++i) {
      Arg a;
      a.name = i < args.pointer_names.size() ? args.pointer_names[i] : "arg" + std::to_string(i);
      TensorView v;
      if (args.pointers[i] && m_hooks.find_tensor(args.pointers[i], &v) && dtype_width(v.dtype, &a.width)) {
        a.resolved = true;
        a.dtype = v.dtype;
        a.count = v.count;
      }
      m_args.push_back(a);
    }
    for (const auto& [name, value] : args.integers) m_report.sizes[0].dims[name] = value;
  }

  std::size_t bytes_of(const Arg& a) const { return static_cast<std::size_t>(a.count) * a.width; }
  bool kept(const Arg& a) const { return m_keep.count(a.name) > 0; }

  const void* pointer(const LaunchArgs& args, std::size_t i) const {
    return i < args.pointers.size() ? args.pointers[i] : nullptr;
  }

  void check_arguments(const LaunchArgs& args) const {
    if (args.pointers.size() != m_args.size())
      throw DriverProblem("the launcher was called with " + std::to_string(args.pointers.size()) +
                          " pointers, at first with " + std::to_string(m_args.size()));
  }

  std::uint8_t poison_of(const Arg& a) const { return is_float_dtype(a.dtype) ? 0xFF : m_int_poison; }

  void poison_outputs(const LaunchArgs& args, bool restore_initial) {
    for (std::size_t i = 0; i < m_args.size(); ++i) {
      const Arg& a = m_args[i];
      void* p = const_cast<void*>(pointer(args, i));
      if (!a.output || !p) continue;
      if (kept(a)) {
        auto it = m_initial.find(a.name);
        if (restore_initial && it != m_initial.end())
          cuda_check(cudaMemcpyAsync(p, it->second.second, it->second.first, cudaMemcpyDeviceToDevice,
                                     cudaStreamLegacy),
                     "restore '" + a.name + "'");
        continue;
      }
      cuda_check(cudaMemsetAsync(p, poison_of(a), bytes_of(a), cudaStreamLegacy), "poison '" + a.name + "'");
    }
  }

  std::map<std::string, std::uint64_t> input_sums(const LaunchArgs& args) const {
    std::map<std::string, std::uint64_t> sums;
    for (std::size_t i = 0; i < m_args.size(); ++i) {
      const Arg& a = m_args[i];
      const void* p = pointer(args, i);
      if (a.output || !a.resolved || !p) continue;
      sums[a.name] = checksum_on_device(p, bytes_of(a));
    }
    return sums;
  }

  // Isolation (Plan::isolate): everything the driver's allocator holds is
  // overwritten with the scrub pattern except the launcher's own pointer
  // arguments (each tensor's bytes from the pointer on). A pointer the
  // driver's tensors do not explain keeps its whole segment, said once.
  void isolate(const LaunchArgs& args) {
    if (!m_plan.isolate) return;
    if (!m_hooks.device_memory) {
      note_once("isolation unavailable: the driver's allocator cannot be asked for its memory");
      return;
    }
    std::vector<DeviceRange> segments = m_hooks.device_memory();
    std::vector<std::pair<const char*, const char*>> keep;
    std::vector<const char*> unexplained;
    for (const void* ptr : args.pointers) {
      if (!ptr) continue;
      const char* p = static_cast<const char*>(ptr);
      TensorView v;
      if (m_hooks.find_tensor(ptr, &v) && v.span_bytes > 0) keep.emplace_back(p, p + v.span_bytes);
      else unexplained.push_back(p);
    }
    std::uint64_t written = 0;
    for (const DeviceRange& seg : segments) {
      const char* begin = static_cast<const char*>(seg.data);
      const char* end = begin + seg.bytes;
      bool whole = false;
      for (const char* p : unexplained) whole = whole || (p >= begin && p < end);
      if (whole) {
        note_once("isolation incomplete: a launcher argument lies in the driver's memory outside every tensor it "
                  "handed out; that memory segment is left as it is");
        continue;
      }
      for (const auto& [from, to] : subtract(begin, end, keep)) {
        fill_scrub_pattern_on_device(const_cast<char*>(from), static_cast<std::size_t>(to - from));
        written += static_cast<std::uint64_t>(to - from);
      }
    }
    cuda_check(cudaDeviceSynchronize(), "isolation");
    m_report.isolated_bytes = std::max(m_report.isolated_bytes, written);
  }

  // [begin, end) less every range of `keep`, in order.
  static std::vector<std::pair<const char*, const char*>> subtract(
      const char* begin, const char* end, std::vector<std::pair<const char*, const char*>> keep) {
    std::sort(keep.begin(), keep.end());
    std::vector<std::pair<const char*, const char*>> out;
    const char* at = begin;
    for (const auto& [from, to] : keep) {
      if (to <= at || from >= end) continue;
      if (from > at) out.emplace_back(at, from);
      at = std::max(at, to);
    }
    if (at < end) out.emplace_back(at, end);
    return out;
  }

  void note_once(const std::string& note) {
    if (std::find(m_report.notes.begin(), m_report.notes.end(), note) == m_report.notes.end())
      m_report.notes.push_back(note);
  }

  void plain_call(const LaunchArgs& args, const std::function<void()>& call) {
    isolate(args);
    call();
    cuda_check(cudaGetLastError(), "kernel launch");
    cuda_check(cudaDeviceSynchronize(), "kernel execution");
  }

  // The outputs of `args` read back and written beside the report, into `run`.
  void dump_outputs(const LaunchArgs& args, RunReport& run) {
    for (std::size_t i = 0; i < m_args.size(); ++i) {
      const Arg& a = m_args[i];
      const void* p = pointer(args, i);
      if (!a.output || !p) continue;
      // For a kept output only an all-0xFF (NaN) element reads as unwritten.
      OutputDump d = m_rt.dump_output(run.index, a.name, p, a.count, a.width, poison_of(a));
      replace_dump(run.outputs, d);
    }
  }

  // One call as a correctness run: poisoned outputs, input checksums around
  // it, its window for the activity attribution, its outputs dumped.
  void checked_call(const LaunchArgs& args, const std::function<void()>& call) {
    if (!m_run) {  // a second launcher call in a check invocation: a plain call
      plain_call(args, call);
      return;
    }
    check_arguments(args);
    isolate(args);
    poison_outputs(args, /*restore_initial=*/false);
    cuda_check(cudaDeviceSynchronize(), "prepare");
    std::map<std::string, std::uint64_t> before = input_sums(args);
    bool repeated = false;
    for (std::size_t i = 0; i < m_args.size(); ++i)
      if (m_args[i].output && pointer(args, i) && m_seen.count(pointer(args, i))) repeated = true;
    RunReport& run = *m_run;
    m_rt.checked_call(run.index, call);
    std::map<std::string, std::uint64_t> after = input_sums(args);
    run.input_checksums = before;
    run.repeated_pointers = repeated;
    run.inputs_modified.clear();
    for (const auto& [name, sum] : before)
      if (after[name] != sum) run.inputs_modified.push_back(name);
    dump_outputs(args, run);
  }

  // The kept outputs (those the original needs as the driver made them) of
  // this invocation, copied aside: every timed run gets them back.
  void save_initial_outputs(const LaunchArgs& args) {
    for (std::size_t i = 0; i < m_args.size(); ++i) {
      const Arg& a = m_args[i];
      const void* p = pointer(args, i);
      if (!a.output || !p || !kept(a)) continue;
      auto it = m_initial.find(a.name);
      if (it == m_initial.end()) {
        void* copy = nullptr;
        cuda_check(cudaMalloc(&copy, bytes_of(a)), "copy of '" + a.name + "'");
        it = m_initial.emplace(a.name, std::make_pair(bytes_of(a), copy)).first;
      }
      cuda_check(cudaMemcpy(it->second.second, p, bytes_of(a), cudaMemcpyDeviceToDevice), "copy of '" + a.name + "'");
    }
  }

  // The launcher call of one timing invocation: the loop's next run, and
  // when the loop's next runs repeat these inputs (the repeat probe), those
  // too. A checked run's outputs go into the invocation's RunReport.
  void timed_calls(const LaunchArgs& args, const std::function<void()>& call) {
    check_arguments(args);
    isolate(args);
    save_initial_outputs(args);
    TimedRunHooks hooks;
    hooks.prepare = [&](const TimedStep&) {
      poison_outputs(args, /*restore_initial=*/true);
      if (m_plan.timing.flush_l2) m_rt.flush_l2();
    };
    hooks.call = call;
    hooks.unwritten = [&] {
      std::int64_t left = 0;
      for (std::size_t i = 0; i < m_args.size(); ++i) {
        const Arg& a = m_args[i];
        const void* p = pointer(args, i);
        if (a.output && p && !kept(a)) left += count_poisoned_on_device(p, a.count, a.width, poison_of(a));
      }
      return left;
    };
    hooks.checked = [&](const TimedStep&) {
      if (m_run) dump_outputs(args, *m_run);
    };
    do {
      m_loop->run(hooks);
    } while (!m_loop->done() && m_loop->next().phase == TimedPhase::repeat);
  }

  // The call profiled (the plan asks it of the candidate, after its timing):
  // outputs poisoned as for a timed run, the L2 flushed before each pass. A
  // failure here is a note in the report, never the run's error.
  void profile_call(const LaunchArgs& args, const std::function<void()>& call) {
    ProfileHooks hooks;
    hooks.prepare = [&] {
      poison_outputs(args, /*restore_initial=*/true);
      m_rt.flush_l2();
      cuda_check(cudaDeviceSynchronize(), "prepare");
    };
    hooks.call = [&] {
      call();
      cuda_check(cudaGetLastError(), "kernel launch");
      cuda_check(cudaDeviceSynchronize(), "kernel execution");
    };
    m_rt.profile(hooks);
  }

  void invoke(Mode mode, std::uint64_t seed, RunReport* run) {
    m_mode = mode;
    m_seed = seed;
    m_run = run;
    m_launches = 0;
    m_problem.clear();
    m_last_pointers.clear();
    m_hooks.begin(seed);
    std::ostringstream captured;
    std::streambuf* old = std::cout.rdbuf(captured.rdbuf());
    int rc = 0;
    std::string thrown;
    try {
      rc = m_hooks.run_main();
    } catch (const std::exception& x) {
      thrown = x.what();
    } catch (...) {
      thrown = "an exception that is not a std::exception";  // all that can be known of it
    }
    std::cout.rdbuf(old);
    m_hooks.end();
    m_mode = Mode::idle;
    m_run = nullptr;
    if (m_failure) throw *m_failure;
    if (!thrown.empty()) {
      // A CUDA error the driver's torch calls tripped over is the kernel's doing.
      cudaError_t e = cudaDeviceSynchronize();
      if (e == cudaSuccess) e = cudaGetLastError();
      std::string first = thrown.substr(0, thrown.find('\n'));
      if (e != cudaSuccess) throw CudaFailure("driver.cpp stopped: " + first, false);
      throw DriverProblem("driver.cpp threw: " + first);
    }
    if (m_launches == 0) throw DriverProblem("driver.cpp never calls launch_gpu_implementation");
    if (!m_problem.empty()) throw DriverProblem(m_problem);
    // In an isolated process torch's reference was overwritten before the
    // call: the driver's verdict says nothing (the tool applies its allclose).
    if (run && !m_plan.isolate) {
      run->driver_verdict = runtime::driver_verdict_of(captured.str(), &run->driver_detail);
      if (run->driver_verdict == DriverVerdict::none && rc != 0)
        run->driver_detail = "main() returned " + std::to_string(rc) + "; " + run->driver_detail;
    }
  }

  void check_run(int k, std::uint64_t seed, std::uint8_t int_poison) {
    if (static_cast<int>(m_report.runs.size()) <= k) m_report.runs.resize(static_cast<std::size_t>(k) + 1);
    RunReport& run = m_report.runs[static_cast<std::size_t>(k)];
    run = RunReport{};
    run.index = k;
    run.seed = seed;
    m_int_poison = int_poison;
    invoke(Mode::check, seed, &run);
    if (run.outputs.empty()) throw DriverProblem("run " + std::to_string(k) + " dumped no output");
  }

  // Outputs run 0 left poisoned or non-finite where the unpoisoned discovery
  // call (same seed) had values: the original accumulates into, or reads,
  // what the driver put there. Those outputs are kept as the driver makes them.
  bool probe_initial_outputs() {
    bool found = false;
    for (const OutputDump& d : m_report.runs[0].outputs) {
      auto it = m_unpoisoned.find(d.name);
      if (it == m_unpoisoned.end()) continue;
      ElementType type;
      const BufferDecl* decl = nullptr;
      for (const BufferDecl& b : m_report.buffers)
        if (b.name == d.name) decl = &b;
      if (!decl || !dtype_from_name(decl->dtype, &type)) continue;
      std::string poisoned = read_file(m_rt.out_dir() + "/" + d.file);
      const std::size_t w = dtype_size(type);
      if (poisoned.size() != it->second.size()) continue;
      if (poisoned == it->second) continue;  // the same answer both ways (most originals): nothing lost
      std::int64_t lost = 0;
      for (std::size_t i = 0; i + w <= poisoned.size(); i += w) {
        const auto* a = reinterpret_cast<const unsigned char*>(it->second.data() + i);
        const auto* b = reinterpret_cast<const unsigned char*>(poisoned.data() + i);
        double before = element_value(type, a), now = element_value(type, b);
        bool left_poisoned = std::all_of(b, b + w, [&](unsigned char c) { return c == d.poison_byte; });
        if ((std::isfinite(before) && !std::isfinite(now)) || (left_poisoned && std::memcmp(a, b, w) != 0)) ++lost;
      }
      if (lost == 0) continue;
      m_keep.insert(d.name);
      m_report.kept_initial_outputs.push_back(d.name);
      m_report.notes.push_back("the original leaves " + std::to_string(lost) + " elements of '" + d.name +
                               "' unwritten or non-finite when they start poisoned: it needs them as driver.cpp "
                               "makes them, so they are not poisoned (unwritten elements go unseen there)");
      found = true;
    }
    return found;
  }

  static void replace_dump(std::vector<OutputDump>& dumps, const OutputDump& d) {
    for (OutputDump& x : dumps)
      if (x.name == d.name) {
        x = d;
        return;
      }
    dumps.push_back(d);
  }

  const DriverHooks& m_hooks;
  Plan m_plan;
  HarnessReport m_report;
  ProcessRuntime m_rt;  // after the plan and the report it holds

  std::vector<Arg> m_args;
  std::set<std::string> m_keep;                     // outputs handed over as the driver made them
  std::map<std::string, std::string> m_unpoisoned;  // discovery's outputs, for the probe
  std::map<std::string, std::pair<std::size_t, void*>> m_initial;  // kept outputs' initial content, for timing
  TimedLoop* m_loop = nullptr;                      // during timing
  std::set<const void*> m_seen;                     // pointers earlier calls got

  Mode m_mode = Mode::idle;
  std::uint64_t m_seed = 0;
  RunReport* m_run = nullptr;
  std::uint8_t m_int_poison = 0xFF;
  int m_launches = 0;
  bool m_timed = false;
  std::vector<const void*> m_last_pointers;
  std::string m_problem;
  std::unique_ptr<CudaFailure> m_failure;
};

Runtime* g_runtime = nullptr;

const char* kUsage =
    "usage: %s [--describe] [--plan FILE --out DIR]\n"
    "  A KernelBench-CUDA driver built by KernelBlaster. The kernelblaster tool\n"
    "  runs it with a plan; --describe prints the declaration as JSON.\n";

}  // namespace

int run_driver_process(int argc, char** argv, const DriverHooks& hooks) {
  ProcessArgs args;
  if (auto done = parse_process_args(argc, argv, kUsage, &args)) return *done;
  const std::string &plan_path = args.plan_path, &out_dir = args.out_dir;
  if (args.describe_only) {
    // Buffers are known only once the driver has run: the report of a plan says them.
    HarnessReport d;
    d.harness = kKernelBenchHarness;
    d.sizes = {{"default", {}, false}};
    std::printf("%s\n", report_to_json(d).c_str());
    return kExitOk;
  }
  if (plan_path.empty() || out_dir.empty()) {
    std::fprintf(stderr, kUsage, argv[0]);
    return kExitUsage;
  }
  std::optional<Plan> plan = read_plan(plan_path, "driver");
  if (!plan) return kExitUsage;
  if (auto no_gpu = require_gpu()) return *no_gpu;
  auto* runtime = new Runtime(hooks, std::move(*plan), out_dir);  // outlives main: a sticky CUDA error may hang teardown
  g_runtime = runtime;
  HarnessReport& report = runtime->report();
  const int code = run_judged_process(runtime->runtime(), "driver", [&] {
    timed_phase(report, "discovery", [&] { runtime->discover(); });
    timed_phase(report, "correctness", [&] { runtime->runs(); });
    runtime->runtime().write_correctness_report();
    timed_phase(report, "timing", [&] { runtime->timing(); });
    timed_phase(report, "profile", [&] { runtime->profile(); });
  });
  g_runtime = nullptr;
  // Also: after a sticky CUDA error, context teardown can hang or abort.
  end_after_report(code);
}

void on_launch(const LaunchArgs& args, const std::function<void()>& call) {
  if (!g_runtime) {
    call();
    return;
  }
  g_runtime->on_launch(args, call);
}

std::vector<const void*> last_launch_pointers() { return g_runtime ? g_runtime->last_pointers() : std::vector<const void*>{}; }

int launch_argument_at(const void* data, std::size_t bytes) {
  std::vector<const void*> ptrs = last_launch_pointers();
  const char* begin = static_cast<const char*>(data);
  for (std::size_t i = 0; i < ptrs.size(); ++i) {
    const char* p = static_cast<const char*>(ptrs[i]);
    if (p && p >= begin && p < begin + std::max<std::size_t>(bytes, 1)) return static_cast<int>(i);
  }
  return -1;
}

void on_compare(int argument, const TensorView& oracle, bool allclose, const AllcloseTolerance& tolerance,
                const std::string& text, const std::string& problem) {
  if (g_runtime) g_runtime->on_compare(argument, oracle, allclose, tolerance, text, problem);
}

std::uint64_t invocation_seed() { return g_runtime ? g_runtime->seed() : 0; }

bool oracle_wanted() { return g_runtime && g_runtime->dumps_oracles(); }

}  // namespace kernelblaster::kernelbench
