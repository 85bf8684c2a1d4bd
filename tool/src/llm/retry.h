// When to send a request again, and how long to wait first (the rules of the
// official SDKs, reference/cupti-and-llm-apis.md B3).
#pragma once

#include <map>
#include <optional>
#include <string>

namespace kernelblaster::llm {

struct RetryPolicy {
  int max_attempts = 4;           // the first try included
  double base_s = 0.5;            // the first backoff
  double cap_s = 8;               // the longest computed backoff
  double retry_after_cap_s = 60;  // a server hint longer than this is cut to it
};

// The verdict on one HTTP answer.
enum class HttpVerdict {
  success,      // 2xx
  retry,        // 408, 409, 429, 5xx, 529 (or x-should-retry: true)
  refused_key,  // 401, 403
  quota,        // billing or quota error, whatever the status
  bad_request,  // any other 4xx
};

HttpVerdict classify_http(int status, bool quota_error, const std::map<std::string, std::string>& headers);

// min(base·2^retry, cap) × (1 − 0.25·unit_random): `retry` counts from 0,
// `unit_random` is in [0, 1).
double backoff_s(const RetryPolicy& policy, int retry, double unit_random);

// The server's hint: retry-after-ms, else retry-after in its seconds form
// (an HTTP date is ignored), capped at policy.retry_after_cap_s. Nothing when
// absent, unparsable or not positive.
std::optional<double> retry_after_s(const RetryPolicy& policy, const std::map<std::string, std::string>& headers);

}  // namespace kernelblaster::llm
