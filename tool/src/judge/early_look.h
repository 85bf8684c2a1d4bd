// A look at a candidate's correctness runs while its process still times
// them: the harness writes its report so far once those runs are done
// (kCorrectnessReportFile), and a candidate that failed them is stopped
// there. Its timing would decide nothing. On SGEMM_CUDA's kernel 10 (H200,
// 2026-11-30) a wrong result's evaluation took 3.7 s on average against
// 1.9 s for a verified one: its timing ran to the end (0.6-4.8 s) before
// its dumps were compared.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "judge/calibration.h"
#include "judge/judge.h"

namespace kernelblaster {

class EarlyLook {
 public:
  // `ref_dir`: the original's run of the same plan; `cand_dir`: where the
  // candidate's process writes (emptied before it starts).
  EarlyLook(const HarnessReport& ref, std::string ref_dir, std::string cand_dir, const Calibration& calibration)
      : m_ref(ref), m_ref_dir(std::move(ref_dir)), m_cand_dir(std::move(cand_dir)), m_calibration(calibration) {}

  // The process's cancel callback (ProcessOptions::cancel): true once its
  // correctness runs are judged and failed. They are judged once, when the
  // interim report appears.
  bool failed();
  // The failure, its detail saying that the process was stopped before its
  // timing; only after failed() said true.
  Verdict verdict() const;
  const std::vector<RunCheck>& checks() const { return m_checks; }

 private:
  const HarnessReport& m_ref;
  std::string m_ref_dir, m_cand_dir;
  const Calibration& m_calibration;
  bool m_looked = false;
  std::optional<Verdict> m_failure;
  std::vector<RunCheck> m_checks;
};

}  // namespace kernelblaster
