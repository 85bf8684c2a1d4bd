#include "llm/protocol.h"

namespace kernelblaster::llm {

HttpRequest json_post(std::string url, const nlohmann::json& body, std::vector<std::string> headers, bool stream) {
  HttpRequest http;
  http.url = std::move(url);
  http.headers = std::move(headers);
  http.body = body.dump();
  http.stream = stream;
  return http;
}

Decoded Protocol::decode(std::string_view body) const {
  Decoded out;
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) out.problem = "the body is not a JSON object";
  else decode_object(j, out);
  return out;
}

Decoded decode_stream(const Protocol& protocol, std::string_view body) {
  SseParser parser;
  std::vector<SseEvent> events;
  parser.feed(body, events);
  bool clean = parser.finish(events);
  auto decoder = protocol.stream_decoder();
  for (const SseEvent& e : events) decoder->event(e);
  return decoder->finish(clean);
}

}  // namespace kernelblaster::llm
