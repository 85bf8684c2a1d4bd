#include "runtime/session.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <thread>

#include "common/clock.h"
#include "common/file_util.h"
#include "runtime/cuda_check.h"
#include "runtime/device_ops.h"
#include "runtime/process_runtime.h"
#include "runtime/profile_pass.h"
#include "runtime/sm_clock.h"
#include "runtime/timed_runs.h"

namespace kernelblaster {
namespace {

void check(cudaError_t e, const std::string& what) { cuda_check(e, what); }

// Bytes the runtime keeps on both sides of every buffer, filled with
// kGuardByte: a call that writes outside the buffers it was given changes
// them (RunReport::outside_writes), where without them it would write into
// another buffer or nothing anyone reads. A quarter of the buffer, at least
// 4 KiB and at most 4 MiB, in whole 256-byte units so a buffer keeps
// cudaMalloc's alignment.
constexpr std::uint8_t kGuardByte = 0xA7;
std::size_t guard_bytes(std::size_t bytes) {
  const std::size_t g = std::clamp<std::size_t>(bytes / 4, 4096, std::size_t{4} << 20);
  return (g + 255) / 256 * 256;
}

// Device memory of one problem size.
struct BufferSet {
  std::vector<void*> ptrs;      // what a call gets
  std::vector<void*> bases;     // what was allocated: a guard, the buffer, a guard
  std::vector<std::size_t> guards;
  std::vector<std::int64_t> counts;
};

class SessionCall final : public Call {
 public:
  SessionCall(const Harness::Spec& spec, const SizeSpec& size, const BufferSet& set)
      : m_spec(spec), m_size(size), m_set(set) {}
  std::int64_t dim(const std::string& name) const override {
    auto it = m_size.dims.find(name);
    if (it == m_size.dims.end()) throw std::invalid_argument("launch asks for unknown dimension '" + name + "'");
    return it->second;
  }
  std::int64_t count(const std::string& buffer) const override { return m_set.counts[index(buffer)]; }
  const std::string& size_label() const override { return m_size.label; }

 protected:
  void* pointer(const std::string& name, std::size_t element_size, bool writable) const override {
    std::size_t i = index(name);
    const BufferSpec& b = m_spec.buffers[i];
    if (element_size != dtype_size(b.dtype))
      throw std::invalid_argument("buffer '" + name + "' is " + dtype_name(b.dtype) + " but was asked for with " +
                                  std::to_string(element_size) + "-byte elements");
    if (writable && b.role == BufferRole::input)
      throw std::invalid_argument("buffer '" + name + "' is an input: use in<T>(), not out<T>()");
    return m_set.ptrs[i];
  }

 private:
  std::size_t index(const std::string& name) const {
    for (std::size_t i = 0; i < m_spec.buffers.size(); ++i)
      if (m_spec.buffers[i].name == name) return i;
    throw std::invalid_argument("launch asks for undeclared buffer '" + name + "'");
  }
  const Harness::Spec& m_spec;
  const SizeSpec& m_size;
  const BufferSet& m_set;
};

class Session {
 public:
  Session(const Harness::Spec& spec, const Plan& plan, std::string out_dir, HarnessReport& report)
      : m_spec(spec), m_plan(plan), m_report(report), m_rt(plan, report, std::move(out_dir)) {
    m_sets.resize(m_spec.sizes.size());
  }
  ~Session() {
    for (BufferSet& s : m_sets)
      for (void* p : s.bases) cudaFree(p);
  }

  ProcessRuntime& runtime() { return m_rt; }

  void correctness() {
    m_report.error.phase = "correctness";
    for (std::size_t k = 0; k < m_plan.runs.size(); ++k) {
      m_report.error.run = static_cast<int>(k);
      const RunRequest& req = m_plan.runs[k];
      if (req.size < 0 || req.size >= static_cast<int>(m_spec.sizes.size()))
        throw std::invalid_argument("plan run " + std::to_string(k) + " names size " + std::to_string(req.size));
      BufferSet& set = buffers(req.size);
      std::uint8_t int_poison = (k % 2 == 0) ? 0xFF : 0x5A;
      prepare(set, req.seed, /*regenerate_inputs=*/true, int_poison, /*flush=*/false);
      check(cudaDeviceSynchronize(), "input preparation");
      std::vector<std::uint64_t> before = input_checksums(set);
      bool repeated = m_called_sizes.count(req.size) > 0;
      m_called_sizes.insert(req.size);
      SessionCall call(m_spec, m_spec.sizes[req.size], set);
      m_rt.checked_call(static_cast<int>(k), [&] { m_spec.launch(call); });
      RunReport run;
      run.index = static_cast<int>(k);
      run.size = req.size;
      run.seed = req.seed;
      run.repeated_pointers = repeated;
      std::vector<std::uint64_t> after = input_checksums(set);
      for (std::size_t i = 0, j = 0; i < m_spec.buffers.size(); ++i) {
        if (m_spec.buffers[i].role != BufferRole::input) continue;
        run.input_checksums[m_spec.buffers[i].name] = before[j];
        if (before[j] != after[j]) run.inputs_modified.push_back(m_spec.buffers[i].name);
        ++j;
      }
      run.outside_writes = outside_writes(set);
      dump_outputs(set, int_poison, run);
      m_report.runs.push_back(std::move(run));
    }
    m_report.error.run = -1;
    m_rt.attribute_checked_calls();
  }

  void timing() {
    if (!m_plan.timing.enabled) return;
    m_report.error.phase = "timing";
    std::vector<int> sizes = m_plan.timing.sizes;
    if (sizes.empty())
      for (std::size_t i = 0; i < m_spec.sizes.size(); ++i)
        if (!m_spec.sizes[i].validation_only) sizes.push_back(static_cast<int>(i));
    for (int s : sizes) {
      if (s < 0 || s >= static_cast<int>(m_spec.sizes.size()))
        throw std::invalid_argument("plan times size " + std::to_string(s));
      m_report.timings.push_back(time_size(s));
    }
  }

  // One more call of the launcher, profiled; last, so nothing above sees
  // the profiler, and a failure here is a note, never the run's error.
  void profile() {
    const ProfileRequest& req = m_plan.profile;
    if (req.size < 0) return;
    m_report.error.phase = "profile";
    if (req.size >= static_cast<int>(m_spec.sizes.size()))
      throw std::invalid_argument("plan profiles size " + std::to_string(req.size));
    BufferSet& set = buffers(req.size);
    SessionCall call(m_spec, m_spec.sizes[req.size], set);
    ProfileHooks hooks;
    hooks.prepare = [&] {
      prepare(set, req.seed, true, 0xFF, true);
      check(cudaDeviceSynchronize(), "prepare");
    };
    hooks.call = [&] {
      SessionCall c = call;
      m_spec.launch(c);
      check(cudaGetLastError(), "kernel launch");
      check(cudaDeviceSynchronize(), "kernel execution");
    };
    m_rt.profile(hooks);
    const Dims& dims = m_spec.sizes[req.size].dims;
    if (m_spec.flops) m_report.profile.flops = m_spec.flops(dims);
    if (m_spec.bytes) m_report.profile.bytes = m_spec.bytes(dims);
  }

 private:
  BufferSet& buffers(int size) {
    BufferSet& set = m_sets[size];
    if (!set.ptrs.empty()) return set;
    for (const BufferSpec& b : m_spec.buffers) {
      std::int64_t n = element_count(b, m_spec.sizes[size]);
      const std::size_t bytes = static_cast<std::size_t>(n) * dtype_size(b.dtype), guard = guard_bytes(bytes);
      void* base = nullptr;
      check(cudaMalloc(&base, bytes + 2 * guard), "allocate '" + b.name + "' (" + std::to_string(n) + " elements)");
      check(cudaMemset(base, kGuardByte, bytes + 2 * guard), "guard bytes of '" + b.name + "'");
      set.bases.push_back(base);
      set.guards.push_back(guard);
      set.ptrs.push_back(static_cast<char*>(base) + guard);
      set.counts.push_back(n);
    }
    return set;
  }

  // Inputs from `seed`, outputs and workspaces poisoned, optionally the L2
  // flushed: everything a run needs, all outside any timed window.
  void prepare(BufferSet& set, std::uint64_t seed, bool regenerate_inputs, std::uint8_t int_poison, bool flush) {
    for (std::size_t i = 0; i < m_spec.buffers.size(); ++i) {
      const BufferSpec& b = m_spec.buffers[i];
      std::size_t bytes = static_cast<std::size_t>(set.counts[i]) * dtype_size(b.dtype);
      if (b.role == BufferRole::inout || (b.role == BufferRole::input && regenerate_inputs))
        generate_on_device(set.ptrs[i], b.dtype, set.counts[i], b.dist, seed, stream_id_of(b.name.c_str()));
      else if (b.role == BufferRole::output || b.role == BufferRole::workspace)
        check(cudaMemsetAsync(set.ptrs[i], dtype_is_float(b.dtype) ? 0xFF : int_poison, bytes, cudaStreamLegacy),
              "poison '" + b.name + "'");
    }
    if (flush) m_rt.flush_l2();
  }

  // The compared buffers of `run` read back and written beside the report.
  void dump_outputs(const BufferSet& set, std::uint8_t int_poison, RunReport& run) {
    for (std::size_t i = 0; i < m_spec.buffers.size(); ++i) {
      const BufferSpec& b = m_spec.buffers[i];
      if (!b.compared()) continue;
      const std::uint8_t poison = dtype_is_float(b.dtype) ? 0xFF : int_poison;
      OutputDump dump = m_rt.dump_output(run.index, b.name, set.ptrs[i], set.counts[i], dtype_size(b.dtype), poison);
      run.outputs.push_back(dump);
    }
  }

  // The buffers whose guard bytes the call changed, each with the side; their
  // guards are filled again for the next run.
  std::vector<std::string> outside_writes(const BufferSet& set) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < m_spec.buffers.size(); ++i) {
      const std::size_t g = set.guards[i], bytes = static_cast<std::size_t>(set.counts[i]) * dtype_size(m_spec.buffers[i].dtype);
      char* before = static_cast<char*>(set.bases[i]);
      char* after = before + g + bytes;
      const auto g64 = static_cast<std::int64_t>(g);
      const bool low = count_poisoned_on_device(before, g64, 1, kGuardByte) != g64;
      const bool high = count_poisoned_on_device(after, g64, 1, kGuardByte) != g64;
      if (!low && !high) continue;
      out.push_back(m_spec.buffers[i].name + (low && high ? " (before its start and after its end)"
                                              : low       ? " (before its start)"
                                                          : " (after its end)"));
      check(cudaMemset(before, kGuardByte, g), "guard bytes");
      check(cudaMemset(after, kGuardByte, g), "guard bytes");
    }
    return out;
  }

  std::vector<std::uint64_t> input_checksums(const BufferSet& set) {
    std::vector<std::uint64_t> sums;
    for (std::size_t i = 0; i < m_spec.buffers.size(); ++i)
      if (m_spec.buffers[i].role == BufferRole::input)
        sums.push_back(checksum_on_device(set.ptrs[i], static_cast<std::size_t>(set.counts[i]) *
                                                           dtype_size(m_spec.buffers[i].dtype)));
    return sums;
  }

  std::int64_t unwritten_outputs(const BufferSet& set) {
    std::int64_t left = 0;
    for (std::size_t i = 0; i < m_spec.buffers.size(); ++i) {
      const BufferSpec& b = m_spec.buffers[i];
      if (b.role != BufferRole::output) continue;
      left += count_poisoned_on_device(set.ptrs[i], set.counts[i], dtype_size(b.dtype), 0xFF);
    }
    return left;
  }

  TimingReport time_size(int size) {
    const TimingRequest& tr = m_plan.timing;
    BufferSet& set = buffers(size);
    SessionCall call(m_spec, m_spec.sizes[size], set);
    const std::uint64_t size_key = static_cast<std::uint64_t>(size) * 1000003u;
    const std::uint64_t seed = tr.seed + size_key;
    double clock_mhz = 0;
    TimedRunHooks hooks;
    hooks.prepare = [&](const TimedStep& step) {
      switch (step.phase) {
        case TimedPhase::warmup: prepare(set, seed + 0x5000 + step.index, true, 0xFF, tr.flush_l2); break;
        case TimedPhase::fresh:
          prepare(set, step.check >= 0 ? tr.checks[step.check].seed + size_key : seed + step.index, true, 0xFF,
                  tr.flush_l2);
          break;
        // The inputs of the fresh run before, unchanged: a result cache keyed
        // by their fingerprint answers at once.
        case TimedPhase::repeat: prepare(set, 0, false, 0xFF, tr.flush_l2); break;
      }
    };
    hooks.call = [&] {
      SessionCall c = call;
      m_spec.launch(c);
    };
    hooks.unwritten = [&] { return unwritten_outputs(set); };
    hooks.observe = [&](int i, int n) {
      if (i == n / 2) clock_mhz = read_sm_clock_mhz(m_report.device.uuid);
    };
    // A checked timed call's outputs, judged like a correctness run's.
    hooks.checked = [&](const TimedStep& step) {
      RunReport run;
      run.index = static_cast<int>(m_report.runs.size());
      run.size = size;
      run.seed = tr.checks[step.check].seed + size_key;
      run.timed_call = step.index;
      dump_outputs(set, 0xFF, run);
      m_report.runs.push_back(std::move(run));
    };
    TimedLoop loop(m_rt.tracer(), tr, tr.repeat_probe_runs, calls_per_run(tr, size));
    while (!loop.done()) loop.run(hooks);
    TimingReport out = loop.finish();
    m_rt.note_persisting_l2(loop.persisting_l2_bytes());
    out.size = size;
    out.sm_clock_mhz = clock_mhz;
    return out;
  }

 private:
  const Harness::Spec& m_spec;
  const Plan& m_plan;
  HarnessReport& m_report;
  ProcessRuntime m_rt;
  std::vector<BufferSet> m_sets;
  std::set<int> m_called_sizes;  // sizes whose buffers a correctness run already handed over
};

}  // namespace

HarnessReport describe(const Harness::Spec& spec) {
  HarnessReport r;
  r.harness = spec.name;
  for (const SizeSpec& s : spec.sizes) r.sizes.push_back({s.label, s.dims, s.validation_only, spec.flops ? spec.flops(s.dims) : -1});
  for (const BufferSpec& b : spec.buffers) {
    BufferDecl d;
    d.name = b.name;
    d.dtype = dtype_name(b.dtype);
    d.role = role_name(b.role);
    Tolerance t = resolve_tolerance(b.dtype, b.tol);
    d.tolerance = {t.rel_l2, t.atol, t.rtol};
    for (const SizeSpec& s : spec.sizes) d.elements_per_size[s.label] = element_count(b, s);
    r.buffers.push_back(std::move(d));
  }
  return r;
}

int run_plan(const Harness::Spec& spec, const Plan& plan, const std::string& out_dir) {
  HarnessReport report = describe(spec);
  if (auto no_gpu = require_gpu()) return *no_gpu;
  Session session(spec, plan, out_dir, report);
  return run_judged_process(session.runtime(), "harness", [&] {
    timed_phase(report, "correctness", [&] { session.correctness(); });
    session.runtime().write_correctness_report();
    timed_phase(report, "timing", [&] { session.timing(); });
    timed_phase(report, "profile", [&] { session.profile(); });
  });
}

}  // namespace kernelblaster
