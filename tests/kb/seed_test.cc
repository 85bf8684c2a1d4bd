// The seed KB in data/kb: valid, complete, and speaking the metric
// vocabulary of tool/src/profile/METRICS.md.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "common/file_util.h"
#include "kb/kb_store.h"

namespace kernelblaster::kb {
namespace {

const KnowledgeBase& seed() {
  static const KnowledgeBase kb = load_kb(KERNELBLASTER_TEST_SOURCE_SEED);
  return kb;
}

// Metric names from the first column of METRICS.md's table ("a, b" cells
// name several; stall_<reason> is a family).
std::set<std::string> documented_metrics() {
  std::set<std::string> names;
  std::string text = read_file(KERNELBLASTER_TEST_METRICS_MD);
  std::regex row(R"(^\| ([a-z0-9_<>, ]+) \|)", std::regex::multiline);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), row); it != std::sregex_iterator(); ++it) {
    std::string cell = (*it)[1];
    std::regex name(R"([a-z0-9_<>]+)");
    for (auto n = std::sregex_iterator(cell.begin(), cell.end(), name); n != std::sregex_iterator(); ++n)
      names.insert((*n)[0]);
  }
  return names;
}

bool documented(const std::set<std::string>& names, const std::string& metric) {
  if (names.count(metric)) return true;
  return metric.rfind("stall_", 0) == 0 && names.count("stall_<reason>");
}

TEST(SeedKb, IsValidCurrentAndHasNoMeasuredNumbers) {
  EXPECT_EQ(seed().schema_version, kSchemaVersion);
  EXPECT_TRUE(seed().stats.empty());
  EXPECT_TRUE(seed().transitions.empty());
}

TEST(SeedKb, IsStoredInCanonicalForm) {
  // Edits keep the file as serialize_kb writes it, so diffs stay readable.
  EXPECT_EQ(serialize_kb(seed()), read_file(KERNELBLASTER_TEST_SOURCE_SEED));
}

TEST(SeedKb, HasTheRequiredStates) {
  for (const char* id : {"memory_bandwidth_bound", "memory_latency_bound", "compute_bound", "compute_bound_tensor_eligible",
                         "occupancy_limited_registers", "occupancy_limited_shared_mem", "too_little_parallelism",
                         "launch_overhead_dominated", "divergent", "shared_bank_conflicts", "cache_inefficient",
                         "uncoalesced_access", "balanced", "l1_bandwidth_bound", "latency_bound", "unclassified"})
    EXPECT_NE(seed().find_state(id), nullptr) << id;
}

TEST(SeedKb, HasTheRequiredTechniques) {
  for (const char* id :
       {"vectorized_memory_access", "memory_coalescing", "shared_memory_tiling", "register_blocking",
        "bank_conflict_padding", "read_only_cache", "l2_persistence", "warp_primitives", "block_size_adaptation",
        "thread_coarsening", "grid_stride_loop", "persistent_kernel", "launch_bounds", "register_pressure_reduction",
        "fast_math", "loop_unrolling", "tensor_cores", "kernel_fusion", "algebraic_simplification", "async_copy",
        "cuda_graphs", "cache_policy_flags", "arch_specific_codegen"})
    EXPECT_NE(seed().find_technique(id), nullptr) << id;
}

TEST(SeedKb, TechniquesAreDescribedAndPointAtRealStates) {
  const std::set<std::string> categories = {"memory", "compute", "parallelism", "launch", "compiler"};
  std::set<std::string> helped;
  for (const Technique& t : seed().techniques) {
    EXPECT_FALSE(t.name.empty()) << t.id;
    EXPECT_GT(t.description.size(), 80u) << t.id;
    EXPECT_GT(t.how_to.size(), 80u) << t.id;
    EXPECT_TRUE(categories.count(t.category)) << t.id << ": " << t.category;
    EXPECT_FALSE(t.helps_states.empty()) << t.id;
    for (const std::string& s : t.helps_states) {
      EXPECT_NE(seed().find_state(s), nullptr) << t.id << " helps unknown state " << s;
      helped.insert(s);
    }
  }
  for (const State& s : seed().states) EXPECT_TRUE(helped.count(s.id)) << "no technique helps " << s.id;
}

TEST(SeedKb, RulesUseOnlyDocumentedMetrics) {
  std::set<std::string> names = documented_metrics();
  ASSERT_GT(names.size(), 20u) << "METRICS.md table not found";
  for (const State& s : seed().states) {
    EXPECT_FALSE(s.signature.empty()) << s.id;
    for (const Condition& c : s.rule) EXPECT_TRUE(documented(names, c.metric)) << s.id << ": " << c.metric;
  }
}

TEST(SeedKb, ExactlyOneFallbackAndDistinctPriorities) {
  std::set<int> priorities;
  int fallbacks = 0;
  for (const State& s : seed().states) {
    if (s.rule.empty()) {
      ++fallbacks;
      EXPECT_EQ(s.id, "unclassified");
    } else {
      EXPECT_TRUE(priorities.insert(s.priority).second) << "priority " << s.priority << " used twice (" << s.id << ")";
    }
  }
  EXPECT_EQ(fallbacks, 1);
}

}  // namespace
}  // namespace kernelblaster::kb
