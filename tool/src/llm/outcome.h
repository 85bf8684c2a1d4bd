// How one LLM request ended. A failed request is a result, not an exception
// (the KTT rule): the loop records it, stops on it or retries it. Names exist
// only at the JSON and text edge (outcome_name).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kernelblaster::llm {

enum class Outcome {
  ok,                      // a complete reply
  transport_error,         // no HTTP answer after every retry (connect, reset, timeout)
  http_refused_key,        // 401 or 403: the key is wrong or lacks the right; never retried
  bad_request,             // 400, 404, 413, 422: the request itself; never retried
  quota,                   // insufficient_quota, billing or a spend limit; never retried
  rate_limited_exhausted,  // 429 on every attempt
  server_error_exhausted,  // 408, 409, 5xx or 529 on every attempt
  stalled,                 // the stream sent nothing for the stall timeout
  malformed_reply,         // the body is not the protocol's JSON (or SSE), or it was cut off
  truncated,               // the model stopped at max_tokens: the reply is partial
  oversized,               // the reply exceeded the size cap
  cap_reached,             // a token or money cap refused the request before it was sent
  replay_miss,             // replay mode and the request is not in the cache
  command_failed,          // the command provider's program failed or printed no reply
  not_configured,          // no provider, model, base URL, command or key
};

std::string_view outcome_name(Outcome outcome);
std::optional<Outcome> outcome_from_name(std::string_view name);
// Worth trying the same request again later (the HTTP layer already retried).
bool is_transient(Outcome outcome);

}  // namespace kernelblaster::llm
