#include "judge/early_look.h"

#include <unistd.h>

#include "common/protocol.h"

namespace kernelblaster {

bool EarlyLook::failed() {
  if (m_looked) return m_failure.has_value();
  // Asked every few milliseconds: one access() until the report is there.
  if (::access((m_cand_dir + "/" + kCorrectnessReportFile).c_str(), F_OK) != 0) return false;
  m_looked = true;
  m_failure = judge_correctness_early(m_ref, m_ref_dir, m_cand_dir, m_calibration, &m_checks);
  return m_failure.has_value();
}

Verdict EarlyLook::verdict() const {
  Verdict v = *m_failure;
  v.detail += " (found in its correctness runs; stopped before its timing)";
  return v;
}

}  // namespace kernelblaster
