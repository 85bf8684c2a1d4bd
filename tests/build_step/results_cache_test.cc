#include "build_step/results_cache.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "test_dir.h"

namespace kernelblaster::build_step {
namespace {

namespace fs = std::filesystem;

TunedResult result(const std::string& key, double speedup = 1.5) {
  TunedResult r;
  r.key = key;
  r.source = "k.cu";
  r.improved = true;
  r.defines = {{"BLOCK_SIZE", "128"}};
  r.speedup = speedup;
  r.gpu = testing::h200();
  return r;
}

TEST(ResultsCache, StoreThenFind) {
  testing::TestDir d;
  ResultsCache cache(d.path("c"), 1 << 20);
  EXPECT_FALSE(cache.find(testing::h200(), "k1"));
  cache.store(result("k1"));
  auto hit = cache.find(testing::h200(), "k1");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->defines, result("k1").defines);
  EXPECT_DOUBLE_EQ(hit->speedup, 1.5);
  EXPECT_FALSE(cache.find(testing::h200(), "k2"));
  GpuFingerprint other = testing::h200();
  other.sm_count = 114;  // another GPU of the same architecture
  EXPECT_FALSE(cache.find(other, "k1"));
}

TEST(ResultsCache, FindForSelectorWithoutTheGpu) {
  testing::TestDir d;
  ResultsCache cache(d.path("c"), 1 << 20);
  cache.store(result("k1"));
  EXPECT_TRUE(cache.find_for("NVIDIA H200", "k1"));
  EXPECT_TRUE(cache.find_for("sm_90", "k1"));
  EXPECT_FALSE(cache.find_for("sm_80", "k1"));
  EXPECT_FALSE(cache.find_for("NVIDIA H200", "k2"));
}

TEST(ResultsCache, MalformedEntryIsAMiss) {
  testing::TestDir d;
  ResultsCache cache(d.path("c"), 1 << 20);
  cache.store(result("k1"));
  d.write("c/" + testing::h200().id() + "/k1.json", "{ torn");
  EXPECT_FALSE(cache.find(testing::h200(), "k1"));
  EXPECT_FALSE(cache.find_for("NVIDIA H200", "k1"));
  // A miss, and what made it one is kept for the line.
  std::string why;
  EXPECT_FALSE(cache.find(testing::h200(), "k1", &why));
  EXPECT_NE(why.find("k1.json: "), std::string::npos) << why;
  EXPECT_EQ(why.find("json.exception"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(cache.find_for("NVIDIA H200", "k1", &why));
  EXPECT_NE(why.find("k1.json"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(cache.find(testing::h200(), "absent", &why));
  EXPECT_EQ(why, "");  // no entry: a plain miss
}

// A GPU's directory whose gpu.json is torn cannot say which GPU it is: its
// entry is never taken, and named when it is the one asked for.
TEST(ResultsCache, AnEntryUnderAnUnreadableGpuIsNamed) {
  testing::TestDir d;
  ResultsCache cache(d.path("c"), 1 << 20);
  cache.store(result("k1"));
  d.write("c/" + testing::h200().id() + "/gpu.json", "{ torn");
  std::string why;
  EXPECT_FALSE(cache.find_for("NVIDIA H200", "k1", &why));
  EXPECT_NE(why.find("gpu.json: "), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(cache.find_for("NVIDIA H200", "other", &why));
  EXPECT_EQ(why, "");  // that directory has no entry for this key: a plain miss
}

TEST(ResultsCache, EvictsLeastRecentlyUsedBeyondTheCap) {
  testing::TestDir d;
  ResultsCache probe(d.path("c"), 1 << 20);
  probe.store(result("size"));
  std::uintmax_t entry_bytes = fs::file_size(probe.entry_path(testing::h200(), "size"));
  fs::remove(probe.entry_path(testing::h200(), "size"));

  ResultsCache cache(d.path("c"), entry_bytes * 3 + entry_bytes / 2);  // room for three
  auto age = [&](const std::string& key, int seconds_ago) {
    fs::last_write_time(cache.entry_path(testing::h200(), key),
                        fs::file_time_type::clock::now() - std::chrono::seconds(seconds_ago));
  };
  cache.store(result("a"));
  age("a", 300);
  cache.store(result("b"));
  age("b", 200);
  cache.store(result("c"));
  age("c", 100);
  ASSERT_TRUE(cache.find(testing::h200(), "a"));  // a hit makes "a" the most recent
  cache.store(result("d"));                      // over the cap: "b" goes
  EXPECT_TRUE(fs::exists(cache.entry_path(testing::h200(), "a")));
  EXPECT_FALSE(fs::exists(cache.entry_path(testing::h200(), "b")));
  EXPECT_TRUE(fs::exists(cache.entry_path(testing::h200(), "c")));
  EXPECT_TRUE(fs::exists(cache.entry_path(testing::h200(), "d")));
}

// A search's state between builds counts in the cap as one entry, last
// used when its state was written, and goes whole.
TEST(ResultsCache, EvictsATuningDirectoryWhole) {
  testing::TestDir d;
  ResultsCache cache(d.path("c"), 4096);
  const fs::path tuning = cache.tuning_dir(testing::h200(), "old");
  fs::create_directories(tuning / "builds");
  std::ofstream(tuning / "search.json") << "{}";
  std::ofstream(tuning / "builds" / "program") << std::string(3000, 'x');
  fs::last_write_time(tuning / "search.json", fs::file_time_type::clock::now() - std::chrono::seconds(600));
  cache.store(result("a"));
  EXPECT_TRUE(fs::exists(tuning));  // within the cap
  std::ofstream(tuning / "builds" / "object") << std::string(3000, 'x');
  cache.store(result("b"));
  EXPECT_FALSE(fs::exists(tuning));  // over it: the least recently used goes, whole
  EXPECT_TRUE(fs::exists(cache.entry_path(testing::h200(), "a")));
  EXPECT_TRUE(fs::exists(cache.entry_path(testing::h200(), "b")));
}

TEST(ResultsCache, ConcurrentWritersLeaveWholeEntries) {
  testing::TestDir d;
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t)
    writers.emplace_back([&, t] {
      ResultsCache cache(d.path("c"), 1 << 20);
      for (int i = 0; i < 25; ++i) cache.store(result("same", 1.0 + t));
    });
  for (auto& w : writers) w.join();
  ResultsCache cache(d.path("c"), 1 << 20);
  auto hit = cache.find(testing::h200(), "same");
  ASSERT_TRUE(hit);  // a whole entry from one of the writers, never a torn one
  EXPECT_GE(hit->speedup, 1.0);
  EXPECT_LE(hit->speedup, 4.0);
  for (const auto& e : fs::recursive_directory_iterator(d.path("c")))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(ResultsCache, DefaultDirFollowsTheEnvironment) {
  ::setenv("KERNELBLASTER_CACHE_DIR", "/somewhere/kb", 1);
  EXPECT_EQ(ResultsCache::default_dir(), "/somewhere/kb");
  ::unsetenv("KERNELBLASTER_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(ResultsCache::default_dir(), "/xdg/kernelblaster/results");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("KERNELBLASTER_CACHE_MAX_MB", "3", 1);
  EXPECT_EQ(ResultsCache::default_max_bytes(), 3u << 20);
  ::unsetenv("KERNELBLASTER_CACHE_MAX_MB");
}

}  // namespace
}  // namespace kernelblaster::build_step
