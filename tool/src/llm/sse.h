// Server-sent events, as both providers stream them: lines of `field: value`,
// events ended by a blank line. Bytes arrive in chunks cut anywhere (inside a
// line, inside a CR LF pair, inside a UTF-8 sequence); the parser keeps the
// unfinished tail until the next chunk.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kernelblaster::llm {

struct SseEvent {
  std::string event;  // "" when the server named none ("message")
  std::string data;   // data lines joined by '\n'
};

class SseParser {
 public:
  // Appends the complete events found in `chunk` to `out`.
  void feed(std::string_view chunk, std::vector<SseEvent>& out);
  // End of stream: an event not ended by a blank line is still delivered
  // (servers differ), and true means nothing was left half-read.
  bool finish(std::vector<SseEvent>& out);

 private:
  void line(std::string_view text, std::vector<SseEvent>& out);
  void dispatch(std::vector<SseEvent>& out);

  std::string m_pending;   // an unfinished line
  bool m_skip_lf = false;  // the last chunk ended in CR; a leading LF belongs to it
  SseEvent m_current;
  bool m_has_data = false;
};

}  // namespace kernelblaster::llm
