// The classifier: rules from the KB decide the state, deterministically.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "kb/classifier.h"
#include "kb/kb_store.h"

namespace kernelblaster::kb {
namespace {

const KnowledgeBase& seed() {
  static const KnowledgeBase kb = load_kb(KERNELBLASTER_TEST_SOURCE_SEED);
  return kb;
}

struct Case {
  std::map<std::string, double> metrics;
  std::string state;
};

std::vector<Case> seed_cases() {
  return {
      {{{"gpu_busy_pct", 25}, {"dram_throughput_pct", 90}}, "launch_overhead_dominated"},
      {{{"gpu_busy_pct", 97}, {"dram_throughput_pct", 85}, {"sm_throughput_pct", 20}, {"achieved_occupancy_pct", 70}},
       "memory_bandwidth_bound"},
      {{{"dram_throughput_pct", 30}, {"sm_throughput_pct", 20}, {"stall_long_scoreboard", 6}}, "memory_latency_bound"},
      {{{"sm_throughput_pct", 85}, {"dram_throughput_pct", 10}, {"tensor_pipe_pct", 0}, {"arithmetic_intensity", 100}},
       "compute_bound_tensor_eligible"},
      {{{"sm_throughput_pct", 85}, {"dram_throughput_pct", 10}, {"tensor_pipe_pct", 60}, {"arithmetic_intensity", 100}},
       "compute_bound"},
      {{{"occupancy_limited_by_registers", 1}, {"theoretical_occupancy_pct", 37.5}, {"sm_throughput_pct", 30}},
       "occupancy_limited_registers"},
      {{{"occupancy_limited_by_shared_mem", 1}, {"theoretical_occupancy_pct", 25}}, "occupancy_limited_shared_mem"},
      {{{"waves_per_sm", 0.3}, {"achieved_occupancy_pct", 12}, {"dram_throughput_pct", 5}}, "too_little_parallelism"},
      {{{"warp_execution_efficiency_pct", 45}, {"sm_throughput_pct", 40}, {"dram_throughput_pct", 20}}, "divergent"},
      {{{"shared_bank_conflicts_per_request", 3.5}, {"sm_throughput_pct", 40}}, "shared_bank_conflicts"},
      {{{"global_sectors_per_request", 28}, {"dram_throughput_pct", 70}}, "uncoalesced_access"},
      {{{"arithmetic_intensity", 20}, {"dram_throughput_pct", 75}, {"sm_throughput_pct", 30}}, "cache_inefficient"},
      {{{"sm_throughput_pct", 70}, {"dram_throughput_pct", 70}}, "balanced"},
      {{{"spill_bytes", 128}, {"dram_throughput_pct", 70}}, "register_spilling"},
      {{{"sm_throughput_pct", 55}, {"l1_throughput_pct", 83}, {"dram_throughput_pct", 0.1}}, "l1_bandwidth_bound"},
      {{{"sm_throughput_pct", 30}, {"l1_throughput_pct", 25}, {"dram_throughput_pct", 20}, {"stall_long_scoreboard", 1}},
       "latency_bound"},
      {{}, "unclassified"},
  };
}

TEST(Classifier, SeedRulesPickTheExpectedStates) {
  for (const Case& c : seed_cases()) {
    Classification got = classify(seed(), c.metrics);
    EXPECT_EQ(got.state, c.state);
    if (c.state != "unclassified") {
      ASSERT_FALSE(got.matched.empty());
      EXPECT_EQ(got.matched.front(), c.state);
    }
  }
}

// With the full metric set, the SM, DRAM and L1 throughputs alone place
// every kernel: compute_bound or balanced (SMs busy), memory_bandwidth_bound
// (DRAM), l1_bandwidth_bound (the L1 path), else latency_bound. So only a
// profile without those counters is unclassified.
TEST(Classifier, EveryKernelWithTheThroughputCountersGetsAState) {
  int checked = 0;
  for (double sm = 0; sm <= 100; sm += 5)
    for (double dram = 0; dram <= 100; dram += 5)
      for (double l1 = 0; l1 <= 100; l1 += 5) {
        const std::map<std::string, double> m = {
            {"sm_throughput_pct", sm}, {"dram_throughput_pct", dram}, {"l1_throughput_pct", l1},
            {"memory_throughput_pct", std::max(dram, l1)}, {"gpu_busy_pct", 100}};
        EXPECT_NE(classify(seed(), m).state, "unclassified") << sm << " " << dram << " " << l1;
        ++checked;
      }
  EXPECT_EQ(checked, 21 * 21 * 21);
}

TEST(Classifier, LowerPriorityMatchesAreListedAfterTheWinner) {
  Classification c = classify(seed(), {{"global_sectors_per_request", 28}, {"dram_throughput_pct", 70}});
  EXPECT_EQ(c.matched, (std::vector<std::string>{"uncoalesced_access", "memory_bandwidth_bound"}));
}

TEST(Classifier, MissingMetricsAreReportedAndNeverMatch) {
  // Without the arithmetic intensity, tensor eligibility cannot be decided.
  Classification c =
      classify(seed(), {{"sm_throughput_pct", 85}, {"dram_throughput_pct", 10}, {"tensor_pipe_pct", 0}});
  EXPECT_EQ(c.state, "compute_bound");
  EXPECT_TRUE(std::binary_search(c.missing.begin(), c.missing.end(), "arithmetic_intensity"));
  EXPECT_TRUE(std::is_sorted(c.missing.begin(), c.missing.end()));
  // A rule already ruled out by a present metric does not report its missing ones.
  Classification d = classify(seed(), {{"dram_throughput_pct", 10}, {"sm_throughput_pct", 10}});
  EXPECT_FALSE(std::binary_search(d.missing.begin(), d.missing.end(), "arithmetic_intensity"))
      << "both rules that use it already failed on dram or sm throughput";
  // NaN is absent.
  Classification e = classify(seed(), {{"gpu_busy_pct", std::nan("")}});
  EXPECT_EQ(e.state, "unclassified");
  EXPECT_TRUE(std::binary_search(e.missing.begin(), e.missing.end(), "gpu_busy_pct"));
}

TEST(Classifier, IsDeterministicAndIndependentOfStateOrderWhenPrioritiesDiffer) {
  std::mt19937 rng(7);
  for (const Case& c : seed_cases()) {
    Classification first = classify(seed(), c.metrics);
    KnowledgeBase shuffled = seed();
    for (int i = 0; i < 5; ++i) {
      std::shuffle(shuffled.states.begin(), shuffled.states.end(), rng);
      Classification again = classify(shuffled, c.metrics);
      EXPECT_EQ(again.state, first.state);
      EXPECT_EQ(again.missing, first.missing);
      EXPECT_EQ(classify(seed(), c.metrics).matched, first.matched);
    }
  }
}

TEST(Classifier, EqualPrioritiesKeepTheKbOrderAndEmptyRulesNeverMatch) {
  KnowledgeBase kb;
  kb.states.push_back(State{"fallback", "", "", {}, 100});
  kb.states.push_back(State{"first", "", "", {{"x", ">", 1}}, 5});
  kb.states.push_back(State{"second", "", "", {{"x", ">", 0}}, 5});
  kb.states.push_back(State{"both", "", "", {{"x", ">", 0}, {"y", "<", 0}}, 9});
  Classification c = classify(kb, {{"x", 2}});
  EXPECT_EQ(c.state, "first");
  EXPECT_EQ(c.matched, (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(c.missing, std::vector<std::string>{"y"});
  EXPECT_EQ(classify(kb, {{"x", 2}, {"y", -1}}).state, "both");
  EXPECT_EQ(classify(kb, {{"x", -1}}).state, "unclassified");
}

TEST(Classifier, Operators) {
  auto h = [](const char* op, double v) { return holds(Condition{"m", op, 1.0}, v); };
  EXPECT_TRUE(h("<", 0.5));
  EXPECT_FALSE(h("<", 1));
  EXPECT_TRUE(h("<=", 1));
  EXPECT_TRUE(h(">", 1.5));
  EXPECT_FALSE(h(">", 1));
  EXPECT_TRUE(h(">=", 1));
  EXPECT_TRUE(h("==", 1));
  EXPECT_FALSE(h("==", 1.5));
  EXPECT_TRUE(h("!=", 2));
  EXPECT_FALSE(h("!=", std::nan("")));
  EXPECT_FALSE(h("~", 1));
  EXPECT_TRUE(is_known_op(">="));
  EXPECT_FALSE(is_known_op("=>"));
}

}  // namespace
}  // namespace kernelblaster::kb
