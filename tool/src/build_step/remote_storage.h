// Remote results storage: a build shares its tuned results with other
// machines through an HTTP(S) server that already exists (the way ccache's
// HTTP storage does): a plain file server that answers GET and PUT, such as
// nginx with WebDAV's PUT, or any object store behind such a URL.
//   GET <url>/<gpu fingerprint id>/<content key>.json   read-through, on a local miss
//   PUT <url>/<gpu fingerprint id>/<content key>.json   write-through, after a tuning run
// An entry is held to what a local one is: it must parse, and name the key
// and GPU it was asked for; anything else is ignored and said. A server that
// is down, slow, refuses or answers garbage costs the build at most the
// timeouts and one line; the local path goes on. Credentials come from the
// environment only (KERNELBLASTER_REMOTE_STORAGE_TOKEN, sent as a bearer
// token) and are never written; a URL with a user or password in it is
// refused, since the URL is kept in CMake's cache.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "build_step/tuned_result.h"

namespace kernelblaster::build_step {

class RemoteStorage {
 public:
  virtual ~RemoteStorage() = default;
  // The entry for (gpu id, key); nullopt when the server has none or could
  // not be used, with `note` set (one line) in the second case.
  virtual std::optional<TunedResult> get(const std::string& gpu_id, const std::string& key, std::string* note) = 0;
  // Stores `r` under r.gpu and r.key; false, with `note`, when it could not.
  virtual bool put(const TunedResult& r, std::string* note) = 0;
  // Where it is, for lines ("http://cache.example:8080/kb").
  virtual std::string where() const = 0;
};

struct RemoteTimeouts {
  double connect_s = 2;  // a server that is down
  double total_s = 4;    // a server that hangs (a result is a few KiB)
};

// The HTTP(S) storage at `url`; null, with `why_not`, for a URL it refuses
// (no http:// or https://, or credentials in it).
std::unique_ptr<RemoteStorage> make_http_storage(const std::string& url, RemoteTimeouts timeouts, std::string* why_not);

}  // namespace kernelblaster::build_step
