#include "llm/config.h"

#include <cctype>
#include <cmath>
#include <stdexcept>

namespace kernelblaster::llm {

namespace {

double parse_number(const std::string& name, const std::string& value, double low, double high) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;  // not a number: refused below, with the value named
  }
  if (used == 0 || used != value.size() || !std::isfinite(v) || v < low || v > high)
    throw std::invalid_argument(name + ": '" + value + "' is not a number in [" + std::to_string(low) + ", " +
                                std::to_string(high) + "]");
  return v;
}

bool parse_switch(const std::string& name, const std::string& value) {
  if (value == "1" || value == "on" || value == "true" || value == "yes") return true;
  if (value == "0" || value == "off" || value == "false" || value == "no") return false;
  throw std::invalid_argument(name + ": '" + value + "' is not on or off");
}

}  // namespace

std::string_view provider_name(ProviderKind kind) {
  switch (kind) {
    case ProviderKind::anthropic: return "anthropic";
    case ProviderKind::command: return "command";
    case ProviderKind::openai: break;
  }
  return "openai";
}

std::string LlmConfig::endpoint() const {
  if (!base_url.empty()) return base_url.back() == '/' ? base_url.substr(0, base_url.size() - 1) : base_url;
  return provider == ProviderKind::anthropic ? "https://api.anthropic.com/v1" : "https://api.openai.com/v1";
}

const std::vector<std::string>& setting_names() {
  static const std::vector<std::string> names = {
      "provider",        "base-url",          "model",          "command",         "temperature",
      "max-tokens",      "reasoning-effort",  "stream",         "cache",           "cache-dir",
      "prices",          "max-run-tokens",    "max-run-usd",    "max-kernel-tokens", "max-kernel-usd",
      "max-attempts",    "stall-timeout",     "max-reply-bytes", "concurrency"};
  return names;
}

std::string setting_env_name(const std::string& name) {
  std::string env = "KERNELBLASTER_LLM_";
  for (char c : name) env += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return env;
}

void apply_setting(LlmConfig& c, const std::string& name, const std::string& value) {
  if (name == "provider") {
    if (value == "openai") c.provider = ProviderKind::openai;
    else if (value == "anthropic") c.provider = ProviderKind::anthropic;
    else if (value == "command") c.provider = ProviderKind::command;
    else throw std::invalid_argument("provider: '" + value + "' is not openai, anthropic or command");
  } else if (name == "base-url") {
    c.base_url = value;
  } else if (name == "model") {
    c.model = value;
  } else if (name == "command") {
    c.command = value;
  } else if (name == "temperature") {
    if (value.empty() || value == "default") c.sampling.temperature.reset();
    else c.sampling.temperature = parse_number(name, value, 0, 2);
  } else if (name == "max-tokens") {
    c.sampling.max_tokens = static_cast<int>(parse_number(name, value, 1, 1e7));
  } else if (name == "reasoning-effort") {
    if (!value.empty() && value != "minimal" && value != "low" && value != "medium" && value != "high")
      throw std::invalid_argument("reasoning-effort: '" + value + "' is not minimal, low, medium or high");
    c.sampling.reasoning_effort = value;
  } else if (name == "stream") {
    c.stream = parse_switch(name, value);
  } else if (name == "cache") {
    auto mode = cache_mode_from_name(value);
    if (!mode) throw std::invalid_argument("cache: '" + value + "' is not off, record, replay or auto");
    c.cache_mode = *mode;
  } else if (name == "cache-dir") {
    c.cache_dir = value;
  } else if (name == "prices") {
    c.prices_path = value;
  } else if (name == "max-run-tokens") {
    c.caps.run_tokens = static_cast<std::int64_t>(parse_number(name, value, 0, 1e15));
  } else if (name == "max-run-usd") {
    c.caps.run_usd = parse_number(name, value, 0, 1e9);
  } else if (name == "max-kernel-tokens") {
    c.caps.kernel_tokens = static_cast<std::int64_t>(parse_number(name, value, 0, 1e15));
  } else if (name == "max-kernel-usd") {
    c.caps.kernel_usd = parse_number(name, value, 0, 1e9);
  } else if (name == "max-attempts") {
    c.retry.max_attempts = static_cast<int>(parse_number(name, value, 1, 20));
  } else if (name == "stall-timeout") {
    c.stall_timeout_s = parse_number(name, value, 0.1, 3600);
  } else if (name == "max-reply-bytes") {
    c.max_reply_bytes = static_cast<std::size_t>(parse_number(name, value, 1, 1e10));
  } else if (name == "concurrency") {
    c.concurrency = static_cast<int>(parse_number(name, value, 1, 256));
  } else {
    throw std::invalid_argument("unknown LLM setting '" + name + "'");
  }
}

LlmConfig config_from_env(const Getenv& getenv) {
  LlmConfig config;
  config_from_env_over(config, getenv);
  return config;
}

void config_from_env_over(LlmConfig& config, const Getenv& getenv) {
  for (const std::string& name : setting_names()) {
    std::string env = setting_env_name(name);
    const char* value = getenv(env.c_str());
    if (!value || !*value) continue;
    try {
      apply_setting(config, name, value);
    } catch (const std::invalid_argument& x) {
      throw std::invalid_argument(env + ": " + std::string(x.what()).substr(name.size() + 2));
    }
  }
}

std::string api_key_from_env(ProviderKind kind, const Getenv& getenv) {
  const char* key = getenv("KERNELBLASTER_LLM_API_KEY");
  if ((!key || !*key) && kind == ProviderKind::openai) key = getenv("OPENAI_API_KEY");
  if ((!key || !*key) && kind == ProviderKind::anthropic) key = getenv("ANTHROPIC_API_KEY");
  return key && kind != ProviderKind::command ? std::string(key) : std::string();
}

}  // namespace kernelblaster::llm
