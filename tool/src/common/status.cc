#include "common/status.h"

#include "common/enum_names.h"

namespace kernelblaster {
namespace {
constexpr EnumName<Status> kNames[] = {
    {Status::ok, "ok"},                              {Status::compile_failed, "compile_failed"},
    {Status::launch_failed, "launch_failed"},        {Status::crashed, "crashed"},
    {Status::timed_out, "timed_out"},                {Status::out_of_memory, "out_of_memory"},
    {Status::wrong_result, "wrong_result"},          {Status::inaccurate, "inaccurate"},
    {Status::unwritten_output, "unwritten_output"},  {Status::input_modified, "input_modified"},
    {Status::nondeterministic, "nondeterministic"},  {Status::cached_result, "cached_result"},
    {Status::copied_answer, "copied_answer"},        {Status::untimed_work, "untimed_work"},
    {Status::harness_error, "harness_error"},        {Status::reference_failed, "reference_failed"},
    {Status::no_gpu, "no_gpu"},                      {Status::tool_error, "tool_error"},
    {Status::not_recorded, "not_recorded"},         {Status::out_of_bounds, "out_of_bounds"},
    {Status::forbidden_code, "forbidden_code"},
    {Status::process_tampered, "process_tampered"},
};

constexpr EnumName<AttemptEnd> kEndNames[] = {
    {AttemptEnd::verified, "verified"},         {AttemptEnd::llm_failed, "llm_failed"},
    {AttemptEnd::no_code, "no_code"},           {AttemptEnd::static_check, "static_check"},
    {AttemptEnd::rejected, "rejected"},         {AttemptEnd::not_attempted, "not_attempted"},
};
}  // namespace

const char* status_name(Status s) { return name_in(kNames, s, "unknown"); }

bool status_from_name(const std::string& name, Status* out) {
  std::optional<Status> s = value_in(kNames, name);
  if (s) *out = *s;
  return s.has_value();
}

Status status_named(const std::string& name, Status unknown) { return value_in(kNames, name).value_or(unknown); }

const char* attempt_end_name(AttemptEnd end) { return name_in(kEndNames, end, "?"); }

AttemptEnd attempt_end_named(const std::string& name, AttemptEnd unknown) {
  return value_in(kEndNames, name).value_or(unknown);
}

bool judges_the_candidate(Status status) {
  switch (status) {
    case Status::no_gpu:
    case Status::tool_error:
    case Status::harness_error:
    case Status::reference_failed:
    case Status::not_recorded:
      return false;
    default:
      return true;
  }
}

bool teaches_kb(AttemptEnd end, Status status) {
  switch (end) {
    case AttemptEnd::llm_failed:
    case AttemptEnd::not_attempted:
      return false;
    case AttemptEnd::rejected:
      return judges_the_candidate(status);
    default:
      return true;
  }
}

std::string outcome_name(AttemptEnd end, Status status) {
  if (end == AttemptEnd::verified || end == AttemptEnd::rejected) return status_name(status);
  return attempt_end_name(end);
}

}  // namespace kernelblaster
