// The search's state between builds (issue 72): written and read back
// whole, a torn or foreign file refused with its reason, and the digests
// that decide whether a state may be resumed and a look reused.
#include "tuner/search_state.h"
#include "tuner/resume.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fakes.h"

using namespace kernelblaster;
using namespace kernelblaster::tuner;
namespace fs = std::filesystem;

namespace {

struct StateDir {
  fs::path path = fs::temp_directory_path() / ("kb_search_state_" + std::to_string(::getpid()));
  StateDir() { fs::remove_all(path); }
  ~StateDir() { fs::remove_all(path); }
};

EvaluationRecord record(const std::string& id, double speedup, bool accepted) {
  EvaluationRecord r;
  static_cast<CandidateResult&>(r) = tuner::testing::ok(speedup);
  r.id = id;
  r.accepted = accepted;
  r.sass_hash = "h-" + id;
  return r;
}

}  // namespace

TEST(SearchState, RoundTripsWhatTheNextRunNeeds) {
  StateDir d;
  std::string why;
  EXPECT_FALSE(read_search_state(d.path.string(), &why));
  EXPECT_EQ(why, "");  // none yet is no error
  SearchState s;
  s.space = "digest";
  s.builds = 2;
  s.seconds = 118.5;
  s.pace_s = 1.9;
  s.state = "memory_bound";
  s.metrics = {{"dram__throughput.avg.pct_of_peak_sustained_elapsed", 81.5}};
  s.evaluations = {record("BM=64", 1.08, true), record("BM=256", 0.9, false)};
  s.evaluations[1].status = Status::wrong_result;
  s.stop = "deadline";
  s.look_of = "1.02:BM=64";
  s.look.exit_code = 0;
  s.look.status = "tuned";
  s.look.speedup = 1.07;
  s.look.config = {{"BM", "64"}};
  s.look.flags = {"-use_fast_math"};
  s.look.kernel_speedups = {{"sgemm", 1.07}};
  s.look.text = "#define BM 64\n";
  write_search_state(d.path.string(), s);
  const std::optional<SearchState> back = read_search_state(d.path.string(), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->space, "digest");
  EXPECT_EQ(back->builds, 2);
  EXPECT_DOUBLE_EQ(back->pace_s, 1.9);
  EXPECT_EQ(back->state, "memory_bound");
  EXPECT_EQ(back->metrics, s.metrics);
  ASSERT_EQ(back->evaluations.size(), 2u);
  EXPECT_EQ(back->evaluations[0].id, "BM=64");
  EXPECT_TRUE(back->evaluations[0].accepted);
  EXPECT_EQ(back->evaluations[0].sass_hash, "h-BM=64");
  EXPECT_EQ(back->evaluations[1].status, Status::wrong_result);
  EXPECT_EQ(back->look_of, s.look_of);
  EXPECT_EQ(back->look.config, s.look.config);
  EXPECT_EQ(back->look.flags, s.look.flags);
  EXPECT_EQ(back->look.kernel_speedups, s.look.kernel_speedups);
  EXPECT_EQ(back->look.text, s.look.text);
}

TEST(SearchState, ATornOrForeignStateIsRefusedWithItsReason) {
  StateDir d;
  fs::create_directories(d.path);
  std::ofstream(d.path / "search.json") << "{ torn";
  std::string why;
  EXPECT_FALSE(read_search_state(d.path.string(), &why));
  EXPECT_NE(why.find("search.json: not valid JSON"), std::string::npos) << why;
  std::ofstream(d.path / "search.json") << R"({"version": 7, "evaluations": []})";
  why.clear();
  EXPECT_FALSE(read_search_state(d.path.string(), &why));
  EXPECT_NE(why.find("not a search state of version 1"), std::string::npos) << why;
}

TEST(SearchState, TheSpaceDigestFollowsTheSpaceAndTheHarness) {
  const ConfigSpace a = tuner::testing::small_space(), b = tuner::testing::two_group_space();
  EXPECT_EQ(space_digest(a, "harness 1"), space_digest(tuner::testing::small_space(), "harness 1"));
  EXPECT_NE(space_digest(a, "harness 1"), space_digest(a, "harness 2"));
  EXPECT_NE(space_digest(a, "harness 1"), space_digest(b, "harness 1"));
}

// A look concludes on the accepted evaluations at or above the threshold:
// a run that adds none of those has nothing new to look at.
TEST(SearchState, TheLookSignatureNamesTheAcceptedWinners) {
  std::vector<EvaluationRecord> e = {record("A=2", 1.01, true), record("A=3", 1.05, true), record("B=2", 1.2, false)};
  EXPECT_EQ(look_signature(e, 1.02), "A=3");
  e.push_back(record("B=3", 1.1, true));
  EXPECT_EQ(look_signature(e, 1.02), "A=3|B=3");
  e.back().slower_kernel = "k 0.97x";  // slows a kernel: never kept, never looked at
  EXPECT_EQ(look_signature(e, 1.02), "A=3");
  EXPECT_EQ(look_signature(e, 1.5), "");
}

namespace {

// Every evaluation in one part (a search not judged group by group).
const PartOf one_part = [](const EvaluationRecord&) { return std::uint64_t{0}; };

// A run's options keeping its state in `d`, writing its source there.
tuner::TuneOptions kept_in(const StateDir& d) {
  tuner::TuneOptions opt;
  opt.state_dir = d.path.string();
  opt.out = (d.path / "tuned.cu").string();
  opt.min_speedup = 1.02;
  return opt;
}

// A look that tuned, at `speedup`.
tuner::TuneSummary tuned_at(double speedup) {
  tuner::TuneSummary sum;
  sum.exit_code = 0;
  sum.status = tuner::TuneVerdict::tuned;
  sum.speedup = speedup;
  return sum;
}

LoopOutcome outcome_with(std::vector<EvaluationRecord> evaluations, SearchStop stop) {
  LoopOutcome o;
  o.evaluations = std::move(evaluations);
  o.stop = stop;
  o.pace_s = 2.0;
  return o;
}

}  // namespace

// A run leaves its state for the next (resume.h): every evaluation, the
// profile, the look's verdict and source; the next run of the same space
// reuses the verdict while nothing new is accepted, and keeps time for a
// look only past the best it concluded on. A deadline leaves the search
// going on; the policy's stop ends it.
TEST(Resume, ARunLeavesItsSearchAndTheNextReusesItsLook) {
  StateDir d;
  tuner::TuneOptions opt = kept_in(d);
  Resumed first = resume_search(opt, "space-1");
  EXPECT_FALSE(first.state);
  EXPECT_EQ(first.builds_dir(), (d.path / "builds").string());
  fs::create_directories(d.path);
  std::ofstream(opt.out) << "#define BM 64\n";
  tuner::TuneSummary sum = tuned_at(1.07);
  sum.config = {{"BM", "64"}};
  RunLog log;
  log.metrics = {{"sm__throughput", 40}};
  log.state = "compute_bound";
  const LoopOutcome o = outcome_with({record("BM=64", 1.08, true), record("BM=32", 0.9, false)}, SearchStop::deadline);
  remember_search(first, o, log, opt, 58.0, sum, [](const std::string&) {});
  EXPECT_TRUE(sum.continues);
  EXPECT_EQ(sum.builds_searched, 1);

  Resumed second = resume_search(opt, "space-1");
  ASSERT_TRUE(second.state);
  EXPECT_EQ(second.state->evaluations.size(), 2u);
  EXPECT_EQ(second.state->metrics, log.metrics);
  EXPECT_DOUBLE_EQ(looked_up_to(second, opt.min_speedup), 1.08);
  fs::remove(opt.out);
  tuner::TuneSummary again;
  LoopOutcome nothing_new = o;
  nothing_new.evaluations.push_back(record("BM=128", 1.01, false));
  ASSERT_TRUE(reuse_look(second, nothing_new, opt, one_part, again));
  EXPECT_EQ(again.status, tuner::TuneVerdict::tuned);
  EXPECT_DOUBLE_EQ(again.speedup, 1.07);
  EXPECT_EQ(again.config, sum.config);
  std::ifstream written(opt.out);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(written)), {}), "#define BM 64\n");
  LoopOutcome better = o;
  better.evaluations.push_back(record("BM=128", 1.12, true));
  EXPECT_FALSE(reuse_look(second, better, opt, one_part, again));  // a new winner: its look is due
  // The policy's stop ends the search.
  remember_search(second, outcome_with(o.evaluations, SearchStop::policy), log, opt, 30.0, again,
                  [](const std::string&) {});
  EXPECT_FALSE(again.continues);
  EXPECT_EQ(again.builds_searched, 2);
  // Another space (the harness changed) starts afresh, and says why.
  const Resumed other = resume_search(opt, "space-2");
  EXPECT_FALSE(other.state);
  EXPECT_NE(other.note.find("changed"), std::string::npos);
  opt.fresh_search = true;
  EXPECT_FALSE(resume_search(opt, "space-1").state);
}

// A resumed search looks again only at a best that gains kLookMargin (1%)
// over the fastest its last look concluded on in the same part: a look is a
// build's dearest part. The reused look stays the state's last look, so
// small gains do not add up unlooked-at; another part's first winner, and
// anything after a look that did not tune, is looked at.
TEST(Resume, ALookStandsUntilANewBestGainsOnePercentInItsPart) {
  StateDir d;
  tuner::TuneOptions opt = kept_in(d);
  fs::create_directories(d.path);
  std::ofstream(opt.out) << "#define BM 64\n";
  tuner::TuneSummary sum = tuned_at(1.10);
  // Part 1 holds BM, part 2 holds BN.
  const PartOf parts = [](const EvaluationRecord& e) { return std::uint64_t{e.id.rfind("BM", 0) == 0 ? 1u : 2u}; };
  const LoopOutcome o = outcome_with({record("BM=64", 1.10, true)}, SearchStop::deadline);
  Resumed first = resume_search(opt, "space-1");
  remember_search(first, o, RunLog{}, opt, 58.0, sum, [](const std::string&) {});

  Resumed second = resume_search(opt, "space-1");
  LoopOutcome slight = o;
  slight.evaluations.push_back(record("BM=128", 1.105, true));  // +0.45%
  EXPECT_TRUE(look_stands(second, slight.evaluations, opt.min_speedup, parts));
  tuner::TuneSummary again;
  ASSERT_TRUE(reuse_look(second, slight, opt, parts, again));
  EXPECT_DOUBLE_EQ(again.speedup, 1.10);
  remember_search(second, slight, RunLog{}, opt, 30.0, again, [](const std::string&) {});

  Resumed third = resume_search(opt, "space-1");
  EXPECT_EQ(third.state->look_of, "1.02:BM=64");  // the look it took, not the one it reused
  LoopOutcome creeping = slight;
  creeping.evaluations.push_back(record("BM=256", 1.112, true));  // +1.1% over the look's 1.10
  EXPECT_FALSE(look_stands(third, creeping.evaluations, opt.min_speedup, parts));
  LoopOutcome other_part = slight;
  other_part.evaluations.push_back(record("BN=32", 1.03, true));  // a part the look never saw
  EXPECT_FALSE(look_stands(third, other_part.evaluations, opt.min_speedup, parts));
  LoopOutcome below = slight;
  below.evaluations.push_back(record("BN=16", 1.01, true));  // under --min-speedup: nothing to look at
  EXPECT_TRUE(look_stands(third, below.evaluations, opt.min_speedup, parts));
  opt.min_speedup = 1.05;  // a look under another threshold is no look for this run
  EXPECT_FALSE(look_stands(third, slight.evaluations, opt.min_speedup, parts));
  opt.min_speedup = 1.02;

  // A look that refused its winner stands only for what it concluded on.
  tuner::TuneSummary refused;
  refused.exit_code = 1;
  refused.status = tuner::TuneVerdict::no_gain;
  Resumed fourth = resume_search(opt, "space-1");
  remember_search(fourth, creeping, RunLog{}, opt, 30.0, refused, [](const std::string&) {});
  Resumed fifth = resume_search(opt, "space-1");
  EXPECT_TRUE(look_stands(fifth, creeping.evaluations, opt.min_speedup, parts));
  LoopOutcome next = creeping;
  next.evaluations.push_back(record("BM=32", 1.113, true));
  EXPECT_FALSE(look_stands(fifth, next.evaluations, opt.min_speedup, parts));
}
