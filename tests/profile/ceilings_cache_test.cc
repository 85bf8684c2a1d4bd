#include "profile/ceilings_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/file_util.h"
#include "runtime/driver_version.h"
#include "profile/gpu_facts.h"
#include "profile/gpu_helper.h"

namespace fs = std::filesystem;

namespace kernelblaster::profile {
namespace {

class CeilingsCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "kb-ceilings-XXXXXX").string();
    ASSERT_TRUE(::mkdtemp(tmpl.data()));
    m_dir = tmpl;
  }
  void TearDown() override { fs::remove_all(m_dir); }
  std::string m_dir;
};

GpuFingerprint h200() { return {"NVIDIA H200", 9, 0, 132, 580}; }

CachedCeilings entry() {
  CachedCeilings c;
  c.gpu = h200();
  c.ceilings = {4100.5, 61000, 122000, 480000};
  c.measured_at = "2026-11-21T10:00:00Z";
  c.copy_memcpy_gbs = 4000;
  c.copy_kernel_gbs = 4100.5;
  return c;
}

TEST_F(CeilingsCacheTest, KeyIsFileSafeAndCoversEveryField) {
  EXPECT_EQ(h200().key(), "nvidia-h200-sm90-132sm-drv580");
  GpuFingerprint other = h200();
  other.driver_major = 590;
  EXPECT_NE(other.key(), h200().key());
  other = h200();
  other.sm_count = 114;
  EXPECT_NE(other.key(), h200().key());
  GpuFingerprint odd{"../A/B C", 8, 6, 1, 0};
  EXPECT_EQ(odd.key().find('/'), std::string::npos);
}

TEST_F(CeilingsCacheTest, StoreThenLoadRoundTrips) {
  CeilingsCache cache(m_dir);
  EXPECT_FALSE(cache.load(h200()).has_value());
  cache.store(entry());
  auto back = cache.load(h200());
  ASSERT_TRUE(back.has_value());
  EXPECT_DOUBLE_EQ(back->ceilings.dram_gbs, 4100.5);
  EXPECT_DOUBLE_EQ(back->ceilings.tensor_gflops, 480000);
  EXPECT_EQ(back->measured_at, "2026-11-21T10:00:00Z");
  // Another GPU has no entry.
  GpuFingerprint h100{"NVIDIA H100 80GB HBM3", 9, 0, 132, 580};
  EXPECT_FALSE(cache.load(h100).has_value());
  // Atomic write: nothing but the entry is left in the directory.
  int files = 0;
  for (const auto& e : fs::directory_iterator(m_dir + "/ceilings")) {
    ++files;
    EXPECT_EQ(e.path().extension(), ".json") << e.path();
  }
  EXPECT_EQ(files, 1);
}

TEST_F(CeilingsCacheTest, MalformedOrForeignEntryIsRefusedNotTrusted) {
  CeilingsCache cache(m_dir);
  fs::create_directories(m_dir + "/ceilings");
  write_file(cache.path_for(h200()), "{\"gpu\": {\"name\": \"NVIDIA H200\"");
  EXPECT_THROW(cache.load(h200()), std::runtime_error);
  CachedCeilings foreign = entry();
  foreign.gpu.name = "NVIDIA H100";
  write_file(cache.path_for(h200()), ceilings_to_json(foreign));
  EXPECT_THROW(cache.load(h200()), std::runtime_error);
  CachedCeilings negative = entry();
  negative.ceilings.dram_gbs = -1;
  write_file(cache.path_for(h200()), ceilings_to_json(negative));
  EXPECT_THROW(cache.load(h200()), std::runtime_error);
  // A store replaces the damaged entry.
  cache.store(entry());
  EXPECT_TRUE(cache.load(h200()).has_value());
}

TEST_F(CeilingsCacheTest, DefaultDirectoryFollowsTheEnvironment) {
  const char* saved = std::getenv("KERNELBLASTER_CACHE_DIR");
  std::string saved_value = saved ? saved : "";
  ::setenv("KERNELBLASTER_CACHE_DIR", "/some/where", 1);
  EXPECT_EQ(default_cache_dir(), "/some/where");
  ::unsetenv("KERNELBLASTER_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(default_cache_dir(), "/xdg/kernelblaster");
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_NE(default_cache_dir().find("/.cache/kernelblaster"), std::string::npos);
  if (saved) ::setenv("KERNELBLASTER_CACHE_DIR", saved_value.c_str(), 1);
}

TEST(DriverVersion, ParsesTheProcFile) {
  EXPECT_EQ(runtime::driver_version_from_text("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 07:09:29 "
                                     "UTC 2025\nGCC version: gcc 12\n"),
            "580.65.06");
  EXPECT_EQ(runtime::version_major("580.65.06"), 580);
  EXPECT_EQ(runtime::driver_version_from_text(""), "");
  EXPECT_EQ(runtime::version_major(""), 0);
}

TEST(GpuFacts, HelperJsonToCeilingsTakesTheBetterCopy) {
  GpuFacts f = gpu_facts_from_json(R"({"name": "NVIDIA H200", "cc_major": 9, "cc_minor": 0, "sm_count": 132,
      "driver_major": 580, "counters": {"supported": false, "reason": "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"},
      "copy_memcpy_gbs": 3900, "copy_kernel_gbs": 4050, "fp32_gflops": 60000, "fp16_gflops": 110000,
      "tensor_gflops": 450000})");
  EXPECT_FALSE(f.counters_supported);
  EXPECT_EQ(f.counters_reason, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  CachedCeilings c = ceilings_from_facts(f, "2026-11-21T00:00:00Z");
  EXPECT_DOUBLE_EQ(c.ceilings.dram_gbs, 4050);
  EXPECT_EQ(c.gpu.key(), "nvidia-h200-sm90-132sm-drv580");
  EXPECT_THROW(gpu_facts_from_json("{\"name\": 3}"), std::runtime_error);
}

// A stand-in for kernelblaster-gpu: writes an H200's facts to --out (with
// ceilings in `ceilings` mode) and counts its `ceilings` runs in a file.
std::string stand_in_helper(const std::string& dir, int exit_code = 0) {
  const std::string path = dir + "/kernelblaster-gpu";
  std::ofstream(path) << "#!/bin/sh\n"
                      << "[ " << exit_code << " -ne 0 ] && exit " << exit_code << "\n"
                      << "mode=$1; out=$5\n"
                      << "extra=''\n"
                      << "if [ \"$mode\" = ceilings ]; then echo x >> " << dir << "/measured;"
                      << " extra=', \"copy_memcpy_gbs\": 3900, \"copy_kernel_gbs\": 4050, \"fp32_gflops\": 60000,"
                      << " \"fp16_gflops\": 110000, \"tensor_gflops\": 450000'; fi\n"
                      << "printf '{\"name\": \"NVIDIA H200\", \"cc_major\": 9, \"cc_minor\": 0, \"sm_count\": 132,"
                      << " \"driver_major\": 580%s}' \"$extra\" > \"$out\"\n";
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

int lines_in(const std::string& path) {
  std::ifstream in(path);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// Issue 40: the first run on a machine measures the ceilings, every later
// one reads them; a damaged entry is measured again, never trusted.
TEST_F(CeilingsCacheTest, TheFirstLookupMeasuresAndLaterOnesReuse) {
  const std::string helper = stand_in_helper(m_dir);
  const std::string cache = m_dir + "/cache";
  CeilingsLookup first = ceilings_for(helper, 0, cache, false);
  ASSERT_TRUE(first.entry.has_value()) << first.why_not;
  EXPECT_FALSE(first.cached);
  EXPECT_DOUBLE_EQ(first.entry->ceilings.dram_gbs, 4050);
  EXPECT_TRUE(fs::exists(first.path)) << first.path;
  CeilingsLookup second = ceilings_for(helper, 0, cache, false);
  ASSERT_TRUE(second.entry.has_value());
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(lines_in(m_dir + "/measured"), 1);
  // What a run says: the one-time cost, then nothing.
  EXPECT_EQ(ceilings_line(first).rfind("measured this GPU's roofline ceilings once, in ", 0), 0u) << ceilings_line(first);
  EXPECT_EQ(ceilings_line(second), "");
  std::ofstream(first.path) << "{ not json";
  CeilingsLookup again = ceilings_for(helper, 0, cache, false);
  ASSERT_TRUE(again.entry.has_value());
  EXPECT_FALSE(again.cached);
  ASSERT_EQ(again.notes.size(), 1u);
  EXPECT_NE(again.notes[0].find("ignoring the cached ceilings"), std::string::npos) << again.notes[0];
  EXPECT_EQ(lines_in(m_dir + "/measured"), 2);
  EXPECT_TRUE(ceilings_for(helper, 0, cache, true).entry.has_value());  // --refresh
  EXPECT_EQ(lines_in(m_dir + "/measured"), 3);
}

TEST_F(CeilingsCacheTest, NoGpuOrNoHelperIsAReasonNotAnEntry) {
  CeilingsLookup none = ceilings_for(stand_in_helper(m_dir, 77), 0, m_dir + "/cache", false);
  EXPECT_FALSE(none.entry.has_value());
  EXPECT_EQ(none.exit_code, 77);
  EXPECT_EQ(none.why_not, "no CUDA GPU on this machine");
  EXPECT_EQ(ceilings_line(none),
            "no roofline ceilings for this GPU (no CUDA GPU on this machine): plausibility against them not assessed");
  CeilingsLookup missing = ceilings_for(m_dir + "/absent", 0, m_dir + "/cache", false);
  EXPECT_FALSE(missing.entry.has_value());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.why_not.find("GPU helper not found"), std::string::npos) << missing.why_not;
}

}  // namespace
}  // namespace kernelblaster::profile
