#include "llm/http_provider.h"

#include <string_view>

namespace kernelblaster::llm {

std::string clean_detail(std::string text, const std::string& secret) {
  if (!secret.empty())
    for (std::size_t at; (at = text.find(secret)) != std::string::npos;) text.replace(at, secret.size(), "***");
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (text.size() > 300) text = text.substr(0, 297) + "...";
  return text;
}

HttpProvider::HttpProvider(std::unique_ptr<Protocol> protocol, Transport& transport, Clock& clock,
                           HttpSettings settings, std::string key, std::function<double()> unit_random)
    : m_protocol(std::move(protocol)),
      m_transport(transport),
      m_clock(clock),
      m_settings(std::move(settings)),
      m_key(std::move(key)),
      m_random(std::move(unit_random)) {}

std::string HttpProvider::host() const {
  std::string_view url = m_settings.base_url;
  if (auto scheme = url.find("://"); scheme != std::string_view::npos) url.remove_prefix(scheme + 3);
  return std::string(url.substr(0, url.find('/')));
}

Result HttpProvider::complete(const Request& request, const Progress& progress) {
  HttpRequest http = m_protocol->build(request, m_settings.base_url, m_settings.model, m_settings.stream, m_key);
  http.connect_timeout_s = m_settings.connect_timeout_s;
  http.stall_timeout_s = m_settings.stall_timeout_s;
  http.total_timeout_s = m_settings.stream ? 0 : m_settings.total_timeout_s;
  http.max_bytes = m_settings.max_reply_bytes;
  std::size_t received = 0;
  BodyObserver observer = [&](std::string_view piece) {
    received += piece.size();
    if (progress) progress(received);
  };
  double waited = 0;
  const int attempts = std::max(1, m_settings.retry.max_attempts);
  for (int attempt = 1;; ++attempt) {
    received = 0;
    Attempt a = judge(m_transport.send(http, observer));
    a.result.attempts = attempt;
    if (!a.retry || attempt == attempts) {
      if (a.retry) a.result.detail += ", gave up after " + std::to_string(attempt) + " attempts";
      a.result.waited_s = waited;
      return a.result;
    }
    double wait = a.hint ? *a.hint : backoff_s(m_settings.retry, attempt - 1, m_random ? m_random() : 0.0);
    m_clock.sleep_s(wait);
    waited += wait;
  }
}

HttpProvider::Attempt HttpProvider::judge(const HttpResponse& response) const {
  Attempt a;
  Result& r = a.result;
  r.http_status = response.http_status;
  switch (response.status) {
    case TransportStatus::failed:
      r.outcome = Outcome::transport_error;
      r.detail = line("LLM provider unreachable (" + host() + ": " + response.error + ")");
      a.retry = true;
      return a;
    case TransportStatus::stalled:
      r.outcome = Outcome::stalled;
      r.detail = line("LLM stream stalled: nothing received for " + std::to_string(int(m_settings.stall_timeout_s + 0.5)) +
                      " s (" + host() + ")");
      return a;
    case TransportStatus::oversized:
      r.outcome = Outcome::oversized;
      r.detail = line("LLM reply exceeds the " + std::to_string(m_settings.max_reply_bytes) + "-byte cap (" + host() + ")");
      return a;
    case TransportStatus::ok:
      break;
  }
  const std::string status = std::to_string(response.http_status);
  const bool plain_json = !response.body.empty() && response.body.find_first_not_of(" \r\n\t") != std::string::npos &&
                          response.body[response.body.find_first_not_of(" \r\n\t")] == '{';
  Decoded decoded = (m_settings.stream && !plain_json) ? decode_stream(*m_protocol, response.body)
                                                       : m_protocol->decode(response.body);
  bool quota = decoded.kind == Decoded::Kind::error && decoded.error.quota;
  HttpVerdict verdict = classify_http(response.http_status, quota, response.headers);
  const std::string what = decoded.error.code.empty() ? decoded.error.type : decoded.error.code;
  switch (verdict) {
    case HttpVerdict::success:
      if (decoded.kind == Decoded::Kind::reply) {
        r = finished_reply(decoded, response.http_status);
        return a;
      }
      if (decoded.kind == Decoded::Kind::error) {  // an error event inside a 200 stream
        r.outcome = decoded.error.overloaded ? Outcome::server_error_exhausted : Outcome::bad_request;
        r.detail = line("LLM provider sent an error in the stream (" + what + " from " + host() + "): " +
                        decoded.error.message);
        a.retry = decoded.error.overloaded;
        return a;
      }
      r.outcome = Outcome::malformed_reply;
      r.detail = line("LLM reply is malformed (" + status + " from " + host() + "): " + decoded.problem);
      return a;
    case HttpVerdict::retry:
      r.outcome = response.http_status == 429 ? Outcome::rate_limited_exhausted : Outcome::server_error_exhausted;
      r.detail = line(std::string(response.http_status == 429 ? "LLM provider rate limited" : "LLM provider failed") +
                      " (" + status + " from " + host() + ")");
      a.retry = true;
      a.hint = retry_after_s(m_settings.retry, response.headers);
      return a;
    case HttpVerdict::refused_key:
      r.outcome = Outcome::http_refused_key;
      r.detail = line("LLM provider refused the key (" + status + " from " + host() + ")");
      return a;
    case HttpVerdict::quota:
      r.outcome = Outcome::quota;
      r.detail = line("LLM provider refused for quota or billing (" + status + " " + what + " from " + host() + ")");
      return a;
    case HttpVerdict::bad_request:
      r.outcome = Outcome::bad_request;
      r.detail = line("LLM provider rejected the request (" + status + " from " + host() + ")" +
                      (decoded.error.message.empty() ? "" : ": " + decoded.error.message));
      return a;
  }
  return a;
}

Result HttpProvider::finished_reply(const Decoded& decoded, int status) const {
  Result r;
  r.http_status = status;
  r.reply = decoded.reply;
  if (r.reply.model.empty()) r.reply.model = m_settings.model;
  if (r.reply.finish == Finish::length) {
    r.outcome = Outcome::truncated;
    r.detail = "LLM reply cut off at max_tokens (" + std::to_string(r.reply.usage.output) + " output tokens)";
  }
  return r;
}

}  // namespace kernelblaster::llm
