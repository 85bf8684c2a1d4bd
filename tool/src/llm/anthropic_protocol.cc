// Anthropic Messages: POST {base}/messages. The system prompt is top level,
// max_tokens is required, there is no n and no seed.
#include <nlohmann/json.hpp>

#include "llm/json_read.h"
#include "llm/protocol.h"

namespace kernelblaster::llm {
namespace {

using nlohmann::json;

ProviderError read_error(const json& e) {
  ProviderError err;
  err.type = str_at(e, "type");
  err.message = str_at(e, "message");
  if (const json* d = obj_at(e, "details")) err.code = str_at(*d, "error_code");
  err.quota = err.type == "billing_error" || err.code == "enforced_spend_limit_reached" ||
              err.message.find("credit balance") != std::string::npos;
  err.overloaded = err.type == "overloaded_error" || err.type == "api_error";
  return err;
}

// input_tokens excludes what was read from or written to the prompt cache;
// Usage::input counts every prompt token.
void read_usage(const json& u, Usage& usage) {
  usage.reported = true;
  std::int64_t read = int_at(u, "cache_read_input_tokens"), write = int_at(u, "cache_creation_input_tokens");
  if (u.contains("input_tokens")) {
    usage.input = int_at(u, "input_tokens") + read + write;
    usage.cached_input = read;
    usage.cache_write = write;
  }
  if (u.contains("output_tokens")) usage.output = int_at(u, "output_tokens");
}

Finish read_stop(const std::string& reason) {
  if (reason == "max_tokens") return Finish::length;
  if (reason == "end_turn" || reason == "stop_sequence" || reason.empty()) return Finish::stop;
  return Finish::other;
}

class AnthropicStream : public StreamDecoder {
 public:
  void event(const SseEvent& event) override {
    if (m_bad) return;
    json j = json::parse(event.data, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      m_bad = true;
      return;
    }
    std::string type = str_at(j, "type");
    if (type == "message_start") {
      if (const json* m = obj_at(j, "message")) {
        m_out.reply.model = str_at(*m, "model");
        if (const json* u = obj_at(*m, "usage")) read_usage(*u, m_out.reply.usage);
      }
    } else if (type == "content_block_delta") {
      if (const json* d = obj_at(j, "delta"); d && str_at(*d, "type") == "text_delta") m_out.reply.text += str_at(*d, "text");
    } else if (type == "message_delta") {
      if (const json* d = obj_at(j, "delta")) m_out.reply.finish = read_stop(str_at(*d, "stop_reason"));
      if (const json* u = obj_at(j, "usage")) read_usage(*u, m_out.reply.usage);
    } else if (type == "message_stop") {
      m_stopped = true;
    } else if (type == "error") {
      m_error = true;
      if (const json* e = obj_at(j, "error")) m_out.error = read_error(*e);
    }
  }

  Decoded finish(bool clean) override {
    if (m_error) {
      m_out.kind = Decoded::Kind::error;
    } else if (m_bad || !clean || !m_stopped) {
      m_out.kind = Decoded::Kind::malformed;
      m_out.problem = m_bad ? "a stream event is not JSON" : "the stream ended before message_stop";
    } else {
      m_out.kind = Decoded::Kind::reply;
    }
    return m_out;
  }

 private:
  Decoded m_out;
  bool m_stopped = false, m_bad = false, m_error = false;
};

class AnthropicProtocol : public Protocol {
 public:
  const char* name() const override { return "anthropic"; }

  HttpRequest build(const Request& request, const std::string& base_url, const std::string& model, bool stream,
                    const std::string& key) const override {
    json messages = json::array();
    std::string system;
    for (const Message& m : request.messages) {
      if (m.role == Role::system) {
        system += (system.empty() ? "" : "\n\n") + m.content;
        continue;
      }
      messages.push_back({{"role", role_name(m.role)}, {"content", m.content}});
    }
    json body = {{"model", model}, {"max_tokens", request.sampling.max_tokens}, {"messages", messages}};
    if (!system.empty()) body["system"] = system;
    if (request.sampling.temperature) body["temperature"] = *request.sampling.temperature;
    if (stream) body["stream"] = true;
    std::vector<std::string> headers = {"content-type: application/json", "anthropic-version: 2023-06-01"};
    if (!key.empty()) headers.push_back("x-api-key: " + key);
    if (stream) headers.push_back("accept: text/event-stream");
    return json_post(base_url + "/messages", body, std::move(headers), stream);
  }

  std::unique_ptr<StreamDecoder> stream_decoder() const override { return std::make_unique<AnthropicStream>(); }

 private:
  void decode_object(const json& j, Decoded& out) const override {
    if (const json* e = obj_at(j, "error"); e || str_at(j, "type") == "error") {
      out.kind = Decoded::Kind::error;
      if (e) out.error = read_error(*e);
      return;
    }
    auto content = j.find("content");
    if (content == j.end() || !content->is_array()) {
      out.problem = "no content in the reply";
      return;
    }
    out.kind = Decoded::Kind::reply;
    for (const json& block : *content)
      if (str_at(block, "type") == "text") out.reply.text += str_at(block, "text");
    out.reply.model = str_at(j, "model");
    out.reply.finish = read_stop(str_at(j, "stop_reason"));
    if (const json* u = obj_at(j, "usage")) read_usage(*u, out.reply.usage);
  }
};

}  // namespace

std::unique_ptr<Protocol> make_anthropic_protocol() { return std::make_unique<AnthropicProtocol>(); }

}  // namespace kernelblaster::llm
