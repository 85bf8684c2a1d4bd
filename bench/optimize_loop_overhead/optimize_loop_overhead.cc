// What the optimization loop itself costs per step, apart from the LLM and
// the judge (issue 15: under 1 s): classifying the state, the policy's
// choice (the built-in one, or a Lua script in its sandbox), rendering the
// lowering and fix prompts, taking the code out of the reply, the static
// checks against the original, rewarding and teaching the KB. The provider
// and the judge answer at once; the kernel is a real source of the repo.
//
// usage: optimize_loop_overhead --source FILE.cu --launcher NAME --kb SEED.json
//            [--policy FILE.lua] [--steps N] [--check-s LIMIT]
// Prints the median, p99 and max of the loop's own time per step. With
// --check-s, exits 1 when the max is above LIMIT.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/file_util.h"
#include "kb/kb_store.h"
#include "llm/client.h"
#include "optimize/loop.h"
#include "policy/default_policy.h"
#include "policy/lua_policy.h"

using namespace kernelblaster;

namespace {

// Answers every request with the original source in a fence, every third
// one with prose only (so a fix prompt follows).
class EchoProvider : public llm::Provider {
 public:
  std::string source;
  int calls = 0;
  llm::Result complete(const llm::Request&, const llm::Progress&) override {
    llm::Result r;
    r.reply.model = "m";
    r.reply.usage = {9000, 3000, 0, 0, true};
    r.reply.text = ++calls % 3 == 0 ? std::string("I would unroll the loop.")
                                    : "Applied.\n```cuda\n" + source + "```\nDone.";
    return r;
  }
};

// Verified, alternately faster and slower, with a profile each time.
class InstantJudge : public optimize::CandidateJudge {
 public:
  int n = 0;
  optimize::Judgement verdict(double speedup) {
    optimize::Judgement v;
    v.speedup = speedup;
    v.median_us = 100 / speedup;
    v.metrics = {{"dram_throughput_pct", 70 + n % 20}, {"sm_throughput_pct", 30}, {"gpu_busy_pct", 97},
                 {"achieved_occupancy_pct", 60}, {"waves_per_sm", 8}};
    return v;
  }
  optimize::Judgement judge_original() override { return verdict(1.0); }
  optimize::Judgement judge(const std::string&, const std::string&) override { return verdict(++n % 2 ? 1.1 + n * 0.01 : 0.9); }
  optimize::Judgement confirm(const std::string&, const std::string&, int) override { return verdict(1.1); }
};

std::string arg(int argc, char** argv, const std::string& key, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == key) return argv[i + 1];
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string source_path = arg(argc, argv, "--source", "");
  const std::string launcher = arg(argc, argv, "--launcher", "");
  const std::string kb_path = arg(argc, argv, "--kb", "");
  const std::string policy_path = arg(argc, argv, "--policy", "");
  const int steps = std::atoi(arg(argc, argv, "--steps", "8").c_str());
  const double check_s = std::atof(arg(argc, argv, "--check-s", "0").c_str());
  if (source_path.empty() || launcher.empty() || kb_path.empty() || steps < 1) {
    std::fprintf(stderr, "usage: optimize_loop_overhead --source FILE.cu --launcher NAME --kb SEED.json [--policy FILE.lua] [--steps N] [--check-s LIMIT]\n");
    return 2;
  }
  try {
    kb::KnowledgeBase knowledge = kb::load_kb(kb_path);
    std::unique_ptr<policy::Policy> policy =
        policy_path.empty() ? policy::make_default_policy() : policy::load_lua_policy_file(policy_path);
    auto provider = std::make_unique<EchoProvider>();
    provider->source = read_file(source_path);
    llm::LlmConfig config;
    config.model = "m";
    llm::SteadyClock clock;
    llm::Client client(config, std::move(provider), llm::PriceTable{}, clock);
    InstantJudge judge;
    optimize::KernelTarget target{"kernel.cu", read_file(source_path), launcher, "the launcher keeps its signature",
                                  "sm_90", "NVIDIA H100 80GB HBM3"};
    optimize::LoopOptions options;
    options.trajectories = 4;
    options.steps = steps;
    options.fix_attempts = 2;
    optimize::Loop loop(target, options, knowledge, *policy, client, judge);
    optimize::RunResult r = loop.run();
    std::vector<double> ms;
    int attempts = 0;
    for (const optimize::Step& s : r.steps) {
      ms.push_back(s.loop_s * 1e3);
      attempts += static_cast<int>(s.attempts.size());
    }
    if (ms.empty()) throw std::runtime_error("the loop ran no step: " + r.stop.text());
    std::sort(ms.begin(), ms.end());
    auto at = [&](double q) { return ms[std::min(ms.size() - 1, static_cast<std::size_t>(q * (ms.size() - 1) + 0.5))]; };
    std::printf("policy %s, %zu steps, %d attempts (%d KB outcomes), kernel %s (%zu bytes)\n",
                policy->name().c_str(), ms.size(), attempts, static_cast<int>(r.outcomes.size()), source_path.c_str(),
                target.source.size());
    std::printf("loop time per step: median %.3f ms, p99 %.3f ms, max %.3f ms\n", at(0.5), at(0.99), ms.back());
    if (check_s > 0 && ms.back() > check_s * 1e3) {
      std::printf("FAIL: a step took %.3f ms of the loop's own time, above %.0f ms\n", ms.back(), check_s * 1e3);
      return 1;
    }
    return 0;
  } catch (const std::exception& x) {
    std::fprintf(stderr, "optimize_loop_overhead: %s\n", x.what());
    return 2;
  }
}
