#include "kernelbench/build_step.h"

#include "common/compiler_output.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "common/subprocess.h"

namespace kernelblaster::kernelbench {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string step_key(const BuildStep& step) {
  std::string all;
  for (const std::string& a : step.argv) all += a + '\0';
  for (const std::string& in : step.inputs) all += in + '\0' + slurp(in) + '\0';
  return std::to_string(std::hash<std::string>{}(all)) + ":" + std::to_string(all.size());
}

}  // namespace

StepOutcome run_build_step(const BuildStep& step) {
  StepOutcome out;
  std::string key = step_key(step);
  std::string stamp = step.output + ".kbkey";
  if (std::filesystem::exists(step.output) && slurp(stamp) == key) {
    out.ok = out.cached = true;
    return out;
  }
  std::error_code ec;
  std::filesystem::remove(stamp, ec);
  ProcessOptions opt;
  opt.timeout_s = step.timeout_s;
  ProcessResult r = run_process(step.argv, opt);
  out.seconds = r.seconds;
  if (!r.ok()) {
    out.error = r.timed_out || r.spawn_failed ? step.argv[0] + " " + r.how_it_ended() : first_error_line(r.output);
    if (out.error.empty()) out.error = step.argv[0] + " " + r.how_it_ended();
    return out;
  }
  std::ofstream(stamp, std::ios::binary) << key;
  out.ok = true;
  return out;
}

std::vector<std::string> gencode_flags(const std::string& arch) {
  if (arch.empty()) return {};
  std::string num = arch;
  for (const char* prefix : {"sm_", "compute_"})
    if (num.rfind(prefix, 0) == 0) num = num.substr(std::string(prefix).size());
  return {"-gencode", "arch=compute_" + num + ",code=sm_" + num};
}

}  // namespace kernelblaster::kernelbench
