// The command provider: any local program as the LLM. The request goes to
// its stdin as JSON ({"model", "messages": [{"role", "content"}],
// "max_tokens", "temperature"?, "reasoning_effort"?}); its stdout is the
// reply, either plain text or {"text": ..., "finish": "stop"|"length",
// "usage": {"input", "output", "cached_input"}}. It runs through /bin/sh in
// its own process group with a deadline, and never sees an API key.
#pragma once

#include <string>

#include "llm/provider.h"

namespace kernelblaster::llm {

class CommandProvider : public Provider {
 public:
  CommandProvider(std::string command, std::string model, double timeout_s, std::size_t max_reply_bytes);
  Result complete(const Request& request, const Progress& progress) override;

 private:
  std::string m_command;
  std::string m_model;
  double m_timeout_s;
  std::size_t m_max_reply_bytes;
};

// The stdin document and the stdout reading, apart for tests.
std::string command_prompt_json(const Request& request, const std::string& model);
Result read_command_reply(const std::string& out, const std::string& model);

}  // namespace kernelblaster::llm
