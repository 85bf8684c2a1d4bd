#include "runtime/process_main.h"

#include <cstdlib>
#include <chrono>

#include <cuda_runtime.h>

#include <cstdio>

#include "common/file_util.h"
#include "runtime/cuda_check.h"

namespace kernelblaster {

std::optional<int> parse_process_args(int argc, char** argv, const char* usage, ProcessArgs* out) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--plan" && i + 1 < argc) out->plan_path = argv[++i];
    else if (a == "--out" && i + 1 < argc) out->out_dir = argv[++i];
    else if (a == "--describe") out->describe_only = true;
    else {
      std::fprintf(stderr, usage, argv[0]);
      return a == "--help" || a == "-h" ? kExitOk : kExitUsage;
    }
  }
  return std::nullopt;
}

std::optional<Plan> read_plan(const std::string& path, const char* who) {
  try {
    return plan_from_json(read_file(path));
  } catch (const std::exception& x) {
    std::fprintf(stderr, "kernelblaster %s: %s\n", who, x.what());
    return std::nullopt;
  }
}

std::optional<int> require_gpu() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaSuccess && count > 0) return std::nullopt;
  std::fprintf(stderr, "no CUDA GPU: %s\n", e != cudaSuccess ? cudaGetErrorString(e) : "no device found");
  return kExitNoGpu;
}

void timed_phase(HarnessReport& report, const char* name, const std::function<void()>& body) {
  const auto t0 = std::chrono::steady_clock::now();
  auto record = [&] {
    report.phase_s.emplace_back(name, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  };
  try {
    body();
  } catch (...) {
    record();
    throw;
  }
  record();
}

void end_after_report(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}

int run_phases(HarnessReport& report, const std::function<void()>& phases) {
  try {
    phases();
    report.error = {};
    return kExitOk;
  } catch (const CudaFailure& f) {
    report.error.kind = f.launch ? HarnessErrorKind::launch_error : HarnessErrorKind::cuda_error;
    report.error.message = f.what();
  } catch (const std::exception& x) {
    if (report.error.kind == HarnessErrorKind::none) report.error.kind = HarnessErrorKind::harness_error;
    report.error.message = x.what();
  }
  return kExitRunFailed;
}

}  // namespace kernelblaster
