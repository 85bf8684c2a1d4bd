#include "llm/client.h"

#include <random>
#include <stdexcept>

#include "llm/command_provider.h"
#include "llm/curl_transport.h"
#include "llm/http_provider.h"

namespace kernelblaster::llm {

void RequestSlots::acquire() {
  std::unique_lock<std::mutex> lock(m_mutex);
  m_changed.wait(lock, [&] { return m_free > 0; });
  --m_free;
}

void RequestSlots::release() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    ++m_free;
  }
  m_changed.notify_one();
}

Client::Client(LlmConfig config, std::unique_ptr<Provider> provider, PriceTable prices, Clock& clock)
    : m_config(std::move(config)),
      m_provider(std::move(provider)),
      m_prices(std::move(prices)),
      m_clock(clock),
      m_budget(m_config.caps),
      m_cache(m_config.cache_dir.empty() ? default_llm_cache_dir() : m_config.cache_dir),
      m_slots(m_config.concurrency) {}

void Client::price(Result& result) const {
  auto p = m_prices.find(result.reply.model);
  if (!p) p = m_prices.find(m_config.model);
  result.price_known = p.has_value();
  result.cost_usd = p ? cost_usd(*p, result.reply.usage) : 0.0;
}

Result Client::ask(const std::string& kernel, const Request& request, const Progress& progress) {
  const double start = m_clock.now_s();
  Result result;
  if (std::string refused = m_budget.admit(kernel); !refused.empty()) {
    result.outcome = Outcome::cap_reached;
    result.detail = refused;
    return result;
  }
  const CacheMode mode = m_config.cache_mode;
  std::string key;
  if (mode != CacheMode::off) key = request_key(std::string(provider_name(m_config.provider)), m_config.model, request);
  if (mode == CacheMode::replay || mode == CacheMode::automatic) {
    if (auto hit = m_cache.load(key)) {
      result.outcome = hit->outcome;
      result.detail = hit->detail;
      result.reply = hit->reply;
      result.from_cache = true;
    } else if (mode == CacheMode::replay) {
      result.outcome = Outcome::replay_miss;
      result.detail = "LLM replay: request " + key.substr(0, 16) + " is not in " + m_cache.dir();
    }
  }
  if (!result.from_cache && result.outcome != Outcome::replay_miss) {
    if (!m_provider) {
      result.outcome = Outcome::not_configured;
      result.detail = "LLM provider not configured";
    } else {
      m_slots.acquire();
      result = m_provider->complete(request, progress);
      m_slots.release();
    }
    bool reply = result.outcome == Outcome::ok || result.outcome == Outcome::truncated;
    if (reply && (mode == CacheMode::record || mode == CacheMode::automatic)) {
      try {
        m_cache.store(key, CachedReply{result.outcome, result.detail, result.reply});
      } catch (const std::exception&) {
        // a cache that cannot be written costs the recording, not the reply
      }
    }
  }
  result.cache_key = key;
  price(result);
  if (result.reply.usage.reported) m_budget.charge(kernel, result.reply.usage, result.cost_usd);
  result.latency_s = m_clock.now_s() - start;
  return result;
}

namespace {

// One transport and one clock for every client of the process.
Transport& shared_transport() {
  static CurlTransport transport;
  return transport;
}

// Uniform in [0, 1), safe from several threads.
double jitter() {
  static std::mutex mutex;
  static std::mt19937_64 rng(std::random_device{}());
  std::lock_guard<std::mutex> lock(mutex);
  return std::uniform_real_distribution<double>(0, 1)(rng);
}

Clock& shared_clock() {
  static SteadyClock clock;
  return clock;
}

}  // namespace

std::unique_ptr<Client> make_client(const LlmConfig& config, const std::string& self_exe, const Getenv& getenv) {
  if (config.provider == ProviderKind::command && config.command.empty())
    throw std::invalid_argument("the command provider needs a command (KERNELBLASTER_LLM_COMMAND or --command)");
  if (config.provider != ProviderKind::command && config.model.empty())
    throw std::invalid_argument("no LLM model (KERNELBLASTER_LLM_MODEL or --model)");
  std::string prices_path = config.prices_path.empty() ? default_prices_path(self_exe) : config.prices_path;
  PriceTable prices;
  try {
    prices = PriceTable::load(prices_path);
  } catch (const std::exception& x) {
    if (!config.prices_path.empty() || config.caps.any_money()) throw std::invalid_argument(x.what());
  }
  if (config.caps.any_money() && !prices.find(config.model))
    throw std::invalid_argument("a money cap needs a price for model '" + config.model + "' in " + prices_path);
  std::unique_ptr<Provider> provider;
  if (config.cache_mode != CacheMode::replay) {
    if (config.provider == ProviderKind::command) {
      provider = std::make_unique<CommandProvider>(config.command, config.model.empty() ? "command" : config.model,
                                                   config.total_timeout_s, config.max_reply_bytes);
    } else {
      HttpSettings s;
      s.base_url = config.endpoint();
      s.model = config.model;
      s.stream = config.stream;
      s.retry = config.retry;
      s.connect_timeout_s = config.connect_timeout_s;
      s.stall_timeout_s = config.stall_timeout_s;
      s.total_timeout_s = config.total_timeout_s;
      s.max_reply_bytes = config.max_reply_bytes;
      auto protocol = config.provider == ProviderKind::anthropic ? make_anthropic_protocol() : make_openai_protocol();
      provider = std::make_unique<HttpProvider>(std::move(protocol), shared_transport(), shared_clock(), s,
                                                api_key_from_env(config.provider, getenv), jitter);
    }
  }
  return std::make_unique<Client>(config, std::move(provider), std::move(prices), shared_clock());
}

}  // namespace kernelblaster::llm
