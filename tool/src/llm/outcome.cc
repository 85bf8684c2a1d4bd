#include "llm/outcome.h"

#include "common/enum_names.h"

namespace kernelblaster::llm {

namespace {
constexpr EnumName<Outcome> kNames[] = {
    {Outcome::ok, "ok"},                                          {Outcome::transport_error, "transport_error"},
    {Outcome::http_refused_key, "http_refused_key"},              {Outcome::bad_request, "bad_request"},
    {Outcome::quota, "quota"},                                    {Outcome::rate_limited_exhausted, "rate_limited_exhausted"},
    {Outcome::server_error_exhausted, "server_error_exhausted"},  {Outcome::stalled, "stalled"},
    {Outcome::malformed_reply, "malformed_reply"},                {Outcome::truncated, "truncated"},
    {Outcome::oversized, "oversized"},                            {Outcome::cap_reached, "cap_reached"},
    {Outcome::replay_miss, "replay_miss"},                        {Outcome::command_failed, "command_failed"},
    {Outcome::not_configured, "not_configured"},
};
}  // namespace

std::string_view outcome_name(Outcome outcome) { return name_in(kNames, outcome, "unknown"); }

std::optional<Outcome> outcome_from_name(std::string_view name) { return value_in(kNames, name); }

bool is_transient(Outcome outcome) {
  return outcome == Outcome::transport_error || outcome == Outcome::rate_limited_exhausted ||
         outcome == Outcome::server_error_exhausted || outcome == Outcome::stalled;
}

}  // namespace kernelblaster::llm
