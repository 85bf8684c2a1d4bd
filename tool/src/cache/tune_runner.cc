#include "cache/tune_runner.h"

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

#include "common/file_util.h"

namespace kernelblaster::cache {

namespace {

std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

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
  if (j.contains("flags") && j["flags"].is_array())
    for (const auto& f : j["flags"])
      if (f.is_string()) out.flags.push_back(f.get<std::string>());
  out.reference_median_us = number_at(j, {"reference_median_us"});
  out.median_us = number_at(j, {"best_median_us", "median_us"});
  out.q1_us = number_at(j, {"best_q1_us", "q1_us"});
  out.q3_us = number_at(j, {"best_q3_us", "q3_us"});
}

TuneOutcome run_tuner(const std::string& tool, const TuneRequest& req, double grace_s) {
  TuneOutcome out;
  std::vector<std::string> argv = {tool, "tune", "--source", req.source, "--harness", req.harness,
                                   "--out", req.out, "--json", "--budget", number_text(req.budget_s)};
  if (req.min_speedup > 0) argv.insert(argv.end(), {"--min-speedup", number_text(req.min_speedup)});
  if (!req.manifest.empty()) argv.insert(argv.end(), {"--manifest", req.manifest});
  if (!req.policy.empty()) argv.insert(argv.end(), {"--policy", req.policy});
  if (!req.kb.empty()) argv.insert(argv.end(), {"--kb", req.kb});

  std::string json_path = req.out + ".json";
  std::filesystem::remove(req.out);
  int json_fd = ::open(json_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (json_fd < 0) {
    out.error = "cannot write " + json_path + ": " + std::strerror(errno);
    return out;
  }
  std::vector<char*> args;
  for (auto& s : argv) args.push_back(s.data());
  args.push_back(nullptr);
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) {
    out.error = std::string("fork failed: ") + std::strerror(errno);
    ::close(json_fd);
    return out;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(json_fd, 1);  // stdout: the JSON result; stderr stays ours (live progress)
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::execv(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  ::close(json_fd);
  const double deadline_s = req.budget_s + grace_s;
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
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (killed) {
    out.error = "killed after " + std::to_string(static_cast<int>(deadline_s)) + " s";
    return out;
  }
  if (WIFSIGNALED(status)) {
    out.error = std::string("killed by signal ") + std::to_string(WTERMSIG(status));
    return out;
  }
  out.exit_code = WEXITSTATUS(status);
  double measured_seconds = out.seconds;
  try {
    parse_tune_json(read_file(json_path), out);
  } catch (const std::exception&) {
  }
  if (out.seconds <= 0) out.seconds = measured_seconds;
  if (out.exit_code == 0) {
    try {
      out.tuned_text = read_file(req.out);
    } catch (const std::exception& e) {
      out.exit_code = 2;
      out.error = std::string("tune reported success but wrote no source: ") + e.what();
    }
  } else if (out.exit_code != 1 && out.exit_code != 77) {
    out.error = "kernelblaster tune exit " + std::to_string(out.exit_code);
  }
  return out;
}

}  // namespace kernelblaster::cache
