// kernelblaster llm ping: one short request through the configured provider,
// to check a configuration before a long run.
#include <cstdio>
#include <cstdlib>
#include <set>

#include "cli/args.h"
#include "cli/commands.h"
#include "judge/manifest.h"
#include "llm/client.h"
#include "llm/result_json.h"

namespace kernelblaster {
namespace {

const char* kHelp = R"(usage: kernelblaster llm ping [--prompt TEXT] [--json] [--manifest FILE] [settings]

Sends one short request through the configured LLM provider and prints the
model, the reply, the tokens, the cost and the latency. Exit 0 on a reply,
1 with one line (kernelblaster: ...) when the provider failed, 2 on a bad
setting.

--manifest FILE: the settings a build uses, from the manifest that
kernelblaster_optimize() writes (build/.../kernelblaster_generated/<target>/
manifest.txt; the KERNELBLASTER_LLM_* CMake cache variables). The
environment overrides them, and a flag overrides both.

Settings (each also KERNELBLASTER_LLM_<NAME>, e.g. KERNELBLASTER_LLM_MAX_TOKENS;
the flag wins):
  --provider P          openai (default; also vLLM, llama.cpp, Ollama, LM Studio),
                        anthropic, or command
  --base-url URL        up to the endpoint (default https://api.openai.com/v1 or
                        https://api.anthropic.com/v1)
  --model M             the model name the provider expects
  --command CMD         the command provider's program (/bin/sh -c CMD): the
                        request as JSON on stdin, the reply on stdout
  --temperature T       0-2, or "default" (unset: the model's default)
  --max-tokens N        the output token limit (default 1024)
  --reasoning-effort E  minimal, low, medium or high (OpenAI reasoning models)
  --stream on|off       stream the reply (server-sent events; default on)
  --cache MODE          off (default), record, replay (a miss is an error), auto
  --cache-dir DIR       the reply cache (default ${XDG_CACHE_HOME:-~/.cache}/kernelblaster/llm)
  --prices FILE         the price table (default data/llm/prices.json, installed
                        under share/kernelblaster/llm)
  --max-run-tokens N    caps for the run and per kernel, 0 = none
  --max-run-usd X
  --max-kernel-tokens N
  --max-kernel-usd X
  --max-attempts N      HTTP attempts per request, the first included (default 4)
  --stall-timeout S     a stream that sends nothing for S seconds fails (default 120)
  --max-reply-bytes N   a longer reply fails (default 8388608)
  --concurrency N       requests in flight at once (default 4)

The key comes from KERNELBLASTER_LLM_API_KEY, else OPENAI_API_KEY or
ANTHROPIC_API_KEY; it is never written anywhere and never passed to a child.
)";

void print_text(const llm::Result& r, const llm::LlmConfig& config) {
  const llm::Usage& u = r.reply.usage;
  std::printf("provider: %s (%s)\n", std::string(llm::provider_name(config.provider)).c_str(),
              config.provider == llm::ProviderKind::command ? config.command.c_str() : config.endpoint().c_str());
  std::printf("model:    %s\n", r.reply.model.c_str());
  std::printf("reply:    %s\n", r.reply.text.c_str());
  if (u.reported)
    std::printf("tokens:   %lld in (%lld cached), %lld out\n", static_cast<long long>(u.input),
                static_cast<long long>(u.cached_input), static_cast<long long>(u.output));
  else
    std::printf("tokens:   not reported\n");
  if (r.price_known) std::printf("cost:     $%.6f\n", r.cost_usd);
  else std::printf("cost:     unknown (no price for this model)\n");
  std::printf("latency:  %.3f s%s, %d attempt(s), waited %.2f s\n", r.latency_s, r.from_cache ? " (cache)" : "",
              r.attempts, r.waited_s);
}

int ping(const std::vector<std::string>& argv, const std::string& self_exe) {
  std::set<std::string> valued = {"--prompt", "--manifest"};
  for (const std::string& name : llm::setting_names()) valued.insert("--" + name);
  llm::LlmConfig config;
  std::string prompt;
  bool json = false;
  try {
    Args args(argv, valued, {"--json"});
    json = args.flag("--json");
    prompt = args.value("--prompt", "Reply with the single word: pong");
    if (std::string path = args.value("--manifest", ""); !path.empty())
      for (const auto& [name, value] : read_manifest(path).llm) try {
          llm::apply_setting(config, name, value);
        } catch (const std::invalid_argument& x) {
          throw std::invalid_argument("manifest " + path + ": " + x.what());
        }
    llm::config_from_env_over(config, [](const char* name) { return std::getenv(name); });
    for (const std::string& name : llm::setting_names())
      if (std::string v = args.value("--" + name, "\x01"); v != "\x01") llm::apply_setting(config, name, v);
  } catch (const std::invalid_argument& x) {
    throw UsageError(x.what());  // a setting the command line, the manifest or the environment got wrong
  }
  // A client that cannot be made (no key, no such provider) is one line
  // from the command's frame, as any other error.
  std::unique_ptr<llm::Client> client =
      llm::make_client(config, self_exe, [](const char* name) { return std::getenv(name); });
  llm::Request request;
  request.messages.push_back({llm::Role::user, prompt});
  request.sampling = config.sampling;
  llm::Result r = client->ask("ping", request);
  if (json) std::printf("%s\n", llm::result_json(r, std::string(llm::provider_name(config.provider))).c_str());
  else if (r.ok()) print_text(r, config);
  if (!r.ok()) {
    std::fprintf(stderr, "kernelblaster: %s\n", r.detail.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int llm_command(const CommandArgs& argv, const std::string& self_exe) {
  const bool ping_named = !argv.empty() && argv[0] == "ping";
  return run_command(ping_named ? "llm ping" : "llm", kHelp, argv, [&]() -> int {
    if (!argv.empty() && argv[0] == "help") {
      std::fputs(kHelp, stdout);
      return 0;
    }
    if (!ping_named) throw subcommand_error(argv, {"ping"});
    return ping(std::vector<std::string>(argv.begin() + 1, argv.end()), self_exe);
  });
}

}  // namespace kernelblaster
