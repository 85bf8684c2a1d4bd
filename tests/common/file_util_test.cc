#include "common/file_util.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using kernelblaster::make_work_dir;

TEST(WorkDir, EachCallMakesAFreshDirectoryNamedByItsPrefix) {
  std::string a = make_work_dir("kernelblaster-test");
  std::string b = make_work_dir("kernelblaster-test");
  EXPECT_NE(a, b);
  EXPECT_TRUE(fs::is_directory(a));
  EXPECT_TRUE(fs::is_directory(b));
  EXPECT_EQ(fs::path(a).parent_path(), fs::temp_directory_path());
  EXPECT_EQ(fs::path(a).filename().string().rfind("kernelblaster-test-", 0), 0u);
  fs::remove_all(a);
  fs::remove_all(b);
}

TEST(WorkDir, AnUnwritableTempDirIsAnErrorNamingIt) {
  // A regular file as TMPDIR: no directory can be made below it.
  std::string file = make_work_dir("kernelblaster-test") + "/not-a-dir";
  std::FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_TRUE(f);
  std::fclose(f);
  const char* old = std::getenv("TMPDIR");
  std::string saved = old ? old : "";
  ::setenv("TMPDIR", file.c_str(), 1);
  std::string message;
  try {
    make_work_dir("kernelblaster-test");
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  if (old)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  EXPECT_NE(message.find(file), std::string::npos) << message;
  fs::remove_all(fs::path(file).parent_path());
}
