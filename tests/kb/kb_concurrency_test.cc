// Concurrent writers and writers killed mid-write: update_kb must lose no
// update and never leave a KB that cannot be loaded.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <random>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "common/file_util.h"
#include "kb/kb_store.h"
#include "kb/write_hook.h"
#include "test_util.h"

namespace kernelblaster::kb {
namespace {

using testing::outcome;
using testing::ScratchDir;

constexpr int kProcesses = 4;
constexpr int kUpdatesEach = 50;
constexpr int kKillRounds = 25;

double speedup_of(int process, int i) { return 1.0 + 0.01 * process + 0.001 * i; }

// Runs `body` in a child process; the child's exit status is 0 only if
// `body` returned without throwing.
pid_t spawn(const std::function<void()>& body) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int code = 0;
    try {
      body();
    } catch (...) {
      code = 1;
    }
    ::_exit(code);
  }
  return pid;
}

TEST(KbConcurrency, ConcurrentProcessesLoseNoUpdate) {
  ScratchDir dir;
  std::string path = dir.file("kb.json");
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p)
    children.push_back(spawn([&, p] {
      for (int i = 0; i < kUpdatesEach; ++i)
        update_kb(path, [&](KnowledgeBase& kb) {
          record(kb, outcome("shared", "t", speedup_of(p, i)));  // the same entry from everyone
          record(kb, outcome("own", "p" + std::to_string(p) + "_" + std::to_string(i), 1.5));
        });
    }));
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed";
  }
  KnowledgeBase kb = load_kb(path);
  ASSERT_EQ(kb.stats.size(), static_cast<std::size_t>(1 + kProcesses * kUpdatesEach));
  const Stats& shared = kb.stats.at(StatsKey{"shared", "t", "sm_90", ""});
  EXPECT_EQ(shared.tries, kProcesses * kUpdatesEach);
  EXPECT_EQ(shared.measured, kProcesses * kUpdatesEach);
  // The combined moments equal those of all the speedups taken together.
  KnowledgeBase expected;
  for (int p = 0; p < kProcesses; ++p)
    for (int i = 0; i < kUpdatesEach; ++i) record(expected, outcome("shared", "t", speedup_of(p, i)));
  const Stats& e = expected.stats.begin()->second;
  EXPECT_NEAR(shared.mean, e.mean, 1e-12);
  EXPECT_NEAR(shared.m2, e.m2, 1e-12);
  for (int p = 0; p < kProcesses; ++p)
    for (int i = 0; i < kUpdatesEach; ++i)
      EXPECT_EQ(kb.stats.at(StatsKey{"own", "p" + std::to_string(p) + "_" + std::to_string(i), "sm_90", ""}).tries, 1);
}

TEST(KbConcurrency, ThreadsOfOneProcessAlsoExcludeEachOther) {
  ScratchDir dir;
  std::string path = dir.file("kb.json");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) record_outcomes(path, {outcome("s", "t", 1.25)});
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(load_kb(path).stats.begin()->second.tries, 80);
}

TEST(KbConcurrency, KillDuringAWriteLeavesTheKbLoadable) {
  ScratchDir dir;
  std::string path = dir.file("kb.json");
  record_outcomes(path, {outcome("count", "t", 1.5)});
  std::mt19937 rng(12345);
  int killed_mid_write = 0;
  std::int64_t last_tries = 1;
  for (int round = 0; round < kKillRounds; ++round) {
    pid_t pid = spawn([&] {
      // Each update rewrites a KB of about a megabyte, slowly (a pause after
      // each 64 KiB chunk), so most kills land in the middle of a write.
      detail::write_chunk_hook = [] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); };
      for (;;)
        update_kb(path, [](KnowledgeBase& kb) {
          record(kb, outcome("count", "t", 1.5));
          for (int i = 0; i < 2000; ++i) {
            Outcome o = outcome("bulk", "t" + std::to_string(i), 1.1);
            o.note = std::string(100, 'n');
            record(kb, o);
          }
        });
    });
    auto temp_present = [&] {
      for (const auto& e : std::filesystem::directory_iterator(dir.path()))
        if (e.path().filename().string().find(".tmp.") != std::string::npos) return true;
      return false;
    };
    // Every other round waits until a write is under way (on a loaded
    // machine the writer may take long to start), so kills surely land in
    // the middle of writes; the others kill at a random moment.
    if (round % 2 == 0) {
      auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (!temp_present() && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(2, 80)(rng)));
    }
    const bool mid_write = temp_present();
    ::kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped by itself";
    killed_mid_write += mid_write;
    // The previous or the newest complete KB: loadable, and never going back.
    KnowledgeBase kb = load_kb(path);
    std::int64_t tries = kb.stats.at(StatsKey{"count", "t", "sm_90", ""}).tries;
    EXPECT_GE(tries, last_tries);
    last_tries = tries;
  }
  // The lock died with the writer: the next update goes through and clears
  // the dead writer's temporary file.
  record_outcomes(path, {outcome("count", "t", 1.5)});
  EXPECT_EQ(load_kb(path).stats.at(StatsKey{"count", "t", "sm_90", ""}).tries, last_tries + 1);
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  // Evidence that the kills did land mid-write (expected: about half).
  EXPECT_GE(killed_mid_write, 3);
  RecordProperty("kills_while_a_temp_file_existed", killed_mid_write);
  std::printf("kills while a temporary file existed: %d of %d\n", killed_mid_write, kKillRounds);
}

}  // namespace
}  // namespace kernelblaster::kb
