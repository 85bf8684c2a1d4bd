// The run log of a tuning run: every evaluation with its settings and
// result. It is also the "recorded results" format that replay reads (see
// README.md in this folder for the JSON).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "judge/candidate_result.h"
#include "tuner/space_decl.h"

namespace kernelblaster::tuner {

// One evaluation: the configuration's result (its status named only in the
// log's JSON) with what the log keeps beside it.
struct EvaluationRecord : CandidateResult {
  int n = 0;                                    // 1-based order of selection
  std::string id;                               // the configuration id
  std::map<std::string, std::string> settings;  // non-default tunables
  std::vector<std::string> flags;               // non-default flags
  std::string duplicate_of;                     // id of the configuration with the same SASS
  std::string sass_hash;
  int device = -1;
  double at_s = 0;                              // seconds since the run began, at completion
  double build_wait_s = 0;                      // the device idle while the loop waited for its build
  bool accepted = false;
};

struct RunLog {
  int version = 1;
  bool synthetic = false;        // hand-made for tests, never a measurement
  std::string note;
  std::string kernel;            // source file name
  std::string source;            // its absolute path
  std::string state = "unclassified";
  std::string arch;
  std::string gpu;
  std::string date;              // UTC, ISO 8601
  std::string policy;
  std::map<std::string, double> metrics;  // the original's profile
  std::vector<Tunable> tunables;
  std::vector<std::string> constraints;
  std::vector<FlagDimension> flag_dimensions;
  std::size_t space_size = 0;    // candidate configurations (the original excluded)
  bool space_capped = false;
  double reference_median_us = 0;
  std::string original_sass_hash;  // candidates with this hash are the original
  std::vector<EvaluationRecord> evaluations;
  std::string best;              // id of the fastest verified accepted configuration; empty: none
  double best_speedup = 0;
  // Where the run's wall time went: consecutive phases (tune_phases.h), in
  // seconds. Empty in recordings made before they were logged.
  std::map<std::string, double> phases_s;
};

std::string run_log_to_json(const RunLog& log);
// One evaluation as the log holds it, and back (the search state keeps
// them too: search_state.h). Reading throws nlohmann::json::exception for a
// missing field and std::runtime_error for an unknown status.
nlohmann::json evaluation_to_json(const EvaluationRecord& r);
EvaluationRecord evaluation_from_json(const nlohmann::json& e);
// Throws SpaceError "file: reason" for a malformed log.
RunLog run_log_from_json(const std::string& text, const std::string& file);

}  // namespace kernelblaster::tuner
