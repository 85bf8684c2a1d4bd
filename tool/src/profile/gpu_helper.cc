#include "profile/gpu_helper.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "common/file_util.h"
#include "common/subprocess.h"

namespace fs = std::filesystem;

namespace kernelblaster::profile {

std::string find_gpu_helper(const std::string& self_exe) {
  if (const char* env = std::getenv("KERNELBLASTER_GPU_HELPER"); env && *env) return env;
  return (fs::path(self_exe).parent_path() / "kernelblaster-gpu").string();
}

HelperOutcome run_gpu_helper(const std::string& helper, const std::string& mode, int device, double timeout_s) {
  HelperOutcome out;
  if (::access(helper.c_str(), X_OK) != 0) {
    out.message = "GPU helper not found: " + helper;
    return out;
  }
  std::string tmpl;
  try {
    tmpl = make_work_dir("kernelblaster-gpu");
  } catch (const std::exception& e) {
    out.message = e.what();
    return out;
  }
  std::string file = tmpl + "/facts.json";
  ProcessOptions opt;
  opt.timeout_s = timeout_s;
  ProcessResult r = run_process({helper, mode, "--device", std::to_string(device), "--out", file}, opt);
  if (r.ok()) {
    try {
      out.facts = gpu_facts_from_json(read_file(file));
      out.exit_code = 0;
    } catch (const std::exception& x) {
      out.message = x.what();
    }
  } else if (!r.signaled && !r.timed_out && r.exit_code == 77) {
    out.exit_code = 77;
    out.message = "no CUDA GPU on this machine";
  } else {
    out.message = "kernelblaster-gpu " + mode + ": " + r.how_it_ended() + ": " + r.output_tail(1);
  }
  fs::remove_all(tmpl);
  return out;
}

CeilingsLookup ceilings_for(const std::string& helper, int device, const std::string& cache_dir, bool refresh) {
  CeilingsLookup out;
  HelperOutcome info = run_gpu_helper(helper, "info", device, 60);
  if (info.exit_code != 0) {
    out.exit_code = info.exit_code == 77 ? 77 : 2;
    out.why_not = info.message;
    return out;
  }
  CeilingsCache cache(cache_dir);
  out.path = cache.path_for(info.facts.fingerprint);
  if (!refresh) {
    try {
      out.entry = cache.load(info.facts.fingerprint);
      out.cached = out.entry.has_value();
    } catch (const std::exception& x) {
      // A damaged entry is measured again and replaced, never trusted.
      out.notes.push_back(std::string("ignoring the cached ceilings: ") + x.what());
    }
  }
  if (out.entry) return out;
  const auto t0 = std::chrono::steady_clock::now();
  HelperOutcome measured = run_gpu_helper(helper, "ceilings", device, 300);
  out.measured_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (measured.exit_code != 0) {
    out.exit_code = measured.exit_code == 77 ? 77 : 2;
    out.why_not = measured.message;
    return out;
  }
  measured.facts.fingerprint = info.facts.fingerprint;
  out.entry = ceilings_from_facts(measured.facts, utc_now_iso8601());
  try {
    cache.store(*out.entry);
  } catch (const std::exception& x) {
    out.notes.push_back(std::string("the ceilings could not be cached: ") + x.what());
  }
  return out;
}

std::string ceilings_line(const CeilingsLookup& found) {
  if (found.entry && found.cached) return "";
  if (!found.entry)
    return "no roofline ceilings for this GPU (" + found.why_not + "): plausibility against them not assessed";
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f", found.measured_s);
  return std::string("measured this GPU's roofline ceilings once, in ") + seconds + " s (cached for later runs: " +
         found.path + ")";
}

}  // namespace kernelblaster::profile
