// Which CUPTI metrics the profiler collects, and how they become the names of
// METRICS.md (the contract with the KB's state rules and the policies).
//
// Two sets, chosen by replay passes on GH100 (checked without a GPU by
// tests/profile through cuptiProfilerHostGetNumOfPasses):
//   cheap: one pass, for every candidate;
//   full:  the cheap set plus the throughput breakdown, L2 hit rate, stall
//          reasons and access-pattern counters; many passes, when asked.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kernelblaster::profile {

enum class MetricSet { cheap, full };

const char* metric_set_name(MetricSet set);
// "cheap" / "full"; nullopt for anything else.
std::optional<MetricSet> metric_set_from_name(const std::string& name);

// The CUPTI metric names of a set, without duplicates, in a fixed order.
const std::vector<std::string>& cupti_metrics(MetricSet set);

// The warp stall reasons collected by the full set (CUPTI's own names).
const std::vector<std::string>& stall_reasons();

// Turns raw CUPTI values of one kernel into METRICS.md names: direct
// renames with unit conversion, then derived ratios. A metric whose inputs
// are absent (or not finite, or a ratio with a zero denominator) is absent.
std::map<std::string, double> map_counters(const std::map<std::string, double>& cupti);

}  // namespace kernelblaster::profile
