// The statistics of the KB: Welford updates, Chan's combination, the
// prediction, and the caps on notes and entries.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "kb/knowledge_base.h"
#include "test_util.h"

namespace kernelblaster::kb {
namespace {

using testing::outcome;

const std::vector<double> kSpeedups = {1.25, 0.8, 2.5, 1.0625, 3.75, 1.5, 0.96, 1.33, 2.02, 1.11, 0.5, 4.2, 1.01};

Stats record_all(const std::vector<double>& xs) {
  KnowledgeBase kb;
  for (double x : xs) record(kb, outcome("s", "t", x));
  return kb.stats.begin()->second;
}

double direct_mean(const std::vector<double>& xs) { return std::accumulate(xs.begin(), xs.end(), 0.0) / xs.size(); }

double direct_variance(const std::vector<double>& xs) {
  double m = direct_mean(xs), sum = 0;
  for (double x : xs) sum += (x - m) * (x - m);
  return sum / (xs.size() - 1);
}

void expect_close(double a, double b) { EXPECT_NEAR(a, b, 1e-12 * std::max(1.0, std::fabs(b))); }

TEST(StatsMath, SequentialRecordMatchesTheDirectFormulas) {
  Stats s = record_all(kSpeedups);
  EXPECT_EQ(s.tries, static_cast<std::int64_t>(kSpeedups.size()));
  EXPECT_EQ(s.measured, static_cast<std::int64_t>(kSpeedups.size()));
  EXPECT_EQ(s.successes, std::count_if(kSpeedups.begin(), kSpeedups.end(), [](double x) { return x >= kSuccessSpeedup; }));
  expect_close(s.mean, direct_mean(kSpeedups));
  expect_close(s.variance(), direct_variance(kSpeedups));
}

TEST(StatsMath, ASuccessIsAGainEitherLoopWouldKeepNotNoise) {
  // 1.001x and 1.01x are measurements of no change (the shards of one
  // optimize run on an H200 counted a 1.001x where the whole run measured
  // 1.000x); 1.02x is what both loops keep by default.
  Stats s = record_all({1.001, 1.01, 1.02, 1.3, 0.99});
  EXPECT_EQ(s.measured, 5);
  EXPECT_EQ(s.successes, 2);
}

TEST(StatsMath, CombineEqualsSequentialRecordForEverySplit) {
  Stats whole = record_all(kSpeedups);
  for (std::size_t cut = 0; cut <= kSpeedups.size(); ++cut) {
    std::vector<double> a(kSpeedups.begin(), kSpeedups.begin() + cut), b(kSpeedups.begin() + cut, kSpeedups.end());
    Stats c = combine(a.empty() ? Stats{} : record_all(a), b.empty() ? Stats{} : record_all(b));
    EXPECT_EQ(c.tries, whole.tries) << cut;
    EXPECT_EQ(c.measured, whole.measured) << cut;
    EXPECT_EQ(c.successes, whole.successes) << cut;
    expect_close(c.mean, whole.mean);
    expect_close(c.m2, whole.m2);
    expect_close(c.predicted, whole.predicted);
    expect_close(c.confidence, whole.confidence);
  }
}

TEST(StatsMath, CombineIsCommutativeToTheLastBit) {
  Stats a = record_all({1.5, 2.25, 0.75}), b = record_all({3.1, 1.07, 1.9, 0.33, 1.2});
  Stats ab = combine(a, b), ba = combine(b, a);
  EXPECT_EQ(ab.mean, ba.mean);
  EXPECT_EQ(ab.m2, ba.m2);
  EXPECT_EQ(ab.predicted, ba.predicted);
  EXPECT_EQ(ab.tries, ba.tries);
}

TEST(StatsMath, CombineWithEmptyIsIdentity) {
  Stats a = record_all({1.5, 2.25, 0.75});
  Stats c = combine(a, Stats{});
  EXPECT_EQ(c.mean, a.mean);
  EXPECT_EQ(c.m2, a.m2);
  EXPECT_EQ(c.tries, a.tries);
  Stats none = combine(Stats{}, Stats{});
  EXPECT_EQ(none.tries, 0);
  EXPECT_EQ(none.mean, 0);
  EXPECT_EQ(none.predicted, 1.0);
  EXPECT_EQ(none.confidence, 0);
}

TEST(StatsMath, MergeIsCommutativeAndKeepsDisjointEntries) {
  KnowledgeBase a, b;
  for (double x : {1.5, 2.0, 0.9}) record(a, outcome("s", "t", x));
  for (double x : {1.1, 3.0}) record(b, outcome("s", "t", x));
  record(a, outcome("s", "only_a", 1.2));
  record(b, outcome("s2", "only_b", 0.7));
  Outcome tr = outcome("s", "t2", 1.4);
  tr.previous_technique = "t";
  record(b, tr);
  KnowledgeBase ab = a, ba = b;
  merge_into(ab, b);
  merge_into(ba, a);
  ASSERT_EQ(ab.stats.size(), 4u);
  ASSERT_EQ(ba.stats.size(), 4u);
  for (const auto& [k, s] : ab.stats) {
    const Stats& o = ba.stats.at(k);
    EXPECT_EQ(s.tries, o.tries);
    EXPECT_EQ(s.measured, o.measured);
    EXPECT_EQ(s.successes, o.successes);
    EXPECT_EQ(s.mean, o.mean);
    EXPECT_EQ(s.m2, o.m2);
  }
  EXPECT_EQ(ab.stats.at(StatsKey{"s", "t", "sm_90", ""}).tries, 5);
  expect_close(ab.stats.at(StatsKey{"s", "t", "sm_90", ""}).mean, (1.5 + 2.0 + 0.9 + 1.1 + 3.0) / 5);
  EXPECT_EQ(ab.transitions.size(), 1u);
  EXPECT_EQ(ba.transitions.size(), 1u);
}

TEST(StatsMath, FailuresCountAsTriesAndPullThePredictionToOne) {
  KnowledgeBase kb;
  record(kb, outcome("s", "t", 1.5));
  record(kb, outcome("s", "t", 2.5));
  record(kb, outcome("s", "t", 0, false));  // did not compile or was wrong
  const Stats& s = kb.stats.begin()->second;
  EXPECT_EQ(s.tries, 3);
  EXPECT_EQ(s.measured, 2);
  EXPECT_EQ(s.successes, 2);
  // (2 measured x mean 2.0 + 1 failure x 1.0 + prior 2 x 1.0) / (3 + 2)
  expect_close(s.predicted, (2 * 2.0 + 1.0 + kPriorWeight) / (3 + kPriorWeight));
  expect_close(s.confidence, 3 / (3 + kConfidenceWeight));

  KnowledgeBase only_failures;
  for (int i = 0; i < 5; ++i) record(only_failures, outcome("s", "t", 0, false));
  EXPECT_EQ(only_failures.stats.begin()->second.predicted, 1.0);
  EXPECT_GT(only_failures.stats.begin()->second.confidence, 0.5);
}

TEST(StatsMath, VerifiedWithoutATimingIsATryButNotAMeasurement) {
  KnowledgeBase kb;
  record(kb, outcome("s", "t", 0));  // verified, --no-timing
  record(kb, outcome("s", "t", std::nan("")));
  const Stats& s = kb.stats.begin()->second;
  EXPECT_EQ(s.tries, 2);
  EXPECT_EQ(s.measured, 0);
  EXPECT_EQ(s.mean, 0);
}

TEST(StatsMath, TransitionsAreRecordedWhenThereWasAPreviousTechnique) {
  KnowledgeBase kb;
  Outcome o = outcome("s", "b", 1.3);
  o.previous_technique = "a";
  record(kb, o);
  record(kb, outcome("s", "b", 1.1));
  ASSERT_EQ(kb.transitions.size(), 1u);
  EXPECT_EQ(kb.transitions.begin()->first, (TransitionKey{"a", "b", "sm_90"}));
  EXPECT_EQ(kb.transitions.begin()->second.tries, 1);
  EXPECT_EQ(kb.stats.at(StatsKey{"s", "b", "sm_90", ""}).tries, 2);
}

TEST(StatsMath, SettingsAreSeparateEntries) {
  KnowledgeBase kb;
  Outcome o = outcome("s", "block_size_adaptation", 1.3);
  o.setting = "BLOCK_SIZE=256";
  record(kb, o);
  record(kb, outcome("s", "block_size_adaptation", 1.1));
  EXPECT_EQ(kb.stats.size(), 2u);
}

TEST(StatsMath, NotesKeepTheNewestAndAreCutOnACharacterBoundary) {
  Stats s;
  for (int i = 0; i < 12; ++i) add_note(s, "note " + std::to_string(i));
  add_note(s, "");
  ASSERT_EQ(s.notes.size(), 8u);
  EXPECT_EQ(s.notes.front(), "note 4");
  EXPECT_EQ(s.notes.back(), "note 11");

  std::string long_note(499, 'x');
  long_note += "\xc3\xa9\xc3\xa9";  // two 2-byte characters across the 500-byte cap
  add_note(s, long_note);
  EXPECT_EQ(s.notes.back().size(), 499u);
  KbCaps tiny;
  tiny.max_note_chars = 5;
  add_note(s, "abcdefgh", tiny);
  EXPECT_EQ(s.notes.back(), "abcde");
}

TEST(StatsMath, CompactDropsTheLeastTriedEntries) {
  KnowledgeBase kb;
  for (int t = 1; t <= 6; ++t)
    for (int i = 0; i < t; ++i) record(kb, outcome("s", "t" + std::to_string(t), 1.5));
  KbCaps caps;
  caps.max_stats = 3;
  compact(kb, caps);
  ASSERT_EQ(kb.stats.size(), 3u);
  for (const auto& [k, s] : kb.stats) EXPECT_GE(s.tries, 4) << k.technique;
}

}  // namespace
}  // namespace kernelblaster::kb
