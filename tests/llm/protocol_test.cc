#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fakes.h"
#include "llm/protocol.h"

namespace kernelblaster::llm {
namespace {

using nlohmann::json;
using testing::kAnthropicGood;
using testing::kOpenAiGood;

Request ask(std::string text) {
  Request r;
  r.messages = {{Role::system, "be brief"}, {Role::user, std::move(text)}};
  r.sampling.max_tokens = 64;
  r.sampling.temperature = 0.2;
  return r;
}

TEST(OpenAi, BuildsChatCompletions) {
  auto p = make_openai_protocol();
  HttpRequest h = p->build(ask("hi"), "http://x/v1", "gpt-4o", true, "sk-secret");
  EXPECT_EQ(h.url, "http://x/v1/chat/completions");
  json body = json::parse(h.body);
  EXPECT_EQ(body["model"], "gpt-4o");
  EXPECT_EQ(body["max_completion_tokens"], 64);
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.2);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["stream_options"]["include_usage"], true);
  EXPECT_EQ(h.body.find("sk-secret"), std::string::npos);
  EXPECT_NE(std::find(h.headers.begin(), h.headers.end(), "Authorization: Bearer sk-secret"), h.headers.end());
  HttpRequest no_key = p->build(ask("hi"), "http://x/v1", "m", false, "");
  for (const auto& header : no_key.headers) EXPECT_EQ(header.find("Authorization"), std::string::npos);
  EXPECT_FALSE(json::parse(no_key.body).contains("stream_options"));
}

TEST(OpenAi, DecodesReplyAndUsage) {
  Decoded d = make_openai_protocol()->decode(kOpenAiGood);
  ASSERT_EQ(d.kind, Decoded::Kind::reply);
  EXPECT_EQ(d.reply.text, "pong");
  EXPECT_EQ(d.reply.model, "gpt-4o-mini-2024-07-18");
  EXPECT_EQ(d.reply.finish, Finish::stop);
  EXPECT_TRUE(d.reply.usage.reported);
  EXPECT_EQ(d.reply.usage.input, 120);
  EXPECT_EQ(d.reply.usage.output, 7);
  EXPECT_EQ(d.reply.usage.cached_input, 100);
}

TEST(OpenAi, NullContentLengthAndMissingUsage) {
  Decoded d = make_openai_protocol()->decode(
      R"({"choices":[{"message":{"role":"assistant","content":null},"finish_reason":"length"}]})");
  ASSERT_EQ(d.kind, Decoded::Kind::reply);
  EXPECT_EQ(d.reply.text, "");
  EXPECT_EQ(d.reply.finish, Finish::length);
  EXPECT_FALSE(d.reply.usage.reported);
}

TEST(OpenAi, ErrorsAndQuota) {
  auto p = make_openai_protocol();
  Decoded q = p->decode(R"({"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}})");
  ASSERT_EQ(q.kind, Decoded::Kind::error);
  EXPECT_TRUE(q.error.quota);
  Decoded rl = p->decode(R"({"error":{"message":"Rate limit","type":"requests","code":"rate_limit_exceeded"}})");
  EXPECT_FALSE(rl.error.quota);
}

TEST(OpenAi, MalformedNeverThrows) {
  auto p = make_openai_protocol();
  for (const char* body : {"", "{", "[]", "null", "{\"choices\":[]}", "{\"choices\":[1]}", "{\"choices\":[{}]}",
                           "{\"choices\":[{\"message\":{\"content\":\"cut", "<html>502</html>"}) {
    SCOPED_TRACE(body);
    EXPECT_EQ(p->decode(body).kind, Decoded::Kind::malformed);
    EXPECT_EQ(decode_stream(*p, body).kind, Decoded::Kind::malformed);
  }
}

const std::string kOpenAiStream =
    "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}],\"model\":\"gpt-4o\"}\n\n"
    "data: {\"choices\":[{\"delta\":{\"content\":\"po\"},\"finish_reason\":null}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"content\":\"ng\"},\"finish_reason\":\"stop\"}]}\n\n"
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2,\"prompt_tokens_details\":{\"cached_tokens\":0}}}\n\n"
    "data: [DONE]\n\n";

TEST(OpenAi, DecodesStream) {
  Decoded d = decode_stream(*make_openai_protocol(), kOpenAiStream);
  ASSERT_EQ(d.kind, Decoded::Kind::reply);
  EXPECT_EQ(d.reply.text, "pong");
  EXPECT_EQ(d.reply.model, "gpt-4o");
  EXPECT_EQ(d.reply.usage.input, 9);
  EXPECT_EQ(d.reply.usage.output, 2);
}

TEST(OpenAi, StreamCutOffIsMalformed) {
  std::string cut = kOpenAiStream.substr(0, kOpenAiStream.find("\"ng\""));
  EXPECT_EQ(decode_stream(*make_openai_protocol(), cut).kind, Decoded::Kind::malformed);
}

TEST(Anthropic, BuildsMessages) {
  HttpRequest h = make_anthropic_protocol()->build(ask("hi"), "http://x/v1", "claude", false, "sk-ant");
  EXPECT_EQ(h.url, "http://x/v1/messages");
  json body = json::parse(h.body);
  EXPECT_EQ(body["system"], "be brief");
  ASSERT_EQ(body["messages"].size(), 1u);
  EXPECT_EQ(body["messages"][0]["role"], "user");
  EXPECT_EQ(body["max_tokens"], 64);
  EXPECT_FALSE(body.contains("stream"));
  EXPECT_NE(std::find(h.headers.begin(), h.headers.end(), "x-api-key: sk-ant"), h.headers.end());
  EXPECT_NE(std::find(h.headers.begin(), h.headers.end(), "anthropic-version: 2023-06-01"), h.headers.end());
}

TEST(Anthropic, DecodesReplyAndCacheUsage) {
  Decoded d = make_anthropic_protocol()->decode(kAnthropicGood);
  ASSERT_EQ(d.kind, Decoded::Kind::reply);
  EXPECT_EQ(d.reply.text, "pong");
  EXPECT_EQ(d.reply.usage.input, 100);  // 20 + 30 written + 50 read
  EXPECT_EQ(d.reply.usage.cached_input, 50);
  EXPECT_EQ(d.reply.usage.cache_write, 30);
  EXPECT_EQ(d.reply.usage.output, 5);
}

TEST(Anthropic, MaxTokensAndBilling) {
  auto p = make_anthropic_protocol();
  Decoded d = p->decode(R"({"type":"message","content":[{"type":"text","text":"par"}],"stop_reason":"max_tokens","usage":{"input_tokens":3,"output_tokens":64}})");
  EXPECT_EQ(d.reply.finish, Finish::length);
  Decoded b = p->decode(R"({"type":"error","error":{"type":"billing_error","message":"Your credit balance is too low"}})");
  ASSERT_EQ(b.kind, Decoded::Kind::error);
  EXPECT_TRUE(b.error.quota);
  Decoded s = p->decode(R"({"type":"error","error":{"type":"rate_limit_error","message":"x","details":{"error_code":"enforced_spend_limit_reached"}}})");
  EXPECT_TRUE(s.error.quota);
  Decoded o = p->decode(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  EXPECT_FALSE(o.error.quota);
}

const std::string kAnthropicStream =
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-x\",\"usage\":{\"input_tokens\":11,\"output_tokens\":1}}}\n\n"
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
    "event: ping\ndata: {\"type\":\"ping\"}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"po\"}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ng\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":4}}\n\n"
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

TEST(Anthropic, DecodesStream) {
  Decoded d = decode_stream(*make_anthropic_protocol(), kAnthropicStream);
  ASSERT_EQ(d.kind, Decoded::Kind::reply);
  EXPECT_EQ(d.reply.text, "pong");
  EXPECT_EQ(d.reply.model, "claude-x");
  EXPECT_EQ(d.reply.usage.input, 11);
  EXPECT_EQ(d.reply.usage.output, 4);
}

TEST(Anthropic, ErrorEventAfter200) {
  std::string s = kAnthropicStream.substr(0, kAnthropicStream.find("event: content_block_stop")) +
                  "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
  Decoded d = decode_stream(*make_anthropic_protocol(), s);
  ASSERT_EQ(d.kind, Decoded::Kind::error);
  EXPECT_TRUE(d.error.overloaded);
}

TEST(Anthropic, StreamWithoutStopIsMalformed) {
  std::string s = kAnthropicStream.substr(0, kAnthropicStream.find("event: message_stop"));
  EXPECT_EQ(decode_stream(*make_anthropic_protocol(), s).kind, Decoded::Kind::malformed);
}

}  // namespace
}  // namespace kernelblaster::llm
