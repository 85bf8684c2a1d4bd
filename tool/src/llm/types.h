// The plain value types of an LLM exchange: what is asked, what comes back,
// what it cost. Protocol JSON becomes these at the edge (openai_protocol,
// anthropic_protocol); nothing past the edge sees JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "llm/outcome.h"

namespace kernelblaster::llm {

enum class Role { system, user, assistant };

struct Message {
  Role role = Role::user;
  std::string content;
};

struct Sampling {
  std::optional<double> temperature;  // unset: the model's default (reasoning models refuse it)
  int max_tokens = 1024;
  std::string reasoning_effort;       // "", "low", "medium", "high"
};

struct Request {
  std::vector<Message> messages;
  Sampling sampling;
};

// Token counts, normalised across providers: `input` counts every prompt
// token, including those read from or written to the provider's prompt cache.
struct Usage {
  std::int64_t input = 0;
  std::int64_t output = 0;
  std::int64_t cached_input = 0;  // read from the provider's cache (cheaper)
  std::int64_t cache_write = 0;   // written to it (Anthropic bills these higher)
  bool reported = false;          // the provider sent usage at all
  std::int64_t total() const { return input + output; }
};

enum class Finish { stop, length, other };

struct Reply {
  std::string text;
  std::string model;  // as the provider named it
  Finish finish = Finish::stop;
  Usage usage;
};

// One request's end: the outcome, the reply where there is one (also for
// `truncated`), and what the client did on the way.
struct Result {
  Outcome outcome = Outcome::ok;
  Reply reply;
  std::string detail;       // one line; never holds the key
  int http_status = 0;      // the last HTTP status, 0 when none
  int attempts = 0;         // HTTP attempts made
  double waited_s = 0;      // backoff time slept between attempts
  double latency_s = 0;     // wall time of the whole request
  double cost_usd = 0;      // from the price table; 0 when unknown
  bool price_known = false;
  bool from_cache = false;
  std::string cache_key;    // empty when the cache was off
  bool ok() const { return outcome == Outcome::ok; }
};

const char* role_name(Role role);

}  // namespace kernelblaster::llm
