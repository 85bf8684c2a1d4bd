#include "kernelbench/build_step.h"

#include "common/compiler_output.h"

#include <filesystem>

#include "common/sha256.h"
#include "common/file_util.h"
#include "common/subprocess.h"

namespace kernelblaster::kernelbench {
namespace {

std::string slurp(const std::string& path) {
  std::string text;
  read_file_if_present(path, &text);  // a missing input or stamp keys as empty
  return text;
}

// SHA-256 of the command and every input's name and content, as the
// results cache keys its entries (build_step/content_key).
std::string step_key(const BuildStep& step) {
  std::string all;
  for (const std::string& a : step.argv) all += a + '\0';
  for (const std::string& in : step.inputs) all += in + '\0' + slurp(in) + '\0';
  return sha256_hex(all);
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
  write_file_atomic(stamp, key);
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
