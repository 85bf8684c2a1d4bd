#include "runtime/process_runtime.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include "common/clock.h"
#include "common/file_util.h"
#include "runtime/cuda_check.h"
#include "runtime/device_info.h"
#include "runtime/process_main.h"
#include "runtime/process_state.h"

namespace kernelblaster {

ProcessRuntime::ProcessRuntime(const Plan& plan, HarnessReport& report, std::string out_dir)
    : m_plan(plan), m_report(report), m_out(std::move(out_dir)) {}

ProcessRuntime::~ProcessRuntime() {
  m_warmup.reset();  // joins its thread and releases CUPTI's profiler state first
  if (m_flush) cudaFree(m_flush);
}

void ProcessRuntime::lock() {
  m_report.error.phase = "setup";
  m_report.device = read_device_info(m_plan.device);
  if (!m_plan.lock_dir.empty()) {
    std::string why;
    if (!m_lock.acquire(m_plan.lock_dir, m_report.device.uuid, m_plan.lock_timeout_s, &why)) {
      m_report.error.kind = HarnessErrorKind::lock_timeout;
      throw std::runtime_error(why);
    }
  }
  write_file(m_out + "/" + kLockHeldMarker, "");
}

void ProcessRuntime::setup() {
  m_report.error.phase = "setup";
  cuda_check(cudaSetDevice(m_plan.device), "select device " + std::to_string(m_plan.device));
  // Traced always: checked calls are looked at for work left to other threads too.
  std::string why;
  if (!m_tracer.start(&why)) m_report.notes.push_back(why + "; timing uses CUDA events only");
  m_flush_bytes = static_cast<std::size_t>(2 * std::max<std::int64_t>(m_report.device.l2_bytes, 1 << 20));
  cuda_check(cudaMalloc(&m_flush, m_flush_bytes), "L2 flush buffer");
  // Written once, so every flush reads memory that holds data. (Once a
  // suspect in the extra DRAM writes our ranges counted; measured, it was
  // not: tool/src/profile/METRICS.md, "DRAM counts under the range profiler".)
  cuda_check(cudaMemset(m_flush, 0, m_flush_bytes), "L2 flush buffer");
  // Whatever L2 the driver sets aside for persisting accesses by default
  // (seen: 11.25 MiB on an H200) is taken back before any call: what a
  // call leaves set aside is then the call's doing (judge_state).
  take_back_persisting_l2();
  // The profiler's one-time set-up overlaps the checked and timed calls; it
  // does no GPU work, and nothing when the plan asks for no profile
  // (profiler_warmup.h).
  m_warmup = std::make_unique<ProfilerWarmup>(m_plan.profile, m_plan.device);
}

void ProcessRuntime::checked_call(int run, const std::function<void()>& call) {
  TimedWindow w;
  w.gated = m_tracer.active();
  if (w.gated) {
    if (!m_gate) m_gate = std::make_unique<StreamGate>();
    m_gate->hold(kGateTimeoutUs);
  }
  w.begin = m_tracer.active() ? m_tracer.now() : 0;
  call();
  w.returned = m_tracer.active() ? m_tracer.now() : 0;
  if (w.gated) m_gate->release();
  cuda_check(cudaGetLastError(), "kernel launch");
  cuda_check(cudaDeviceSynchronize(), "kernel execution");
  w.end = m_tracer.active() ? m_tracer.now() : 0;
  w.event_ns = 1e18;  // not event-bracketed: only the activity count and foreign work matter here
  m_persisting = std::max<std::uint64_t>(m_persisting, take_back_persisting_l2());
  m_windows.push_back(w);
  m_window_runs.push_back(run);
}

void ProcessRuntime::forget_last_checked_call() {
  if (m_windows.empty()) return;
  m_windows.pop_back();
  m_window_runs.pop_back();
}

void ProcessRuntime::attribute_checked_calls() {
  if (!m_tracer.active() || m_windows.empty()) return;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let deferred work surface
  cuda_check(cudaDeviceSynchronize(), "trailing work");
  Attribution attr = m_tracer.attribute(m_windows);
  if (attr.foreign + attr.unordered > 0 && m_report.foreign_activities == 0)
    m_report.foreign_detail = attr.foreign > 0 ? attr.first_foreign : attr.first_unordered;
  m_report.foreign_activities += attr.foreign + attr.unordered;
  for (std::size_t w = 0; w < m_windows.size() && w < attr.windows.size(); ++w) {
    const auto run = static_cast<std::size_t>(m_window_runs[w]);
    if (run < m_report.runs.size()) m_report.runs[run].activities = attr.windows[w].activities;
  }
  m_windows.clear();
  m_window_runs.clear();
}

void ProcessRuntime::profile(const ProfileHooks& hooks) {
  try {
    ProfilerWarmup none(ProfileRequest{}, m_plan.device);
    m_report.profile = run_profile_pass(m_plan.profile, m_plan.device, m_tracer, hooks, m_warmup ? *m_warmup : none);
  } catch (const std::exception& x) {
    // After the verdict's runs and timing: a failure here is a note.
    m_report.profile.requested = true;
    m_report.profile.note = std::string("profiling failed: ") + x.what();
  }
}

OutputDump ProcessRuntime::dump_output(int run, const std::string& name, const void* data, std::int64_t count,
                                       std::size_t width, std::uint8_t poison) {
  OutputDump dump;
  dump.name = name;
  dump.count = count;
  dump.poison_byte = poison;
  dump.file = "run" + std::to_string(run) + "_" + name + ".bin";
  // Into memory kept from the last dump: a 64 MB output (SGEMM_CUDA's C,
  // dumped 10 to 18 times an evaluation) cost a fresh zeroed string, its
  // page faults and a pageable copy each time.
  const std::size_t bytes = static_cast<std::size_t>(count) * width;
  char* host = m_staging.reserve(bytes);
  cuda_check(cudaMemcpy(host, data, bytes, cudaMemcpyDeviceToHost), "output read-back");
  write_file(m_out + "/" + dump.file, host, bytes);
  return dump;
}

ProcessRuntime::Staging::~Staging() {
  if (pinned) cudaFreeHost(data);
  else delete[] data;
}

char* ProcessRuntime::Staging::reserve(std::size_t n) {
  if (n <= bytes && data) return data;
  if (pinned) cudaFreeHost(data);
  else delete[] data;
  data = nullptr;
  bytes = 0;
  pinned = cudaMallocHost(&data, std::max<std::size_t>(n, 1)) == cudaSuccess;
  if (!pinned) {
    cudaGetLastError();  // the failed allocation is not the next call's error
    data = new char[std::max<std::size_t>(n, 1)];
  }
  bytes = n;
  return data;
}

void ProcessRuntime::flush_l2() { flush_l2_on_device(m_flush, m_flush_bytes); }

void ProcessRuntime::note_persisting_l2(std::uint64_t bytes) { m_persisting = std::max(m_persisting, bytes); }

void ProcessRuntime::write_correctness_report() const {
  try {
    write_file_atomic(m_out + "/" + kCorrectnessReportFile, report_to_json(m_report));
  } catch (const std::exception& x) {
    std::fprintf(stderr, "kernelblaster: no early report (%s); the judge waits for the whole run\n", x.what());
  }
}

int run_judged_process(ProcessRuntime& runtime, const char* who, const std::function<void()>& judged) {
  const auto t0 = std::chrono::steady_clock::now();
  HarnessReport& report = runtime.m_report;
  ProcessWatch watch;
  int code = run_phases(report, [&] {
    timed_phase(report, "lock wait", [&] { runtime.lock(); });
    timed_phase(report, "setup", [&] { runtime.setup(); });
    watch.arm();  // the runtime's own handlers (CUDA, CUPTI, a driver's libtorch) are in place
    judged();
  });
  report.persisting_l2_bytes = runtime.m_persisting;
  report.process_changes = watch.changes();
  report.wall_s = seconds_since(t0);
  try {
    write_file_atomic(runtime.m_out + "/report.json", report_to_json(report));
  } catch (const std::exception& x) {
    std::fprintf(stderr, "kernelblaster %s: %s\n", who, x.what());
    return kExitRunFailed;
  }
  if (code != kExitOk) std::fprintf(stderr, "kernelblaster %s: %s\n", who, report.error.message.c_str());
  return code;
}

}  // namespace kernelblaster
