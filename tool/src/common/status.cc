#include "common/status.h"

#include <utility>

namespace kernelblaster {
namespace {
constexpr std::pair<Status, const char*> kNames[] = {
    {Status::ok, "ok"},
    {Status::compile_failed, "compile_failed"},
    {Status::launch_failed, "launch_failed"},
    {Status::crashed, "crashed"},
    {Status::timed_out, "timed_out"},
    {Status::out_of_memory, "out_of_memory"},
    {Status::wrong_result, "wrong_result"},
    {Status::inaccurate, "inaccurate"},
    {Status::unwritten_output, "unwritten_output"},
    {Status::input_modified, "input_modified"},
    {Status::nondeterministic, "nondeterministic"},
    {Status::cached_result, "cached_result"},
    {Status::copied_answer, "copied_answer"},
    {Status::untimed_work, "untimed_work"},
    {Status::harness_error, "harness_error"},
    {Status::reference_failed, "reference_failed"},
    {Status::no_gpu, "no_gpu"},
    {Status::tool_error, "tool_error"},
    {Status::not_recorded, "not_recorded"},
};
}  // namespace

const char* status_name(Status s) {
  for (const auto& [status, name] : kNames)
    if (status == s) return name;
  return "unknown";
}

bool status_from_name(const std::string& name, Status* out) {
  for (const auto& [status, n] : kNames)
    if (name == n) {
      *out = status;
      return true;
    }
  return false;
}

const char* attempt_end_name(AttemptEnd end) {
  switch (end) {
    case AttemptEnd::verified: return "verified";
    case AttemptEnd::llm_failed: return "llm_failed";
    case AttemptEnd::no_code: return "no_code";
    case AttemptEnd::static_check: return "static_check";
    case AttemptEnd::rejected: return "rejected";
    case AttemptEnd::not_attempted: return "not_attempted";
  }
  return "?";
}

std::string outcome_name(AttemptEnd end, Status status) {
  if (end == AttemptEnd::verified || end == AttemptEnd::rejected) return status_name(status);
  return attempt_end_name(end);
}

}  // namespace kernelblaster
