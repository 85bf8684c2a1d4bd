#include "llm/sse.h"

namespace kernelblaster::llm {

void SseParser::feed(std::string_view chunk, std::vector<SseEvent>& out) {
  std::size_t i = 0;
  if (m_skip_lf && !chunk.empty()) {
    if (chunk[0] == '\n') i = 1;
    m_skip_lf = false;
  }
  while (i < chunk.size()) {
    std::size_t end = chunk.find_first_of("\r\n", i);
    if (end == std::string_view::npos) {
      m_pending.append(chunk.substr(i));
      return;
    }
    m_pending.append(chunk.substr(i, end - i));
    std::string text;
    text.swap(m_pending);
    line(text, out);
    if (chunk[end] == '\r') {
      if (end + 1 == chunk.size()) {
        m_skip_lf = true;
        return;
      }
      if (chunk[end + 1] == '\n') ++end;
    }
    i = end + 1;
  }
}

bool SseParser::finish(std::vector<SseEvent>& out) {
  bool clean = m_pending.empty() && !m_has_data;
  if (!m_pending.empty()) {
    std::string text;
    text.swap(m_pending);
    line(text, out);
  }
  dispatch(out);
  return clean;
}

void SseParser::line(std::string_view text, std::vector<SseEvent>& out) {
  if (text.empty()) {
    dispatch(out);
    return;
  }
  if (text[0] == ':') return;  // a comment (keep-alive)
  std::size_t colon = text.find(':');
  std::string_view field = text.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
  if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
  if (field == "data") {
    if (m_has_data) m_current.data += '\n';
    m_current.data.append(value);
    m_has_data = true;
  } else if (field == "event") {
    m_current.event = value;
  }
  // id and retry are of no use to a one-shot request
}

void SseParser::dispatch(std::vector<SseEvent>& out) {
  if (m_has_data) out.push_back(std::move(m_current));
  m_current = SseEvent{};
  m_has_data = false;
}

}  // namespace kernelblaster::llm
