// The search's state between builds (issue 72): written and read back
// whole, a torn or foreign file refused with its reason, and the digests
// that decide whether a state may be resumed and a look reused.
#include "tuner/search_state.h"

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
