// The original's runs, kept for the evaluations that follow it: the tuner's
// search judges many candidates of its own (the user's source with other
// values) against one original on one fixed set of seeds, and running the
// original again for each was half of every evaluation's GPU time (issue
// 38, SGEMM_CUDA on an H200: 2.18 of 5.0 s). An evaluation that finds a run
// of the same program on the same plan (its seeds, sizes, device and
// timing) taken within the last `reuse_s` seconds judges against that run;
// an older one is run again, so a GPU whose clocks drift is timed anew.
// Only trusted candidates meet a kept run (the evaluator refuses it to an
// untrusted one: a candidate that sees the same seeds twice could learn
// them), and a winner is measured again with fresh seeds, the original
// running beside it.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "common/protocol.h"
#include "common/subprocess.h"
#include "judge/calibration.h"

namespace kernelblaster {

inline constexpr double kReferenceReuseSeconds = 60;

// One sound run of the original: it ended well and calibrated. A kept
// run's directory (the dumps the candidates are compared with) is removed
// with the last evaluation that holds it.
struct ReferenceRun {
  ProcessResult process;
  HarnessReport report;
  std::string out_dir;
  bool remove_dir = false;
  Calibration calibration;
  ReferenceRun() = default;
  ReferenceRun(const ReferenceRun&) = delete;
  ReferenceRun& operator=(const ReferenceRun&) = delete;
  ~ReferenceRun();
};

class ReferenceRuns {
 public:
  // `dir`: where kept runs live (created; hidden from candidates).
  explicit ReferenceRuns(std::string dir, double reuse_s = kReferenceReuseSeconds);
  const std::string& dir() const { return m_dir; }
  // A fresh directory for a run of the original that may be kept.
  std::string new_run_dir();
  // The run kept for `binary` on `plan_json`, or null when there is none
  // younger than reuse_s.
  std::shared_ptr<const ReferenceRun> find(const std::string& binary, const std::string& plan_json);
  void keep(const std::string& binary, const std::string& plan_json, std::shared_ptr<const ReferenceRun> run);
  int runs_kept() const;
  // The program's declaration (--describe), asked once per program.
  std::optional<HarnessReport> description(const std::string& binary) const;
  void keep_description(const std::string& binary, const HarnessReport& declared);

 private:
  struct Entry {
    std::shared_ptr<const ReferenceRun> run;
    std::chrono::steady_clock::time_point taken;
  };
  bool stale(const Entry& e, std::chrono::steady_clock::time_point now) const;
  std::string m_dir;
  double m_reuse_s;
  mutable std::mutex m_mutex;
  std::map<std::string, Entry> m_entries;
  std::map<std::string, HarnessReport> m_descriptions;
  int m_next = 0;
  int m_kept = 0;
};

}  // namespace kernelblaster
