// The seam between the LLM client and the network. The real one is libcurl
// (curl_transport); tests drive the client through scripted fakes, and
// through the real one against a server on loopback.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kernelblaster::llm {

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"; may hold the key: never log them
  std::string body;
  bool stream = false;
  double connect_timeout_s = 10;
  // Nothing received for this long ends the request as `stalled`; streams
  // rely on it instead of a short total timeout.
  double stall_timeout_s = 120;
  double total_timeout_s = 600;  // 0: none
  std::size_t max_bytes = 8 << 20;
};

enum class TransportStatus {
  ok,         // an HTTP response arrived in full (any status)
  failed,     // no complete response: connect, reset, DNS, total timeout
  stalled,    // the stall timeout passed with nothing received
  oversized,  // the body passed max_bytes; the transfer was stopped
};

struct HttpResponse {
  TransportStatus status = TransportStatus::failed;
  int http_status = 0;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;                            // what arrived, also when cut short
  std::string error;                           // one line for failed/stalled
};

// Called with each piece of the body as it arrives (progress display).
using BodyObserver = std::function<void(std::string_view)>;

class Transport {
 public:
  virtual ~Transport() = default;
  virtual HttpResponse send(const HttpRequest& request, const BodyObserver& observer) = 0;
};

}  // namespace kernelblaster::llm
