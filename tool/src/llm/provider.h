// Something that answers a Request: an HTTP protocol behind retries
// (http_provider) or a local program (command_provider).
#pragma once

#include <functional>
#include <string>

#include "llm/types.h"

namespace kernelblaster::llm {

// Bytes of the reply received so far; for a progress display.
using Progress = std::function<void(std::size_t bytes)>;

class Provider {
 public:
  virtual ~Provider() = default;
  // Never throws for anything the provider or the network does: every such
  // failure is a Result with its Outcome and one line of detail.
  virtual Result complete(const Request& request, const Progress& progress) = 0;
};

// Replaces every occurrence of `secret` in `text` with "***", and cuts the
// text to one line of at most 300 characters: the shape of every detail.
std::string clean_detail(std::string text, const std::string& secret);

}  // namespace kernelblaster::llm
