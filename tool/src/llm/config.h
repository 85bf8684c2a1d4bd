// How the LLM client is configured: KERNELBLASTER_LLM_* in the environment,
// then command-line flags of the same names (--max-tokens ⇔
// KERNELBLASTER_LLM_MAX_TOKENS). The key is not part of it: api_key_from_env
// reads it at run time, and nothing writes it anywhere.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "llm/budget.h"
#include "llm/response_cache.h"
#include "llm/retry.h"
#include "llm/types.h"

namespace kernelblaster::llm {

enum class ProviderKind { openai, anthropic, command };

std::string_view provider_name(ProviderKind kind);

struct LlmConfig {
  ProviderKind provider = ProviderKind::openai;
  std::string base_url;  // empty: the provider's public endpoint
  std::string model;
  std::string command;   // the command provider's program (run by /bin/sh)
  Sampling sampling;
  bool stream = true;
  CacheMode cache_mode = CacheMode::off;
  std::string cache_dir;    // empty: default_llm_cache_dir()
  std::string prices_path;  // empty: default_prices_path()
  Caps caps;
  RetryPolicy retry;
  double stall_timeout_s = 120;
  double connect_timeout_s = 10;
  double total_timeout_s = 600;
  std::size_t max_reply_bytes = 8 << 20;
  int concurrency = 4;

  // The base URL to use: base_url, else the provider's public one.
  std::string endpoint() const;
};

// One setting, by its flag name without dashes ("max-tokens"). Throws
// std::invalid_argument with one line on an unknown name or a bad value.
void apply_setting(LlmConfig& config, const std::string& name, const std::string& value);
// Every setting name, in the order --help lists them.
const std::vector<std::string>& setting_names();
// "max-tokens" -> "KERNELBLASTER_LLM_MAX_TOKENS".
std::string setting_env_name(const std::string& name);

using Getenv = std::function<const char*(const char*)>;
// Defaults, then every KERNELBLASTER_LLM_* setting found by `getenv`.
LlmConfig config_from_env(const Getenv& getenv);
// The same settings applied over `config` (e.g. one a build's manifest set).
void config_from_env_over(LlmConfig& config, const Getenv& getenv);

// KERNELBLASTER_LLM_API_KEY, else OPENAI_API_KEY or ANTHROPIC_API_KEY for
// those providers; empty when none is set (local servers often need none).
std::string api_key_from_env(ProviderKind kind, const Getenv& getenv);

}  // namespace kernelblaster::llm
