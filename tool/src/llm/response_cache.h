// Record and replay: a content-addressed store of replies. The key is the
// SHA-256 of the provider, the model, the sampling settings and the messages
// (never the key, the base URL or the transport), so a recorded run replays
// offline, byte for byte, on another machine.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "llm/types.h"

namespace kernelblaster::llm {

enum class CacheMode {
  off,     // neither read nor write
  record,  // always ask the provider, store what it said
  replay,  // only read; a miss is the outcome replay_miss
  automatic,  // read; on a miss ask and store ("auto")
};

std::string_view cache_mode_name(CacheMode mode);
std::optional<CacheMode> cache_mode_from_name(std::string_view name);

std::string request_key(const std::string& provider, const std::string& model, const Request& request);

// What the cache keeps of a result: only replies (ok or truncated) are stored.
struct CachedReply {
  Outcome outcome = Outcome::ok;
  std::string detail;
  Reply reply;
};

class ResponseCache {
 public:
  explicit ResponseCache(std::string dir) : m_dir(std::move(dir)) {}
  // Nothing when absent or unreadable (a torn or foreign file is a miss).
  std::optional<CachedReply> load(const std::string& key) const;
  // Atomic (temp file, rename); throws std::runtime_error on a write error.
  void store(const std::string& key, const CachedReply& entry) const;
  std::string path_of(const std::string& key) const;
  const std::string& dir() const { return m_dir; }

 private:
  std::string m_dir;
};

// ${KERNELBLASTER_LLM_CACHE_DIR}, else ${XDG_CACHE_HOME:-~/.cache}/kernelblaster/llm.
std::string default_llm_cache_dir();

}  // namespace kernelblaster::llm
