#include "profile/metric_sets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "runtime/cupti_host_config.h"

namespace kernelblaster::profile {
namespace {

// The host API needs libnvperf_host (dlopened by libcupti), not a GPU.
#define REQUIRE_HOST_API()                                        \
  do {                                                            \
    std::string why;                                              \
    if (!runtime::host_api_available(&why)) GTEST_SKIP() << why;           \
  } while (0)

TEST(MetricSets, EveryNameOfBothSetsIsAcceptedForGH100) {
  REQUIRE_HOST_API();
  for (MetricSet set : {MetricSet::cheap, MetricSet::full}) {
    runtime::HostConfig host("GH100");
    ASSERT_TRUE(host.ok()) << host.error();
    std::vector<std::string> rejected = host.add_metrics(cupti_metrics(set));
    EXPECT_TRUE(rejected.empty()) << metric_set_name(set) << " set: first rejected " << rejected.front();
    EXPECT_EQ(host.metrics().size(), cupti_metrics(set).size());
  }
}

TEST(MetricSets, CheapSetIsOnePassOnGH100) {
  REQUIRE_HOST_API();
  runtime::HostConfig host("GH100");
  ASSERT_TRUE(host.add_metrics(cupti_metrics(MetricSet::cheap)).empty());
  EXPECT_EQ(host.passes(), 1u);
}

TEST(MetricSets, FullSetPassCountIsRecorded) {
  REQUIRE_HOST_API();
  runtime::HostConfig host("GH100");
  ASSERT_TRUE(host.add_metrics(cupti_metrics(MetricSet::full)).empty());
  std::size_t passes = host.passes();
  // Recorded in tool/src/profile/README.md; a change here changes the cost of --profile=full.
  std::printf("full set: %zu metrics, %zu passes on GH100\n", cupti_metrics(MetricSet::full).size(), passes);
  EXPECT_EQ(passes, 17u);
}

TEST(MetricSets, InvalidNameIsReportedMissingNotInvented) {
  REQUIRE_HOST_API();
  runtime::HostConfig host("GH100");
  std::vector<std::string> names = {"gpu__time_duration.sum", "no_such__metric.sum", "dram__bytes_read.sum"};
  std::vector<std::string> rejected = host.add_metrics(names);
  ASSERT_EQ(rejected, std::vector<std::string>{"no_such__metric.sum"});
  EXPECT_EQ(host.metrics(), (std::vector<std::string>{"gpu__time_duration.sum", "dram__bytes_read.sum"}));
  EXPECT_TRUE(host.ok());
  EXPECT_FALSE(host.config_image().empty());
  EXPECT_EQ(host.passes(), 1u);
}

TEST(MetricSets, UnknownChipIsAnErrorNotACrash) {
  REQUIRE_HOST_API();
  runtime::HostConfig host("NOT_A_CHIP");
  EXPECT_FALSE(host.ok());
  EXPECT_FALSE(host.error().empty());
  EXPECT_EQ(host.add_metrics({"gpu__time_duration.sum"}).size(), 1u);
}

TEST(MetricSets, FullContainsCheapAndNoDuplicates) {
  const auto& cheap = cupti_metrics(MetricSet::cheap);
  const auto& full = cupti_metrics(MetricSet::full);
  for (const std::string& n : cheap) EXPECT_NE(std::find(full.begin(), full.end(), n), full.end()) << n;
  std::set<std::string> unique(full.begin(), full.end());
  EXPECT_EQ(unique.size(), full.size());
  EXPECT_EQ(metric_set_from_name("cheap"), MetricSet::cheap);
  EXPECT_EQ(metric_set_from_name("full"), MetricSet::full);
  EXPECT_FALSE(metric_set_from_name("fast").has_value());
}

TEST(MapCounters, RenamesConvertsAndDerives) {
  std::map<std::string, double> raw = {
      {"gpu__time_duration.sum", 223456},
      {"dram__throughput.avg.pct_of_peak_sustained_elapsed", 75.2},
      {"sm__warps_active.avg.pct_of_peak_sustained_active", 96.1},
      {"lts__t_sector_hit_rate.pct", 33.3},
      {"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", 10.5},
      {"smsp__thread_inst_executed_per_inst_executed.ratio", 24},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 4000},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 1000},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", 300},
      {"smsp__inst_executed_op_shared_ld.sum", 100},
      {"smsp__inst_executed_op_shared_st.sum", 50},
      {"dram__bytes_read.sum", 1e6},
      {"dram__bytes_write.sum", 1e6},
  };
  auto m = map_counters(raw);
  EXPECT_DOUBLE_EQ(m.at("duration_us"), 223.456);
  EXPECT_DOUBLE_EQ(m.at("dram_throughput_pct"), 75.2);
  EXPECT_DOUBLE_EQ(m.at("achieved_occupancy_pct"), 96.1);
  EXPECT_DOUBLE_EQ(m.at("l2_hit_rate_pct"), 33.3);
  EXPECT_DOUBLE_EQ(m.at("stall_long_scoreboard"), 10.5);
  EXPECT_DOUBLE_EQ(m.at("warp_execution_efficiency_pct"), 75.0);
  EXPECT_DOUBLE_EQ(m.at("global_sectors_per_request"), 4.0);
  EXPECT_DOUBLE_EQ(m.at("shared_bank_conflicts_per_request"), 2.0);
  EXPECT_NEAR(m.at("dram_bandwidth_gbs"), 2e6 / 223456, 1e-9);
  EXPECT_FALSE(m.count("sm_throughput_pct"));  // not collected: absent
}

TEST(MapCounters, MissingInputsZeroDenominatorsAndNaNLeaveMetricsAbsent) {
  std::map<std::string, double> raw = {
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 4000},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 0},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", 3},  // shared instructions absent
      {"lts__t_sector_hit_rate.pct", std::nan("")},
  };
  auto m = map_counters(raw);
  EXPECT_TRUE(m.empty()) << m.begin()->first;
}

}  // namespace
}  // namespace kernelblaster::profile
