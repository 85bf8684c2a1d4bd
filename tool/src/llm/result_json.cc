#include "llm/result_json.h"

#include <nlohmann/json.hpp>

namespace kernelblaster::llm {

std::string result_json(const Result& r, const std::string& provider) {
  using nlohmann::json;
  const Usage& u = r.reply.usage;
  json j = {{"outcome", outcome_name(r.outcome)},
            {"detail", r.detail},
            {"provider", provider},
            {"model", r.reply.model},
            {"reply", r.reply.text},
            {"finish", r.reply.finish == Finish::length ? "length" : r.reply.finish == Finish::stop ? "stop" : "other"},
            {"usage",
             {{"reported", u.reported},
              {"input", u.input},
              {"output", u.output},
              {"cached_input", u.cached_input},
              {"cache_write", u.cache_write}}},
            {"cost_usd", r.cost_usd},
            {"price_known", r.price_known},
            {"attempts", r.attempts},
            {"waited_s", r.waited_s},
            {"latency_s", r.latency_s},
            {"http_status", r.http_status},
            {"from_cache", r.from_cache},
            {"cache_key", r.cache_key}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace kernelblaster::llm
