// The command provider: stdin JSON, stdout reply, no key in the child.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include <nlohmann/json.hpp>

#include "llm/client.h"
#include "llm/command_provider.h"

namespace kernelblaster::llm {
namespace {

Request ask() {
  Request r;
  r.messages = {{Role::system, "s"}, {Role::user, "say \"hi\"\n"}};
  r.sampling.max_tokens = 9;
  return r;
}

TEST(CommandProvider, PromptJsonOnStdin) {
  nlohmann::json j = nlohmann::json::parse(command_prompt_json(ask(), "local"));
  EXPECT_EQ(j["model"], "local");
  EXPECT_EQ(j["max_tokens"], 9);
  EXPECT_EQ(j["messages"][1]["content"], "say \"hi\"\n");
  EXPECT_FALSE(j.contains("temperature"));
}

TEST(CommandProvider, EchoesStdinAsThePlainReply) {
  CommandProvider p("cat", "local", 10, 1 << 20);
  Result r = p.complete(ask(), {});
  ASSERT_EQ(r.outcome, Outcome::ok) << r.detail;
  EXPECT_EQ(r.reply.text, command_prompt_json(ask(), "local"));
  EXPECT_FALSE(r.reply.usage.reported);
}

TEST(CommandProvider, JsonReplyWithUsageAndFinish) {
  CommandProvider p(R"(echo '{"text":"pong","usage":{"input":3,"output":1}}')", "local", 10, 1 << 20);
  Result r = p.complete(ask(), {});
  EXPECT_EQ(r.outcome, Outcome::ok);
  EXPECT_EQ(r.reply.text, "pong");
  EXPECT_EQ(r.reply.usage.input, 3);
  Result t = read_command_reply(R"({"text":"po","finish":"length","usage":{"output":9}})", "m");
  EXPECT_EQ(t.outcome, Outcome::truncated);
  EXPECT_EQ(read_command_reply(R"({"text":5})", "m").outcome, Outcome::malformed_reply);
}

TEST(CommandProvider, TheChildNeverSeesAKey) {
  ::setenv("KERNELBLASTER_LLM_API_KEY", "sk-MARKER-child-1", 1);
  ::setenv("OPENAI_API_KEY", "sk-MARKER-child-2", 1);
  ::setenv("ANTHROPIC_API_KEY", "sk-MARKER-child-3", 1);
  CommandProvider p("env; echo done", "local", 10, 1 << 20);
  Result r = p.complete(ask(), {});
  ::unsetenv("KERNELBLASTER_LLM_API_KEY");
  ::unsetenv("OPENAI_API_KEY");
  ::unsetenv("ANTHROPIC_API_KEY");
  ASSERT_EQ(r.outcome, Outcome::ok);
  EXPECT_NE(r.reply.text.find("done"), std::string::npos);
  EXPECT_EQ(r.reply.text.find("MARKER"), std::string::npos);
  EXPECT_EQ(r.reply.text.find("API_KEY"), std::string::npos);
}

TEST(CommandProvider, FailuresAreResults) {
  Result fail = CommandProvider("echo broken >&2; exit 3", "m", 10, 1 << 20).complete(ask(), {});
  EXPECT_EQ(fail.outcome, Outcome::command_failed);
  EXPECT_EQ(fail.detail, "LLM command exit 3: broken");
  EXPECT_EQ(CommandProvider("true", "m", 10, 1 << 20).complete(ask(), {}).outcome, Outcome::command_failed);
  EXPECT_EQ(CommandProvider("head -c 5000 /dev/zero | tr '\\0' x", "m", 10, 100).complete(ask(), {}).outcome,
            Outcome::oversized);
  Result slow = CommandProvider("sleep 5", "m", 0.3, 100).complete(ask(), {});
  EXPECT_EQ(slow.outcome, Outcome::stalled);
}

TEST(RequestSlots, NeverMoreThanTheLimit) {
  RequestSlots slots(2);
  std::atomic<int> inside{0}, most{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        slots.acquire();
        int now = ++inside;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        --inside;
        slots.release();
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(most.load(), 2);
}

}  // namespace
}  // namespace kernelblaster::llm
