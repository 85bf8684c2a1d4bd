// The real transport: libcurl. A stall (nothing received for the stall
// timeout) is measured by a progress callback from the last byte, so a long
// stream that keeps sending is never cut by a total timeout.
#pragma once

#include <mutex>
#include <vector>

#include "llm/transport.h"

namespace kernelblaster::llm {

class CurlTransport : public Transport {
 public:
  CurlTransport();
  ~CurlTransport() override;
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;
  // Thread-safe: each call takes an easy handle from a small pool, so
  // keep-alive connections are reused between requests.
  HttpResponse send(const HttpRequest& request, const BodyObserver& observer) override;

 private:
  void* take_handle();
  void give_back(void* handle);

  std::mutex m_mutex;
  std::vector<void*> m_idle;  // CURL*
};

}  // namespace kernelblaster::llm
