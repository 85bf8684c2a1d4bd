// An HTTP protocol behind the retry loop: backoff with jitter on transport
// errors, 408, 409, 429, 5xx and 529, honouring Retry-After; no retry on a
// refused key, a bad request or a quota error; stalls, oversized and
// malformed replies end the request with their own Outcome.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "llm/clock.h"
#include "llm/protocol.h"
#include "llm/provider.h"
#include "llm/retry.h"
#include "llm/transport.h"

namespace kernelblaster::llm {

struct HttpSettings {
  std::string base_url;  // up to the endpoint, e.g. "https://api.openai.com/v1"
  std::string model;
  bool stream = true;
  RetryPolicy retry;
  double connect_timeout_s = 10;
  double stall_timeout_s = 120;
  double total_timeout_s = 600;  // applies to plain requests; streams rely on the stall timeout
  std::size_t max_reply_bytes = 8 << 20;
};

class HttpProvider : public Provider {
 public:
  // `key` lives only in this object and the headers it builds. `unit_random`
  // returns values in [0, 1) for the jitter (a seam for tests).
  HttpProvider(std::unique_ptr<Protocol> protocol, Transport& transport, Clock& clock, HttpSettings settings,
               std::string key, std::function<double()> unit_random);
  Result complete(const Request& request, const Progress& progress) override;

 private:
  // One attempt's answer turned into a result; `retry` says whether another
  // attempt may fix it, `hint` is the server's wait.
  struct Attempt {
    Result result;
    bool retry = false;
    std::optional<double> hint;
  };
  Attempt judge(const HttpResponse& response) const;
  Result finished_reply(const Decoded& decoded, int status) const;
  std::string host() const;
  std::string line(const std::string& text) const { return clean_detail(text, m_key); }

  std::unique_ptr<Protocol> m_protocol;
  Transport& m_transport;
  Clock& m_clock;
  HttpSettings m_settings;
  std::string m_key;
  std::function<double()> m_random;
};

}  // namespace kernelblaster::llm
