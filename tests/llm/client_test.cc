// The client around a provider: caps, prices, the record/replay cache.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/file_util.h"
#include "fakes.h"
#include "llm/client.h"

namespace kernelblaster::llm {
namespace {

using namespace testing;

Request ask(std::string text) {
  Request r;
  r.messages = {{Role::user, std::move(text)}};
  return r;
}

Result reply(std::string text, std::int64_t in, std::int64_t out) {
  Result r;
  r.reply.text = std::move(text);
  r.reply.model = "m-1";
  r.reply.usage = {in, out, 0, 0, true};
  r.attempts = 1;
  return r;
}

PriceTable prices() {
  PriceTable t;
  t.set("m", {2.0, 1.0, 3.0, 10.0});
  return t;
}

struct Rig {
  std::string dir = make_work_dir("llm-client-test");
  FakeClock clock;
  CountingProvider* provider = nullptr;
  std::unique_ptr<Client> client;
  ~Rig() { std::filesystem::remove_all(dir); }
  void make(CacheMode mode, Caps caps = {}, bool with_provider = true) {
    LlmConfig c;
    c.model = "m";
    c.cache_mode = mode;
    c.cache_dir = dir + "/cache";
    c.caps = caps;
    std::unique_ptr<CountingProvider> p;
    if (with_provider) {
      p = std::make_unique<CountingProvider>();
      p->answer = reply("pong", 1000, 100);
      provider = p.get();
    }
    client = std::make_unique<Client>(c, std::move(p), prices(), clock);
  }
};

TEST(RequestKey, DependsOnWhatIsAskedOnly) {
  Request a = ask("hi");
  std::string k = request_key("openai", "m", a);
  EXPECT_EQ(k.size(), 64u);
  EXPECT_EQ(k, request_key("openai", "m", ask("hi")));
  EXPECT_NE(k, request_key("anthropic", "m", a));
  EXPECT_NE(k, request_key("openai", "m2", a));
  Request t = a;
  t.sampling.temperature = 0.0;
  EXPECT_NE(k, request_key("openai", "m", t));
  Request n = a;
  n.sampling.max_tokens = 7;
  EXPECT_NE(k, request_key("openai", "m", n));
  Request e = a;
  e.sampling.reasoning_effort = "high";
  EXPECT_NE(k, request_key("openai", "m", e));
  Request s = a;
  s.messages[0].role = Role::system;
  EXPECT_NE(k, request_key("openai", "m", s));
  // field boundaries count: ("ab","c") is not ("a","bc")
  Request two1, two2;
  two1.messages = {{Role::user, "ab"}, {Role::user, "c"}};
  two2.messages = {{Role::user, "a"}, {Role::user, "bc"}};
  EXPECT_NE(request_key("openai", "m", two1), request_key("openai", "m", two2));
}

TEST(Prices, LongestPrefixAndCost) {
  PriceTable t = PriceTable::parse(R"({"models":{"gpt-4o":{"input":2.5,"cached_input":1.25,"output":10},
      "gpt-4o-mini":{"input":0.15,"output":0.6},"_c":"x"}})", "t");
  EXPECT_DOUBLE_EQ(t.find("gpt-4o-2024-08-06")->input, 2.5);
  EXPECT_DOUBLE_EQ(t.find("gpt-4o-mini-2024-07-18")->input, 0.15);
  EXPECT_DOUBLE_EQ(t.find("gpt-4o-mini")->cached_input, 0.15);  // defaults to input
  EXPECT_FALSE(t.find("llama"));
  Usage u{1'000'000, 100'000, 400'000, 0, true};
  EXPECT_NEAR(cost_usd(*t.find("gpt-4o"), u), 0.6 * 2.5 + 0.4 * 1.25 + 0.1 * 10, 1e-12);
  Usage a{100, 5, 50, 30, true};  // Anthropic-shaped: 20 plain, 50 read, 30 written
  EXPECT_NEAR(cost_usd(Price{3, 0.3, 3.75, 15}, a), (20 * 3 + 50 * 0.3 + 30 * 3.75 + 5 * 15) / 1e6, 1e-15);
  EXPECT_THROW(PriceTable::parse("{}", "f"), std::runtime_error);
  EXPECT_THROW(PriceTable::parse(R"({"models":{"x":{"input":-1,"output":1}}})", "f"), std::runtime_error);
  EXPECT_THROW(PriceTable::parse(R"({"models":{"x":{"input":1}}})", "f"), std::runtime_error);
}

TEST(Prices, ShippedTableLoads) {
  PriceTable t = PriceTable::load(KERNELBLASTER_TEST_PRICES);
  EXPECT_TRUE(t.find("gpt-4o-mini"));
  EXPECT_TRUE(t.find("claude-sonnet-4-20250514"));
}

TEST(Client, PricesAndChargesEveryReply) {
  Rig rig;
  rig.make(CacheMode::off);
  Result r = rig.client->ask("k", ask("hi"));
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.price_known);  // "m-1" is priced by its prefix "m"
  EXPECT_NEAR(r.cost_usd, (1000 * 2.0 + 100 * 10.0) / 1e6, 1e-12);
  EXPECT_EQ(rig.client->budget().run().tokens, 1100);
  EXPECT_EQ(rig.client->budget().kernel("k").requests, 1);
  EXPECT_TRUE(r.cache_key.empty());
  EXPECT_FALSE(std::filesystem::exists(rig.dir + "/cache"));
}

TEST(Client, TokenCapsRefuseCleanly) {
  Rig rig;
  rig.make(CacheMode::off, Caps{3000, 0, 1500, 0});
  EXPECT_TRUE(rig.client->ask("a", ask("1")).ok());
  EXPECT_TRUE(rig.client->ask("a", ask("2")).ok());  // 1100 < 1500: admitted, ends at 2200
  Result refused = rig.client->ask("a", ask("3"));
  EXPECT_EQ(refused.outcome, Outcome::cap_reached);
  EXPECT_EQ(refused.detail, "LLM token cap of kernel 'a' reached (2200 of 1500)");
  EXPECT_TRUE(rig.client->ask("b", ask("4")).ok());  // run at 3300 now
  Result run = rig.client->ask("c", ask("5"));
  EXPECT_EQ(run.outcome, Outcome::cap_reached);
  EXPECT_EQ(run.detail, "LLM token cap of the run reached (3300 of 3000)");
  EXPECT_EQ(rig.provider->calls, 3);
}

TEST(Client, MoneyCapRefusesCleanly) {
  Rig rig;
  rig.make(CacheMode::off, Caps{0, 0.005, 0, 0});
  int ok = 0;
  Result r;
  while ((r = rig.client->ask("k", ask("x"))).ok()) ++ok;
  EXPECT_EQ(ok, 2);  // 0.003 each
  EXPECT_EQ(r.outcome, Outcome::cap_reached);
  EXPECT_EQ(r.detail, "LLM money cap of the run reached ($0.0060 of $0.0050)");
}

TEST(Client, RecordThenReplayWithoutAProvider) {
  Rig rig;
  rig.make(CacheMode::record);
  Result recorded = rig.client->ask("k", ask("hi"));
  ASSERT_TRUE(recorded.ok());
  std::string file = ResponseCache(rig.dir + "/cache").path_of(recorded.cache_key);
  std::string bytes = read_file(file);
  rig.make(CacheMode::replay, {}, false);
  Result replayed = rig.client->ask("k", ask("hi"));
  EXPECT_TRUE(replayed.ok());
  EXPECT_TRUE(replayed.from_cache);
  EXPECT_EQ(replayed.reply.text, recorded.reply.text);
  EXPECT_EQ(replayed.reply.model, recorded.reply.model);
  EXPECT_EQ(replayed.reply.usage.total(), recorded.reply.usage.total());
  EXPECT_DOUBLE_EQ(replayed.cost_usd, recorded.cost_usd);
  EXPECT_EQ(rig.client->budget().run().tokens, 1100);  // replays charge the same
  EXPECT_EQ(read_file(file), bytes);                   // replay never writes
  Result miss = rig.client->ask("k", ask("other"));
  EXPECT_EQ(miss.outcome, Outcome::replay_miss);
}

TEST(Client, AutoAsksOnceThenHits) {
  Rig rig;
  rig.make(CacheMode::automatic);
  EXPECT_FALSE(rig.client->ask("k", ask("hi")).from_cache);
  EXPECT_TRUE(rig.client->ask("k", ask("hi")).from_cache);
  EXPECT_EQ(rig.provider->calls, 1);
}

TEST(Client, FailuresAreNotRecordedAndTornFilesMiss) {
  Rig rig;
  rig.make(CacheMode::automatic);
  rig.provider->answer.outcome = Outcome::server_error_exhausted;
  Result failed = rig.client->ask("k", ask("hi"));
  EXPECT_FALSE(std::filesystem::exists(ResponseCache(rig.dir + "/cache").path_of(failed.cache_key)));
  rig.provider->answer.outcome = Outcome::ok;
  Result ok = rig.client->ask("k", ask("hi"));
  std::string file = ResponseCache(rig.dir + "/cache").path_of(ok.cache_key);
  write_file(file, "{\"version\":1,\"key\":\"");
  EXPECT_FALSE(rig.client->ask("k", ask("hi")).from_cache);  // torn: asked again, rewritten
  EXPECT_TRUE(rig.client->ask("k", ask("hi")).from_cache);
}

TEST(Config, EnvironmentThenSettings) {
  std::map<std::string, std::string> env = {{"KERNELBLASTER_LLM_PROVIDER", "anthropic"},
                                            {"KERNELBLASTER_LLM_MODEL", "claude-x"},
                                            {"KERNELBLASTER_LLM_MAX_TOKENS", "77"},
                                            {"KERNELBLASTER_LLM_CACHE", "auto"},
                                            {"ANTHROPIC_API_KEY", "ak"},
                                            {"OPENAI_API_KEY", "ok"}};
  auto get = [&](const char* n) -> const char* { auto it = env.find(n); return it == env.end() ? nullptr : it->second.c_str(); };
  LlmConfig c = config_from_env(get);
  EXPECT_EQ(c.provider, ProviderKind::anthropic);
  EXPECT_EQ(c.sampling.max_tokens, 77);
  EXPECT_EQ(c.cache_mode, CacheMode::automatic);
  EXPECT_EQ(c.endpoint(), "https://api.anthropic.com/v1");
  EXPECT_EQ(api_key_from_env(c.provider, get), "ak");
  EXPECT_EQ(api_key_from_env(ProviderKind::openai, get), "ok");
  EXPECT_EQ(api_key_from_env(ProviderKind::command, get), "");
  env["KERNELBLASTER_LLM_API_KEY"] = "kb";
  EXPECT_EQ(api_key_from_env(ProviderKind::anthropic, get), "kb");
  apply_setting(c, "base-url", "http://h:1/v1/");
  EXPECT_EQ(c.endpoint(), "http://h:1/v1");
  EXPECT_THROW(apply_setting(c, "temperature", "3"), std::invalid_argument);
  EXPECT_THROW(apply_setting(c, "cache", "sometimes"), std::invalid_argument);
  EXPECT_THROW(apply_setting(c, "nope", "1"), std::invalid_argument);
  env["KERNELBLASTER_LLM_STREAM"] = "maybe";
  try {
    config_from_env(get);
    FAIL();
  } catch (const std::invalid_argument& x) {
    EXPECT_STREQ(x.what(), "KERNELBLASTER_LLM_STREAM: 'maybe' is not on or off");
  }
  EXPECT_EQ(setting_env_name("max-kernel-usd"), "KERNELBLASTER_LLM_MAX_KERNEL_USD");
}

TEST(Outcome, NamesRoundTrip) {
  for (int i = 0; i <= static_cast<int>(Outcome::not_configured); ++i) {
    Outcome o = static_cast<Outcome>(i);
    EXPECT_EQ(outcome_from_name(outcome_name(o)), o);
  }
}

}  // namespace
}  // namespace kernelblaster::llm
