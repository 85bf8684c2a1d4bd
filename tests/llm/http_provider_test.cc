// The retry loop's decisions, with a scripted transport and a clock that
// only records the waits.
#include <gtest/gtest.h>

#include "fakes.h"
#include "llm/http_provider.h"

namespace kernelblaster::llm {
namespace {

using namespace testing;

const char* kKey = "sk-UNIQUE-MARKER-7f3a";

struct Rig {
  ScriptedTransport net;
  FakeClock clock;
  HttpSettings settings;
  Rig(bool stream = false) {
    settings.base_url = "http://127.0.0.1:9/v1";
    settings.model = "gpt-4o-mini";
    settings.stream = stream;
    settings.stall_timeout_s = 2;
    settings.max_reply_bytes = 1000;
  }
  Result run(std::unique_ptr<Protocol> protocol = make_openai_protocol()) {
    HttpProvider p(std::move(protocol), net, clock, settings, kKey, [] { return 0.5; });
    Request r;
    r.messages = {{Role::user, "ping"}};
    return p.complete(r, {});
  }
};

TEST(HttpProvider, GoodReplyFirstTime) {
  Rig rig;
  rig.net.script = {http(200, kOpenAiGood)};
  Result r = rig.run();
  EXPECT_EQ(r.outcome, Outcome::ok);
  EXPECT_EQ(r.reply.text, "pong");
  EXPECT_EQ(r.attempts, 1);
  EXPECT_TRUE(rig.clock.sleeps.empty());
  ASSERT_EQ(rig.net.sent.size(), 1u);
  EXPECT_EQ(rig.net.sent[0].total_timeout_s, 600);
}

TEST(HttpProvider, RateLimitHonoursRetryAfter) {
  Rig rig;
  rig.net.script = {http(429, R"({"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}})",
                         {{"retry-after", "2"}}),
                    http(200, kOpenAiGood)};
  Result r = rig.run();
  EXPECT_EQ(r.outcome, Outcome::ok);
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(rig.clock.sleeps, std::vector<double>{2.0});
  EXPECT_DOUBLE_EQ(r.waited_s, 2.0);
}

TEST(HttpProvider, ServerErrorThenSuccessBacksOffWithJitter) {
  Rig rig;
  rig.net.script = {http(500, "oops"), http(529, R"({"type":"error","error":{"type":"overloaded_error"}})"),
                    http(200, kOpenAiGood)};
  Result r = rig.run();
  EXPECT_EQ(r.outcome, Outcome::ok);
  EXPECT_EQ(r.attempts, 3);
  EXPECT_EQ(rig.clock.sleeps, (std::vector<double>{0.5 * 0.875, 1.0 * 0.875}));
}

TEST(HttpProvider, TransportErrorsAreRetriedThenReported) {
  Rig rig;
  rig.net.script = {transport(TransportStatus::failed, "Couldn't connect to server")};
  Result r = rig.run();  // the script then runs out: every attempt fails
  EXPECT_EQ(r.outcome, Outcome::transport_error);
  EXPECT_EQ(r.attempts, 4);
  EXPECT_EQ(rig.clock.sleeps.size(), 3u);
  EXPECT_NE(r.detail.find("gave up after 4 attempts"), std::string::npos) << r.detail;
}

TEST(HttpProvider, RateLimitedOnEveryAttempt) {
  Rig rig;
  for (int i = 0; i < 4; ++i) rig.net.script.push_back(http(429, "{}", {{"retry-after", "1"}}));
  Result r = rig.run();
  EXPECT_EQ(r.outcome, Outcome::rate_limited_exhausted);
  EXPECT_EQ(r.detail, "LLM provider rate limited (429 from 127.0.0.1:9), gave up after 4 attempts");
  EXPECT_EQ(rig.clock.sleeps, (std::vector<double>{1, 1, 1}));
}

TEST(HttpProvider, RefusedKeyIsOneLineAndNotRetried) {
  for (int status : {401, 403}) {
    Rig rig;
    rig.net.script = {http(status, std::string(R"({"error":{"message":"Incorrect API key provided: )") + kKey +
                                       R"(","type":"invalid_request_error","code":"invalid_api_key"}})")};
    Result r = rig.run();
    EXPECT_EQ(r.outcome, Outcome::http_refused_key);
    EXPECT_EQ(r.detail, "LLM provider refused the key (" + std::to_string(status) + " from 127.0.0.1:9)");
    EXPECT_EQ(r.attempts, 1);
    EXPECT_TRUE(rig.clock.sleeps.empty());
  }
}

TEST(HttpProvider, QuotaIsNotRetried) {
  Rig rig;
  rig.net.script = {http(429, R"({"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}})"),
                    http(200, kOpenAiGood)};
  Result r = rig.run();
  EXPECT_EQ(r.outcome, Outcome::quota);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_EQ(r.detail, "LLM provider refused for quota or billing (429 insufficient_quota from 127.0.0.1:9)");
}

TEST(HttpProvider, AnthropicBillingIsQuota) {
  Rig rig;
  rig.net.script = {http(400, R"({"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API."}})")};
  Result r = rig.run(make_anthropic_protocol());
  EXPECT_EQ(r.outcome, Outcome::quota);
  EXPECT_EQ(r.attempts, 1);
}

TEST(HttpProvider, BadRequestKeepsTheMessageButNeverTheKey) {
  Rig rig;
  rig.net.script = {http(400, std::string(R"({"error":{"message":"bad\nthing )") + kKey + R"(","type":"invalid_request_error"}})")};
  Result r = rig.run();
  EXPECT_EQ(r.outcome, Outcome::bad_request);
  EXPECT_EQ(r.detail.find(kKey), std::string::npos);
  EXPECT_EQ(r.detail.find('\n'), std::string::npos);
  EXPECT_NE(r.detail.find("bad thing ***"), std::string::npos) << r.detail;
}

TEST(HttpProvider, StallOversizedAndMalformedEndAtOnce) {
  struct Case {
    HttpResponse response;
    Outcome outcome;
    const char* detail;
  } cases[] = {
      {transport(TransportStatus::stalled), Outcome::stalled, "LLM stream stalled: nothing received for 2 s (127.0.0.1:9)"},
      {transport(TransportStatus::oversized), Outcome::oversized, "LLM reply exceeds the 1000-byte cap (127.0.0.1:9)"},
      {http(200, "{\"choices\":[{\"message\":{\"content\":\"cut"), Outcome::malformed_reply,
       "LLM reply is malformed (200 from 127.0.0.1:9): the body is not a JSON object"},
  };
  for (const Case& c : cases) {
    Rig rig;
    rig.net.script = {c.response, http(200, kOpenAiGood)};
    Result r = rig.run();
    EXPECT_EQ(r.outcome, c.outcome);
    EXPECT_EQ(r.detail, c.detail);
    EXPECT_EQ(r.attempts, 1);
  }
}

TEST(HttpProvider, MaxTokensIsTruncatedWithTheReply) {
  Rig rig;
  rig.net.script = {http(200, R"({"choices":[{"message":{"content":"half a ker"},"finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":16}})")};
  Result r = rig.run();
  EXPECT_EQ(r.outcome, Outcome::truncated);
  EXPECT_EQ(r.reply.text, "half a ker");
  EXPECT_EQ(r.reply.usage.output, 16);
  EXPECT_EQ(r.detail, "LLM reply cut off at max_tokens (16 output tokens)");
}

TEST(HttpProvider, StreamedRequestsUseTheStallTimeoutNotATotalOne) {
  Rig rig(true);
  rig.net.script = {http(200, "data: {\"choices\":[{\"delta\":{\"content\":\"pong\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")};
  Result r = rig.run();
  EXPECT_EQ(r.outcome, Outcome::ok);
  EXPECT_EQ(r.reply.text, "pong");
  EXPECT_EQ(r.reply.model, "gpt-4o-mini");  // the stream named none
  EXPECT_TRUE(rig.net.sent[0].stream);
  EXPECT_EQ(rig.net.sent[0].total_timeout_s, 0);
  EXPECT_EQ(rig.net.sent[0].stall_timeout_s, 2);
}

TEST(HttpProvider, StreamRequestAnsweredWithPlainJsonError) {
  Rig rig(true);
  rig.net.script = {http(401, R"({"error":{"message":"no","type":"invalid_request_error"}})")};
  EXPECT_EQ(rig.run().outcome, Outcome::http_refused_key);
}

TEST(HttpProvider, OverloadedErrorInsideA200StreamIsRetried) {
  Rig rig(true);
  rig.net.script = {
      http(200, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"),
      http(200, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"c\",\"usage\":{\"input_tokens\":1}}}\n\n"
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n"
                "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n"
                "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")};
  Result r = rig.run(make_anthropic_protocol());
  EXPECT_EQ(r.outcome, Outcome::ok);
  EXPECT_EQ(r.reply.text, "ok");
  EXPECT_EQ(r.attempts, 2);
}

TEST(CleanDetail, OneLineNoSecretBounded) {
  std::string d = clean_detail("a\nb " + std::string(kKey) + std::string(400, 'x'), kKey);
  EXPECT_EQ(d.find(kKey), std::string::npos);
  EXPECT_EQ(d.find('\n'), std::string::npos);
  EXPECT_LE(d.size(), 300u);
}

}  // namespace
}  // namespace kernelblaster::llm
