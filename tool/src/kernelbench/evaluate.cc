#include "common/file_util.h"
#include "common/clock.h"
#include "kernelbench/evaluate.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <optional>
#include <sstream>

#include "judge/object_bound.h"
#include "kernelbench/build_step.h"
#include "kernelbench/driver_rewrite.h"
#include "kernelbench/problem.h"
#include "kernelbench/torch_locate.h"
#include "kernelbench/wrapper.h"

namespace kernelblaster::kernelbench {
namespace {

namespace fs = std::filesystem;

EvalResult failed(Status s, std::string detail) {
  EvalResult r;
  r.status = s;
  r.detail = std::move(detail);
  return r;
}

// Everything the two programs (reference and candidate) share.
struct Shared {
  TorchInstall torch;
  std::string cuda_lib_dir, cuda_include_dir;
  fs::path build;  // <work>/build
  std::string driver_obj;
};

// Kernel object + wrapper object + link, for one kernel source.
BuildOutcome build_variant(const KernelBenchRequest& req, const Toolchain& tc, const Problem& problem,
                           const KernelSource& kernel, const Shared& sh, const std::string& label) {
  BuildOutcome b;
  fs::path dir = sh.build / label;
  fs::path src = dir / "kernel.cu";
  fs::path wrapper = dir / "kb_wrapper.cu";
  write_if_changed(src.string(), "#line 1 \"" + kernel.path + "\"\n" + prepare_kernel_source(kernel.source, kLauncherName));
  write_if_changed(wrapper.string(), make_wrapper_source(problem.launcher, kernel.definition));

  std::vector<std::string> arch = gencode_flags(req.arch);
  BuildStep k;
  k.argv = {tc.nvcc, "-c", src.string(), "-o", (dir / "kernel.o").string(), "-std=c++17", "-O3", "-lineinfo",
            "-w", "-Xcompiler", "-fPIC", rename_flag(), "-I" + fs::path(kernel.path).parent_path().string()};
  k.argv.insert(k.argv.end(), arch.begin(), arch.end());
  k.argv.insert(k.argv.end(), req.extra_nvcc_flags.begin(), req.extra_nvcc_flags.end());
  k.output = (dir / "kernel.o").string();
  k.inputs = {src.string()};
  k.timeout_s = req.compile_timeout_s;

  BuildStep w;
  w.argv = {tc.nvcc, "-c", wrapper.string(), "-o", (dir / "kb_wrapper.o").string(), "-std=c++17", "-O2", "-w",
            "-Xcompiler", "-fPIC", "-I" + tc.include_dir};
  w.argv.insert(w.argv.end(), arch.begin(), arch.end());
  w.output = (dir / "kb_wrapper.o").string();
  w.inputs = {wrapper.string()};
  w.timeout_s = req.compile_timeout_s;

  BuildStep l;
  l.output = (dir / "driver.bin").string();
  l.argv = {req.cxx, "-o", l.output, sh.driver_obj, w.output, k.output, tc.harness_lib, "-L" + sh.torch.lib_dir,
            "-Wl,--no-as-needed", "-ltorch", "-ltorch_cpu", "-ltorch_cuda", "-lc10", "-lc10_cuda", "-Wl,--as-needed",
            "-L" + sh.cuda_lib_dir};
  // Some toolkits keep CUPTI apart from the runtime.
  fs::path cupti = fs::path(sh.cuda_lib_dir).parent_path() / "extras" / "CUPTI" / "lib64";
  if (fs::exists(cupti)) l.argv.push_back("-L" + cupti.string());
  for (const char* lib : {"-lcupti", "-lcudart", "-ldl", "-lpthread", "-lrt"}) l.argv.push_back(lib);
  l.argv.push_back("-Wl,-rpath," + sh.torch.lib_dir + ":" + sh.cuda_lib_dir +
                   (fs::exists(cupti) ? ":" + cupti.string() : ""));
  l.inputs = {sh.driver_obj, w.output, k.output, tc.harness_lib};
  l.timeout_s = req.compile_timeout_s;

  // The kernel and the wrapper compile side by side; the link needs both.
  auto wrapper_step = std::async(std::launch::async, [&w] { return run_build_step(w); });
  StepOutcome ko = run_build_step(k);
  StepOutcome wo = wrapper_step.get();
  b.seconds += std::max(ko.seconds, wo.seconds);
  if (!ko.ok || !wo.ok) {
    b.first_error = !ko.ok ? ko.error : wo.error;
    return b;
  }
  StepOutcome lo = run_build_step(l);
  b.seconds += lo.seconds;
  if (!lo.ok) {
    b.first_error = lo.error;
    return b;
  }
  b.ok = true;
  b.binary = l.output;
  return b;
}

// A built candidate held to judge/object_bound.h: its kernel object against
// init.cu's, no definition of what libtorch exports either.
BuildOutcome bound_candidate(BuildOutcome built, const Shared& sh) {
  std::vector<std::string> torch_libs;
  for (const char* lib : {"libtorch.so", "libtorch_cpu.so", "libtorch_cuda.so", "libc10.so", "libc10_cuda.so"})
    torch_libs.push_back((fs::path(sh.torch.lib_dir) / lib).string());
  const Verdict v = bound_objects((sh.build / "reference" / "kernel.o").string(),
                                  (sh.build / "candidate" / "kernel.o").string(),
                                  library_exports(sh.cuda_lib_dir, torch_libs));
  if (v.verified()) return built;
  built.ok = false;
  built.failure = v.status;
  built.first_error = v.detail;
  return built;
}

// The rewritten driver, compiled once per problem (libtorch's headers make
// it the slow step: tens of seconds).
bool build_driver(const KernelBenchRequest& req, const Toolchain& tc, const Problem& problem, Shared* sh,
                  std::string* why, double* seconds) {
  fs::path ddir = sh->build / "driver";
  std::string rewritten;
  try {
    rewritten = rewrite_driver(problem.driver_source, problem.launcher);
  } catch (const std::exception& x) {
    *why = x.what();
    return false;
  }
  write_if_changed((ddir / kCudaModelHeaderName).string(), make_cuda_model_header(problem.launcher));
  write_if_changed((ddir / "main.cpp").string(), rewritten);
  BuildStep d;
  sh->driver_obj = (ddir / "main.o").string();
  fs::path runtime_header = fs::path(tc.include_dir) / kDriverRuntimeHeader;
  fs::path runtime_api = fs::path(tc.include_dir) / "kernelblaster" / "kernelbench_runtime.h";
  d.argv = {req.cxx, "-c", (ddir / "main.cpp").string(), "-o", sh->driver_obj, "-std=c++17", "-O1", "-w", "-fPIC",
            "-D_GLIBCXX_USE_CXX11_ABI=" + std::to_string(sh->torch.cxx11_abi), "-I" + ddir.string(),
            "-I" + problem.dir, "-I" + tc.include_dir, "-isystem", sh->torch.include_dir, "-isystem",
            sh->torch.api_include_dir, "-isystem", sh->cuda_include_dir};
  d.output = sh->driver_obj;
  d.inputs = {(ddir / "main.cpp").string(), (ddir / kCudaModelHeaderName).string(), runtime_header.string(),
              runtime_api.string()};
  d.timeout_s = req.compile_timeout_s;
  StepOutcome o = run_build_step(d);
  *seconds += o.seconds;
  if (!o.ok) {
    *why = "driver.cpp: " + o.error;
    return false;
  }
  return true;
}

}  // namespace

namespace {

// What an evaluation reads before it builds anything.
struct Inputs {
  Problem problem;
  KernelSource reference, candidate;
  bool self = false;  // the candidate is the original (init.cu)
};

// The problem, the runtime's files, the original's and the candidate's
// sources; the failed result when one cannot be had.
std::optional<EvalResult> load_inputs(const KernelBenchRequest& req, const Toolchain& tc, Inputs* in) {
  std::string why;
  if (!load_problem(req.problem_dir, &in->problem, &why)) return failed(Status::harness_error, why);
  if (tc.harness_lib.empty() || !fs::exists(tc.harness_lib))
    return failed(Status::harness_error, "harness runtime library not found: '" + tc.harness_lib + "'");
  if (!fs::exists(fs::path(tc.include_dir) / kDriverRuntimeHeader))
    return failed(Status::harness_error, "KernelBench driver runtime header not found under '" + tc.include_dir + "'");
  if (!load_kernel_source(in->problem, in->problem.init_path, &in->reference, &why))
    return failed(Status::reference_failed, why);
  std::error_code ec;
  in->self = req.candidate_path.empty() || fs::equivalent(req.candidate_path, in->problem.init_path, ec);
  if (in->self) in->candidate = in->reference;
  else if (!load_kernel_source(in->problem, req.candidate_path, &in->candidate, &why))
    return failed(Status::compile_failed, why);
  return std::nullopt;
}

// What the evaluator is asked: the original's program built, the
// candidate's building (`candidate`) and, for an untrusted one, its kernel
// object held to the bound here, on the objects the driver links (both
// compiled alike), not by the evaluator.
EvalRequest run_request(const KernelBenchRequest& req, const Inputs& in, const std::string& reference_binary,
                        const Shared& sh, std::future<BuildOutcome>& candidate) {
  EvalRequest run = req.run;
  run.reference_binary = reference_binary;
  run.candidate_binary = in.self ? reference_binary : "";
  const bool bounded = run.untrusted && !in.self;
  run.untrusted = false;
  if (!in.self)
    run.build_candidate = [&candidate, &sh, bounded] {
      BuildOutcome b = candidate.get();
      return bounded && b.ok ? bound_candidate(b, sh) : b;
    };
  run.source = in.problem.init_path;
  run.candidate = in.self ? "" : req.candidate_path;
  run.harness.clear();
  // A profile asked for (eval --profile, the optimize loop's original) rides
  // in the candidate's driver process after its timing (driver_process.cc).
  run.work_dir = (fs::absolute(req.work_dir) / "runs").string();
  return run;
}

}  // namespace

EvalResult evaluate_kernelbench(const KernelBenchRequest& req, const Toolchain& tc, GpuProbe& probe) {
  const auto t_start = std::chrono::steady_clock::now();
  Inputs inputs;
  if (std::optional<EvalResult> missing = load_inputs(req, tc, &inputs)) return *missing;
  const Problem& problem = inputs.problem;
  const KernelSource& reference = inputs.reference;
  const KernelSource& candidate = inputs.candidate;
  const bool self = inputs.self;
  std::string why;

  std::vector<std::pair<std::string, double>> before;  // phases before the evaluator's own
  auto t_phase = t_start;
  auto phase = [&](const char* name) {
    before.emplace_back(name, seconds_since(t_phase));
    t_phase = std::chrono::steady_clock::now();
  };
  phase("problem");
  Shared sh;
  if (!locate_torch(req.torch_prefix, 60, &sh.torch, &why, (fs::absolute(req.work_dir) / "build" / "torch.txt").string()))
    return failed(Status::harness_error, "libtorch not found: " + why);
  sh.build = fs::absolute(req.work_dir) / "build";
  sh.cuda_lib_dir = tc.cuda_lib_dir;
  sh.cuda_include_dir = (fs::path(tc.nvcc).parent_path().parent_path() / "include").string();

  phase("libtorch");
  double prepare_seconds = 0, compile_seconds = 0;
  if (!build_driver(req, tc, problem, &sh, &why, &prepare_seconds)) {
    EvalResult r = failed(Status::harness_error, why);
    r.prepare_seconds = prepare_seconds;
    return r;
  }
  // The candidate builds while the original's program is made (usually
  // already built: it is the same for every candidate) and while the
  // original's process runs (EvalRequest::build_candidate).
  std::future<BuildOutcome> cand_future;
  if (!self)
    cand_future = std::async(std::launch::async,
                             [&] { return build_variant(req, tc, problem, candidate, sh, "candidate"); });
  phase("driver");
  BuildOutcome ref = build_variant(req, tc, problem, reference, sh, "reference");
  compile_seconds += ref.seconds;
  phase("original's program");
  if (!ref.ok) {
    if (cand_future.valid()) cand_future.wait();
    EvalResult r =
        failed(Status::reference_failed, "the original (init.cu with driver.cpp) does not build: " + ref.first_error);
    r.compile_seconds = compile_seconds;
    r.prepare_seconds = prepare_seconds;
    r.wall_seconds = seconds_since(t_start);
    return r;
  }

  EvalRequest run = run_request(req, inputs, ref.binary, sh, cand_future);
  EvalResult result;
  try {
    result = Evaluator(tc, probe).evaluate(run);
  } catch (const std::exception& x) {
    result = failed(Status::harness_error, x.what());
  }
  if (cand_future.valid()) cand_future.wait();  // an evaluation that stopped early leaves no build running
  // The evaluator counted the candidate's build (overlapped); the original's came first.
  result.compile_seconds = std::max(result.compile_seconds, compile_seconds);
  result.prepare_seconds = prepare_seconds;
  result.wall_seconds = seconds_since(t_start);
  result.phase_seconds.insert(result.phase_seconds.begin(), before.begin(), before.end());
  return result;
}

}  // namespace kernelblaster::kernelbench
