// One HTTP protocol (OpenAI Chat Completions, Anthropic Messages): how a
// Request becomes a body and headers, and how a body or a stream of SSE
// events becomes a Reply. The JSON of each stays in its own .cc file.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "llm/sse.h"
#include "llm/transport.h"
#include "llm/types.h"

namespace kernelblaster::llm {

// A provider's error object ({"error": {...}}), reduced to what decides.
struct ProviderError {
  std::string type;
  std::string code;
  std::string message;
  bool quota = false;       // billing, insufficient quota, a spend limit: never retried
  bool overloaded = false;  // a transient server error reported inside a 200 stream
};

// What a body or a stream decoded to: a reply, an error object, or neither.
struct Decoded {
  enum class Kind { reply, error, malformed } kind = Kind::malformed;
  Reply reply;
  ProviderError error;
  std::string problem;  // for malformed: what was wrong, one line
};

class StreamDecoder {
 public:
  virtual ~StreamDecoder() = default;
  virtual void event(const SseEvent& event) = 0;
  // `clean`: the SSE framing ended cleanly. A stream that never finished
  // (no [DONE], no message_stop) decodes to malformed.
  virtual Decoded finish(bool clean) = 0;
};

class Protocol {
 public:
  virtual ~Protocol() = default;
  virtual const char* name() const = 0;  // "openai", "anthropic"
  // `base_url` ends before the endpoint ("http://127.0.0.1:8000/v1").
  virtual HttpRequest build(const Request& request, const std::string& base_url, const std::string& model,
                            bool stream, const std::string& key) const = 0;
  // A whole (not streamed) body: not a JSON object is malformed, anything
  // else is the protocol's to read (decode_object).
  Decoded decode(std::string_view body) const;
  virtual std::unique_ptr<StreamDecoder> stream_decoder() const = 0;

 protected:
  virtual void decode_object(const nlohmann::json& j, Decoded& out) const = 0;
};

std::unique_ptr<Protocol> make_openai_protocol();
std::unique_ptr<Protocol> make_anthropic_protocol();

// What both protocols share. A POST of `body` to `url` with `headers` (the
// content type, the key, the stream's accept header), streamed or not.
HttpRequest json_post(std::string url, const nlohmann::json& body, std::vector<std::string> headers, bool stream);

// Decodes a whole SSE body with `protocol`'s stream decoder.
Decoded decode_stream(const Protocol& protocol, std::string_view body);

}  // namespace kernelblaster::llm
