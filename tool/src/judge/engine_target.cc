#include "judge/engine_target.h"

namespace kernelblaster {

EvalRequest prebuilt_request(const EngineTarget& target, const std::string& reference_binary,
                             const std::string& candidate_binary, int device) {
  EvalRequest req;
  req.source = target.source;
  req.harness = target.harness;
  req.compile = target.compile;
  req.seeds = target.seeds;
  req.run_timeout_s = target.run_timeout_s;
  req.build_timeout_s = target.build_timeout_s;
  req.budget_ms = target.budget_ms;
  req.device = device;
  req.lock_dir = target.lock_dir;
  req.reference_binary = reference_binary;
  req.candidate_binary = candidate_binary;
  return req;
}

}  // namespace kernelblaster
