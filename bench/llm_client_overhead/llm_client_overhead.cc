// What the LLM client itself costs per request, apart from the provider's
// time: the cache key, the request body, the parse of a plain and of a
// streamed reply, and a whole Client::ask through the retry loop with a
// transport that answers at once (a cache miss that records, then a hit).
//
// usage: llm_client_overhead [--iterations N] [--check-ms LIMIT]
// Prints one line per step: median and p99 in microseconds. With --check-ms,
// exits 1 when a whole request (miss or hit) has a median above LIMIT.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "llm/client.h"
#include "llm/http_provider.h"
#include "llm/protocol.h"
#include "llm/response_cache.h"

using namespace kernelblaster::llm;

namespace {

class InstantTransport : public Transport {
 public:
  std::string body;
  HttpResponse send(const HttpRequest&, const BodyObserver&) override {
    HttpResponse r;
    r.status = TransportStatus::ok;
    r.http_status = 200;
    r.body = body;
    return r;
  }
};

// A typical kernel-rewrite exchange: a 4 KB system prompt, a 16 KB user
// prompt (a kernel, its profile, KB notes), an 8 KB reply.
Request typical_request(int salt) {
  std::string kernel;
  while (kernel.size() < 16000) kernel += "  out[i] = fmaxf(in[i] * scale + bias, 0.0f);  // line " + std::to_string(kernel.size()) + "\n";
  Request r;
  r.messages = {{Role::system, std::string(4000, 's')}, {Role::user, "request " + std::to_string(salt) + "\n" + kernel}};
  r.sampling.max_tokens = 4096;
  r.sampling.temperature = 0.2;
  return r;
}

std::string reply_text() {
  std::string t;
  while (t.size() < 8000) t += "__global__ void k(float* o, const float* i) { o[threadIdx.x] = i[threadIdx.x]; }\n";
  return t;
}

std::string plain_body() {
  nlohmann::json j = {{"model", "gpt-test"},
                      {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", reply_text()}}}, {"finish_reason", "stop"}}}},
                      {"usage", {{"prompt_tokens", 5000}, {"completion_tokens", 2000}}}};
  return j.dump();
}

std::string stream_body() {
  std::string text = reply_text(), out;
  for (std::size_t i = 0; i < text.size(); i += 20) {  // about one token per event
    nlohmann::json e = {{"choices", {{{"delta", {{"content", text.substr(i, 20)}}}, {"finish_reason", nullptr}}}}};
    out += "data: " + e.dump() + "\n\n";
  }
  out += "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
  out += "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5000,\"completion_tokens\":2000}}\n\ndata: [DONE]\n\n";
  return out;
}

struct Stat {
  double median_us, p99_us;
};

Stat measure(int n, const std::function<void(int)>& step) {
  std::vector<double> us;
  for (int i = 0; i < n; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    step(i);
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], us[std::min(us.size() - 1, us.size() * 99 / 100)]};
}

void print(const char* what, Stat s) { std::printf("%-44s median %9.1f us   p99 %9.1f us\n", what, s.median_us, s.p99_us); }

}  // namespace

int main(int argc, char** argv) {
  int n = 200;
  double check_ms = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--iterations") n = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--check-ms") check_ms = std::atof(argv[i + 1]);
  }
  auto openai = make_openai_protocol();
  std::vector<Request> requests;
  for (int i = 0; i < n; ++i) requests.push_back(typical_request(i));
  const std::string plain = plain_body(), stream = stream_body();
  volatile std::size_t sink = 0;

  print("cache key (SHA-256 of 20 KB of messages)", measure(n, [&](int i) { sink = sink + request_key("openai", "gpt-test", requests[i]).size(); }));
  print("request build (JSON body + headers)", measure(n, [&](int i) {
          sink = sink + openai->build(requests[i], "http://h/v1", "gpt-test", true, "k").body.size();
        }));
  print("parse plain reply (8 KB)", measure(n, [&](int) { sink = sink + openai->decode(plain).reply.text.size(); }));
  print("parse streamed reply (8 KB, 400 SSE events)",
        measure(n, [&](int) { sink = sink + decode_stream(*openai, stream).reply.text.size(); }));

  std::string dir = kernelblaster::make_work_dir("llm-overhead");
  InstantTransport net;
  net.body = stream;
  SteadyClock clock;
  HttpSettings s;
  s.base_url = "http://h/v1";
  s.model = "gpt-test";
  LlmConfig config;
  config.model = "gpt-test";
  config.cache_mode = CacheMode::automatic;
  config.cache_dir = dir;
  Client client(config, std::make_unique<HttpProvider>(make_openai_protocol(), net, clock, s, "k", [] { return 0.5; }),
                PriceTable(), clock);
  Stat miss = measure(n, [&](int i) { sink = sink + client.ask("k", requests[i]).reply.text.size(); });
  print("whole ask, cache miss (build+parse+record)", miss);
  Stat hit = measure(n, [&](int i) { sink = sink + client.ask("k", requests[i]).reply.text.size(); });
  print("whole ask, cache hit (key+lookup)", hit);
  config.cache_mode = CacheMode::off;
  Client plain_client(config, std::make_unique<HttpProvider>(make_openai_protocol(), net, clock, s, "k", [] { return 0.5; }),
                      PriceTable(), clock);
  Stat off = measure(n, [&](int i) { sink = sink + plain_client.ask("k", requests[i]).reply.text.size(); });
  print("whole ask, cache off (build+parse)", off);
  std::filesystem::remove_all(dir);
  if (check_ms > 0) {
    double worst = std::max({miss.median_us, hit.median_us, off.median_us}) / 1000;
    std::printf("worst median %.3f ms, limit %.3f ms: %s\n", worst, check_ms, worst <= check_ms ? "ok" : "OVER");
    return worst <= check_ms ? 0 : 1;
  }
  return 0;
}
