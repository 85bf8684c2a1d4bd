// Scripted seams for the LLM client tests: a transport that answers from a
// list, a clock that records sleeps instead of sleeping, a provider that
// counts its calls.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "llm/clock.h"
#include "llm/provider.h"
#include "llm/transport.h"

namespace kernelblaster::llm::testing {

inline HttpResponse http(int status, std::string body, std::map<std::string, std::string> headers = {}) {
  HttpResponse r;
  r.status = TransportStatus::ok;
  r.http_status = status;
  r.body = std::move(body);
  r.headers = std::move(headers);
  return r;
}

inline HttpResponse transport(TransportStatus status, std::string error = "") {
  HttpResponse r;
  r.status = status;
  r.error = std::move(error);
  return r;
}

class ScriptedTransport : public Transport {
 public:
  std::deque<HttpResponse> script;
  std::vector<HttpRequest> sent;
  HttpResponse send(const HttpRequest& request, const BodyObserver& observer) override {
    sent.push_back(request);
    if (script.empty()) return transport(TransportStatus::failed, "script ran out");
    HttpResponse r = script.front();
    script.pop_front();
    if (observer && !r.body.empty()) observer(r.body);
    return r;
  }
};

class FakeClock : public Clock {
 public:
  double now = 1000;
  std::vector<double> sleeps;
  double now_s() override { return now; }
  void sleep_s(double s) override {
    sleeps.push_back(s);
    now += s;
  }
};

class CountingProvider : public Provider {
 public:
  int calls = 0;
  Result answer;
  Result complete(const Request&, const Progress&) override {
    ++calls;
    return answer;
  }
};

inline const char* kOpenAiGood = R"({"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o-mini-2024-07-18",
 "choices":[{"index":0,"message":{"role":"assistant","content":"pong"},"finish_reason":"stop"}],
 "usage":{"prompt_tokens":120,"completion_tokens":7,"total_tokens":127,"prompt_tokens_details":{"cached_tokens":100}}})";

inline const char* kAnthropicGood = R"({"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-x",
 "content":[{"type":"text","text":"po"},{"type":"thinking","thinking":"..."},{"type":"text","text":"ng"}],
 "stop_reason":"end_turn","stop_sequence":null,
 "usage":{"input_tokens":20,"output_tokens":5,"cache_creation_input_tokens":30,"cache_read_input_tokens":50}})";

}  // namespace kernelblaster::llm::testing
