// OpenAI Chat Completions (also vLLM, llama.cpp's server, Ollama's /v1, LM
// Studio and most gateways): POST {base}/chat/completions.
#include <nlohmann/json.hpp>

#include "llm/json_read.h"
#include "llm/protocol.h"

namespace kernelblaster::llm {
namespace {

using nlohmann::json;

ProviderError read_error(const json& e) {
  ProviderError err;
  err.type = str_at(e, "type");
  err.code = str_at(e, "code");
  err.message = str_at(e, "message");
  err.quota = err.code == "insufficient_quota" || err.type == "insufficient_quota" ||
              err.code == "billing_hard_limit_reached";
  err.overloaded = err.type == "server_error" || err.code == "server_error";
  return err;
}

Usage read_usage(const json& u) {
  Usage usage;
  usage.reported = u.is_object();
  usage.input = int_at(u, "prompt_tokens");
  usage.output = int_at(u, "completion_tokens");
  if (const json* d = obj_at(u, "prompt_tokens_details")) usage.cached_input = int_at(*d, "cached_tokens");
  return usage;
}

Finish read_finish(const std::string& reason) {
  if (reason == "length") return Finish::length;
  if (reason == "stop" || reason.empty()) return Finish::stop;
  return Finish::other;
}

class OpenAiStream : public StreamDecoder {
 public:
  void event(const SseEvent& event) override {
    if (m_bad) return;
    if (event.data == "[DONE]") {
      m_done = true;
      return;
    }
    json j = json::parse(event.data, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      m_bad = true;
      m_problem = "a stream event is not JSON";
      return;
    }
    if (const json* e = obj_at(j, "error")) {
      m_error = true;
      m_out.error = read_error(*e);
      return;
    }
    if (std::string model = str_at(j, "model"); !model.empty()) m_out.reply.model = model;
    if (const json* u = obj_at(j, "usage")) m_out.reply.usage = read_usage(*u);
    auto choices = j.find("choices");
    if (choices == j.end() || !choices->is_array() || choices->empty()) return;
    const json& c = (*choices)[0];
    if (const json* delta = obj_at(c, "delta")) m_out.reply.text += str_at(*delta, "content");
    if (std::string reason = str_at(c, "finish_reason"); !reason.empty()) {
      m_out.reply.finish = read_finish(reason);
      m_finished = true;
    }
  }

  Decoded finish(bool clean) override {
    if (m_error) {
      m_out.kind = Decoded::Kind::error;
      return m_out;
    }
    if (m_bad || !clean || !(m_done || m_finished)) {
      m_out.kind = Decoded::Kind::malformed;
      m_out.problem = m_bad ? m_problem : "the stream ended before its last event";
      return m_out;
    }
    m_out.kind = Decoded::Kind::reply;
    return m_out;
  }

 private:
  Decoded m_out;
  bool m_done = false, m_finished = false, m_bad = false, m_error = false;
  std::string m_problem;
};

class OpenAiProtocol : public Protocol {
 public:
  const char* name() const override { return "openai"; }

  HttpRequest build(const Request& request, const std::string& base_url, const std::string& model, bool stream,
                    const std::string& key) const override {
    json messages = json::array();
    for (const Message& m : request.messages) messages.push_back({{"role", role_name(m.role)}, {"content", m.content}});
    json body = {{"model", model}, {"messages", messages}, {"stream", stream}};
    body["max_completion_tokens"] = request.sampling.max_tokens;
    if (request.sampling.temperature) body["temperature"] = *request.sampling.temperature;
    if (!request.sampling.reasoning_effort.empty()) body["reasoning_effort"] = request.sampling.reasoning_effort;
    if (stream) body["stream_options"] = {{"include_usage", true}};
    std::vector<std::string> headers = {"Content-Type: application/json"};
    if (!key.empty()) headers.push_back("Authorization: Bearer " + key);
    if (stream) headers.push_back("Accept: text/event-stream");
    return json_post(base_url + "/chat/completions", body, std::move(headers), stream);
  }

  std::unique_ptr<StreamDecoder> stream_decoder() const override { return std::make_unique<OpenAiStream>(); }

 private:
  void decode_object(const json& j, Decoded& out) const override {
    if (const json* e = obj_at(j, "error")) {
      out.kind = Decoded::Kind::error;
      out.error = read_error(*e);
      return;
    }
    auto choices = j.find("choices");
    if (choices == j.end() || !choices->is_array() || choices->empty() || !(*choices)[0].is_object()) {
      out.problem = "no choices in the reply";
      return;
    }
    const json& c = (*choices)[0];
    const json* message = obj_at(c, "message");
    if (!message) {
      out.problem = "the first choice has no message";
      return;
    }
    out.kind = Decoded::Kind::reply;
    out.reply.text = str_at(*message, "content");  // null content (a refusal, tool calls): empty text
    out.reply.model = str_at(j, "model");
    out.reply.finish = read_finish(str_at(c, "finish_reason"));
    if (const json* u = obj_at(j, "usage")) out.reply.usage = read_usage(*u);
  }
};

}  // namespace

std::unique_ptr<Protocol> make_openai_protocol() { return std::make_unique<OpenAiProtocol>(); }

}  // namespace kernelblaster::llm
