// The report of one tuning run, from its log (`kernelblaster tune --log`,
// tool/src/tuner/run_log.h): best so far against evaluations and seconds,
// every candidate's status as a strip, the winner, the roofline position of
// the original and the winner.
#pragma once

#include <nlohmann/json.hpp>

#include "report/document.h"

namespace kernelblaster::report {

// Whether `j` looks like a tuning run's log.
bool is_tune_log(const nlohmann::json& j);
// Throws std::runtime_error (one line) for a log it cannot read.
Document tune_report(const nlohmann::json& log, const std::string& path);

}  // namespace kernelblaster::report
