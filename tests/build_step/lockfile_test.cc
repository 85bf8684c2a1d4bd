#include "build_step/lockfile.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "test_dir.h"

namespace kernelblaster::build_step {
namespace {

TunedResult entry(const std::string& source, const GpuFingerprint& gpu, const std::string& key) {
  TunedResult r;
  r.key = key;
  r.source = source;
  r.improved = true;
  r.defines = {{"BLOCK_SIZE", "64"}};
  r.flags = {"-use_fast_math"};
  r.speedup = 1.2;
  r.gpu = gpu;
  r.measured_at = "2026-11-21T00:00:00Z";
  return r;
}

TEST(Lockfile, MissingFileIsEmpty) {
  testing::TestDir d;
  EXPECT_TRUE(read_lockfile(d.path("none.json")).sources.empty());
}

TEST(Lockfile, WriteReadRoundTrip) {
  testing::TestDir d;
  std::string path = d.path("kernelblaster.lock.json");
  update_lockfile(path, entry("src/a.cu", testing::h200(), "k1"));
  GpuFingerprint a100{"NVIDIA A100-SXM4-80GB", 8, 0, 108, 13};
  update_lockfile(path, entry("src/a.cu", a100, "k2"));
  update_lockfile(path, entry("src/b.cu", testing::h200(), "k3"));
  Lockfile lock = read_lockfile(path);
  ASSERT_EQ(lock.sources.size(), 2u);
  ASSERT_EQ(lock.sources["src/a.cu"].size(), 2u);
  const TunedResult& r = lock.sources["src/a.cu"][testing::h200().id()];
  EXPECT_EQ(r.key, "k1");
  EXPECT_EQ(r.flags, std::vector<std::string>{"-use_fast_math"});
  EXPECT_EQ(r.gpu.name, "NVIDIA H200");
  EXPECT_EQ(r.gpu.sm_count, 132);
  // What the build line needs to name only what changed comes back too.
  TunedResult moved = entry("src/c.cu", testing::h200(), "k4");
  moved.config = {{"BLOCK_SIZE", "64"}, {"TILE", "32"}};
  moved.original = {{"BLOCK_SIZE", "256"}, {"TILE", "32"}};
  moved.kernels = {{"scale", 1.31}};
  update_lockfile(path, moved);
  const TunedResult back = read_lockfile(path).sources["src/c.cu"][testing::h200().id()];
  EXPECT_EQ(back.original, moved.original);
  EXPECT_EQ(back.kernels, moved.kernels);
  lock = read_lockfile(path);
  // Stable output: writing what was read gives the same bytes.
  EXPECT_EQ(serialize_lockfile(read_lockfile(path)), serialize_lockfile(lock));
}

TEST(Lockfile, SelectByNameIdOrArchitecture) {
  Lockfile lock;
  GpuFingerprint h100{"NVIDIA H100 80GB HBM3", 9, 0, 132, 13};
  lock.sources["a.cu"][h100.id()] = entry("a.cu", h100, "k100");
  lock.sources["a.cu"][testing::h200().id()] = entry("a.cu", testing::h200(), "k200");
  EXPECT_EQ(select_entry(lock, "a.cu", "NVIDIA H200")->key, "k200");
  EXPECT_EQ(select_entry(lock, "a.cu", testing::h200().id())->key, "k200");
  EXPECT_EQ(select_entry(lock, "a.cu", "nvidia h100 80gb hbm3")->key, "k100");
  EXPECT_TRUE(select_entry(lock, "a.cu", "sm_90"));  // either sm_90 entry
  EXPECT_FALSE(select_entry(lock, "a.cu", "sm_100"));
  EXPECT_FALSE(select_entry(lock, "b.cu", "NVIDIA H200"));
}

TEST(Lockfile, MalformedFileIsRefusedAndKept) {
  testing::TestDir d;
  std::string path = d.write("kernelblaster.lock.json", "{\"sources\": [1, 2]}");
  EXPECT_THROW(read_lockfile(path), std::runtime_error);
  EXPECT_THROW(update_lockfile(path, entry("a.cu", testing::h200(), "k")), std::runtime_error);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "{\"sources\": [1, 2]}");
  // Text that is not JSON: one line a person reads, without the parser's tag (issue 42).
  const std::string broken = d.write("broken.lock.json", "{ \"sources\": ");
  try {
    read_lockfile(broken);
    ADD_FAILURE() << "a broken lockfile was read";
  } catch (const std::runtime_error& x) {
    const std::string what = x.what();
    EXPECT_NE(what.find("is not valid JSON: "), std::string::npos) << what;
    EXPECT_EQ(what.find("[json.exception"), std::string::npos) << what;
  }
}

TEST(Lockfile, ConcurrentUpdatesLoseNothing) {
  testing::TestDir d;
  std::string path = d.path("kernelblaster.lock.json");
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t)
    writers.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i)
        update_lockfile(path, entry("src/k" + std::to_string(t * 5 + i) + ".cu", testing::h200(), "k"));
    });
  for (auto& w : writers) w.join();
  EXPECT_EQ(read_lockfile(path).sources.size(), 20u);
}

TEST(Lockfile, SourceNamesAreRelativeToTheLockfile) {
  EXPECT_EQ(lockfile_source_name("/p/kernelblaster.lock.json", "/p/src/a.cu"), "src/a.cu");
  EXPECT_EQ(lockfile_source_name("/p/kernelblaster.lock.json", "/q/a.cu"), "/q/a.cu");
}

// Issue 41: two runners' lockfiles as one. Disjoint entries are a union;
// where both measured the same source on the same GPU, one rule decides,
// the same whichever file comes first, and the loser is named.
Lockfile with(std::initializer_list<TunedResult> results) {
  Lockfile l;
  for (const TunedResult& r : results) l.sources[r.source][r.gpu.id()] = r;
  return l;
}

TEST(LockfileMerge, DisjointEntriesAreAUnionAndTheOrderDoesNotMatter) {
  GpuFingerprint h100{"NVIDIA H100 80GB HBM3", 9, 0, 132, 13};
  const Lockfile a = with({entry("src/a.cu", testing::h200(), "k1")});
  const Lockfile b = with({entry("src/a.cu", h100, "k1"), entry("src/b.cu", h100, "k2")});
  std::vector<std::string> decisions;
  const Lockfile ab = merge_lockfiles(a, b, &decisions);
  EXPECT_TRUE(decisions.empty());
  EXPECT_EQ(ab.sources.at("src/a.cu").size(), 2u);
  EXPECT_EQ(ab.sources.at("src/b.cu").size(), 1u);
  EXPECT_EQ(serialize_lockfile(ab), serialize_lockfile(merge_lockfiles(b, a, nullptr)));
}

TEST(LockfileMerge, OneRuleDecidesAConflictAndNamesTheLoser) {
  auto rule_of = [](const TunedResult& x, const TunedResult& y) {
    std::string why, why_swapped;
    const TunedResult& w = stands(x, y, &why);
    const TunedResult& w_swapped = stands(y, x, &why_swapped);
    EXPECT_EQ(&w == &x, &w_swapped == &x) << why;  // the same entry stands either way
    EXPECT_EQ(why, why_swapped);
    return std::make_pair(&w == &x, why);
  };
  TunedResult plain = entry("src/a.cu", testing::h200(), "k1");
  TunedResult checked = plain;
  checked.reverified = true;
  checked.speedup = 1.1;  // slower, but held on a second look
  EXPECT_EQ(rule_of(checked, plain), std::make_pair(true, std::string("re-verified")));
  TunedResult searched = plain;
  searched.evaluations = 90;
  searched.speedup = 1.05;
  plain.evaluations = 30;
  EXPECT_EQ(rule_of(searched, plain), std::make_pair(true, std::string("from more evaluations")));
  TunedResult faster = plain;
  faster.speedup = 1.3;
  EXPECT_EQ(rule_of(faster, plain), std::make_pair(true, std::string("faster")));
  // Another content key: the later measurement, whatever its speed.
  TunedResult newer = plain;
  newer.key = "k2";
  newer.speedup = 1.01;
  newer.measured_at = "2026-11-28T09:00:00Z";
  EXPECT_EQ(rule_of(newer, faster), std::make_pair(true, std::string("measured later, for another content key")));

  std::vector<std::string> decisions;
  const Lockfile merged = merge_lockfiles(with({plain}), with({faster}), &decisions);
  EXPECT_DOUBLE_EQ(merged.sources.at("src/a.cu").at(testing::h200().id()).speedup, 1.3);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_NE(decisions[0].find("src/a.cu on " + testing::h200().id()), std::string::npos) << decisions[0];
  EXPECT_NE(decisions[0].find("over the one measured"), std::string::npos) << decisions[0];
  EXPECT_NE(decisions[0].find(": faster"), std::string::npos) << decisions[0];
}

TEST(LockfileMerge, TheMergeFieldsSurviveTheFileAndFragmentsLiveBesideIt) {
  testing::TestDir d;
  TunedResult r = entry("src/a.cu", testing::h200(), "k1");
  r.reverified = true;
  r.evaluations = 42;
  update_lockfile(d.path("kernelblaster.lock.json"), r);
  const TunedResult back = read_lockfile(d.path("kernelblaster.lock.json")).sources["src/a.cu"][testing::h200().id()];
  EXPECT_TRUE(back.reverified);
  EXPECT_EQ(back.evaluations, 42);
  EXPECT_EQ(lockfile_fragment_path("/p/kernelblaster.lock.json", "nvidia-h200"), "/p/kernelblaster.lock.d/nvidia-h200.json");
  // A fingerprint id names one GPU; a name or an architecture does not.
  EXPECT_TRUE(GpuFingerprint::is_id(testing::h200().id()));
  EXPECT_FALSE(GpuFingerprint::is_id("NVIDIA H200"));
  EXPECT_FALSE(GpuFingerprint::is_id("sm_90"));
}

}  // namespace
}  // namespace kernelblaster::build_step
