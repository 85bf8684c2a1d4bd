// Whole trajectories through the loop: what the model is asked, what it
// answers (scripted, including bad answers), what the static checks and the
// judge decide, what the KB learns, and that a replayed run reproduces the
// recorded one byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <filesystem>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "fakes.h"
#include "kb/kb_store.h"
#include "llm/client.h"
#include "llm/http_provider.h"
#include "optimize/knowledge_update.h"
#include "optimize/loop.h"
#include "optimize/run_record.h"
#include "rewrite/kernel_unit.h"
#include "policy/default_policy.h"

namespace kernelblaster::optimize {
namespace {

using llm::testing::FakeClock;
using llm::testing::ScriptedTransport;
using nlohmann::json;

const char* kOriginal = R"(#include <cuda_runtime.h>
__global__ void scale_kernel(const float* x, float* y, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
void launch_scale(const float* x, float* y, int n, float a) {
  scale_kernel<<<(n + 255) / 256, 256>>>(x, y, n, a);
}
)";

// A candidate whose body carries a marker the scripted judge reads.
std::string kernel(const std::string& marker, const std::string& extra = "") {
  return "#include <cuda_runtime.h>\n" + extra +
         "__global__ void scale_kernel(const float4* x, float4* y, int n4, float a) {\n"
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;  // " + marker + "\n"
         "  if (i < n4) { float4 v = x[i]; y[i] = make_float4(a * v.x, a * v.y, a * v.z, a * v.w); }\n"
         "}\n"
         "void launch_scale(const float* x, float* y, int n, float a) {\n"
         "  scale_kernel<<<(n / 4 + 255) / 256, 256>>>((const float4*)x, (float4*)y, n / 4, a);\n"
         "}\n";
}

std::string fenced(const std::string& code, const std::string& fence = "```cuda") {
  std::string close = fence.substr(0, 3);
  return "Here is the kernel with the technique applied.\n\n" + fence + "\n" + code + close + "\n\nIt should be faster.";
}

std::string openai_body(const std::string& text, int in = 900, int out = 300) {
  json j = {{"id", "chatcmpl-1"},
            {"object", "chat.completion"},
            {"model", "m"},
            {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", text}}}, {"finish_reason", "stop"}}}},
            {"usage", {{"prompt_tokens", in}, {"completion_tokens", out}, {"total_tokens", in + out}}}};
  return j.dump();
}

// Stands in for the engine: a candidate's verdict is the first rule whose
// marker its code contains.
class ScriptedJudge : public CandidateJudge {
 public:
  std::vector<std::pair<std::string, Judgement>> rules;
  std::vector<std::string> judged;  // tags, in order
  int confirmations = 0;
  Judgement original;
  double confirm_factor = 1.0;

  ScriptedJudge() {
    original.median_us = 100;
    original.speedup = 1.0;
    original.metrics = {{"dram_throughput_pct", 85}, {"sm_throughput_pct", 20}, {"gpu_busy_pct", 95}};
  }
  void rule(const std::string& marker, Status status, double speedup = 0, std::string detail = "") {
    Judgement v;
    v.status = status;
    v.speedup = speedup;
    v.median_us = speedup > 0 ? 100 / speedup : 0;
    v.detail = detail.empty() ? std::string(status_name(status)) + " (scripted)" : detail;
    if (status == Status::compile_failed) {  // the compiler says more than its first error line
      v.compiler_output = detail + "\n1 error detected in the compilation of \"scale.cu\".\n";
      v.detail = detail;
    }
    rules.emplace_back(marker, v);
  }
  Judgement judge_original() override { return original; }
  std::vector<std::string> sources;  // what each judgement was given
  Judgement judge(const std::string& source, const std::string& tag) override {
    judged.push_back(tag);
    sources.push_back(source);
    for (const auto& [marker, v] : rules)
      if (source.find(marker) != std::string::npos) return v;
    Judgement v;
    v.status = Status::wrong_result;
    v.detail = "no scripted rule";
    return v;
  }
  // What a second look finds instead, by marker (a cache or a copy the
  // first judgement let through).
  std::vector<std::pair<std::string, Judgement>> second_looks;
  Judgement confirm(const std::string& source, const std::string& tag, int) override {
    ++confirmations;
    for (const auto& [marker, v] : second_looks)
      if (source.find(marker) != std::string::npos) return v;
    Judgement v = judge(source, tag);
    v.speedup *= confirm_factor;
    return v;
  }
};

struct Rig {
  std::string dir = make_work_dir("optimize-loop-test");
  std::string cache_dir = dir + "/cache";
  FakeClock clock;
  ScriptedTransport* transport = nullptr;
  std::unique_ptr<ScriptedTransport> owned_transport = std::make_unique<ScriptedTransport>();
  std::unique_ptr<llm::Client> client;
  kb::KnowledgeBase kb = kb::load_kb(std::string(KERNELBLASTER_SOURCE_DIR) + "/data/kb/seed.json");
  std::unique_ptr<policy::Policy> policy = policy::make_default_policy();
  ScriptedJudge judge;
  LoopOptions options;
  std::vector<std::string> log;
  std::vector<rewrite::KernelUnit> units;  // the project's kernels, for a rewrite one kernel at a time
  std::string launcher = "launch_scale";   // empty: a harness of several launchers, none named

  Rig() {
    options.trajectories = 1;
    options.steps = 1;
    options.fix_attempts = 2;
    options.review_every = 0;  // the review tests turn it on
    transport = owned_transport.get();
  }
  ~Rig() { std::filesystem::remove_all(dir); }
  void script(const std::string& reply_text) { transport->script.push_back(llm::testing::http(200, openai_body(reply_text))); }
  void make_client(llm::CacheMode mode = llm::CacheMode::off, llm::Caps caps = {}, bool with_provider = true) {
    llm::LlmConfig c;
    c.model = "m";
    c.stream = false;
    c.cache_mode = mode;
    c.cache_dir = cache_dir;
    c.caps = caps;
    std::unique_ptr<llm::Provider> provider;
    if (with_provider) {
      llm::HttpSettings hs;
      hs.base_url = "http://127.0.0.1:9/v1";
      hs.model = "m";
      hs.stream = false;
      hs.retry.max_attempts = 1;
      provider = std::make_unique<llm::HttpProvider>(llm::make_openai_protocol(), *transport, clock, hs, "", [] { return 0.5; });
    }
    llm::PriceTable prices;
    prices.set("m", {2.0, 1.0, 3.0, 10.0});
    client = std::make_unique<llm::Client>(c, std::move(provider), prices, clock);
  }
  RunResult run() {
    if (!client) make_client();
    KernelTarget t{"scale.cu", kOriginal, launcher, "launch_scale(x, y, n, a) writes y = a * x", "sm_90", "NVIDIA H100 80GB HBM3"};
    t.units = units;
    Loop loop(t, options, kb, *policy, *client, judge, [this](const std::string& l) { log.push_back(l); });
    return loop.run();
  }
  // The text of the last message of the n-th request sent.
  std::string last_message(std::size_t n) const {
    json body = json::parse(transport->sent.at(n).body);
    return body["messages"].back()["content"].get<std::string>();
  }
};

// A project shaped like real code: two kernels in headers the source
// reaches through another header, launched from two functions.
struct HeaderProject {
  std::filesystem::path root = std::filesystem::path(make_work_dir("optimize-unit-test"));
  std::string source = (root / "src/runner.cu").string();
  HeaderProject() {
    std::filesystem::create_directories(root / "src/kernels");
    write_file((root / "src/runner.cu").string(),
               "#include \"kernels/all.cuh\"\n"
               "void run_add(float* x, int n) { add_one<<<(n + 255) / 256, 256>>>(x, n); }\n"
               "void run_tile(float* x, int n) {\n  tile<128><<<(n + 127) / 128, 128>>>(x, n);\n}\n"
               "int main() { return 0; }\n");
    write_file((root / "src/kernels/all.cuh").string(), "#pragma once\n#include \"add.cuh\"\n#include \"tile.cuh\"\n");
    write_file((root / "src/kernels/add.cuh").string(),
               "#pragma once\n__global__ void add_one(float* x, int n) {\n  int i = blockIdx.x * blockDim.x + "
               "threadIdx.x;\n  if (i < n) x[i] += 1.0f;\n}\n");
    write_file((root / "src/kernels/tile.cuh").string(),
               "#pragma once\n\ntemplate <int TILE>\n__global__ void tile(float* x, int n) {\n  __shared__ float "
               "s[TILE];\n  int i = blockIdx.x * TILE + threadIdx.x;\n  s[threadIdx.x] = i < n ? x[i] : 0.0f;\n  "
               "__syncthreads();\n  if (i < n) x[i] = s[threadIdx.x];\n}\n");
  }
  ~HeaderProject() { std::filesystem::remove_all(root); }
  std::vector<rewrite::KernelUnit> units() const {
    auto u = rewrite::kernel_units(source, {(root / "src").string()}, root.string());
    for (auto& k : u) k.shapes = "call0 n=4096\n";
    return u;
  }
};

std::string tile_definition(const std::string& marker) {
  return "template <int TILE>\n__global__ void tile(float* x, int n) {\n  int i = blockIdx.x * TILE + threadIdx.x;  // " +
         marker + "\n  if (i < n) x[i] = x[i];\n}\n";
}

const kb::Stats* stats_of(const kb::KnowledgeBase& kb, const Step& s) {
  auto it = kb.stats.find(kb::StatsKey{s.state, s.technique, "sm_90", ""});
  return it == kb.stats.end() ? nullptr : &it->second;
}

TEST(OptimizeLoop, KeepsAFasterVerifiedKernelAndTheKbLearnsIt) {
  Rig rig;
  rig.judge.rule("FAST", Status::ok, 1.8);
  rig.script(fenced(kernel("FAST")));
  const kb::KnowledgeBase before = rig.kb;
  RunResult r = rig.run();
  ASSERT_EQ(r.steps.size(), 1u);
  const Step& s = r.steps[0];
  EXPECT_EQ(s.state, "memory_bandwidth_bound");
  ASSERT_NE(rig.kb.find_technique(s.technique), nullptr);
  ASSERT_EQ(s.attempts.size(), 1u);
  EXPECT_EQ(s.attempts[0].end, AttemptEnd::verified);
  EXPECT_TRUE(s.verified);
  EXPECT_TRUE(s.accepted);
  EXPECT_NEAR(s.speedup_vs_base, 1.8, 1e-9);
  EXPECT_NEAR(s.reward, std::log(1.8), 1e-9);
  EXPECT_NEAR(s.advantage, std::log(1.8) - std::log(s.predicted), 1e-9);
  EXPECT_TRUE(r.improved);
  EXPECT_EQ(rig.judge.confirmations, 1);
  EXPECT_EQ(r.best_tag, "t0-s0-a0");
  EXPECT_NE(r.best_source.find("FAST"), std::string::npos);
  // The lowering prompt named the chosen technique and carried the source.
  const std::string prompt = rig.last_message(0);
  EXPECT_NE(prompt.find(rig.kb.find_technique(s.technique)->name), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("launch_scale"), std::string::npos);
  // The KB learned the outcome: one more try and one more success.
  const kb::Stats* now = stats_of(rig.kb, s);
  ASSERT_NE(now, nullptr);
  auto then = before.stats.find(kb::StatsKey{s.state, s.technique, "sm_90", ""});
  std::int64_t tries0 = then == before.stats.end() ? 0 : then->second.tries;
  std::int64_t succ0 = then == before.stats.end() ? 0 : then->second.successes;
  EXPECT_EQ(now->tries, tries0 + 1);
  EXPECT_EQ(now->successes, succ0 + 1);
  ASSERT_FALSE(now->notes.empty());
  EXPECT_NE(now->notes.back().find("1.800x over its base"), std::string::npos) << now->notes.back();
  json diff = json::parse(kb_diff_json(before, rig.kb));
  ASSERT_EQ(diff["stats"].size(), 1u);
  EXPECT_EQ(diff["stats"][0]["technique"], s.technique);
}

TEST(OptimizeLoop, TheKernelTheTimeGoesToIsRewrittenAloneInItsHeader) {
  HeaderProject project;
  Rig rig;
  rig.units = project.units();
  rig.judge.original.kernels_by_time = {"void tile<128>(float*, int)", "add_one(float*, int)"};
  rig.judge.rule("UNIT_FAST", Status::ok, 1.6);
  rig.script("The reply names no tile kernel.\n```cuda\n__device__ float helper(float v) { return v; }\n```\n");
  rig.script(fenced(tile_definition("UNIT_FAST")));
  std::map<std::string, std::string> before;
  for (const auto& e : std::filesystem::recursive_directory_iterator(project.root))
    before[e.path().string()] = e.is_regular_file() ? read_file(e.path().string()) : "";
  RunResult r = rig.run();

  const bool said = std::any_of(rig.log.begin(), rig.log.end(), [](const std::string& l) {
    return l.find("kernel tile (tile.cuh:3), most of the original's GPU time, of 2 kernels: rewritten alone") !=
           std::string::npos;
  });
  EXPECT_TRUE(said);
  // The prompt carries the kernel, its launcher and its shapes, not the whole source.
  const std::string prompt = rig.last_message(0);
  EXPECT_NE(prompt.find("## The kernel to rewrite: tile (tile.cuh:3)"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("__shared__ float s[TILE];"), std::string::npos);
  EXPECT_NE(prompt.find("void run_tile(float* x, int n) {"), std::string::npos);
  EXPECT_NE(prompt.find("call0 n=4096"), std::string::npos);
  EXPECT_EQ(prompt.find("x[i] += 1.0f"), std::string::npos) << "add_one's body is not tile's business";
  EXPECT_EQ(prompt.find("int main()"), std::string::npos);
  // A reply that does not define the kernel is not code for it; the fix prompt shows what came back.
  ASSERT_EQ(r.steps.size(), 1u);
  ASSERT_EQ(r.steps[0].attempts.size(), 2u);
  EXPECT_EQ(r.steps[0].attempts[0].end, AttemptEnd::no_code);
  EXPECT_NE(r.steps[0].attempts[0].detail.find("tile"), std::string::npos) << r.steps[0].attempts[0].detail;
  // The judge got the whole source with the new tile and the old add_one, as one text.
  ASSERT_EQ(rig.judge.sources.size(), 2u);  // the judgement and the second look, of one text
  EXPECT_EQ(rig.judge.sources[0], rig.judge.sources[1]);
  const std::string& judged = rig.judge.sources[0];
  EXPECT_NE(judged.find("UNIT_FAST"), std::string::npos);
  EXPECT_NE(judged.find("x[i] += 1.0f"), std::string::npos);
  EXPECT_EQ(judged.find("__shared__ float s[TILE];"), std::string::npos);
  EXPECT_EQ(judged.find("#include \"kernels/all.cuh\""), std::string::npos);
  EXPECT_TRUE(r.improved);
  EXPECT_EQ(r.best_source, judged);
  EXPECT_EQ(r.steps[0].attempts[1].definition, tile_definition("UNIT_FAST"));
  const json summary = json::parse(summary_json(KernelTarget{}, r, 1.0));
  EXPECT_EQ(summary["unit"]["kernel"], "tile");
  EXPECT_EQ(summary["unit"]["line"], 3);
  // The user's files are as they were.
  std::map<std::string, std::string> after;
  for (const auto& e : std::filesystem::recursive_directory_iterator(project.root))
    after[e.path().string()] = e.is_regular_file() ? read_file(e.path().string()) : "";
  EXPECT_EQ(before, after);
}

TEST(OptimizeLoop, AFixPromptShowsTheKernelsDefinitionNotTheWholeSource) {
  HeaderProject project;
  Rig rig;
  rig.units = project.units();
  rig.judge.original.kernels_by_time = {"void tile<128>(float*, int)"};
  rig.judge.rule("UNIT_BROKEN", Status::compile_failed, 0, "tile.cuh(5): error: identifier \"q\" is undefined");
  rig.script(fenced(tile_definition("UNIT_BROKEN")));
  rig.script(fenced(tile_definition("UNIT_BROKEN")));
  rig.run();
  const json body = json::parse(rig.transport->sent.at(1).body);
  const std::string assistant = body["messages"][body["messages"].size() - 2]["content"];
  EXPECT_EQ(assistant, "```cuda\n" + tile_definition("UNIT_BROKEN") + "```");
  EXPECT_NE(rig.last_message(1).find("reply with the kernel's whole corrected definition"), std::string::npos);
}

std::string add_definition(const std::string& marker) {
  return "__global__ void add_one(float* x, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;  // " + marker +
         "\n  if (i < n) x[i] = x[i] + 1.0f;\n}\n";
}

TEST(OptimizeLoop, TwoKernelsAreRewrittenOneAfterTheOtherFromWhatTheFirstKept) {
  HeaderProject project;
  Rig rig;
  rig.units = project.units();
  rig.options.kernels = 2;
  rig.judge.original.kernels_by_time = {"void tile<128>(float*, int)", "add_one(float*, int)"};
  rig.judge.original.kernel_metrics = {rig.judge.original.metrics,
                                       {{"dram_throughput_pct", 30}, {"sm_throughput_pct", 20}, {"stall_long_scoreboard", 6}}};
  rig.judge.rule("ADD_FAST", Status::ok, 2.0);  // with the kept tile in it
  rig.judge.rule("UNIT_FAST", Status::ok, 1.6);
  rig.script(fenced(tile_definition("UNIT_FAST")));
  rig.script(fenced(add_definition("ADD_FAST")));
  RunResult r = rig.run();
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].kernel, "tile");
  EXPECT_EQ(r.steps[1].kernel, "add_one");
  EXPECT_EQ(r.steps[1].state, "memory_latency_bound");  // add_one's own profile, not tile's
  // Each kernel's attempts have tags of their own, so their files do not overwrite each other's.
  EXPECT_EQ(r.steps[0].attempts.front().tag, "t0-s0-a0");
  EXPECT_EQ(r.steps[1].attempts.front().tag, "k1-t0-s0-a0");
  EXPECT_NEAR(r.steps[1].base_speedup, 1.6, 1e-9);
  const std::string second = rig.last_message(1);
  EXPECT_NE(second.find("## The kernel to rewrite: add_one (add.cuh:2)"), std::string::npos) << second;
  EXPECT_NE(second.find("void run_add(float* x, int n)"), std::string::npos);
  ASSERT_FALSE(rig.judge.sources.empty());
  const std::string& last = rig.judge.sources.back();
  EXPECT_NE(last.find("UNIT_FAST"), std::string::npos);  // the first kernel's rewrite stays
  EXPECT_NE(last.find("ADD_FAST"), std::string::npos);
  EXPECT_TRUE(r.improved);
  EXPECT_EQ(r.best_source, last);
  EXPECT_EQ(r.unit.name, "tile");
  const json summary = json::parse(summary_json(KernelTarget{}, r, 1.0));
  EXPECT_EQ(summary["kernels_rewritten"], json::array({"tile", "add_one"}));
}

TEST(OptimizeLoop, AKernelNearItsBoundIsPassedOverAndTheNextStartsFromWhatWasKept) {
  HeaderProject project;
  write_file(project.source, read_file(project.source) +
                                 "__global__ void third(float* x) { x[0] = 3.0f; }\n"
                                 "void run_third(float* x) { third<<<1, 1>>>(x); }\n");
  Rig rig;
  rig.units = project.units();
  rig.options.kernels = 3;
  rig.judge.original.kernels_by_time = {"void tile<128>(float*, int)", "add_one(float*, int)", "third(float*)"};
  rig.judge.original.kernel_metrics = {rig.judge.original.metrics,
                                       {{"roofline_bound_pct", 95}, {"dram_throughput_pct", 90}},
                                       {{"dram_throughput_pct", 30}, {"sm_throughput_pct", 20}, {"stall_long_scoreboard", 6}}};
  rig.judge.rule("THIRD_FAST", Status::ok, 2.0);
  rig.judge.rule("UNIT_FAST", Status::ok, 1.6);
  rig.script(fenced(tile_definition("UNIT_FAST")));
  rig.script(fenced("__global__ void third(float* x) { x[0] = 3.0f; /* THIRD_FAST */ }\n"));
  RunResult r = rig.run();
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[1].kernel, "third");
  EXPECT_TRUE(std::any_of(rig.log.begin(), rig.log.end(), [](const std::string& l) {
    return l.find("kernel add_one not rewritten: it") != std::string::npos;
  }));
  const std::string& last = rig.judge.sources.back();
  EXPECT_NE(last.find("UNIT_FAST"), std::string::npos);
  EXPECT_NE(last.find("THIRD_FAST"), std::string::npos);
  EXPECT_NE(last.find("x[i] += 1.0f"), std::string::npos);  // add_one as written
  EXPECT_EQ(rewrite::kernels_in_text(last, "one.cu").size(), 3u);
  EXPECT_TRUE(r.improved);
}

TEST(OptimizeLoop, AWholeFileForOneKernelIsRefusedAndAskedAgain) {
  HeaderProject project;
  Rig rig;
  rig.units = project.units();
  rig.judge.original.kernels_by_time = {"void tile<128>(float*, int)"};
  rig.judge.rule("UNIT_FAST", Status::ok, 1.6);
  rig.script(fenced(tile_definition("UNIT_FAST") + "void run_tile(float* x, int n) { tile<128><<<n / 128, 128>>>(x, n); }\n" +
                    "__global__ void add_one(float* x, int n) {}\n"));
  rig.script(fenced(tile_definition("UNIT_FAST")));
  RunResult r = rig.run();
  ASSERT_EQ(r.steps.size(), 1u);
  ASSERT_EQ(r.steps[0].attempts.size(), 2u);
  EXPECT_EQ(r.steps[0].attempts[0].end, AttemptEnd::no_code);
  EXPECT_NE(r.steps[0].attempts[0].detail.find("(also add_one, run_tile)"), std::string::npos)
      << r.steps[0].attempts[0].detail;
  EXPECT_TRUE(r.improved);
}

TEST(OptimizeLoop, OneKernelInTheSourceIsRewrittenWithItsFileAsBefore) {
  const std::string dir = make_work_dir("optimize-unit-one");
  write_file(dir + "/scale.cu", kOriginal);
  Rig rig;
  rig.units = rewrite::kernel_units(dir + "/scale.cu", {}, dir);
  ASSERT_EQ(rig.units.size(), 1u);
  rig.judge.original.kernels_by_time = {"scale_kernel(float const*, float*, int, float)"};
  rig.judge.rule("FAST", Status::ok, 1.8);
  rig.script(fenced(kernel("FAST")));
  RunResult r = rig.run();
  EXPECT_TRUE(r.improved);
  EXPECT_NE(rig.last_message(0).find("## Source"), std::string::npos);
  EXPECT_EQ(r.best_source, kernel("FAST"));
  std::filesystem::remove_all(dir);
}

TEST(OptimizeLoop, FindsCodeInOddFencesAndProse) {
  Rig rig;
  rig.judge.rule("TILDE", Status::ok, 1.3);
  rig.script("Sure! I applied it.\n~~~c++\n" + kernel("TILDE") + "~~~\nThe old version for reference:\n```\nint x;\n```\n");
  RunResult r = rig.run();
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_TRUE(r.steps[0].verified) << r.steps[0].attempts[0].detail;
  EXPECT_NE(r.steps[0].attempts[0].code.find("TILDE"), std::string::npos);
}

TEST(OptimizeLoop, ACompileErrorIsFedBackAndTheFixIsJudged) {
  Rig rig;
  rig.judge.rule("BROKEN", Status::compile_failed, 0, "scale.cu(3): error: identifier \"float5\" is undefined");
  rig.judge.rule("FIXED", Status::ok, 1.4);
  rig.script(fenced(kernel("BROKEN")));
  rig.script(fenced(kernel("FIXED")));
  RunResult r = rig.run();
  const Step& s = r.steps.at(0);
  ASSERT_EQ(s.attempts.size(), 2u);
  EXPECT_EQ(s.attempts[0].end, AttemptEnd::rejected);
  EXPECT_EQ(s.attempts[0].status, Status::compile_failed);
  EXPECT_EQ(s.attempts[0].detail.find('\n'), std::string::npos) << "a detail is one line";
  EXPECT_EQ(s.attempts[1].end, AttemptEnd::verified);
  // The fix request carried the failed code and the compiler's line.
  const std::string fix = rig.last_message(1);
  EXPECT_NE(fix.find("compile_failed"), std::string::npos) << fix;
  EXPECT_NE(fix.find("\"float5\" is undefined"), std::string::npos) << fix;
  EXPECT_NE(fix.find("1 error detected"), std::string::npos) << "the fix prompt has the compiler's whole output";
  json body = json::parse(rig.transport->sent.at(1).body);
  bool has_assistant_turn = false;
  for (const auto& m : body["messages"])
    if (m["role"] == "assistant" && m["content"].get<std::string>().find("BROKEN") != std::string::npos)
      has_assistant_turn = true;
  EXPECT_TRUE(has_assistant_turn);
  EXPECT_TRUE(r.improved);
}

// A model's code past the object bound (issue 39): the refusal names the
// symbol, and the fix prompt tells the model so it can write the kernel
// without it. Nothing of it is kept.
TEST(OptimizeLoop, ARefusedObjectIsFedBackNamingTheSymbol) {
  Rig rig;
  rig.judge.rule("FORKS", Status::forbidden_code, 0,
                 "the candidate's compiled code calls fork (processes), which the original does not and a kernel's "
                 "launcher has no need of");
  rig.judge.rule("PLAIN", Status::ok, 1.3);
  rig.script(fenced(kernel("FORKS")));
  rig.script(fenced(kernel("PLAIN")));
  RunResult r = rig.run();
  const Step& s = r.steps.at(0);
  ASSERT_EQ(s.attempts.size(), 2u);
  EXPECT_EQ(s.attempts[0].status, Status::forbidden_code);
  const std::string fix = rig.last_message(1);
  EXPECT_NE(fix.find("forbidden_code"), std::string::npos) << fix;
  EXPECT_NE(fix.find("calls fork (processes)"), std::string::npos) << fix;
  EXPECT_EQ(s.attempts[1].end, AttemptEnd::verified);
  EXPECT_TRUE(r.improved);
}

TEST(OptimizeLoop, WrongKernelsAreRejectedUntilTheAttemptsRunOut) {
  Rig rig;
  rig.judge.rule("WRONG", Status::wrong_result, 0, "output y: rel L2 0.93 against the original at seed 17");
  for (int i = 0; i < 3; ++i) rig.script(fenced(kernel("WRONG")));
  const kb::KnowledgeBase before = rig.kb;
  RunResult r = rig.run();
  const Step& s = r.steps.at(0);
  ASSERT_EQ(s.attempts.size(), 3u);  // the first and two fixes
  for (const Attempt& a : s.attempts) EXPECT_EQ(a.status, Status::wrong_result);
  EXPECT_FALSE(s.verified);
  EXPECT_FALSE(s.accepted);
  EXPECT_DOUBLE_EQ(s.reward, kFailureReward);
  EXPECT_FALSE(r.improved);
  EXPECT_EQ(r.best_source, kOriginal);
  EXPECT_EQ(rig.judge.confirmations, 0);
  EXPECT_NE(rig.last_message(2).find("rel L2 0.93"), std::string::npos);
  // A failed try is still a try.
  const kb::Stats* now = stats_of(rig.kb, s);
  ASSERT_NE(now, nullptr);
  auto then = before.stats.find(kb::StatsKey{s.state, s.technique, "sm_90", ""});
  EXPECT_EQ(now->tries, (then == before.stats.end() ? 0 : then->second.tries) + 1);
  EXPECT_EQ(now->successes, then == before.stats.end() ? 0 : then->second.successes);
  EXPECT_NE(now->notes.back().find("wrong_result"), std::string::npos);
}

// The KB learns from failures too: a technique whose tries keep failing
// sinks in the policy's order on the next runs (same seed, same state), and
// the step records that whole order.
TEST(OptimizeLoop, ATechniqueThatKeepsFailingSinksInTheNextRunsOrder) {
  Rig rig;
  rig.judge.rule("WRONG", Status::wrong_result, 0, "output y: rel L2 0.93 against the original at seed 17");
  std::vector<std::vector<std::string>> rankings;
  std::string failing;
  for (int run = 0; run < 6; ++run) {
    for (int i = 0; i < 3; ++i) rig.script(fenced(kernel("WRONG")));
    RunResult r = rig.run();
    const Step& s = r.steps.at(0);
    ASSERT_FALSE(s.ranking.empty());
    EXPECT_EQ(s.ranking.front(), s.technique);
    EXPECT_EQ(s.ranking.size(), rig.kb.techniques.size());
    if (run == 0) failing = s.technique;
    rankings.push_back(s.ranking);
    if (s.technique != failing) break;  // it failed before: another technique comes first now
  }
  auto rank = [&](const std::vector<std::string>& order) {
    return std::find(order.begin(), order.end(), failing) - order.begin();
  };
  ASSERT_GE(rankings.size(), 2u);
  for (std::size_t i = 1; i < rankings.size(); ++i) {
    EXPECT_NE(rankings[i], rankings[i - 1]) << "the failures changed nothing in run " << i;
    EXPECT_GE(rank(rankings[i]), rank(rankings[i - 1])) << "run " << i;
  }
  EXPECT_GT(rank(rankings.back()), 0) << failing << " still comes first after " << rankings.size() - 1 << " failures";
}

TEST(OptimizeLoop, RewardHacksAreRejectedBeforeOrByTheJudge) {
  Rig rig;
  rig.options.fix_attempts = 1;
  // Reads the environment to find out it is being measured: never compiled.
  rig.script(fenced(kernel("ENVHACK", "#include <cstdlib>\nstatic bool timed = std::getenv(\"KB_TIMING\") != nullptr;\n")));
  // Writes nothing and leaves the outputs as they were: the engine's poison catches it.
  rig.judge.rule("SKIPWRITE", Status::unwritten_output, 0, "output y: 4096 elements kept the poison");
  rig.script(fenced(kernel("SKIPWRITE")));
  RunResult r = rig.run();
  const Step& s = r.steps.at(0);
  ASSERT_EQ(s.attempts.size(), 2u);
  EXPECT_EQ(s.attempts[0].end, AttemptEnd::static_check);
  EXPECT_NE(s.attempts[0].detail.find("getenv"), std::string::npos) << s.attempts[0].detail;
  EXPECT_EQ(s.attempts[1].end, AttemptEnd::rejected);
  EXPECT_EQ(s.attempts[1].status, Status::unwritten_output);
  ASSERT_EQ(rig.judge.judged.size(), 1u) << "the static finding must stop the candidate before the judge";
  EXPECT_EQ(rig.judge.judged[0], "t0-s0-a1");
  EXPECT_NE(rig.last_message(1).find("static_check"), std::string::npos);
  EXPECT_FALSE(r.improved);
}

TEST(OptimizeLoop, AReplyWithoutCodeAsksAgain) {
  Rig rig;
  rig.judge.rule("AFTERPROSE", Status::ok, 1.2);
  rig.script("I would vectorize the loads with float4 and use a grid-stride loop.");
  rig.script(fenced(kernel("AFTERPROSE")));
  RunResult r = rig.run();
  const Step& s = r.steps.at(0);
  ASSERT_EQ(s.attempts.size(), 2u);
  EXPECT_EQ(s.attempts[0].end, AttemptEnd::no_code);
  EXPECT_TRUE(s.attempts[1].end == AttemptEnd::verified);
  EXPECT_NE(rig.last_message(1).find("no_code"), std::string::npos);
}

TEST(OptimizeLoop, AMalformedReplyIsAFailedRequestThatTeachesTheKbNothing) {
  Rig rig;
  rig.transport->script.push_back(llm::testing::http(200, "{\"choices\": 7"));
  const kb::KnowledgeBase before = rig.kb;
  RunResult r = rig.run();
  const Step& s = r.steps.at(0);
  ASSERT_EQ(s.attempts.size(), 1u);
  EXPECT_EQ(s.attempts[0].end, AttemptEnd::llm_failed);
  EXPECT_EQ(s.attempts[0].llm_outcome, llm::Outcome::malformed_reply);
  EXPECT_TRUE(r.outcomes.empty());
  EXPECT_EQ(json::parse(kb_diff_json(before, rig.kb))["stats"].size(), 0u);
  EXPECT_TRUE(rig.judge.judged.empty());
}

// An nvcc that cannot run, or a GPU that is gone, is the environment's
// failure: it says nothing about the technique, as in the tuner's KB bridge
// (one rule, teaches_kb). Before, the optimize loop recorded it as a failed
// try of the technique.
TEST(OptimizeLoop, AnEnvironmentFailureTeachesTheKbNothing) {
  for (Status environment : {Status::tool_error, Status::no_gpu, Status::harness_error}) {
    Rig rig;
    rig.judge.rule("ANY", environment, 0, "nvcc could not be run (scripted)");
    for (int i = 0; i < 3; ++i) rig.script(fenced(kernel("ANY")));
    const kb::KnowledgeBase before = rig.kb;
    RunResult r = rig.run();
    ASSERT_FALSE(r.steps.empty());
    EXPECT_EQ(r.steps[0].attempts.back().status, environment);
    EXPECT_TRUE(r.outcomes.empty()) << status_name(environment);
    EXPECT_EQ(json::parse(kb_diff_json(before, rig.kb))["stats"].size(), 0u) << status_name(environment);
  }
  // What the code does is still learned: a wrong result is a failed try.
  Rig rig;
  rig.judge.rule("WRONG", Status::wrong_result);
  for (int i = 0; i < 3; ++i) rig.script(fenced(kernel("WRONG")));
  EXPECT_EQ(rig.run().outcomes.size(), 1u);
}

TEST(OptimizeLoop, AcceptedStepsChainAndEveryStepIsLearned) {
  Rig rig;
  rig.options.steps = 3;
  rig.judge.rule("STEP1", Status::ok, 1.5);
  rig.judge.rule("STEP2", Status::ok, 1.4);  // slower than its base: kept out
  rig.judge.rule("STEP3", Status::ok, 2.1);
  rig.script(fenced(kernel("STEP1")));
  rig.script(fenced(kernel("STEP2")));
  rig.script(fenced(kernel("STEP3")));
  RunResult r = rig.run();
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_TRUE(r.steps[0].accepted);
  EXPECT_FALSE(r.steps[1].accepted);
  EXPECT_NEAR(r.steps[1].speedup_vs_base, 1.4 / 1.5, 1e-9);
  EXPECT_TRUE(r.steps[2].accepted);
  EXPECT_NEAR(r.steps[2].base_speedup, 1.5, 1e-9);
  EXPECT_NEAR(r.steps[2].speedup_vs_base, 2.1 / 1.5, 1e-9);
  // Three different techniques, each learned, the later ones as transitions from the first.
  std::set<std::string> techniques;
  for (const Step& s : r.steps) techniques.insert(s.technique);
  EXPECT_EQ(techniques.size(), 3u);
  ASSERT_EQ(r.outcomes.size(), 3u);
  EXPECT_EQ(r.outcomes[1].previous_technique, r.steps[0].technique);
  EXPECT_EQ(r.outcomes[2].previous_technique, r.steps[0].technique);
  // Step 2 starts from step 1's kernel.
  EXPECT_NE(rig.last_message(1).find("STEP1"), std::string::npos);
  EXPECT_NE(rig.last_message(2).find("STEP1"), std::string::npos);
  EXPECT_EQ(r.best_tag, "t0-s2-a0");
}

TEST(OptimizeLoop, AWinnerThatDoesNotHoldOnASecondLookIsNotKept) {
  Rig rig;
  rig.judge.rule("LUCKY", Status::ok, 1.5);
  rig.judge.confirm_factor = 0.66;  // 0.99x when looked at again
  rig.script(fenced(kernel("LUCKY")));
  RunResult r = rig.run();
  EXPECT_EQ(rig.judge.confirmations, 1);
  EXPECT_FALSE(r.improved);
  EXPECT_EQ(r.best_source, kOriginal);
}

// The hack the first judgement let through (a result cache at 476x) is
// found on the second look: it is no base, no KB success and not kept; the
// KB records the step as the failure it is, and the next step starts from
// the original, not from the cache.
TEST(OptimizeLoop, ACandidateFoundOutOnASecondLookIsAFailedStepNotABase) {
  Rig rig;
  rig.options.steps = 2;
  rig.judge.rule("CACHE", Status::ok, 476.0);
  Judgement caught;
  caught.status = Status::cached_result;
  caught.detail = "size default: 21.0 us on repeated inputs vs 2400.0 us on fresh inputs";
  rig.judge.second_looks.emplace_back("CACHE", caught);
  rig.judge.rule("HONEST", Status::ok, 1.3);
  rig.script(fenced(kernel("CACHE")));
  rig.script(fenced(kernel("HONEST")));
  const kb::KnowledgeBase before = rig.kb;
  RunResult r = rig.run();
  ASSERT_EQ(r.steps.size(), 2u);
  const Step& hack = r.steps[0];
  EXPECT_TRUE(hack.looked_again);
  EXPECT_FALSE(hack.verified);
  EXPECT_FALSE(hack.accepted);
  EXPECT_EQ(hack.attempts.back().end, AttemptEnd::rejected);
  EXPECT_EQ(hack.attempts.back().status, Status::cached_result);
  EXPECT_EQ(hack.attempts.back().speedup, 0);
  EXPECT_NE(hack.attempts.back().detail.find("476.000x the first time"), std::string::npos) << hack.attempts.back().detail;
  EXPECT_NEAR(hack.reward, kFailureReward, 1e-12);
  // What the KB learned from it: a try that failed, with the status.
  ASSERT_EQ(r.outcomes.size(), 2u);
  EXPECT_FALSE(r.outcomes[0].verified);
  EXPECT_EQ(r.outcomes[0].speedup, 0);
  EXPECT_NE(r.outcomes[0].note.find("cached_result"), std::string::npos) << r.outcomes[0].note;
  const kb::Stats* st = stats_of(rig.kb, hack);
  ASSERT_NE(st, nullptr);
  auto then = before.stats.find(kb::StatsKey{hack.state, hack.technique, "sm_90", ""});
  EXPECT_EQ(st->successes, then == before.stats.end() ? 0 : then->second.successes);
  // The next step started from the original (its prompt holds no cache), and its base is 1x.
  EXPECT_EQ(rig.last_message(1).find("CACHE"), std::string::npos);
  EXPECT_NEAR(r.steps[1].base_speedup, 1.0, 1e-12);
  // The honest rewrite is what is kept, after its own second look.
  EXPECT_TRUE(r.improved);
  EXPECT_EQ(r.best_tag, "t0-s1-a0");
  EXPECT_EQ(rig.judge.confirmations, 2);
  EXPECT_NEAR(r.confirmation.speedup, 1.3, 1e-12);
}

// A second look that finds the kernel slower: the lower speed is what was verified.
TEST(OptimizeLoop, TheLowerOfTwoLooksIsWhatIsBelieved) {
  Rig rig;
  rig.judge.rule("NOISY", Status::ok, 1.6);
  rig.judge.confirm_factor = 0.8;  // 1.28x the second time
  rig.script(fenced(kernel("NOISY")));
  RunResult r = rig.run();
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_TRUE(r.steps[0].verified);
  EXPECT_NEAR(r.steps[0].attempts.back().speedup, 1.28, 1e-9);
  EXPECT_NEAR(r.steps[0].speedup_vs_base, 1.28, 1e-9);
  EXPECT_NEAR(r.outcomes[0].speedup, 1.28, 1e-9);
  EXPECT_TRUE(r.improved);
  EXPECT_NEAR(r.search_speedup, 1.28, 1e-9);
}

// A verified rewrite slower than its base and the original is not looked
// at again: nothing would be believed of it.
TEST(OptimizeLoop, NothingToBelieveNeedsNoSecondLook) {
  Rig rig;
  rig.judge.rule("SLOWER", Status::ok, 0.9);
  rig.script(fenced(kernel("SLOWER")));
  RunResult r = rig.run();
  EXPECT_EQ(rig.judge.confirmations, 0);
  EXPECT_FALSE(r.steps[0].looked_again);
  EXPECT_TRUE(r.steps[0].verified);
  EXPECT_FALSE(r.steps[0].accepted);
  EXPECT_FALSE(r.improved);
}

TEST(OptimizeLoop, ATokenCapStopsTheRunWithinOneRequest) {
  Rig rig;
  rig.options.trajectories = 3;
  rig.options.steps = 3;
  rig.judge.rule("WRONG", Status::wrong_result);
  for (int i = 0; i < 30; ++i) rig.script(fenced(kernel("WRONG")));
  rig.make_client(llm::CacheMode::off, llm::Caps{2400, 0, 0, 0});  // each reply is 1200 tokens
  RunResult r = rig.run();
  EXPECT_EQ(rig.transport->sent.size(), 2u);  // 1200, 2400, then the cap refuses the third
  EXPECT_EQ(r.input_tokens + r.output_tokens, 2400);
  EXPECT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.stop.kind, RunStop::Kind::llm_failed);
  EXPECT_NE(r.stop.text().find("cap_reached"), std::string::npos) << r.stop.text();
}

TEST(OptimizeLoop, AnOriginalThatFailsEndsTheRunBeforeAnyRequest) {
  Rig rig;
  rig.judge.original.status = Status::reference_failed;
  rig.judge.original.detail = "the original does not build";
  RunResult r = rig.run();
  EXPECT_TRUE(r.steps.empty());
  EXPECT_TRUE(rig.transport->sent.empty());
  EXPECT_EQ(r.stop.kind, RunStop::Kind::original_failed);
  EXPECT_NE(r.stop.text().find("reference_failed"), std::string::npos);
}

// A step's line says why its base has no state; a classified one says only
// the state.
TEST(OptimizeLoop, AStepWithoutAStateSaysWhy) {
  auto step_line = [](const Rig& rig) {
    for (const std::string& l : rig.log)
      if (l.find("step 0: state") != std::string::npos) return l;
    return std::string();
  };
  Rig rig;
  rig.judge.original.metrics.clear();  // the profile gave nothing
  rig.script(fenced(kernel("ANY")));
  rig.run();
  EXPECT_NE(step_line(rig).find("state unclassified (no counters were read for it"), std::string::npos)
      << step_line(rig);
  Rig counted;
  counted.script(fenced(kernel("ANY")));
  counted.run();
  EXPECT_EQ(step_line(counted).find("unclassified"), std::string::npos) << step_line(counted);
  EXPECT_EQ(step_line(counted).find(" ("), std::string::npos) << step_line(counted);
}

// A harness of several launchers names none to rewrite the source around:
// with no kernel to rewrite alone, the run ends before any request and says
// why.
TEST(OptimizeLoop, NoKernelAloneAndNoLauncherEndsTheRunBeforeAnyRequest) {
  Rig rig;
  rig.launcher.clear();
  RunResult r = rig.run();
  EXPECT_TRUE(r.steps.empty());
  EXPECT_TRUE(rig.transport->sent.empty());
  EXPECT_FALSE(r.improved);
  EXPECT_EQ(r.stop.kind, RunStop::Kind::no_unit);
  EXPECT_NE(r.stop.text().find("nothing to rewrite: the harness calls several launchers"), std::string::npos)
      << r.stop.text();
}

// A kernel already at 95% of its speed of light is not worked on: no
// request is sent, and the run says why.
TEST(OptimizeLoop, AnOriginalNearItsSpeedOfLightEndsTheRunBeforeAnyRequest) {
  Rig rig;
  rig.judge.original.metrics["roofline_bound_pct"] = 95;
  RunResult r = rig.run();
  EXPECT_TRUE(r.steps.empty());
  EXPECT_TRUE(rig.transport->sent.empty());
  EXPECT_EQ(r.stop.kind, RunStop::Kind::near_bound);
  EXPECT_EQ(r.stop.text(), "near bound: the original runs at 95% of its speed of light (the GPU's roof at its "
                           "arithmetic intensity); the loop stops at 90%");
  // With the stop off, the same kernel is worked on.
  Rig again;
  again.judge.original.metrics["roofline_bound_pct"] = 95;
  again.options.bound_stop = 0;
  again.judge.rule("FASTER", Status::ok, 1.03);
  again.script(fenced(kernel("FASTER")));
  EXPECT_EQ(again.run().steps.size(), 1u);
}

// The prompt carries the speed of light; a base that reaches it ends its
// trajectory.
TEST(OptimizeLoop, ABaseThatReachesItsSpeedOfLightEndsItsTrajectory) {
  Rig rig;
  rig.options.steps = 3;
  rig.judge.original.metrics["roofline_bound_pct"] = 40;
  rig.judge.rule("STEP1", Status::ok, 2.3);
  rig.judge.rules.back().second.metrics = {{"roofline_bound_pct", 92}};
  rig.script(fenced(kernel("STEP1")));
  rig.script(fenced(kernel("STEP2")));
  RunResult r = rig.run();
  EXPECT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(rig.transport->sent.size(), 1u);
  EXPECT_TRUE(r.improved);
  const std::string prompt = rig.last_message(0);
  EXPECT_NE(prompt.find("Speed of light: at this arithmetic intensity the GPU's measured roof allows at most 2.5x this "
                        "kernel's speed (it runs at 40"),
            std::string::npos)
      << prompt;
  EXPECT_NE(prompt.find("the bound on one call's time is 40 us against 100 us now"), std::string::npos) << prompt;
  bool said = false;
  for (const std::string& l : rig.log) said = said || l.find("t0 ends: its base t0-s0-a0 runs at 92%") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_DOUBLE_EQ(r.steps[0].base_bound_share, 0.4);  // what the trajectory records of the gap
}

TEST(OptimizeLoop, AReplayedRunReproducesTheRecordedOne) {
  auto play = [](llm::CacheMode mode, bool with_provider, const std::string& cache_dir, std::string* kb_diff,
                 std::size_t* sent) {
    Rig rig;
    rig.options.trajectories = 2;
    rig.options.steps = 2;
    rig.judge.rule("GOOD", Status::ok, 1.6);
    rig.judge.rule("BROKEN", Status::compile_failed, 0, "error: expected a ';'");
    rig.script(fenced(kernel("BROKEN")));
    rig.script(fenced(kernel("GOOD")));
    rig.script("no code today");
    rig.script(fenced(kernel("GOOD2")));
    rig.script(fenced(kernel("GOOD")));
    for (int i = 0; i < 4; ++i) rig.script(fenced(kernel("WRONG")));
    rig.cache_dir = cache_dir;  // both runs share one cache
    rig.make_client(mode, {}, with_provider);
    const kb::KnowledgeBase before = rig.kb;
    RunResult r = rig.run();
    *kb_diff = kb_diff_json(before, rig.kb);
    *sent = rig.transport->sent.size();
    return trajectory_json(r);
  };
  const std::string shared = make_work_dir("optimize-replay-cache");
  std::string diff1, diff2;
  std::size_t sent1 = 0, sent2 = 0;
  const std::string recorded = play(llm::CacheMode::record, true, shared, &diff1, &sent1);
  const std::string replayed = play(llm::CacheMode::replay, false, shared, &diff2, &sent2);
  std::filesystem::remove_all(shared);
  EXPECT_GT(sent1, 4u);
  EXPECT_EQ(sent2, 0u);
  EXPECT_EQ(recorded, replayed);
  EXPECT_EQ(diff1, diff2);
}

const char* kGoodReview = R"(PolicyEvaluation: vectorization was predicted at 1.0x and gave more.
```json
{"analysis": "Vectorized access beat its prediction on this bandwidth-bound kernel; fast math did nothing.",
 "notes": [{"state": "memory_bandwidth_bound", "technique": "vectorized_memory_access",
            "note": "float4 loads need the row length to be a multiple of 4; guard the tail."}],
 "predictions": [{"state": "memory_bandwidth_bound", "technique": "vectorized_memory_access", "factor": 1.5}],
 "deprecate": [{"state": "memory_bandwidth_bound", "technique": "tensor_cores", "reason": "no matrix products here"}],
 "new_techniques": [{"id": "tail_split", "name": "Split the ragged tail", "category": "memory",
                     "description": "Handle the last partial vector separately.",
                     "how_to": "Run the main loop on whole vectors and a scalar loop on the rest.",
                     "helps_states": ["memory_bandwidth_bound", "store_bound"]}],
 "new_states": [{"id": "store_bound", "name": "Store bound", "signature": "writes dominate DRAM traffic",
                 "priority": 5, "rule": [{"metric": "dram_write_pct", "op": ">=", "value": 70}]}]}
```)";

TEST(KnowledgeUpdate, AValidProposalChangesNotesPredictionsAndAddsIds) {
  kb::KnowledgeBase kb = kb::load_kb(std::string(KERNELBLASTER_SOURCE_DIR) + "/data/kb/seed.json");
  KnowledgeUpdate u = parse_knowledge_update(kGoodReview, kb);
  kb::KnowledgeBase edited = kb;
  apply_knowledge_update(edited, u, "sm_90");
  ASSERT_NE(edited.find_technique("tail_split"), nullptr);
  ASSERT_NE(edited.find_state("store_bound"), nullptr);
  EXPECT_TRUE(edited.states.back().rule.empty()) << "the fallback state stays last";
  const kb::Stats& v = edited.stats.at({"memory_bandwidth_bound", "vectorized_memory_access", "sm_90", ""});
  EXPECT_DOUBLE_EQ(v.adjustment, 1.5);
  EXPECT_DOUBLE_EQ(v.predicted, 1.5);  // no tries: the prior's 1.0, times the factor
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_EQ(v.notes[0].rfind("review: float4", 0), 0u) << v.notes[0];
  const kb::Stats& t = edited.stats.at({"memory_bandwidth_bound", "tensor_cores", "sm_90", ""});
  EXPECT_DOUBLE_EQ(t.predicted, 0.5);
  EXPECT_NE(t.notes.back().find("deprecated: no matrix products"), std::string::npos);
  // The edited KB is a valid KB file, and the factor survives the file.
  kb::KnowledgeBase reread = kb::parse_kb(kb::serialize_kb(edited), "edited.json");
  EXPECT_DOUBLE_EQ(reread.stats.at({"memory_bandwidth_bound", "vectorized_memory_access", "sm_90", ""}).predicted, 1.5);
  // A later measurement keeps the factor: it corrects the counts, it does not replace them.
  kb::Outcome o{"memory_bandwidth_bound", "vectorized_memory_access", "sm_90", "", "", true, 1.2, ""};
  kb::record(edited, o);
  EXPECT_NEAR(edited.stats.at({"memory_bandwidth_bound", "vectorized_memory_access", "sm_90", ""}).predicted,
              (1.2 + 2.0) / 3.0 * 1.5, 1e-12);
}

TEST(KnowledgeUpdate, AMalformedProposalIsRefusedWholeWithWhere) {
  kb::KnowledgeBase kb = kb::load_kb(std::string(KERNELBLASTER_SOURCE_DIR) + "/data/kb/seed.json");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"I think the KB is fine.", "no JSON object"},
      {"```json\n[1, 2]\n```", "expected a JSON object"},
      {"```json\n{\"notes\": [{\"state\": \"memory_bandwidth_bound\", \"technique\": \"warp_drive\", \"note\": \"x\"}]}\n```",
       "/notes/0/technique: unknown technique 'warp_drive'"},
      {"```json\n{\"predictions\": [{\"state\": \"memory_bandwidth_bound\", \"technique\": \"fast_math\", \"factor\": 10}]}\n```",
       "/predictions/0/factor"},
      {"```json\n{\"predictions\": [{\"state\": \"memory_bandwidth_bound\", \"technique\": \"fast_math\"}]}\n```",
       "/predictions/0/factor: missing"},
      {"```json\n{\"new_techniques\": [{\"id\": \"fast_math\", \"name\": \"n\", \"category\": \"compute\", "
       "\"description\": \"d\", \"how_to\": \"h\"}]}\n```",
       "/new_techniques/0/id: technique 'fast_math' exists already"},
      {"```json\n{\"new_techniques\": [{\"id\": \"new_one\", \"name\": \"n\", \"category\": \"magic\", "
       "\"description\": \"d\", \"how_to\": \"h\"}]}\n```",
       "/new_techniques/0/category"},
      {"```json\n{\"new_states\": [{\"id\": \"odd\", \"name\": \"n\", \"signature\": \"s\", "
       "\"rule\": [{\"metric\": \"x_pct\", \"op\": \"=~\", \"value\": 1}]}]}\n```",
       "/new_states/0/rule/0/op"},
      {"```json\n{\"new_states\": [{\"id\": \"Bad Id\", \"name\": \"n\", \"signature\": \"s\", \"rule\": []}]}\n```",
       "/new_states/0/id"},
      {"```json\n{\"notes\": [\"just a string\"]}\n```", "/notes/0: expected an object"},
      {"```json\n{\"notes\": [], \"delete_everything\": true}\n```", "/: unknown key 'delete_everything'"},
      {"```json\n{\"notes\": [{\"state\": \"memory_bandwidth_bound\", \"technique\": \"fast_math\", \"note\": \"" +
           std::string(600, 'x') + "\"}]}\n```",
       "/notes/0/note: longer than 500"},
  };
  for (const auto& [reply, expected] : cases) {
    try {
      parse_knowledge_update(reply, kb);
      ADD_FAILURE() << "accepted: " << reply.substr(0, 120);
    } catch (const UpdateError& x) {
      EXPECT_NE(std::string(x.what()).find(expected), std::string::npos) << x.what() << " | wanted " << expected;
      EXPECT_EQ(std::string(x.what()).find('\n'), std::string::npos);
    }
  }
  std::string many = "```json\n{\"notes\": [";
  for (int i = 0; i < 21; ++i)
    many += std::string(i ? "," : "") + "{\"state\": \"memory_bandwidth_bound\", \"technique\": \"fast_math\", \"note\": \"n\"}";
  many += "]}\n```";
  EXPECT_THROW(parse_knowledge_update(many, kb), UpdateError);
}

TEST(KnowledgeUpdate, AnAdjustmentOutsideItsBoundsIsARefusedKbFile) {
  const std::string kb_text = R"({"schema_version": 1, "stats": [{"state": "s", "technique": "t", "arch": "sm_90",
    "tries": 1, "successes": 0, "measured": 0, "mean": 0, "m2": 0, "adjustment": 9}]})";
  try {
    kb::parse_kb(kb_text, "kb.json");
    ADD_FAILURE() << "accepted an adjustment of 9";
  } catch (const kb::KbError& x) {
    EXPECT_EQ(x.key(), "/stats/0/adjustment");
  }
  // Merging keeps the stronger correction, in either order.
  kb::Stats a, b;
  a.adjustment = 0.5;
  b.adjustment = 1.5;
  EXPECT_DOUBLE_EQ(kb::combine(a, b).adjustment, 0.5);
  EXPECT_DOUBLE_EQ(kb::combine(b, a).adjustment, 0.5);
}

TEST(OptimizeLoop, ReviewsEveryNStepsApplyValidProposalsAndRefuseBadOnes) {
  Rig rig;
  rig.options.steps = 4;
  rig.options.review_every = 2;
  rig.judge.rule("GOOD", Status::ok, 1.3);
  rig.script(fenced(kernel("GOOD")));
  rig.script(fenced(kernel("GOOD")));
  rig.script(kGoodReview);  // after step 2
  rig.script(fenced(kernel("GOOD")));
  rig.script(fenced(kernel("GOOD")));
  rig.script("```json\n{\"predictions\": [{\"state\": \"memory_bandwidth_bound\", \"technique\": \"fast_math\", \"factor\": 40}]}\n```");
  const kb::KnowledgeBase before = rig.kb;
  RunResult r = rig.run();
  ASSERT_EQ(r.steps.size(), 4u);
  ASSERT_EQ(r.reviews.size(), 2u);
  EXPECT_TRUE(r.reviews[0].applied) << r.reviews[0].detail;
  EXPECT_EQ(r.reviews[0].steps_seen, 2);
  EXPECT_FALSE(r.reviews[1].applied);
  EXPECT_NE(r.reviews[1].detail.find("/predictions/0/factor"), std::string::npos) << r.reviews[1].detail;
  // The review saw the two steps before it, with their predictions and outcomes.
  const std::string asked = r.reviews[0].request.messages.back().content;
  EXPECT_NE(asked.find("technique " + r.steps[0].technique), std::string::npos) << asked;
  EXPECT_NE(asked.find("measured 1.300x"), std::string::npos) << asked;
  // The applied review is in the KB; the refused one left no trace.
  ASSERT_NE(rig.kb.find_technique("tail_split"), nullptr);
  auto fm = rig.kb.stats.find({"memory_bandwidth_bound", "fast_math", "sm_90", ""});
  auto fm0 = before.stats.find({"memory_bandwidth_bound", "fast_math", "sm_90", ""});
  double adjustment_after = fm == rig.kb.stats.end() ? 1.0 : fm->second.adjustment;
  double adjustment_before = fm0 == before.stats.end() ? 1.0 : fm0->second.adjustment;
  EXPECT_DOUBLE_EQ(adjustment_after, adjustment_before);
  json log = json::parse(trajectory_json(r));
  ASSERT_EQ(log["reviews"].size(), 2u);
  EXPECT_EQ(log["reviews"][0]["update"]["new_techniques"][0], "tail_split");
}

TEST(OptimizeLoop, WhatOneRunTeachesChangesWhatTheNextChooses) {
  // Run 1 (seed 0) finds its first technique pays 1.9x, and the second fails.
  Rig first;
  first.options.steps = 2;
  first.judge.rule("WIN", Status::ok, 1.9);
  first.script(fenced(kernel("WIN")));
  for (int i = 0; i < 3; ++i) first.script(fenced(kernel("WRONG")));
  RunResult taught = first.run();
  ASSERT_EQ(taught.steps.size(), 2u);
  const std::string winner = taught.steps[0].technique, loser = taught.steps[1].technique;
  // Later runs on another kernel in the same state, with and without that KB, over 30 seeds:
  // the first choice moves towards the winner. (A failed try predicts 1.0x, as an untried
  // technique does, so the loser's share is left to chance.)
  auto first_choices = [](const kb::KnowledgeBase& knowledge) {
    std::map<std::string, int> picks;
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
      Rig rig;
      rig.kb = knowledge;
      rig.options.seed = seed;
      rig.judge.rule("ANY", Status::ok, 1.1);
      rig.script(fenced(kernel("ANY")));
      RunResult r = rig.run();
      ++picks[r.steps.at(0).technique];
    }
    return picks;
  };
  Rig fresh;
  std::map<std::string, int> before = first_choices(fresh.kb), after = first_choices(first.kb);
  EXPECT_GT(after[winner], before[winner]) << winner;
  EXPECT_NE(winner, loser);
  EXPECT_NE(after, before);
}

TEST(SecondOpinion, ReadsTheLastVerdictLine) {
  EXPECT_EQ(read_second_opinion("Looks fine.\nVERDICT: same").opinion, Opinion::same);
  SecondOpinion d = read_second_opinion("**VERDICT:** Different - drops the tail when n % 4 != 0\n");
  EXPECT_EQ(d.opinion, Opinion::different);
  EXPECT_EQ(d.reason, "drops the tail when n % 4 != 0");
  EXPECT_EQ(read_second_opinion("VERDICT: same\nOn reflection:\nVERDICT: different, aliasing").opinion, Opinion::different);
  EXPECT_EQ(read_second_opinion("VERDICT: probably fine").opinion, Opinion::unreadable);
  EXPECT_EQ(read_second_opinion("no verdict at all").opinion, Opinion::unreadable);
  EXPECT_EQ(read_second_opinion("").opinion, Opinion::unreadable);
}

TEST(OptimizeLoop, ASecondOpinionIsAdviceAndNeverUndoesTheEnginesVerdict) {
  Rig rig;
  rig.options.second_opinion = true;
  rig.judge.rule("FAST", Status::ok, 1.7);
  rig.script(fenced(kernel("FAST")));
  rig.script("The float4 path reads past the end.\nVERDICT: different - rows not a multiple of 4 lose their tail");
  RunResult r = rig.run();
  EXPECT_TRUE(r.improved);
  EXPECT_EQ(r.second_opinion.opinion, Opinion::different);
  EXPECT_NE(r.second_opinion.reason.find("multiple of 4"), std::string::npos);
  const std::string asked = rig.last_message(1);
  EXPECT_NE(asked.find("scale_kernel<<<(n + 255) / 256, 256>>>"), std::string::npos) << "the original";
  EXPECT_NE(asked.find("FAST"), std::string::npos) << "the rewrite";
  json summary = json::parse(summary_json(KernelTarget{"scale.cu", kOriginal, "launch_scale", "", "sm_90", "H100"}, r, 1.0));
  EXPECT_EQ(summary["second_opinion"]["opinion"], "different");
  // Not asked when nothing was kept.
  Rig none;
  none.options.second_opinion = true;
  none.judge.rule("WRONG", Status::wrong_result);
  for (int i = 0; i < 3; ++i) none.script(fenced(kernel("WRONG")));
  RunResult n = none.run();
  EXPECT_EQ(n.second_opinion.opinion, Opinion::not_asked);
  EXPECT_EQ(none.transport->sent.size(), 3u);
}

// Answers by what is asked, not by arrival order (requests of parallel
// trajectories arrive in any order): a kernel whose marker names the
// technique in the prompt, slowly enough that requests overlap.
class TechniqueEchoProvider : public llm::Provider {
 public:
  explicit TechniqueEchoProvider(const kb::KnowledgeBase& kb) : m_kb(kb) {}
  std::atomic<int> in_flight{0}, most_in_flight{0}, calls{0};
  llm::Result complete(const llm::Request& request, const llm::Progress&) override {
    int now = ++in_flight;
    for (int seen = most_in_flight; now > seen && !most_in_flight.compare_exchange_weak(seen, now);) {
    }
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    std::string technique = "none";
    const std::string& prompt = request.messages.back().content;
    std::size_t best = std::string::npos;
    for (const kb::Technique& t : m_kb.techniques)  // the first technique named in the prompt
      if (std::size_t at = prompt.find(t.name); at < best) best = at, technique = t.id;
    llm::Result r;
    r.reply.model = "m";
    r.reply.usage = {1000, 200, 0, 0, true};
    r.reply.text = fenced(kernel("TECH_" + technique));
    --in_flight;
    return r;
  }

 private:
  kb::KnowledgeBase m_kb;
};

TEST(OptimizeLoop, ParallelTrajectoriesOverlapTheirRequestsAndLearnInTrajectoryOrder) {
  auto play = [](int parallel, int* most_in_flight) {
    Rig rig;
    rig.options.trajectories = 3;
    rig.options.steps = 3;
    rig.options.parallel = parallel;
    rig.options.review_every = 0;
    rig.judge.rule("TECH_", Status::ok, 1.25);
    auto provider = std::make_unique<TechniqueEchoProvider>(rig.kb);
    TechniqueEchoProvider* p = provider.get();
    llm::LlmConfig c;
    c.model = "m";
    c.concurrency = 4;
    rig.client = std::make_unique<llm::Client>(c, std::move(provider), llm::PriceTable{}, rig.clock);
    const kb::KnowledgeBase before = rig.kb;
    RunResult r = rig.run();
    *most_in_flight = p->most_in_flight;
    return std::make_pair(trajectory_json(r), kb_diff_json(before, rig.kb));
  };
  int overlap = 0, overlap2 = 0, sequential = 0;
  auto a = play(3, &overlap);
  auto b = play(3, &overlap2);
  play(1, &sequential);
  EXPECT_EQ(sequential, 1);
  EXPECT_GE(overlap, 2) << "three trajectories in flight should overlap their requests";
  // However the requests interleave, the decisions and what the KB learned are the same.
  EXPECT_EQ(a.first, b.first);
  EXPECT_EQ(a.second, b.second);
  json log = json::parse(a.first);
  ASSERT_EQ(log["steps"].size(), 9u);
  for (std::size_t i = 0; i < 9; ++i) {  // committed round by round, in trajectory order
    EXPECT_EQ(log["steps"][i]["step"], i / 3);
    EXPECT_EQ(log["steps"][i]["trajectory"], i % 3);
  }
}

}  // namespace
}  // namespace kernelblaster::optimize
