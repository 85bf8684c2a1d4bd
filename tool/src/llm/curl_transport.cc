#include "llm/curl_transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <chrono>

namespace kernelblaster::llm {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Transfer {
  const HttpRequest* request;
  const BodyObserver* observer;
  HttpResponse* response;
  double last_byte_s;
  bool stalled = false;
  bool oversized = false;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::size_t n = size * count;
  t->last_byte_s = now_s();
  if (t->response->body.size() + n > t->request->max_bytes) {
    t->oversized = true;
    return 0;  // stops the transfer with CURLE_WRITE_ERROR
  }
  t->response->body.append(data, n);
  if (*t->observer) (*t->observer)(std::string_view(data, n));
  return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::size_t n = size * count;
  t->last_byte_s = now_s();
  std::string line(data, n);
  if (line.rfind("HTTP/", 0) == 0) {  // a new response (after a 100 Continue or a redirect)
    t->response->headers.clear();
    return n;
  }
  std::size_t colon = line.find(':');
  if (colon == std::string::npos) return n;
  std::string name = line.substr(0, colon);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  std::string value = line.substr(colon + 1);
  auto first = value.find_first_not_of(" \t");
  auto last = value.find_last_not_of(" \t\r\n");
  t->response->headers[name] = first == std::string::npos ? "" : value.substr(first, last - first + 1);
  return n;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (t->request->stream && t->request->stall_timeout_s > 0 && now_s() - t->last_byte_s > t->request->stall_timeout_s) {
    t->stalled = true;
    return 1;  // CURLE_ABORTED_BY_CALLBACK
  }
  return 0;
}

}  // namespace

CurlTransport::CurlTransport() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

CurlTransport::~CurlTransport() {
  for (void* h : m_idle) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* CurlTransport::take_handle() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_idle.empty()) {
      void* h = m_idle.back();
      m_idle.pop_back();
      curl_easy_reset(static_cast<CURL*>(h));
      return h;
    }
  }
  return curl_easy_init();
}

void CurlTransport::give_back(void* handle) {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_idle.size() < 8) m_idle.push_back(handle);
  else curl_easy_cleanup(static_cast<CURL*>(handle));
}

HttpResponse CurlTransport::send(const HttpRequest& request, const BodyObserver& observer) {
  HttpResponse response;
  CURL* curl = static_cast<CURL*>(take_handle());
  if (!curl) {
    response.error = "libcurl could not start a transfer";
    return response;
  }
  Transfer t{&request, &observer, &response, now_s()};
  curl_slist* headers = nullptr;
  for (const std::string& h : request.headers) headers = curl_slist_append(headers, h.c_str());
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip before large prompts
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPIDLE, 30L);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPINTVL, 15L);
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout_s * 1000));
  if (request.total_timeout_s > 0)
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.total_timeout_s * 1000));
  CURLcode code = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  response.http_status = static_cast<int>(status);
  curl_slist_free_all(headers);
  give_back(curl);
  if (t.stalled) {
    response.status = TransportStatus::stalled;
    response.error = "stalled";
  } else if (t.oversized) {
    response.status = TransportStatus::oversized;
  } else if (code != CURLE_OK) {
    response.status = TransportStatus::failed;
    response.error = curl_easy_strerror(code);
  } else {
    response.status = TransportStatus::ok;
  }
  return response;
}

}  // namespace kernelblaster::llm
