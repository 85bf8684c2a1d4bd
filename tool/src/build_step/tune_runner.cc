#include "build_step/tune_runner.h"

#include <algorithm>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "common/children.h"
#include "common/file_util.h"
#include "common/text.h"

namespace kernelblaster::build_step {

namespace {

double number_at(const nlohmann::json& j, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (j.contains(k) && j[k].is_number()) return j[k].get<double>();
  return 0;
}

}  // namespace

void parse_tune_json(const std::string& json_text, TuneOutcome& out) {
  nlohmann::json j = nlohmann::json::parse(json_text, nullptr, false);
  if (!j.is_object()) return;
  if (j.contains("speedup") && j["speedup"].is_number()) out.speedup = j["speedup"].get<double>();
  if (j.contains("seconds") && j["seconds"].is_number()) out.seconds = j["seconds"].get<double>();
  if (j.contains("config") && j["config"].is_object())
    for (const auto& [name, value] : j["config"].items())
      out.config[name] = value.is_string() ? value.get<std::string>() : value.dump();
  if (j.contains("original_config") && j["original_config"].is_object())
    for (const auto& [name, value] : j["original_config"].items())
      out.original_config[name] = value.is_string() ? value.get<std::string>() : value.dump();
  if (j.contains("kernel_speedups") && j["kernel_speedups"].is_object())
    for (const auto& [name, value] : j["kernel_speedups"].items())
      if (value.is_number()) out.kernel_speedups[name] = value.get<double>();
  if (j.contains("flags") && j["flags"].is_array())
    for (const auto& f : j["flags"])
      if (f.is_string()) out.flags.push_back(f.get<std::string>());
  out.evaluations = static_cast<long long>(number_at(j, {"evaluations"}));
  out.evaluations_now = static_cast<long long>(number_at(j, {"evaluations_now", "evaluations"}));
  out.preparation_s = number_at(j, {"preparation_s"});
  out.builds_searched = static_cast<long long>(number_at(j, {"builds_searched"}));
  if (j.contains("continues") && j["continues"].is_boolean()) out.continues = j["continues"].get<bool>();
  if (j.contains("harness_failed") && j["harness_failed"].is_boolean()) out.harness_failed = j["harness_failed"].get<bool>();
  if (j.contains("phases_s") && j["phases_s"].is_object())
    for (const auto& [name, value] : j["phases_s"].items())
      if (value.is_number()) out.phases_s[name] = value.get<double>();
  out.space_valid = static_cast<long long>(number_at(j, {"space_valid", "space_size"}));
  out.reference_median_us = number_at(j, {"reference_median_us"});
  out.median_us = number_at(j, {"best_median_us", "median_us"});
  out.q1_us = number_at(j, {"best_q1_us", "q1_us"});
  out.q3_us = number_at(j, {"best_q3_us", "q3_us"});
  if (j.contains("reason") && j["reason"].is_string()) out.reason = j["reason"].get<std::string>();
  if (j.contains("per_launcher") && j["per_launcher"].is_string()) out.per_launcher = j["per_launcher"].get<std::string>();
  if (j.contains("memcheck") && j["memcheck"].is_string()) out.memcheck = j["memcheck"].get<std::string>();
  for (auto [key, field] : {std::pair{"slower_at_a_size", &out.slower_at_a_size}, std::pair{"other_sizes", &out.other_sizes},
                            std::pair{"launch_paced", &out.launch_paced},
                            std::pair{"shape_guard", &out.shape_guard}, std::pair{"edge_check", &out.edge_check}})
    if (j.contains(key) && j[key].is_string()) *field = j[key].get<std::string>();
  // Read into statuses on arrival: a name this tool does not know is left out.
  if (j.contains("outcomes") && j["outcomes"].is_object())
    for (const auto& [name, count] : j["outcomes"].items()) {
      if (!count.is_number_integer() || count.get<long long>() <= 0) continue;
      Status status;
      if (name == "duplicate") out.duplicates = count.get<long long>();
      else if (status_from_name(name, &status)) out.outcomes[status] = count.get<long long>();
    }
}

namespace {

struct ChildOutcome {
  int exit_code = -1;  // -1: did not end by itself (see error)
  std::string error;
  double seconds = 0;
};

// Runs argv with stdout into `stdout_path` (stderr stays ours: live
// progress), killing its process group past `deadline_s`.
ChildOutcome run_child(std::vector<std::string> argv, const std::string& stdout_path, double deadline_s) {
  ChildOutcome out;
  int fd = ::open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    out.error = "cannot write " + stdout_path + ": " + std::strerror(errno);
    return out;
  }
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = fork_child();
  if (pid < 0) {
    out.error = std::string("fork failed: ") + std::strerror(errno);
    ::close(fd);
    return out;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(fd, 1);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::execv(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  ::close(fd);
  int status = 0;
  bool killed = false;
  while (true) {
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!killed && elapsed > deadline_s) {
      ::kill(-pid, SIGKILL);
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  forget_child(pid);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (killed) out.error = "killed after " + std::to_string(static_cast<int>(deadline_s)) + " s";
  else if (WIFSIGNALED(status)) out.error = std::string("killed by signal ") + std::to_string(WTERMSIG(status));
  else out.exit_code = WEXITSTATUS(status);
  return out;
}

// What `kernelblaster optimize` kept: its source and confirmed speedup.
struct Rewrite {
  bool kept = false;
  std::string text, path;
  double speedup = 1, reference_median_us = 0;
  double seconds = 0;  // the rewrite's wall time
  std::string note;
};

Rewrite run_rewrite(const std::string& tool, const TuneRequest& req, double grace_s) {
  Rewrite r;
  const std::string written = req.out + ".rewritten.cu";
  const std::string artifacts = req.out + ".optimize";
  std::filesystem::remove(written);
  std::vector<std::string> argv = {tool, "optimize", "--source", req.source, "--harness", req.harness,
                                   "--out", artifacts, "--write", written, "--json", "--quiet"};
  if (!req.manifest.empty()) argv.insert(argv.end(), {"--manifest", req.manifest});
  if (!req.policy.empty()) argv.insert(argv.end(), {"--policy", req.policy});
  if (!req.kb.empty()) argv.insert(argv.end(), {"--kb", req.kb});
  ChildOutcome c = run_child(argv, artifacts + ".json", req.budget_s + grace_s);
  r.seconds = c.seconds;
  const std::string who = "rewrite by " + req.rewriter;
  if (c.exit_code == 0) {
    try {
      r.text = read_file(written);
      r.path = written;
      nlohmann::json j = nlohmann::json::parse(read_file(artifacts + ".json"), nullptr, false);
      if (j.is_object()) {
        r.speedup = number_at(j, {"confirmed_speedup", "search_speedup"});
        if (j.contains("original") && j["original"].is_object()) r.reference_median_us = number_at(j["original"], {"median_us"});
      }
      r.kept = r.speedup > 0;
      r.note = who + ": " + speedup_text(r.speedup) + " (" + artifacts + ")";
    } catch (const std::exception& e) {
      r.note = who + " reported a kernel but it cannot be read (" + e.what() + ")";
    }
  } else if (c.exit_code == 1) {
    r.note = who + ": no verified rewrite beat the original (" + artifacts + ")";
  } else {
    r.note = who + " failed (" + (c.error.empty() ? "exit " + std::to_string(c.exit_code) : c.error) + ")";
  }
  return r;
}

// The `kernelblaster tune` command line of a build's tuning run.
std::vector<std::string> tune_command(const std::string& tool, const TuneRequest& req, const std::string& source,
                                      double budget_s) {
  std::vector<std::string> argv = {tool, "tune", "--source", source, "--harness", req.harness,
                                   "--out", req.out, "--json", "--budget", general_number(budget_s),
                                   "--name", std::filesystem::path(req.source).filename().string(),
                                   // every evaluation with its status, times and settings, beside the summary
                                   "--log", req.out + ".log.json"};
  if (req.min_speedup > 0) argv.insert(argv.end(), {"--min-speedup", general_number(req.min_speedup)});
  if (!req.manifest.empty()) argv.insert(argv.end(), {"--manifest", req.manifest});
  if (!req.policy.empty()) argv.insert(argv.end(), {"--policy", req.policy});
  if (!req.kb.empty()) argv.insert(argv.end(), {"--kb", req.kb});
  if (req.partial_harness) argv.push_back("--partial-harness");
  if (!req.start_from.empty()) argv.insert(argv.end(), {"--start-from", req.start_from});
  if (!req.state_dir.empty()) argv.insert(argv.end(), {"--state-dir", req.state_dir});
  if (!req.state_dir.empty() && req.fresh_search) argv.push_back("--fresh-search");
  return argv;
}

}  // namespace

TuneOutcome run_tuner(const std::string& tool, const TuneRequest& req, double grace_s) {
  TuneOutcome out;
  // With an LLM: the rewrite first, then the tuner on what it kept (a rewrite
  // may expose tunables of its own). The speedup over the original is the
  // product of the two confirmed speedups; the CTest gate measures the
  // result against the original itself.
  Rewrite rewrite;
  // A harness that runs part of the source cannot judge a rewrite of all of it.
  if (!req.rewriter.empty() && !req.partial_harness) rewrite = run_rewrite(tool, req, grace_s);
  const std::string tune_source = rewrite.kept ? rewrite.path : req.source;
  // BUDGET is the source's tuning seconds, the rewrite's included: the
  // tuner gets what the rewrite left, never under a quarter of it.
  const double tune_budget = std::max(0.25 * req.budget_s, req.budget_s - rewrite.seconds);
  std::string json_path = req.out + ".json";
  std::filesystem::remove(req.out);
  ChildOutcome c = run_child(tune_command(tool, req, tune_source, tune_budget), json_path, tune_budget + grace_s);
  out.rewrite_note = rewrite.note;
  out.seconds = c.seconds;
  if (c.exit_code < 0) {
    out.error = c.error;
  } else {
    // The tuner's exit status (tune --help), read here once.
    out.end = c.exit_code == 0 ? TuneEnd::tuned : c.exit_code == 1 ? TuneEnd::no_gain
              : c.exit_code == 77                  ? TuneEnd::no_gpu
                                                   : TuneEnd::failed;
    double measured_seconds = out.seconds;
    try {
      parse_tune_json(read_file(json_path), out);
    } catch (const std::exception& e) {
      // A tuning whose summary cannot be read gives no speedup to believe:
      // a success becomes a failure that says why; anything else keeps its
      // exit status, and the reason rides along for the line.
      out.error = "its summary " + json_path + " cannot be read: " + e.what();
      if (out.end == TuneEnd::tuned) out.end = TuneEnd::failed;
    }
    if (out.seconds <= 0) out.seconds = measured_seconds;
    if (out.end == TuneEnd::tuned) {
      try {
        out.tuned_text = read_file(req.out);
      } catch (const std::exception& e) {
        out.end = TuneEnd::failed;
        out.error = std::string("tune reported success but wrote no source: ") + e.what();
      }
    } else if (out.end == TuneEnd::failed && out.error.empty()) {
      // Exit 3 (nothing could be measured: the original, its harness or
      // nvcc failed) says why in its summary's reason; any other status is
      // named as it is.
      out.error = c.exit_code == 3 && !out.reason.empty() ? out.reason
                                                           : "kernelblaster tune exit " + std::to_string(c.exit_code);
    }
  }
  if (!rewrite.kept) return out;
  // The rewrite stands whatever the tuner found on top of it.
  if (out.end == TuneEnd::tuned) {
    out.speedup *= rewrite.speedup;
  } else {
    if (out.end != TuneEnd::no_gain) out.rewrite_note += "; tuning the rewrite failed (" + out.error + ")";
    out.end = TuneEnd::tuned;
    out.error.clear();
    out.tuned_text = rewrite.text;
    out.config.clear();
    out.flags.clear();
    out.speedup = rewrite.speedup;
  }
  if (rewrite.reference_median_us > 0) out.reference_median_us = rewrite.reference_median_us;
  return out;
}

}  // namespace kernelblaster::build_step
