// Judging one group of launch sites by its own launchers (launcher_focus.h)
// and composing the winner from the groups' bests (focused_winner.h).
#include "tuner/focused_winner.h"

#include <gtest/gtest.h>

#include "common/launcher_mask.h"
#include "common/text.h"
#include "tuner/launch_tunables.h"
#include "tuner/launcher_focus.h"

using namespace kernelblaster;
using namespace kernelblaster::tuner;

namespace {

// Two launchers of one source, each with its own constants (as SGEMM
// tutorials write them), and a launch from main that no harness calls.
const char* kTwoLaunchers = R"(#include <cuda_runtime.h>
template <int BM>
__global__ void scale(float* x, int n) { int i = blockIdx.x * BM + threadIdx.x; if (i < n) x[i] *= 2; }
__global__ void shift(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1; }

void run_scale(float* x, int n) {
  const int BM = 128;
  scale<BM><<<(n + BM - 1) / BM, BM>>>(x, n);
}

void run_shift(float* x, int n) {
  const int THREADS = 256;
  shift<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, n);
}

int main() {
  float* x = nullptr;
  const int WIDE = 512;
  shift<<<4, WIDE>>>(x, 2048);
  return 0;
}
)";

const char* kHarnessHead =
    "// kernelblaster: launchers run_scale run_shift\n"
    "static bool kb_runs(int k) { return true; }\n";

LaunchTunables found() { return find_launch_tunables(kTwoLaunchers, "/src/two.cu", {}, {}); }

std::string tunable_named(const LaunchTunables& t, const std::string& written_as) {
  for (const FoundTunable& f : t.tunables)
    if (f.written_as == written_as) return f.tunable.name;
  return "";
}

std::vector<Tunable> tunables_of(const LaunchTunables& t) {
  std::vector<Tunable> out;
  for (const FoundTunable& f : t.tunables) out.push_back(f.tunable);
  return out;
}

EvaluationRecord measured(const std::map<std::string, std::string>& settings, std::vector<std::string> flags,
                          double speedup, Status status = Status::ok) {
  EvaluationRecord e;
  e.settings = settings;
  e.flags = std::move(flags);
  e.status = status;
  e.speedup = status == Status::ok ? speedup : 0;
  e.accepted = status == Status::ok;
  return e;
}

CandidateResult result(double speedup, Status status = Status::ok) {
  CandidateResult r;
  r.status = status;
  r.speedup = status == Status::ok ? speedup : 0;
  return r;
}

}  // namespace

TEST(LauncherMask, TheHarnessNamesItsLaunchersOnOneLine) {
  EXPECT_EQ(harness_launchers(kHarnessHead), (std::vector<std::string>{"run_scale", "run_shift"}));
  EXPECT_TRUE(harness_launchers("int main() {}\n").empty());
  EXPECT_EQ(launcher_mask_definition(0x5), "KERNELBLASTER_LAUNCHER_MASK=0x5ull");
}

// Each launcher's constants form a group judged by that launcher alone; the
// constant of main's launch has no launcher in the harness, so it is judged
// on the whole harness, as are flags alone and several groups at once.
TEST(LauncherFocus, AGroupWhoseSitesAreInOneLauncherIsJudgedByItAlone) {
  const LaunchTunables t = found();
  const std::string bm = tunable_named(t, "BM"), threads = tunable_named(t, "THREADS"), wide = tunable_named(t, "WIDE");
  ASSERT_FALSE(bm.empty());
  ASSERT_FALSE(threads.empty());
  ASSERT_FALSE(wide.empty());
  const std::vector<Tunable> tunables = tunables_of(t);
  const LauncherFocus f = launcher_focus(harness_launchers(kHarnessHead), t.sites, tunables);
  ASSERT_TRUE(f.active());
  EXPECT_EQ(f.group_masks.size(), 2u);
  EXPECT_EQ(f.mask(make_configuration(tunables, {{bm, "64"}}, {})), 1u);
  EXPECT_EQ(f.mask(make_configuration(tunables, {{threads, "512"}}, {"-use_fast_math"})), 2u);
  EXPECT_EQ(f.names(2), "run_shift");
  EXPECT_EQ(f.mask(make_configuration(tunables, {{wide, "256"}}, {})), 0u);  // main's launch
  EXPECT_EQ(f.mask(make_configuration(tunables, {{bm, "64"}, {threads, "512"}}, {})), 0u);
  EXPECT_EQ(f.mask(make_configuration(tunables, {}, {"-use_fast_math"})), 0u);
  EXPECT_EQ(f.mask(make_configuration(tunables, {}, {})), 0u);
}

TEST(LauncherFocus, NothingIsFocusedWithoutNamedLaunchersOrWithOne) {
  const LaunchTunables t = found();
  EXPECT_FALSE(launcher_focus({}, t.sites, tunables_of(t)).active());
  EXPECT_FALSE(launcher_focus({"run_scale"}, t.sites, tunables_of(t)).active());
}

TEST(FocusedWinner, EachGroupsBestIsLookedAtAloneThenTheCompositionOnTheWholeHarness) {
  const LaunchTunables t = found();
  const std::vector<Tunable> tunables = tunables_of(t);
  const std::string bm = tunable_named(t, "BM"), threads = tunable_named(t, "THREADS");
  const LauncherFocus f = launcher_focus(harness_launchers(kHarnessHead), t.sites, tunables);
  const std::vector<EvaluationRecord> evals = {
      measured({{bm, "64"}}, {}, 1.04),  measured({{bm, "256"}}, {}, 1.10),
      measured({{bm, "32"}}, {}, 0, Status::wrong_result),  // wrong results never win
      measured({{threads, "512"}}, {}, 1.05), measured({{threads, "128"}}, {}, 1.01)};
  std::vector<std::string> looked;
  const Look look = [&](const Configuration& c) {
    looked.push_back(c.id);
    return result(c.values.at(bm) == "256" ? 1.09 : 1.04);
  };
  std::string whole_id;
  const Look whole = [&](const Configuration& c) {
    whole_id = c.id;
    return result(1.001);
  };
  ASSERT_TRUE(has_group_gain(evals, tunables, f, 1.02));
  const FocusedWinner w = compose_winner(evals, tunables, f, 1.02, look, whole);
  ASSERT_TRUE(w.found) << w.reason;
  EXPECT_EQ(looked, (std::vector<std::string>{bm + "=256", threads + "=512"}));  // fastest group first
  EXPECT_EQ(w.config.values.at(bm), "256");
  EXPECT_EQ(w.config.values.at(threads), "512");
  EXPECT_TRUE(w.whole_checked);  // two groups changed
  EXPECT_EQ(whole_id, w.config.id);
  EXPECT_DOUBLE_EQ(w.speedup(), 1.04);  // the lowest kept group's
  EXPECT_EQ(w.summary(), "run_scale 1.09x, run_shift 1.04x; the whole harness 1.00x");
}

// The composition the whole harness will check, known before the looks, so
// its build runs while they do: each group's fastest; none for one group
// without flags (no whole check follows).
TEST(FocusedWinner, TheExpectedCompositionIsTheOneTheWholeHarnessChecksWhenEveryGroupHolds) {
  const LaunchTunables t = found();
  const std::vector<Tunable> tunables = tunables_of(t);
  const std::string bm = tunable_named(t, "BM"), threads = tunable_named(t, "THREADS");
  const LauncherFocus f = launcher_focus(harness_launchers(kHarnessHead), t.sites, tunables);
  const std::vector<EvaluationRecord> evals = {measured({{bm, "64"}}, {}, 1.04), measured({{bm, "256"}}, {}, 1.10),
                                               measured({{threads, "512"}}, {}, 1.05)};
  const std::optional<Configuration> expected = expected_composition(evals, tunables, f, 1.02);
  ASSERT_TRUE(expected);
  std::string whole_id;
  const FocusedWinner w = compose_winner(
      evals, tunables, f, 1.02, [](const Configuration&) { return result(1.05); },
      [&](const Configuration& c) {
        whole_id = c.id;
        return result(1.03);
      });
  ASSERT_TRUE(w.found) << w.reason;
  EXPECT_EQ(expected->id, whole_id);
  EXPECT_FALSE(expected_composition({evals[1]}, tunables, f, 1.02));  // one group, no flags
  EXPECT_FALSE(expected_composition(evals, tunables, f, 1.2));        // no group gains enough
}

TEST(FocusedWinner, AGroupWhoseGainDoesNotHoldIsLeftOutAndOneGroupNeedsNoWholeLook) {
  const LaunchTunables t = found();
  const std::vector<Tunable> tunables = tunables_of(t);
  const std::string bm = tunable_named(t, "BM"), threads = tunable_named(t, "THREADS");
  const LauncherFocus f = launcher_focus(harness_launchers(kHarnessHead), t.sites, tunables);
  const std::vector<EvaluationRecord> evals = {measured({{bm, "256"}}, {}, 1.10),
                                               measured({{threads, "512"}}, {}, 1.05)};
  const Look look = [&](const Configuration& c) {
    return c.values.at(threads) == "512" ? result(0, Status::wrong_result) : result(1.08);
  };
  bool whole_asked = false;
  const Look whole = [&](const Configuration&) {
    whole_asked = true;
    return result(1.0);
  };
  const FocusedWinner w = compose_winner(evals, tunables, f, 1.02, look, whole);
  ASSERT_TRUE(w.found) << w.reason;
  EXPECT_EQ(w.config.values.at(threads), "256");  // left at the original's value
  EXPECT_FALSE(w.whole_checked);                  // one group, no flags: the other launcher's code is the original's
  EXPECT_FALSE(whole_asked);
  ASSERT_EQ(w.groups.size(), 2u);
  EXPECT_FALSE(w.groups[1].kept);
}

TEST(FocusedWinner, FlagsReachEveryKernelSoTheWholeHarnessMustVerifyAndNotBeSlower) {
  const LaunchTunables t = found();
  const std::vector<Tunable> tunables = tunables_of(t);
  const std::string bm = tunable_named(t, "BM");
  const LauncherFocus f = launcher_focus(harness_launchers(kHarnessHead), t.sites, tunables);
  const std::vector<EvaluationRecord> evals = {measured({{bm, "256"}}, {"-use_fast_math"}, 1.10)};
  const Look look = [](const Configuration&) { return result(1.08); };
  FocusedWinner w = compose_winner(evals, tunables, f, 1.02, look,
                                   [](const Configuration&) { return result(0, Status::inaccurate); });
  EXPECT_FALSE(w.found);
  EXPECT_TRUE(w.whole_checked);
  EXPECT_NE(w.reason.find("failed on the whole harness: inaccurate"), std::string::npos) << w.reason;
  w = compose_winner(evals, tunables, f, 1.02, look, [](const Configuration&) { return result(0.95); });
  EXPECT_FALSE(w.found);
  EXPECT_NE(w.reason.find("makes the whole harness slower (0.95x)"), std::string::npos) << w.reason;
  // Faster as a whole, but one of its kernels slower.
  w = compose_winner(evals, tunables, f, 1.02, look, [](const Configuration&) {
    CandidateResult r = result(1.05);
    r.slower_kernel = "run_shift 0.960x at 1024";
    return r;
  });
  EXPECT_FALSE(w.found);
  EXPECT_NE(w.reason.find("makes a kernel slower on the whole harness: run_shift 0.960x"), std::string::npos)
      << w.reason;
}

TEST(FocusedWinner, AGroupWhoseLookSlowsAKernelIsNotKept) {
  const LaunchTunables t = found();
  const std::vector<Tunable> tunables = tunables_of(t);
  const std::string bm = tunable_named(t, "BM");
  const LauncherFocus f = launcher_focus(harness_launchers(kHarnessHead), t.sites, tunables);
  const std::vector<EvaluationRecord> evals = {measured({{bm, "256"}}, {}, 1.10)};
  const Look look = [](const Configuration&) {
    CandidateResult r = result(1.08);
    r.slower_kernel = "run_scale 0.950x at 4096";
    return r;
  };
  const FocusedWinner w = compose_winner(evals, tunables, f, 1.02, look, look);
  EXPECT_FALSE(w.found);
  EXPECT_NE(w.reason.find("1.08x, but run_scale 0.950x at 4096"), std::string::npos) << w.reason;
}

TEST(FocusedWinner, NoGroupGainNoComposition) {
  const LaunchTunables t = found();
  const std::vector<Tunable> tunables = tunables_of(t);
  const LauncherFocus f = launcher_focus(harness_launchers(kHarnessHead), t.sites, tunables);
  const std::vector<EvaluationRecord> evals = {measured({}, {"-use_fast_math"}, 1.3)};  // flags alone: the whole harness
  EXPECT_FALSE(has_group_gain(evals, tunables, f, 1.02));
}

// A group's fastest can fail its fresh look where the search's measurement
// passed (a size it did not run: SGEMM_CUDA's kernel 5 with BN=256, wrong
// at 128). The group's next fastest that does not make the same change is
// looked at instead, up to kLooksPerGroup looks.
TEST(FocusedWinner, AGroupsFastestThatFailsItsLookGivesWayToTheNextFastest) {
  const char* source = R"(#include <cuda_runtime.h>
template <int BM, int BK>
__global__ void tile(float* x, int n) { int i = blockIdx.x * BM + threadIdx.x; if (i < n) x[i] *= BK; }
__global__ void shift(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1; }
void run_tile(float* x, int n) {
  const int BM = 128;
  const int BK = 8;
  tile<BM, BK><<<(n + BM - 1) / BM, BM>>>(x, n);
}
void run_shift(float* x, int n) {
  const int THREADS = 256;
  shift<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, n);
}
)";
  const LaunchTunables t = find_launch_tunables(source, "/src/tile.cu", {}, {});
  const std::vector<Tunable> tunables = tunables_of(t);
  const std::string bm = tunable_named(t, "BM"), bk = tunable_named(t, "BK");
  const LauncherFocus f = launcher_focus(harness_launchers("// kernelblaster: launchers run_tile run_shift\n"), t.sites,
                                         tunables);
  const std::vector<EvaluationRecord> evals = {
      measured({{bm, "256"}}, {}, 1.12),  // wrong at a size the search did not run
      measured({{bm, "256"}, {bk, "32"}}, {}, 1.11),  // makes the same change: not looked at
      measured({{bk, "16"}}, {}, 1.10), measured({{bk, "32"}}, {}, 1.04)};
  std::vector<std::string> looked;
  const Look look = [&](const Configuration& c) {
    looked.push_back(c.id);
    return c.values.at(bm) == "256" ? result(0, Status::wrong_result) : result(1.09);
  };
  const Look whole = [](const Configuration&) { return result(1.0); };
  FocusedWinner w = compose_winner(evals, tunables, f, 1.02, look, whole);
  ASSERT_TRUE(w.found) << w.reason;
  EXPECT_EQ(looked, (std::vector<std::string>{bm + "=256", bk + "=16"})) << joined(looked);
  EXPECT_EQ(w.config.values.at(bk), "16");
  EXPECT_EQ(w.config.values.at(bm), "128");
  ASSERT_EQ(w.groups.size(), 1u);
  EXPECT_EQ(w.groups[0].refused, (std::vector<std::string>{bm + "=256 (wrong_result)"}));
  EXPECT_NE(w.summary().find("run_tile 1.09x (after " + bm + "=256 (wrong_result) failed the look)"),
            std::string::npos)
      << w.summary();
  // Every look fails: kLooksPerGroup looks, then the group is left out.
  looked.clear();
  w = compose_winner(evals, tunables, f, 1.02, [&](const Configuration& c) {
    looked.push_back(c.id);
    return result(0, Status::crashed);
  }, whole);
  EXPECT_FALSE(w.found);
  // bm=256, bk=16 and bk=32 (bm=256 with bk=32 carries a failed change): kLooksPerGroup looks.
  EXPECT_EQ(looked, (std::vector<std::string>{bm + "=256", bk + "=16", bk + "=32"}));
  // A look that verifies but is slower than the bar is the gain not holding: no other is looked at.
  looked.clear();
  w = compose_winner(evals, tunables, f, 1.02, [&](const Configuration& c) {
    looked.push_back(c.id);
    return result(1.0);
  }, whole);
  EXPECT_FALSE(w.found);
  EXPECT_EQ(looked.size(), 1u);
}

// A single winner that fails its look gives way the same way (tuner.cc):
// the next fastest that does not make every change of a failed one, flags
// counted as changes.
TEST(FocusedWinner, TheNextToLookAtCarriesNoFailedChange) {
  const std::vector<EvaluationRecord> evals = {
      measured({{"A", "2"}, {"B", "4"}}, {}, 1.20),  // 0: failed its look
      measured({{"A", "2"}, {"B", "4"}, {"C", "1"}}, {}, 1.19),  // 1: makes its changes and more
      measured({{"A", "2"}}, {"-use_fast_math"}, 1.15),           // 2
      measured({{"C", "1"}}, {}, 1.10),                           // 3
      measured({{"C", "2"}}, {}, 1.30, Status::wrong_result),     // never: not verified
      measured({{"C", "3"}}, {}, 1.01)};                          // never: under the bar
  std::vector<Settings> failed = {changes_of(evals[0])};
  EXPECT_EQ(next_to_look_at(evals, 1.02, failed), 2);
  failed.push_back(changes_of(evals[2]));  // {A=2, -use_fast_math}: 3 carries neither
  EXPECT_EQ(next_to_look_at(evals, 1.02, failed), 3);
  failed.push_back(changes_of(evals[3]));
  EXPECT_EQ(next_to_look_at(evals, 1.02, failed), -1);
  // A flag alone is a change: the same flags with other settings carry it.
  const std::vector<Settings> flag_only = {Settings{{"-use_fast_math", ""}}};
  EXPECT_EQ(next_to_look_at(evals, 1.02, flag_only), 0);
  EXPECT_TRUE(carries_a_failed_change(evals[2], flag_only));
}
