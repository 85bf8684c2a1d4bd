#include "build_step/remote_storage.h"

#include <curl/curl.h>

#include <cstdlib>
#include <mutex>

#include "build_step/result_json.h"
#include "common/json_fields.h"

namespace kernelblaster::build_step {
namespace {

struct Reply {
  bool reached = false;  // an HTTP answer came (any status)
  long status = 0;
  std::string body, error;
};

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* into) {
  auto* body = static_cast<std::string*>(into);
  if (body->size() + size * n > (16u << 20)) return 0;  // no result is this big: stop
  body->append(data, size * n);
  return size * n;
}

class HttpStorage final : public RemoteStorage {
 public:
  HttpStorage(std::string url, RemoteTimeouts timeouts) : m_url(std::move(url)), m_timeouts(timeouts) {
    while (!m_url.empty() && m_url.back() == '/') m_url.pop_back();
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  }

  std::optional<TunedResult> get(const std::string& gpu_id, const std::string& key, std::string* note) override {
    const Reply r = request("GET", url_of(gpu_id, key), "");
    if (!r.reached) return said(note, "remote storage " + m_url + " not reached (" + r.error + ")");
    if (r.status == 404) return std::nullopt;  // a miss, nothing to say
    if (r.status != 200) return said(note, "remote storage " + m_url + " answered HTTP " + std::to_string(r.status));
    try {
      TunedResult found = result_from_json(nlohmann::json::parse(r.body), "remote storage entry");
      if (found.key != key || found.gpu.id() != gpu_id)
        return said(note, "remote storage's entry for " + gpu_id + "/" + key + " names another key or GPU; ignored");
      return found;
    } catch (const nlohmann::json::exception& x) {
      return said(note, "remote storage's entry for " + gpu_id + "/" + key + " is " + json_parse_reason(x.what()) +
                            "; ignored");
    } catch (const std::exception& x) {
      return said(note, "remote storage's entry for " + gpu_id + "/" + key + " is refused: " + x.what() + "; ignored");
    }
  }

  bool put(const TunedResult& r, std::string* note) override {
    const Reply reply = request("PUT", url_of(r.gpu.id(), r.key), result_to_json(r).dump(2) + "\n");
    if (reply.reached && reply.status >= 200 && reply.status < 300) return true;
    if (note)
      *note = "not stored in remote storage " + m_url + " (" +
              (reply.reached ? "HTTP " + std::to_string(reply.status) : reply.error) + ")";
    return false;
  }

  std::string where() const override { return m_url; }

 private:
  static std::nullopt_t said(std::string* note, const std::string& line) {
    if (note) *note = line;
    return std::nullopt;
  }

  std::string url_of(const std::string& gpu_id, const std::string& key) const {
    return m_url + "/" + gpu_id + "/" + key + ".json";
  }

  Reply request(const std::string& method, const std::string& url, const std::string& body) const {
    Reply r;
    CURL* curl = curl_easy_init();
    if (!curl) {
      r.error = "libcurl could not start";
      return r;
    }
    char error[CURL_ERROR_SIZE] = "";
    curl_slist* headers = nullptr;
    // The token from the environment only, never from a file or the URL.
    if (const char* token = std::getenv("KERNELBLASTER_REMOTE_STORAGE_TOKEN"); token && *token)
      headers = curl_slist_append(headers, ("Authorization: Bearer " + std::string(token)).c_str());
    if (method == "PUT") {
      headers = curl_slist_append(headers, "Content-Type: application/json");
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "PUT");
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    }
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r.body);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(m_timeouts.connect_s * 1000));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(m_timeouts.total_s * 1000));
    const CURLcode code = curl_easy_perform(curl);
    if (code == CURLE_OK) {
      r.reached = true;
      curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
    } else {
      r.error = *error ? error : curl_easy_strerror(code);
    }
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return r;
  }

  std::string m_url;
  RemoteTimeouts m_timeouts;
};

}  // namespace

std::unique_ptr<RemoteStorage> make_http_storage(const std::string& url, RemoteTimeouts timeouts, std::string* why_not) {
  const bool http = url.rfind("http://", 0) == 0, https = url.rfind("https://", 0) == 0;
  if (!http && !https) {
    if (why_not) *why_not = "remote storage '" + url + "' is no http:// or https:// URL";
    return nullptr;
  }
  const std::string rest = url.substr(http ? 7 : 8);
  if (rest.substr(0, rest.find('/')).find('@') != std::string::npos) {
    if (why_not)
      *why_not = "remote storage URL holds credentials; give them in KERNELBLASTER_REMOTE_STORAGE_TOKEN instead";
    return nullptr;
  }
  return std::make_unique<HttpStorage>(url, timeouts);
}

}  // namespace kernelblaster::build_step
