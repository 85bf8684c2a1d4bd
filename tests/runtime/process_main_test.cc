#include "runtime/process_main.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "runtime/cuda_check.h"

namespace kernelblaster {
namespace {

std::optional<int> parse(std::vector<std::string> words, ProcessArgs* out) {
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  return parse_process_args(static_cast<int>(argv.size()), argv.data(), "usage: %s\n", out);
}

TEST(ProcessMain, ReadsPlanOutAndDescribe) {
  ProcessArgs a;
  EXPECT_EQ(parse({"h", "--plan", "p.json", "--out", "dir"}, &a), std::nullopt);
  EXPECT_EQ(a.plan_path, "p.json");
  EXPECT_EQ(a.out_dir, "dir");
  EXPECT_FALSE(a.describe_only);
  ProcessArgs d;
  EXPECT_EQ(parse({"h", "--describe"}, &d), std::nullopt);
  EXPECT_TRUE(d.describe_only);
  ProcessArgs x;
  EXPECT_EQ(parse({"h", "--help"}, &x), kExitOk);
  EXPECT_EQ(parse({"h", "--bogus"}, &x), kExitUsage);
  EXPECT_EQ(parse({"h", "--plan"}, &x), kExitUsage);  // a flag without its value
}

TEST(ProcessMain, AFailedPhaseIsRecordedByItsKind) {
  HarnessReport r;
  EXPECT_EQ(run_phases(r, [] {}), kExitOk);
  EXPECT_EQ(r.error.kind, HarnessErrorKind::none);
  EXPECT_EQ(run_phases(r, [] { throw CudaFailure("kernel launch: bad", true); }), kExitRunFailed);
  EXPECT_EQ(r.error.kind, HarnessErrorKind::launch_error);
  EXPECT_EQ(run_phases(r, [] { throw CudaFailure("sync: illegal address", false); }), kExitRunFailed);
  EXPECT_EQ(r.error.kind, HarnessErrorKind::cuda_error);
  HarnessReport named;
  EXPECT_EQ(run_phases(named, [&] {
              named.error.kind = HarnessErrorKind::lock_timeout;  // a phase that names its failure keeps the name
              throw std::runtime_error("the GPU's lock was held for 60 s");
            }),
            kExitRunFailed);
  EXPECT_EQ(named.error.kind, HarnessErrorKind::lock_timeout);
  EXPECT_EQ(named.error.message, "the GPU's lock was held for 60 s");
  HarnessReport plain;
  run_phases(plain, [] { throw std::runtime_error("no buffer 'y'"); });
  EXPECT_EQ(plain.error.kind, HarnessErrorKind::harness_error);
  EXPECT_EQ(run_phases(plain, [] {}), kExitOk);
  EXPECT_EQ(plain.error.kind, HarnessErrorKind::none);  // a later success clears it
}

}  // namespace
}  // namespace kernelblaster
