// KB files: loading, layering, paths, and update_kb's refusals and caps.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "common/file_util.h"
#include "kb/kb_store.h"
#include "test_util.h"

namespace kernelblaster::kb {
namespace {

using testing::outcome;
using testing::ScratchDir;
namespace fs = std::filesystem;

// Sets an environment variable for one scope.
class EnvVar {
 public:
  EnvVar(const char* name, const char* value) : m_name(name) {
    if (const char* old = std::getenv(name)) m_old = old, m_had = true;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~EnvVar() {
    if (m_had)
      ::setenv(m_name.c_str(), m_old.c_str(), 1);
    else
      ::unsetenv(m_name.c_str());
  }

 private:
  std::string m_name, m_old;
  bool m_had = false;
};

std::vector<std::string> temp_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) out.push_back(e.path().string());
  return out;
}

TEST(KbStore, UpdateCreatesTheFileAndItsDirectory) {
  ScratchDir dir;
  std::string path = dir.file("nested/deeper/kb.json");
  record_outcomes(path, {outcome("s", "t", 1.5), outcome("s", "t", 2.5)});
  KnowledgeBase kb = load_kb(path);
  ASSERT_EQ(kb.stats.size(), 1u);
  EXPECT_EQ(kb.stats.begin()->second.tries, 2);
  EXPECT_EQ(kb.stats.begin()->second.mean, 2.0);
  EXPECT_TRUE(fs::exists(path + ".lock"));
  EXPECT_TRUE(temp_files(dir.file("nested/deeper")).empty());
}

TEST(KbStore, MalformedExistingFilesAreRefusedAndLeftByteIdentical) {
  ScratchDir dir;
  const std::vector<std::string> bad = {
      "{\"schema_version\": 1, \"stats\": [",                             // torn
      "{\"schema_version\": 99}",                                         // from the future
      "{\"schema_version\": 1, \"states\": [{\"id\": 5}]}",               // wrong type
      "",                                                                 // empty
  };
  for (const std::string& text : bad) {
    std::string path = dir.file("kb.json");
    write_file(path, text);
    auto before = fs::last_write_time(path);
    bool changed = false;
    EXPECT_THROW(update_kb(path, [&](KnowledgeBase& kb) { changed = true, record(kb, outcome("s", "t", 2)); }), KbError)
        << text;
    EXPECT_FALSE(changed);
    EXPECT_EQ(read_file(path), text);
    EXPECT_EQ(fs::last_write_time(path), before);
    EXPECT_TRUE(temp_files(dir.path()).empty());
  }
}

TEST(KbStore, AChangeThatThrowsWritesNothing) {
  ScratchDir dir;
  std::string path = dir.file("kb.json");
  record_outcomes(path, {outcome("s", "t", 1.5)});
  std::string before = read_file(path);
  EXPECT_THROW(update_kb(path, [](KnowledgeBase& kb) {
                 record(kb, outcome("s", "t", 3));
                 throw std::runtime_error("policy broke");
               }),
               std::runtime_error);
  EXPECT_EQ(read_file(path), before);
}

TEST(KbStore, UpdateMigratesAVersionZeroFile) {
  ScratchDir dir;
  std::string path = dir.file("kb.json");
  write_file(path, R"({"stats": {"s": {"t": {"sm_90": {"tries": 2, "successes": 2, "mean": 1.5, "variance": 0.5}}}}})");
  record_outcomes(path, {outcome("s", "t", 1.5)});
  KnowledgeBase kb = load_kb(path);
  EXPECT_EQ(kb.stats.at(StatsKey{"s", "t", "sm_90", ""}).tries, 3);
  EXPECT_NE(read_file(path).find("\"schema_version\": 1"), std::string::npos);
}

TEST(KbStore, UpdateCompactsToTheCaps) {
  ScratchDir dir;
  std::string path = dir.file("kb.json");
  KbCaps caps;
  caps.max_stats = 2;
  caps.max_notes = 2;
  update_kb(path, [](KnowledgeBase& kb) {
    for (int t = 1; t <= 4; ++t)
      for (int i = 0; i < t; ++i) {
        Outcome o = outcome("s", "t" + std::to_string(t), 1.2);
        o.note = "try " + std::to_string(i);
        record(kb, o);
      }
  }, caps);
  KnowledgeBase kb = load_kb(path);
  ASSERT_EQ(kb.stats.size(), 2u);
  EXPECT_TRUE(kb.stats.count(StatsKey{"s", "t4", "sm_90", ""}));
  EXPECT_TRUE(kb.stats.count(StatsKey{"s", "t3", "sm_90", ""}));
  EXPECT_EQ(kb.stats.at(StatsKey{"s", "t4", "sm_90", ""}).notes, (std::vector<std::string>{"try 2", "try 3"}));
}

TEST(KbStore, StaleTempFilesOfDeadWritersAreRemoved) {
  ScratchDir dir;
  std::string path = dir.file("kb.json");
  write_file(path + ".tmp.99999.0", "{half a fi");
  record_outcomes(path, {outcome("s", "t", 1.5)});
  EXPECT_TRUE(temp_files(dir.path()).empty());
}

TEST(KbStore, LoadingAMissingFileIsAnError) {
  ScratchDir dir;
  try {
    load_kb(dir.file("none.json"));
    FAIL();
  } catch (const KbError& e) {
    EXPECT_EQ(e.file(), dir.file("none.json"));
    EXPECT_EQ(e.reason(), "no such file");
  }
}

TEST(KbStore, LayeredLoadTakesDefinitionsFromBothAndStatisticsFromTheUser) {
  ScratchDir dir;
  KnowledgeBase seed;
  seed.states.push_back(State{"a", "seed A", "", {{"m", ">", 1}}, 1});
  seed.states.push_back(State{"b", "seed B", "", {}, 0});
  seed.techniques.push_back(Technique{"t", "seed T", "memory", "", "", {"a"}});
  record(seed, outcome("a", "t", 9));  // a seed has no statistics; ignored if it does
  save_kb(dir.file("seed.json"), seed);

  // No user KB yet: the seed alone.
  KnowledgeBase only_seed = load_layered(dir.file("seed.json"), dir.file("user.json"));
  EXPECT_EQ(only_seed.states.size(), 2u);
  EXPECT_TRUE(only_seed.stats.empty());

  KnowledgeBase user;
  user.states.push_back(State{"a", "user A", "", {{"m", ">", 2}}, 5});
  user.states.push_back(State{"c", "user C", "", {}, 0});
  user.techniques.push_back(Technique{"u", "user U", "compute", "", "", {"c"}});
  record(user, outcome("a", "t", 1.5));
  save_kb(dir.file("user.json"), user);
  KnowledgeBase kb = load_layered(dir.file("seed.json"), dir.file("user.json"));
  ASSERT_EQ(kb.states.size(), 3u);
  EXPECT_EQ(kb.find_state("a")->name, "user A");
  EXPECT_EQ(kb.find_state("a")->priority, 5);
  EXPECT_EQ(kb.states[0].id, "a");  // the user's version takes the seed's place
  EXPECT_NE(kb.find_state("c"), nullptr);
  EXPECT_NE(kb.find_technique("t"), nullptr);
  EXPECT_NE(kb.find_technique("u"), nullptr);
  ASSERT_EQ(kb.stats.size(), 1u);
  EXPECT_EQ(kb.stats.begin()->second.mean, 1.5);

  write_file(dir.file("user.json"), "{oops");
  EXPECT_THROW(load_layered(dir.file("seed.json"), dir.file("user.json")), KbError);
}

TEST(KbStore, UserKbPathFollowsTheEnvironment) {
  {
    EnvVar kb("KERNELBLASTER_KB", "/somewhere/my-kb.json");
    EXPECT_EQ(default_user_kb_path(), "/somewhere/my-kb.json");
  }
  EnvVar kb("KERNELBLASTER_KB", nullptr);
  {
    EnvVar xdg("XDG_CACHE_HOME", "/xdg/cache");
    EXPECT_EQ(default_user_kb_path(), "/xdg/cache/kernelblaster/kb.json");
  }
  {
    EnvVar xdg("XDG_CACHE_HOME", "relative/ignored");
    EnvVar home("HOME", "/home/someone");
    EXPECT_EQ(default_user_kb_path(), "/home/someone/.cache/kernelblaster/kb.json");
  }
}

TEST(KbStore, SeedPathPrefersTheInstalledLayout) {
  EnvVar forced("KERNELBLASTER_SEED_KB", nullptr);
  ScratchDir dir;
  fs::create_directories(dir.file("prefix/bin"));
  fs::create_directories(dir.file("prefix/share/kernelblaster/kb"));
  write_file(dir.file("prefix/bin/kernelblaster"), "");
  write_file(dir.file("prefix/share/kernelblaster/kb/seed.json"), "{}");
  EXPECT_EQ(seed_kb_path(dir.file("prefix/bin/kernelblaster")), dir.file("prefix/share/kernelblaster/kb/seed.json"));
  // Not installed: the source tree's copy.
  std::string from_build = seed_kb_path(dir.file("elsewhere/kernelblaster"));
  EXPECT_EQ(from_build, std::string(KERNELBLASTER_TEST_SOURCE_SEED));
  EnvVar set("KERNELBLASTER_SEED_KB", "/forced/seed.json");
  EXPECT_EQ(seed_kb_path(dir.file("prefix/bin/kernelblaster")), "/forced/seed.json");
}

TEST(KbStore, NeverWritesWhatItWouldRefuse) {
  ScratchDir dir;
  std::string path = dir.file("kb.json");
  record_outcomes(path, {outcome("s", "t", 1.5)});
  std::string before = read_file(path);
  try {
    record_outcomes(path, {outcome("", "t", 1.5)});  // no state id
    FAIL() << "wrote an entry with an empty state";
  } catch (const KbError& e) {
    EXPECT_EQ(e.key(), "/stats/0/state");
    EXPECT_NE(e.reason().find("refusing to write"), std::string::npos);
  }
  EXPECT_EQ(read_file(path), before);
}

}  // namespace
}  // namespace kernelblaster::kb
