// run_tuner with a stand-in for the kernelblaster executable: a shell
// script that answers `optimize` and `tune` the way the real commands do
// (exit status, --json on stdout, the source written where asked) and logs
// what it was asked. No GPU, no LLM: the runner's sequencing is the subject.
#include "build_step/tune_runner.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "test_dir.h"

namespace kernelblaster::build_step {
namespace {

// $1 is the command; OPTIMIZE and TUNE (files beside the script) say how
// each ends: "kept"/"none"/"fail", "gain"/"none".
constexpr const char* kFakeTool = R"SH(#!/bin/sh
here=$(dirname "$0"); cmd=$1; shift
while [ $# -gt 0 ]; do
  case $1 in --out) out=$2; shift ;; --write) write=$2; shift ;; --source) src=$2; shift ;; esac
  shift
done
echo "$cmd $src" >> "$here/log"
case $cmd in
  optimize)
    case $(cat "$here/OPTIMIZE") in
      kept) printf 'rewritten kernel\n' > "$write"
            echo '{"improved": true, "confirmed_speedup": 2.0, "original": {"median_us": 100}}'; exit 0 ;;
      none) echo '{"improved": false}'; exit 1 ;;
      *) echo 'model unreachable' >&2; exit 2 ;;
    esac ;;
  tune)
    if [ "$(cat "$here/TUNE")" = gain ]; then
      printf 'tuned from %s\n' "$src" > "$out"
      echo '{"speedup": 1.5, "config": {"T": "64"}, "reference_median_us": 50, "best_median_us": 33}'; exit 0
    fi
    if [ "$(cat "$here/TUNE")" = broken ]; then
      echo '{"status": "not_measured", "reason": "the original does not build with its harness: undefined reference to cublasSgemm_v2"}'; exit 3
    fi
    if [ "$(cat "$here/TUNE")" = unusable ]; then
      echo '{"status": "not_measured", "reason": "the harness fails: buffer y declared twice"}'; exit 3
    fi
    if [ "$(cat "$here/TUNE")" = nofit ]; then
      echo '{"status": "no_gain", "evaluations": 0, "space_valid": 9, "reason": "the budget left no time to try a configuration (building and running the original took 45 s); raise BUDGET"}'; exit 1
    fi
    echo '{"speedup": 1.0, "status": "no_gain"}'; exit 1 ;;
esac
)SH";

struct Fake {
  testing::TestDir dir;
  std::string tool;
  Fake(const std::string& optimize, const std::string& tune) {
    tool = dir.write("kernelblaster", kFakeTool);
    ::chmod(tool.c_str(), 0755);
    dir.write("OPTIMIZE", optimize);
    dir.write("TUNE", tune);
  }
  TuneRequest request(const std::string& rewriter) const {
    TuneRequest r;
    r.source = dir.write("k.cu", "original kernel\n");
    r.harness = dir.path("h.cu");
    r.out = dir.path("build/k.tuned.cu");
    std::filesystem::create_directories(dir.path("build"));
    r.budget_s = 30;
    r.rewriter = rewriter;
    return r;
  }
  std::string log() const {
    std::ifstream in(dir.path("log"));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

TEST(TuneRunner, WithoutAnLlmOnlyTheTunerRuns) {
  Fake f("kept", "gain");
  TuneRequest r = f.request("");
  TuneOutcome o = run_tuner(f.tool, r);
  EXPECT_EQ(f.log(), "tune " + r.source + "\n");
  EXPECT_EQ(o.end, TuneEnd::tuned);
  EXPECT_DOUBLE_EQ(o.speedup, 1.5);
  EXPECT_TRUE(o.rewrite_note.empty());
}

// An original that does not build or run with its harness is a failure with
// its reason, not "nothing beat the original" (which the build would cache).
TEST(TuneRunner, AnOriginalThatFailsWithItsHarnessIsAFailure) {
  Fake f("none", "broken");
  TuneOutcome o = run_tuner(f.tool, f.request(""));
  EXPECT_EQ(o.end, TuneEnd::failed);
  EXPECT_EQ(o.error, "the original does not build with its harness: undefined reference to cublasSgemm_v2");
  // So is a harness that cannot be used: the status says so, whatever its reason's words.
  Fake unusable("none", "unusable");
  TuneOutcome u = run_tuner(unusable.tool, unusable.request(""));
  EXPECT_EQ(u.end, TuneEnd::failed);
  EXPECT_EQ(u.error, "the harness fails: buffer y declared twice");
  Fake plain("none", "none");
  EXPECT_EQ(run_tuner(plain.tool, plain.request("")).end, TuneEnd::no_gain);
}

// Nothing tried within the budget: the tuner's reason reaches the build step.
TEST(TuneRunner, TheTunersReasonIsRead) {
  Fake f("none", "nofit");
  TuneOutcome o = run_tuner(f.tool, f.request(""));
  EXPECT_EQ(o.end, TuneEnd::no_gain);
  EXPECT_EQ(o.evaluations, 0);
  EXPECT_EQ(o.space_valid, 9);
  EXPECT_EQ(o.reason, "the budget left no time to try a configuration (building and running the original took 45 s); raise BUDGET");
}

TEST(TuneRunner, AKeptRewriteIsTunedAndTheSpeedupsMultiply) {
  Fake f("kept", "gain");
  TuneRequest r = f.request("openai/gpt-x");
  TuneOutcome o = run_tuner(f.tool, r);
  EXPECT_EQ(f.log(), "optimize " + r.source + "\ntune " + r.out + ".rewritten.cu\n");
  EXPECT_EQ(o.end, TuneEnd::tuned);
  EXPECT_DOUBLE_EQ(o.speedup, 3.0);
  EXPECT_EQ(o.tuned_text, "tuned from " + r.out + ".rewritten.cu\n");
  EXPECT_EQ(o.config.at("T"), "64");
  EXPECT_DOUBLE_EQ(o.reference_median_us, 100);  // the original's, not the rewrite's
  EXPECT_NE(o.rewrite_note.find("rewrite by openai/gpt-x: 2.00x"), std::string::npos) << o.rewrite_note;
}

TEST(TuneRunner, AKeptRewriteStandsWhenTuningFindsNothingMore) {
  Fake f("kept", "none");
  TuneOutcome o = run_tuner(f.tool, f.request("m"));
  EXPECT_EQ(o.end, TuneEnd::tuned);
  EXPECT_DOUBLE_EQ(o.speedup, 2.0);
  EXPECT_EQ(o.tuned_text, "rewritten kernel\n");
  EXPECT_TRUE(o.config.empty());
}

TEST(TuneRunner, NoRewriteKeptOrAFailedOneStillTunesTheOriginal) {
  for (const char* how : {"none", "fail"}) {
    Fake f(how, "gain");
    TuneRequest r = f.request("m");
    TuneOutcome o = run_tuner(f.tool, r);
    EXPECT_EQ(f.log(), "optimize " + r.source + "\ntune " + r.source + "\n") << how;
    EXPECT_EQ(o.end, TuneEnd::tuned) << how;
    EXPECT_DOUBLE_EQ(o.speedup, 1.5) << how;
    const char* said = std::string(how) == "none" ? "no verified rewrite beat the original" : "failed (exit 2)";
    EXPECT_NE(o.rewrite_note.find(said), std::string::npos) << o.rewrite_note;
  }
}

// How the tries ended comes from the tuner's summary; a count that is not
// a positive integer is left out.
TEST(ParseTuneJson, ReadsHowTheTriesEnded) {
  TuneOutcome out;
  parse_tune_json(R"({"evaluations": 24, "outcomes": {"ok": 10, "crashed": 4, "bogus": "x", "none": 0}})", out);
  EXPECT_EQ(out.evaluations, 24);
  EXPECT_EQ(out.outcomes, (std::map<Status, long long>{{Status::ok, 10}, {Status::crashed, 4}}));
}

TEST(ParseTuneJson, ReadsWhatMemcheckSaid) {
  TuneOutcome out;
  parse_tune_json(R"j({"memcheck": "compute-sanitizer's memcheck: no invalid access in 12 runs (9.1 s)"})j", out);
  EXPECT_EQ(out.memcheck, "compute-sanitizer's memcheck: no invalid access in 12 runs (9.1 s)");
}

TEST(ParseTuneJson, ReadsWhatTheWinnerDoesAtOtherSizes) {
  TuneOutcome out;
  parse_tune_json(R"j({"slower_at_a_size": "tile 0.973x at 2048, 1.030x over 2 sizes",
                       "other_sizes": "0.942x (call3) to 0.966x (call0) at 4 sizes",
                       "launch_paced": "at 1024x1024 the harness took 4.60 us to issue a launch"})j", out);
  EXPECT_EQ(out.slower_at_a_size, "tile 0.973x at 2048, 1.030x over 2 sizes");
  EXPECT_EQ(out.other_sizes, "0.942x (call3) to 0.966x (call0) at 4 sizes");
  EXPECT_EQ(out.launch_paced, "at 1024x1024 the harness took 4.60 us to issue a launch");
}

}  // namespace
}  // namespace kernelblaster::build_step
