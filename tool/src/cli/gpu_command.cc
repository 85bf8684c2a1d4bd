// kernelblaster gpu info | ceilings | resource-spec: what the GPU is, whether
// it gives hardware counters, its roofline ceilings (measured once, cached
// per GPU fingerprint), and CTest's resource spec of this machine's GPUs.
// The GPU work runs in kernelblaster-gpu, next to the tool.
#include <cstdio>
#include <ctime>
#include <string>

#include <nlohmann/json.hpp>

#include "build_step/gpu_fingerprint.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "common/file_util.h"
#include "judge/gpu_probe.h"
#include "profile/ceilings_cache.h"
#include "profile/gpu_helper.h"

namespace kernelblaster {
namespace {

const char* kHelp = R"(usage: kernelblaster gpu info [--device N] [--json]
       kernelblaster gpu ceilings [--device N] [--refresh] [--cache-dir DIR] [--json]
       kernelblaster gpu resource-spec [--slots N] [--out FILE]

info       the GPU's name, compute capability, SMs, memory, driver, whether
           the profiler may read hardware counters here (and why not), and
           its id: what the results cache, the lockfile and remote storage
           file its results under, and what TARGET_GPU takes
ceilings   the roofline ceilings of the GPU: device-to-device copy bandwidth,
           FP32, FP16 (half2) and tensor-core (mma f16->f32) throughput.
           Measured once per GPU fingerprint (name, compute capability, SMs,
           driver major) and cached as JSON under the cache directory
           (KERNELBLASTER_CACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/kernelblaster);
           --refresh measures again.
resource-spec  CTest's resource spec file for this machine's GPUs (each a
           "gpus" resource, its id the CUDA device index, N slots, default 1),
           to stdout or FILE: with KERNELBLASTER_CTEST_GPUS ON, `ctest
           --resource-spec-file FILE -j N` runs one gate per GPU at once

Exit status: 0 ok, 2 bad usage or failure, 77 no GPU on this machine.
)";

// The GPU's one id (build_step/gpu_fingerprint.h): what the results cache,
// the lockfile and remote storage file its results under, and TARGET_GPU takes.
std::string results_id(const profile::GpuFacts& f) {
  build_step::GpuFingerprint g;
  g.name = f.fingerprint.name;
  g.cc_major = f.fingerprint.cc_major;
  g.cc_minor = f.fingerprint.cc_minor;
  g.sm_count = f.fingerprint.sm_count;
  g.driver_major = f.cuda_driver_version / 1000;
  return g.id();
}

void print_info(const profile::GpuFacts& f) {
  std::printf("%s (sm_%d%d, %d SMs, %.1f GiB, L2 %.0f MiB)\n", f.fingerprint.name.c_str(), f.fingerprint.cc_major,
              f.fingerprint.cc_minor, f.fingerprint.sm_count, f.memory_bytes / 1073741824.0, f.l2_bytes / 1048576.0);
  std::printf("driver %s (CUDA %d.%d), max SM clock %.0f MHz, memory %.0f MHz x %d bit\n",
              f.driver_version.empty() ? "?" : f.driver_version.c_str(), f.cuda_driver_version / 1000,
              (f.cuda_driver_version % 1000) / 10, f.sm_clock_max_mhz, f.memory_clock_mhz, f.memory_bus_bits);
  if (f.counters_supported) std::printf("hardware counters: available (chip %s)\n", f.chip.c_str());
  else std::printf("hardware counters: unavailable (%s)\n", f.counters_reason.c_str());
  std::printf("id: %s (its results in the cache, the lockfile and remote storage; TARGET_GPU takes it)\n",
              results_id(f).c_str());
}

void print_ceilings(const profile::CachedCeilings& c, bool cached, const std::string& path) {
  std::printf("%s: %s\n", c.gpu.name.c_str(), cached ? "cached" : "measured now");
  std::printf("  copy bandwidth %10.1f GB/s  (cudaMemcpy %.1f, copy kernel %.1f)\n", c.ceilings.dram_gbs,
              c.copy_memcpy_gbs, c.copy_kernel_gbs);
  std::printf("  FP32           %10.1f GFLOP/s\n", c.ceilings.fp32_gflops);
  std::printf("  FP16 (half2)   %10.1f GFLOP/s\n", c.ceilings.fp16_gflops);
  std::printf("  tensor (mma)   %10.1f GFLOP/s\n", c.ceilings.tensor_gflops);
  std::printf("  measured %s; %s\n", c.measured_at.c_str(), path.c_str());
}

// What the command line asks for.
struct GpuCall {
  std::string mode, cache_dir, out;
  int slots = 1;
  bool json = false, refresh = false;
  int device = 0;
};

GpuCall parse_call(const CommandArgs& argv) {
  GpuCall c;
  if (argv.empty() || (argv[0] != "info" && argv[0] != "ceilings" && argv[0] != "resource-spec"))
    throw subcommand_error(argv, {"info", "ceilings", "resource-spec"});
  c.mode = argv[0];
  Args args(CommandArgs(argv.begin() + 1, argv.end()), {"--device", "--cache-dir", "--slots", "--out"},
            {"--json", "--refresh"});
  if (c.mode != "resource-spec" && (!args.value("--slots").empty() || !args.value("--out").empty()))
    throw UsageError("--slots and --out belong to 'gpu resource-spec'");
  const double slots = args.number("--slots", 1);
  if (slots < 1 || slots != static_cast<int>(slots)) throw UsageError("--slots must be a whole number of at least 1");
  c.slots = static_cast<int>(slots);
  c.out = args.value("--out");
  c.json = args.flag("--json");
  c.refresh = args.flag("--refresh");
  if (c.mode == "info" && (c.refresh || !args.value("--cache-dir").empty()))
    throw UsageError("--refresh and --cache-dir belong to 'gpu ceilings'");
  double d = args.number("--device", 0);
  if (d < 0 || d != static_cast<int>(d)) throw UsageError("--device must be a GPU index");
  c.device = static_cast<int>(d);
  c.cache_dir = args.value("--cache-dir", profile::default_cache_dir());
  return c;
}

// This GPU's ceilings: cached, or measured by the helper and cached.
int ceilings(const GpuCall& c, const std::string& helper) {
  const profile::CeilingsLookup found = profile::ceilings_for(helper, c.device, c.cache_dir, c.refresh);
  for (const std::string& note : found.notes) std::fprintf(stderr, "kernelblaster gpu: %s\n", note.c_str());
  if (!found.entry) {
    std::fprintf(stderr, "kernelblaster gpu: %s%s\n", found.exit_code == 77 ? "skipped: " : "", found.why_not.c_str());
    return found.exit_code;
  }
  if (c.json) std::printf("%s\n", profile::ceilings_report_json(*found.entry, found.cached, found.path).c_str());
  else print_ceilings(*found.entry, found.cached, found.path);
  return 0;
}

// CTest's resource spec of this machine's GPUs (the CUDA devices it sees).
int resource_spec(const GpuCall& c) {
  CudaGpuProbe probe;
  std::string gpus;
  for (int d = 0; d < 1024; ++d) {
    const GpuInfo gpu = probe.probe(d);
    if (!gpu.present) {
      if (d > 0) break;
      std::fprintf(stderr, "kernelblaster gpu: skipped: %s\n", gpu.reason.c_str());
      return 77;
    }
    gpus += std::string(d ? ",\n" : "") + "        {\"id\": \"" + std::to_string(d) + "\", \"slots\": " +
            std::to_string(c.slots) + "}";
  }
  const std::string spec = "{\n  \"version\": {\"major\": 1, \"minor\": 0},\n  \"local\": [\n    {\n      \"gpus\": [\n" +
                           gpus + "\n      ]\n    }\n  ]\n}\n";
  if (c.out.empty()) std::fputs(spec.c_str(), stdout);
  else write_file_atomic(c.out, spec);
  return 0;
}

int run_gpu(const GpuCall& c, const std::string& self_exe) {
  if (c.mode == "resource-spec") return resource_spec(c);
  std::string helper = profile::find_gpu_helper(self_exe);
  if (c.mode == "ceilings") return ceilings(c, helper);
  profile::HelperOutcome info = profile::run_gpu_helper(helper, "info", c.device, 60);
  if (info.exit_code != 0) {
    std::fprintf(stderr, "kernelblaster gpu: %s%s\n", info.exit_code == 77 ? "skipped: " : "", info.message.c_str());
    return info.exit_code == 77 ? 77 : 2;
  }
  if (c.json) {
    nlohmann::json j = nlohmann::json::parse(profile::gpu_facts_to_json(info.facts, false));
    j["id"] = results_id(info.facts);
    std::printf("%s\n", j.dump().c_str());
  }
  else print_info(info.facts);
  return 0;
}

}  // namespace

int gpu_command(const CommandArgs& argv, const std::string& self_exe) {
  return run_command("gpu", kHelp, argv, [&] { return run_gpu(parse_call(argv), self_exe); });
}

}  // namespace kernelblaster
