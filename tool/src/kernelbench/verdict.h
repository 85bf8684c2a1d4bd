// Reading what a driver process says: its passed/failed line, how it ended,
// and the timing JSON the shim wrote. Pure functions of the captured output.
#pragma once

#include <string>

#include "common/subprocess.h"
#include "eval/result.h"

namespace kernelblaster::kernelbench {

struct DriverVerdict {
  Status status = Status::ok;
  std::string detail;  // one line; empty when ok
};

// "passed" -> ok, "failed" -> wrong_result, a shim error line -> its status,
// a signal or non-zero exit -> crashed, the deadline -> timed_out.
DriverVerdict classify_driver_run(const ProcessResult& run);

struct ShimTiming {
  std::string method;
  int runs = 0;
  double median_ns = 0, q1_ns = 0, q3_ns = 0, min_ns = 0, event_median_ns = 0, kernels_per_run = 0;
  int untimed_runs = 0, foreign_activities = 0;
  std::string untimed_detail, tracer_note;
};

bool parse_shim_timing(const std::string& json_text, ShimTiming* out, std::string* why);

}  // namespace kernelblaster::kernelbench
