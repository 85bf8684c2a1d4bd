#include "judge/kernel_speeds.h"

#include <gtest/gtest.h>

#include "judge/judge.h"

namespace kernelblaster {
namespace {

KernelTiming kernel(const std::string& name, double median, double spread) {
  return {name, median, median - spread, median + spread};
}

TimingReport call_of(std::vector<KernelTiming> kernels) {
  TimingReport t;
  t.median_ns = 0;
  for (const KernelTiming& k : kernels) t.median_ns += k.median_ns;
  t.kernels = std::move(kernels);
  return t;
}

TEST(KernelSpeeds, ATemplateKernelIsTheSameKernelWhateverItsArguments) {
  // void tile<32, 8>(float*, int) and a plain function, mangled and not.
  EXPECT_EQ(kernel_base_name("_Z4tileILi32ELi8EEvPfi"), "tile");
  EXPECT_EQ(kernel_base_name("_Z4tileILi16ELi4EEvPfi"), "tile");
  EXPECT_EQ(kernel_base_name("_Z14transposeNaivePfS_ii"), "transposeNaive");
  EXPECT_EQ(kernel_base_name("_ZN2ns6reduceEPKfPfi"), "ns::reduce");
  EXPECT_EQ(kernel_base_name("not_mangled"), "not_mangled");
  // In an unnamed namespace, as the examples' kernels are: the name was ""
  // (every such kernel then passed for every other, and lines named none).
  EXPECT_EQ(kernel_base_name("_ZN12_GLOBAL__N_119softmax_rows_kernelILi4EEEvPKfPfi"),
            "(anonymous namespace)::softmax_rows_kernel");
  EXPECT_NE(kernel_base_name("_ZN12_GLOBAL__N_114rmsnorm_kernelILi4EEEvPKfS2_Pffi"),
            kernel_base_name("_ZN12_GLOBAL__N_119softmax_rows_kernelILi4EEEvPKfPfi"));
}

TEST(KernelSpeeds, EachKernelIsComparedAtItsPlace) {
  TimingReport ref = call_of({kernel("_Z4tileILi32ELi8EEvPfi", 1000, 5), kernel("_Z4tailPf", 400, 2)});
  TimingReport cand = call_of({kernel("_Z4tileILi16ELi8EEvPfi", 800, 5), kernel("_Z4tailPf", 440, 2)});
  std::vector<KernelSpeed> k = kernel_speeds(ref, cand);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].name, "tile");
  EXPECT_DOUBLE_EQ(k[0].speedup, 1.25);
  EXPECT_FALSE(k[0].slower);
  EXPECT_EQ(k[1].name, "tail");
  EXPECT_TRUE(k[1].slower);  // 10% slower, the samples apart
}

TEST(KernelSpeeds, NoiseIsNoSlowdown) {
  // 2% slower in the median, but the samples overlap.
  TimingReport ref = call_of({kernel("_Z1av", 1000, 30)});
  TimingReport cand = call_of({kernel("_Z1av", 1020, 30)});
  ASSERT_EQ(kernel_speeds(ref, cand).size(), 1u);
  EXPECT_FALSE(kernel_speeds(ref, cand)[0].slower);
  // Apart, but within the 1% allowed.
  cand = call_of({kernel("_Z1av", 1008, 1)});
  ref = call_of({kernel("_Z1av", 1000, 1)});
  EXPECT_FALSE(kernel_speeds(ref, cand)[0].slower);
}

TEST(KernelSpeeds, OtherKernelsAreComparedOnlyAsAWhole) {
  TimingReport ref = call_of({kernel("_Z1av", 1000, 5), kernel("_Z1bv", 1000, 5)});
  EXPECT_TRUE(kernel_speeds(ref, call_of({kernel("_Z5fusedv", 500, 5)})).empty());  // fewer
  EXPECT_TRUE(kernel_speeds(ref, call_of({kernel("_Z1av", 900, 5), kernel("_Z1cv", 2000, 5)})).empty());
  EXPECT_TRUE(kernel_speeds(TimingReport{}, TimingReport{}).empty());
}

TEST(KernelSpeeds, TheJudgesTimingNamesTheFirstSlowerKernel) {
  HarnessReport ref, cand;
  ref.sizes = cand.sizes = {{"1024x1024", {}, false}};
  ref.timings = {call_of({kernel("_Z5naivePf", 1000, 5), kernel("_Z6coarsePf", 1000, 5)})};
  cand.timings = {call_of({kernel("_Z5naivePf", 700, 5), kernel("_Z6coarsePf", 1030, 5)})};
  double speedup = 0;
  std::vector<SizeTiming> rows = compare_timing(ref, cand, &speedup);
  EXPECT_GT(speedup, 1.1);  // faster as a whole
  ASSERT_EQ(rows[0].kernels.size(), 2u);
  EXPECT_EQ(slower_kernel(rows), "coarse 0.971x at 1024x1024");
  cand.timings = {call_of({kernel("_Z5naivePf", 700, 5), kernel("_Z6coarsePf", 1000, 5)})};
  EXPECT_EQ(slower_kernel(compare_timing(ref, cand, &speedup)), "");
}


// Two timed sizes of a call of one kernel, as compare_timing gives them.
std::vector<SizeTiming> two_sizes(double large_ref, double large_cand, double small_ref, double small_cand,
                                  double spread) {
  HarnessReport ref, cand;
  ref.sizes = cand.sizes = {{"4096", {}, false}, {"2048", {}, false}};
  ref.timings = {call_of({kernel("_Z4tileILi4EEvPf", large_ref, spread)}),
                 call_of({kernel("_Z4tileILi4EEvPf", small_ref, spread)})};
  cand.timings = {call_of({kernel("_Z4tileILi2EEvPf", large_cand, spread)}),
                  call_of({kernel("_Z4tileILi2EEvPf", small_cand, spread)})};
  ref.timings[1].size = cand.timings[1].size = 1;
  double speedup = 0;
  return compare_timing(ref, cand, &speedup);
}

TEST(KernelSpeeds, AKernelIsJudgedOverTheTimedSizesAsTheCallIs) {
  // SGEMM_CUDA's kernel 10 with WNITER=2 on an H200: 9% faster at the
  // largest size, 2.7% slower at the next; faster over both.
  std::vector<SizeTiming> rows = two_sizes(8000, 7340, 1000, 1028, 2);
  ASSERT_TRUE(rows[1].kernels.at(0).slower);  // at 2048 alone it is slower
  EXPECT_EQ(slower_kernel(rows), "");
  EXPECT_EQ(kernel_slower_at_a_size(rows), "tile 0.973x at 2048, 1.030x over 2 sizes");
  const std::vector<KernelOverSizes> k = kernels_over_sizes(rows);
  ASSERT_EQ(k.size(), 1u);
  EXPECT_NEAR(k[0].speedup, 1.0297, 1e-3);
  EXPECT_EQ(k[0].slowest_size, "2048");
  // Slower at both, 3% over them: refused, and named with its worst size.
  rows = two_sizes(8000, 8100, 1000, 1050, 2);
  EXPECT_EQ(slower_kernel(rows), "tile 0.970x over 2 sizes (0.952x at 2048)");
  EXPECT_EQ(kernel_slower_at_a_size(rows), "");
}

TEST(KernelSpeeds, OverTheSizesNoiseIsNoSlowdownEither) {
  // 2% slower at each size in the median, but within the spread of both
  // samples at their most favourable reading.
  const std::vector<SizeTiming> rows = two_sizes(8000, 8160, 1000, 1020, 100);
  EXPECT_EQ(slower_kernel(rows), "");
}

TEST(KernelSpeeds, ValidationSizesTimedOnASecondLookAreSaidNotCounted) {
  // SGEMM_CUDA's kernel 10 with WNITER=2: 4096 and 2048 timed by the
  // search, 1024 and 128 validation sizes timed on the winner's second look.
  HarnessReport ref, cand;
  ref.sizes = cand.sizes = {{"4096", {}, false}, {"2048", {}, false}, {"1024", {}, true}, {"128", {}, true}};
  const double refs[] = {8000, 1000, 160, 27}, cands[] = {7340, 1028, 170, 28};
  for (int i = 0; i < 4; ++i) {
    ref.timings.push_back(call_of({kernel("_Z4tileILi4EEvPf", refs[i], 1)}));
    cand.timings.push_back(call_of({kernel("_Z4tileILi2EEvPf", cands[i], 1)}));
    ref.timings.back().size = cand.timings.back().size = i;
  }
  double speedup = 0;
  const std::vector<SizeTiming> rows = compare_timing(ref, cand, &speedup);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_TRUE(rows[2].validation_only);
  EXPECT_NEAR(speedup, 1.0297, 1e-3);  // the two timed sizes only
  EXPECT_EQ(slower_kernel(rows), "");  // 1024 and 128 do not make the kernel slower over the timed sizes
  EXPECT_EQ(kernel_slower_at_a_size(rows), "tile 0.973x at 2048, 1.030x over 2 sizes");
  EXPECT_EQ(other_sizes_text(rows), "0.941x (1024) to 0.964x (128) at 2 sizes");
  EXPECT_EQ(other_sizes_text({rows[0], rows[1]}), "");
  EXPECT_EQ(other_sizes_text({rows[3]}), "0.964x at 128");
}

// The cuda-samples transpose's call on an H200 (2026-11-28 and 2026-12-01):
// eight kernels, 37 us of host time to issue them, the tuned tile faster
// at every one. A copy of 4.06 us (3.58 us tuned) runs shorter than the
// 4.6 us a launch takes, so the sample's loop of 100 copies does not move.
std::vector<SizeTiming> paced_rows(double ref_issue_ns, double cand_issue_ns) {
  HarnessReport ref, cand;
  ref.sizes = cand.sizes = {{"1024x1024", {}, false}};
  ref.timings = {call_of({kernel("_Z4copyPfS_ii", 4060, 20), kernel("_Z14transposeNaivePfS_ii", 17440, 50),
                          kernel("_Z22transposeCoarseGrainedPfS_ii", 3840, 20),
                          kernel("_Z18transposeCoalescedPfS_ii", 7360, 20)})};
  cand.timings = {call_of({kernel("_Z4copyPfS_ii", 3580, 20), kernel("_Z14transposeNaivePfS_ii", 17380, 50),
                           kernel("_Z22transposeCoarseGrainedPfS_ii", 3070, 20),
                           kernel("_Z18transposeCoalescedPfS_ii", 6660, 20)})};
  ref.timings[0].issue_median_ns = ref_issue_ns;
  cand.timings[0].issue_median_ns = cand_issue_ns;
  // The GPU busy the kernels' time: 32.70 us a call, 30.69 us tuned.
  ref.timings[0].busy_median_ns = ref.timings[0].median_ns;
  cand.timings[0].busy_median_ns = cand.timings[0].median_ns;
  double speedup = 0;
  return compare_timing(ref, cand, &speedup);
}

TEST(KernelSpeeds, AKernelShorterThanItsLaunchIsSaidToBePacedByIt) {
  // 4.6 us a launch (the lower side's issue time over the four launches):
  // copy and coarse-grained now run shorter; naive and coalesced do not.
  // Coarse-grained hides the more of its gain (1.251x, a loop of it alone
  // at most 1.000x).
  std::vector<SizeTiming> rows = paced_rows(18400, 19000);
  EXPECT_DOUBLE_EQ(rows[0].reference_issue_us, 18.4);
  EXPECT_EQ(launch_paced_text(rows),
            "at 1024x1024 the harness took 4.60 us to issue a launch, longer than transposeCoarseGrained now runs "
            "(3.84 to 3.07 us, 1.251x) and 1 more of the call's 4 kernels: a loop that launches one of them back "
            "to back is paced by its launches, not the kernel (a loop of transposeCoarseGrained alone at that pace: "
            "at most 1.000x)");
  // A launch of 3.4 us: copy (3.58 us) now runs longer than that, and a
  // loop of coarse-grained alone keeps part of its gain, 3.84 / 3.4.
  rows = paced_rows(13600, 13600);
  EXPECT_EQ(launch_paced_text(rows),
            "at 1024x1024 the harness took 3.40 us to issue a launch, longer than transposeCoarseGrained now runs "
            "(3.84 to 3.07 us, 1.251x): a loop that launches one of them back to back is paced by its launches, "
            "not the kernel (a loop of transposeCoarseGrained alone at that pace: at most 1.129x)");
  // Launches quicker than every kernel, or no issue times (a harness that
  // did not measure them): nothing to say.
  EXPECT_EQ(launch_paced_text(paced_rows(8000, 8000)), "");
  EXPECT_EQ(launch_paced_text(paced_rows(0, 0)), "");
}

TEST(KernelSpeeds, ALauncherThatWaitsOnTheDeviceIsNotPacedByItsLaunches) {
  // A call that copies its result back (or synchronizes) takes host time
  // that follows the GPU's: the candidate saved 2.01 us of GPU time a call
  // and its call's host time fell by 1.5 us with it. That host time is
  // not a launch's cost.
  EXPECT_EQ(launch_paced_text(paced_rows(40000, 38500)), "");
  // Noise in the host's time that does not follow the GPU's is no such sign.
  EXPECT_NE(launch_paced_text(paced_rows(40000, 39500)), "");
}

}  // namespace
}  // namespace kernelblaster
