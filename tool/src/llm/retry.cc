#include "llm/retry.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace kernelblaster::llm {

namespace {

std::optional<double> number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  while (end && (*end == ' ' || *end == '\t')) ++end;
  if (!end || *end != '\0' || !std::isfinite(v) || v <= 0) return std::nullopt;
  return v;
}

const std::string* header(const std::map<std::string, std::string>& headers, const char* name) {
  auto it = headers.find(name);
  return it == headers.end() ? nullptr : &it->second;
}

}  // namespace

HttpVerdict classify_http(int status, bool quota_error, const std::map<std::string, std::string>& headers) {
  if (status >= 200 && status < 300) return HttpVerdict::success;
  if (quota_error) return HttpVerdict::quota;
  if (status == 401 || status == 403) return HttpVerdict::refused_key;
  if (const std::string* should = header(headers, "x-should-retry")) {
    if (*should == "true") return HttpVerdict::retry;
    if (*should == "false") return HttpVerdict::bad_request;
  }
  if (status == 408 || status == 409 || status == 429 || status >= 500) return HttpVerdict::retry;
  return HttpVerdict::bad_request;
}

double backoff_s(const RetryPolicy& policy, int retry, double unit_random) {
  double raw = policy.base_s * std::pow(2.0, std::clamp(retry, 0, 30));
  return std::min(raw, policy.cap_s) * (1.0 - 0.25 * std::clamp(unit_random, 0.0, 1.0));
}

std::optional<double> retry_after_s(const RetryPolicy& policy, const std::map<std::string, std::string>& headers) {
  std::optional<double> hint;
  if (const std::string* ms = header(headers, "retry-after-ms"); ms && (hint = number(*ms))) *hint /= 1000.0;
  if (!hint)
    if (const std::string* s = header(headers, "retry-after")) hint = number(*s);
  if (!hint) return std::nullopt;
  return std::min(*hint, policy.retry_after_cap_s);
}

}  // namespace kernelblaster::llm
