#include "llm/response_cache.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/sha256.h"
#include "common/file_util.h"
#include "llm/json_read.h"

namespace kernelblaster::llm {

using nlohmann::json;

std::string_view cache_mode_name(CacheMode mode) {
  switch (mode) {
    case CacheMode::record: return "record";
    case CacheMode::replay: return "replay";
    case CacheMode::automatic: return "auto";
    case CacheMode::off: break;
  }
  return "off";
}

std::optional<CacheMode> cache_mode_from_name(std::string_view name) {
  for (CacheMode m : {CacheMode::off, CacheMode::record, CacheMode::replay, CacheMode::automatic})
    if (cache_mode_name(m) == name) return m;
  return std::nullopt;
}

std::string request_key(const std::string& provider, const std::string& model, const Request& request) {
  Sha256 h;
  h.field("kernelblaster-llm-request-v1");
  h.field(provider);
  h.field(model);
  char temperature[40] = "default";
  if (request.sampling.temperature) std::snprintf(temperature, sizeof temperature, "%.17g", *request.sampling.temperature);
  h.field(temperature);
  h.field(std::to_string(request.sampling.max_tokens));
  h.field(request.sampling.reasoning_effort);
  h.field(std::to_string(request.messages.size()));
  for (const Message& m : request.messages) {
    h.field(role_name(m.role));
    h.field(m.content);
  }
  return h.hex();
}

std::string ResponseCache::path_of(const std::string& key) const {
  return m_dir + "/" + key.substr(0, 2) + "/" + key + ".json";
}

std::optional<CachedReply> ResponseCache::load(const std::string& key) const {
  std::string text;
  try {
    text = read_file(path_of(key));
  } catch (const std::exception&) {
    return std::nullopt;  // no reply stored under this key: a miss
  }
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || int_at(j, "version") != 1 || str_at(j, "key") != key) return std::nullopt;
  const json* reply = obj_at(j, "reply");
  auto outcome = outcome_from_name(str_at(j, "outcome"));
  if (!reply || !outcome || !reply->contains("text") || !(*reply)["text"].is_string()) return std::nullopt;
  CachedReply entry;
  entry.outcome = *outcome;
  entry.detail = str_at(j, "detail");
  entry.reply.text = (*reply)["text"].get<std::string>();
  entry.reply.model = str_at(*reply, "model");
  std::string finish = str_at(*reply, "finish");
  entry.reply.finish = finish == "length" ? Finish::length : finish == "stop" ? Finish::stop : Finish::other;
  if (const json* u = obj_at(*reply, "usage")) {
    entry.reply.usage.reported = true;
    entry.reply.usage.input = int_at(*u, "input");
    entry.reply.usage.output = int_at(*u, "output");
    entry.reply.usage.cached_input = int_at(*u, "cached_input");
    entry.reply.usage.cache_write = int_at(*u, "cache_write");
  }
  return entry;
}

void ResponseCache::store(const std::string& key, const CachedReply& entry) const {
  const Reply& r = entry.reply;
  json reply = {{"text", r.text},
                {"model", r.model},
                {"finish", r.finish == Finish::length ? "length" : r.finish == Finish::stop ? "stop" : "other"}};
  if (r.usage.reported)
    reply["usage"] = {{"input", r.usage.input},
                      {"output", r.usage.output},
                      {"cached_input", r.usage.cached_input},
                      {"cache_write", r.usage.cache_write}};
  json doc = {{"version", 1}, {"key", key}, {"outcome", outcome_name(entry.outcome)}, {"detail", entry.detail},
              {"reply", reply}};
  std::string path = path_of(key);
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  write_file_atomic(path, doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n");
}

std::string default_llm_cache_dir() {
  if (const char* env = std::getenv("KERNELBLASTER_LLM_CACHE_DIR"); env && *env) return env;
  std::string base;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) base = xdg;
  else if (const char* home = std::getenv("HOME"); home && *home) base = std::string(home) + "/.cache";
  else base = "/tmp";
  return base + "/kernelblaster/llm";
}

}  // namespace kernelblaster::llm
