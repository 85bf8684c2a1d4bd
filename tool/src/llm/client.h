// The LLM client the optimization loop talks to: caps first, then the
// record/replay cache, then the provider behind a limit on concurrent
// requests; every answer is priced and charged. ask() never throws for
// anything the provider, the network or the cache does.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "llm/budget.h"
#include "llm/clock.h"
#include "llm/config.h"
#include "llm/prices.h"
#include "llm/provider.h"
#include "llm/response_cache.h"

namespace kernelblaster::llm {

// At most `limit` holders at once.
class RequestSlots {
 public:
  explicit RequestSlots(int limit) : m_free(limit > 0 ? limit : 1) {}
  void acquire();
  void release();

 private:
  std::mutex m_mutex;
  std::condition_variable m_changed;
  int m_free;
};

class Client {
 public:
  // `provider` may be null in replay mode (nothing is ever sent).
  Client(LlmConfig config, std::unique_ptr<Provider> provider, PriceTable prices, Clock& clock);
  // `kernel` names what the request works on, for the per-kernel caps.
  Result ask(const std::string& kernel, const Request& request, const Progress& progress = {});
  const Budget& budget() const { return m_budget; }
  const LlmConfig& config() const { return m_config; }

 private:
  void price(Result& result) const;

  LlmConfig m_config;
  std::unique_ptr<Provider> m_provider;
  PriceTable m_prices;
  Clock& m_clock;
  Budget m_budget;
  ResponseCache m_cache;
  RequestSlots m_slots;
};

// The whole configured client: libcurl or the command, the price table, the
// key from the environment. Throws std::invalid_argument with one line when
// the configuration cannot work (no model, no command, a money cap without
// a price for the model, an unreadable price table).
std::unique_ptr<Client> make_client(const LlmConfig& config, const std::string& self_exe, const Getenv& getenv);

}  // namespace kernelblaster::llm
