#include "common/subprocess.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <chrono>
#include <filesystem>
#include <thread>

#include "common/file_util.h"
#include "common/namespaces.h"
#include "judge/sandbox.h"
#include "judge/evaluator.h"

namespace kernelblaster {
namespace {

TEST(Subprocess, CapturesOutputAndExitCode) {
  ProcessResult r = run_process({"sh", "-c", "echo hello; echo oops >&2; exit 3"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.output.find("hello"), std::string::npos);
  EXPECT_NE(r.output.find("oops"), std::string::npos);
  EXPECT_EQ(r.how_it_ended(), "exit 3");
}

TEST(Subprocess, ACrashIsReportedNotFatal) {
  ProcessResult r = run_process({"sh", "-c", "kill -SEGV $$"});
  EXPECT_TRUE(r.signaled);
  EXPECT_EQ(r.how_it_ended(), "killed by SIGSEGV");
}

TEST(Subprocess, AHangIsKilledAtTheDeadline) {
  ProcessOptions opt;
  opt.timeout_s = 0.3;
  ProcessResult r = run_process({"sleep", "30"}, opt);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 2.0);
}

TEST(Subprocess, ACancelledChildAndItsGroupAreStoppedAtOnce) {
  // The child and a grandchild both sleep; the cancel turns true after 0.2 s.
  auto t0 = std::chrono::steady_clock::now();
  ProcessOptions opt;
  opt.timeout_s = 30;
  opt.cancel = [&] { return std::chrono::steady_clock::now() - t0 > std::chrono::milliseconds(200); };
  ProcessResult r = run_process({"sh", "-c", "sleep 30 & sleep 30"}, opt);
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(r.seconds, 2.0);
  EXPECT_EQ(r.how_it_ended(), "stopped: its result was no longer needed");
}

TEST(Subprocess, ACancelThatNeverFiresChangesNothing) {
  ProcessOptions opt;
  opt.cancel = [] { return false; };
  ProcessResult r = run_process({"sh", "-c", "sleep 0.1; echo done"}, opt);
  EXPECT_TRUE(r.ok());
  EXPECT_FALSE(r.cancelled);
  EXPECT_NE(r.output.find("done"), std::string::npos);
}

TEST(Subprocess, ADetachedGrandchildHoldingTheOutputDoesNotBlock) {
  // The child exits at once; its background child keeps stdout open.
  ProcessOptions opt;
  opt.timeout_s = 5;
  ProcessResult r = run_process({"sh", "-c", "sleep 20 & echo done"}, opt);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_LT(r.seconds, 3.0);
}

// A process alive? (Not a zombie: a stray the tool adopted and reaped is gone.)
bool alive(pid_t pid) {
  std::string stat;
  try {
    stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  } catch (const std::exception&) {
    return false;
  }
  std::size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

// A process that leaves the child's group (setsid) survives the group's
// kill; with `contain` it is handed to the tool when the child ends and
// killed there, before run_process returns.
// The command a child runs: start a process that leaves the group (setsid)
// and wait until it has (it writes its pid once out), so the group's kill
// at the child's end cannot reach it first; print that pid.
// With `double_fork`, the escapee is started from a subshell that ends at
// once, so it is no longer the child's descendant (the tool adopts it).
std::string escape_command(const std::string& marker, bool double_fork = false) {
  const std::string start = "setsid sh -c 'echo $$ > " + marker + ".tmp && mv " + marker + ".tmp " + marker +
                            " && exec sleep 30' </dev/null >/dev/null 2>&1 &";
  return "rm -f " + marker + "; " + (double_fork ? "( " + start + " ); " : start + " ") + "while [ ! -s " + marker +
         " ]; do sleep 0.01; done; cat " + marker;
}

TEST(ProcessLimits, ContainKillsWhatEscapedTheGroup) {
  const std::string escape = escape_command(::testing::TempDir() + "escaped_pid_" + std::to_string(::getpid()));
  for (bool contain : {false, true}) {
    ProcessOptions opt;
    opt.timeout_s = 10;
    opt.limits.contain = contain;
    ProcessResult r = run_process({"sh", "-c", escape}, opt);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    pid_t escaped = static_cast<pid_t>(std::stol(r.output));
    if (contain) {
      EXPECT_FALSE(alive(escaped)) << "pid " << escaped;
      EXPECT_GE(r.strays_killed, 1);
    } else {
      // The reason for the option: without it the escaped process lives on.
      EXPECT_TRUE(alive(escaped)) << "pid " << escaped;
      EXPECT_EQ(r.strays_killed, 0);
      ::kill(escaped, SIGKILL);
    }
  }
}

// Killing strays never touches the tool's own children, even one running
// in another thread while a contained child ends.
TEST(ProcessLimits, ContainSparesTheToolsOtherChildren) {
  ProcessResult slow;
  std::thread t([&] {
    ProcessOptions opt;
    opt.timeout_s = 10;
    slow = run_process({"sh", "-c", "sleep 1; echo slept"}, opt);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ProcessOptions opt;
  opt.timeout_s = 10;
  opt.limits.contain = true;
  ProcessResult quick =
      run_process({"sh", "-c", escape_command(::testing::TempDir() + "spared_pid_" + std::to_string(::getpid()))}, opt);
  t.join();
  EXPECT_EQ(quick.exit_code, 0) << quick.output;
  EXPECT_GE(quick.strays_killed, 1);
  EXPECT_TRUE(slow.ok()) << slow.how_it_ended();
  EXPECT_NE(slow.output.find("slept"), std::string::npos);
}

// Escaping the group does not buy time: a contained child's escapee is
// killed at the next watch, while the child still runs.
TEST(ProcessLimits, ContainKillsAnEscapeeWhileTheChildRuns) {
  for (bool double_fork : {false, true})
  for (bool contain : {false, true}) {
    SCOPED_TRACE(double_fork ? "double fork" : "setsid from the child");
    const std::string marker = ::testing::TempDir() + "early_pid_" + std::to_string(::getpid());
    // The child waits 1 s after its escapee left the group, then says
    // whether it lives (a zombie, killed and not yet reaped, does not).
    const std::string cmd = escape_command(marker, double_fork) + " >/dev/null; sleep 1; s=$(cut -d' ' -f3 /proc/$(cat " +
                            marker + ")/stat 2>/dev/null); [ -n \"$s\" ] && [ \"$s\" != Z ] && echo alive || echo dead";
    ProcessOptions opt;
    opt.timeout_s = 10;
    opt.limits.contain = contain;
    ProcessResult r = run_process({"sh", "-c", cmd}, opt);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output, contain ? "dead\n" : "alive\n");
    if (contain) EXPECT_GE(r.strays_killed, 1);
    else ::kill(static_cast<pid_t>(std::stol(read_file(marker))), SIGKILL);
  }
}

// What a child and its descendants hold together is watched: over the
// limit, all of them are killed, and the result says why.
TEST(ProcessLimits, ResidentMemoryOverTheLimitKillsTheTree) {
  ProcessOptions opt;
  opt.timeout_s = 20;
  opt.limits.resident_bytes = std::uint64_t{200} << 20;
  // 150 MiB in each of two processes: each alone is under the limit.
  const std::string hold = "python3 -c 'import time; b = b\"x\" * (150 << 20); time.sleep(15)'";
  ProcessResult r = run_process({"sh", "-c", hold + " & " + hold + "; wait"}, opt);
  EXPECT_TRUE(r.memory_exceeded) << r.how_it_ended();
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.timed_out);
  EXPECT_LT(r.seconds, 10);
  EXPECT_GT(r.peak_resident_bytes, std::uint64_t{200} << 20);
  EXPECT_EQ(r.resident_limit_bytes, std::uint64_t{200} << 20);
  EXPECT_NE(r.how_it_ended().find("resident, over its 200 MiB limit"), std::string::npos) << r.how_it_ended();
}

TEST(ProcessLimits, ResidentMemoryUnderTheLimitIsMeasuredNotStopped) {
  ProcessOptions opt;
  opt.timeout_s = 20;
  opt.limits.resident_bytes = std::uint64_t{400} << 20;
  ProcessResult r =
      run_process({"python3", "-c", "import time; b = b'x' * (100 << 20); time.sleep(0.5); print('done')"}, opt);
  EXPECT_TRUE(r.ok()) << r.how_it_ended();
  EXPECT_FALSE(r.memory_exceeded);
  EXPECT_GT(r.peak_resident_bytes, std::uint64_t{100} << 20);
  EXPECT_LT(r.peak_resident_bytes, std::uint64_t{400} << 20);
}

TEST(Subprocess, AnUnwatchedChildStillReportsItsOwnPeak) {
  ProcessResult r = run_process({"python3", "-c", "b = b'x' * (64 << 20)"});
  EXPECT_TRUE(r.ok()) << r.how_it_ended();
  EXPECT_GT(r.peak_resident_bytes, std::uint64_t{64} << 20);
}

TEST(Subprocess, MissingProgramIsASpawnFailure) {
  ProcessResult r = run_process({"/nonexistent/kernelblaster-test-binary"});
  EXPECT_TRUE(r.spawn_failed);
  EXPECT_FALSE(r.ok());
}

TEST(Subprocess, ExtraEnvironmentAndWorkingDirectory) {
  ProcessOptions opt;
  opt.extra_env["KERNELBLASTER_TEST_VALUE"] = "42";
  opt.cwd = "/tmp";
  ProcessResult r = run_process({"sh", "-c", "echo $KERNELBLASTER_TEST_VALUE; pwd"}, opt);
  EXPECT_NE(r.output.find("42"), std::string::npos);
  EXPECT_NE(r.output.find("/tmp"), std::string::npos);
}

TEST(Subprocess, OutputTailKeepsTheLastLines) {
  ProcessResult r;
  r.output = "a\n\nb\nc\nd\n";
  EXPECT_EQ(r.output_tail(2), "c | d");
}

}  // namespace
}  // namespace kernelblaster

// The limits a candidate's process runs under (ProcessLimits): each one
// stops the behaviour it names, and is off unless asked for.
TEST(ProcessLimits, CpuTimeEndsASpinningChild) {
  kernelblaster::ProcessOptions opt;
  opt.timeout_s = 30;
  opt.limits.cpu_s = 1;
  kernelblaster::ProcessResult r = kernelblaster::run_process({"sh", "-c", "while :; do :; done"}, opt);
  EXPECT_FALSE(r.timed_out);
  EXPECT_TRUE(r.signaled) << r.how_it_ended();
  EXPECT_EQ(r.how_it_ended(), "killed by SIGXCPU");
  EXPECT_LT(r.seconds, 10);
}

TEST(ProcessLimits, FileSizeStopsAGrowingFile) {
  std::string dir = kernelblaster::make_work_dir("kb-limits");
  kernelblaster::ProcessOptions opt;
  opt.cwd = dir;
  opt.limits.file_bytes = 1 << 20;
  kernelblaster::ProcessResult r =
      kernelblaster::run_process({"sh", "-c", "head -c 3000000 /dev/zero > big; echo done"}, opt);
  EXPECT_LE(std::filesystem::file_size(dir + "/big"), std::uintmax_t{1} << 20);
  kernelblaster::ProcessResult free_run = kernelblaster::run_process({"sh", "-c", "head -c 3000000 /dev/zero > big2"},
                                                                     [&] {
                                                                       kernelblaster::ProcessOptions o;
                                                                       o.cwd = dir;
                                                                       return o;
                                                                     }());
  EXPECT_TRUE(free_run.ok());
  EXPECT_EQ(std::filesystem::file_size(dir + "/big2"), 3000000u);
  std::filesystem::remove_all(dir);
}

TEST(ProcessLimits, NoCoreAndAddressSpace) {
  kernelblaster::ProcessOptions opt;
  opt.limits.no_core = true;
  opt.limits.memory_bytes = std::uint64_t{256} << 20;
  kernelblaster::ProcessResult r = kernelblaster::run_process({"sh", "-c", "ulimit -c; ulimit -v"}, opt);
  ASSERT_TRUE(r.ok()) << r.how_it_ended();
  EXPECT_EQ(r.output, "0\n262144\n");
  // 512 MiB cannot be had under a 256 MiB address space.
  kernelblaster::ProcessResult big =
      kernelblaster::run_process({"python3", "-c", "b = bytearray(512 << 20); print(len(b))"}, opt);
  EXPECT_FALSE(big.ok());
  EXPECT_NE(big.output.find("MemoryError"), std::string::npos) << big.output;
}

TEST(ProcessLimits, NoNetworkMeansNoLoopbackEither) {
  // A server of the parent's on loopback: reachable without the limit, not with it.
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(s, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(s, 4), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(s, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const std::string connect = "import socket; socket.create_connection(('127.0.0.1', " +
                              std::to_string(ntohs(addr.sin_port)) + "), timeout=5); print('connected')";
  kernelblaster::ProcessResult open = kernelblaster::run_process({"python3", "-c", connect});
  EXPECT_TRUE(open.ok()) << open.output;
  EXPECT_FALSE(open.network_isolated);
  kernelblaster::ProcessOptions opt;
  opt.limits.no_network = true;
  kernelblaster::ProcessResult closed = kernelblaster::run_process({"python3", "-c", connect}, opt);
  ::close(s);
  if (!kernelblaster::network_isolation_available()) {
    EXPECT_FALSE(closed.network_isolated);
    GTEST_SKIP() << "this machine gives a child no network namespace of its own";
  }
  EXPECT_TRUE(closed.network_isolated);
  EXPECT_FALSE(closed.ok()) << closed.output;
  EXPECT_EQ(closed.output.find("connected"), std::string::npos);
}

// A hidden directory is empty and read-only to the child, stays so even
// when the child tries to unmount what covers it, and everything else is
// as before: its own directory, its output, its exit code.
TEST(ProcessLimits, HiddenDirectoriesAreEmptyAndLockedInTheChildsView) {
  const std::filesystem::path root = std::filesystem::temp_directory_path() / ("kb_view_" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "reference");
  std::filesystem::create_directories(root / "candidate");
  kernelblaster::write_file((root / "reference" / "out.bin").string(), "the answer");
  const std::string script =
      "import ctypes, os, sys\n"
      "ref = sys.argv[1]\n"
      "libc = ctypes.CDLL(None, use_errno=True)\n"
      "print('unmount', libc.umount2(ref.encode(), 2))\n"
      "print('listed', os.listdir(ref))\n"
      "try:\n"
      "    open(os.path.join(ref, 'out.bin'), 'w').write('forged')\n"
      "    print('wrote')\n"
      "except OSError as e:\n"
      "    print('refused', e.errno)\n"
      "open('mine.txt', 'w').write('ok')\n";
  kernelblaster::ProcessOptions opt;
  opt.cwd = (root / "candidate").string();
  opt.limits.no_network = true;
  opt.limits.hidden_dirs = {(root / "reference").string(), (root / "missing").string()};
  kernelblaster::ProcessResult r = kernelblaster::run_process({"python3", "-c", script, (root / "reference").string()}, opt);
  if (!kernelblaster::view_isolation_available()) {
    EXPECT_FALSE(r.view_isolated);
    std::filesystem::remove_all(root);
    GTEST_SKIP() << "this machine gives a child no user namespace of its own";
  }
  EXPECT_TRUE(r.ok()) << r.output;
  EXPECT_TRUE(r.view_isolated);
  EXPECT_TRUE(r.network_isolated);
  EXPECT_NE(r.output.find("unmount -1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("listed []"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("refused"), std::string::npos) << r.output;
  EXPECT_EQ(kernelblaster::read_file((root / "reference" / "out.bin").string()), "the answer");
  EXPECT_EQ(kernelblaster::read_file((root / "candidate" / "mine.txt").string()), "ok");
  std::filesystem::remove_all(root);
}

// The original's run directory is hidden from a candidate's process unless
// its program lies inside it or the setting says off.
TEST(ProcessLimits, ACandidateDoesNotSeeTheOriginalsRunDirectory) {
  ::unsetenv("KERNELBLASTER_SANDBOX_VIEW");
  kernelblaster::ProcessLimits base;
  auto hidden = [&](const std::string& binary) {
    return kernelblaster::candidate_process_limits(base, "/w/reference", binary).hidden_dirs;
  };
  EXPECT_EQ(hidden("/w/candidate/harness"), std::vector<std::string>{"/w/reference"});
  EXPECT_TRUE(hidden("/w/reference/harness").empty());
  EXPECT_EQ(hidden("/w/reference-build/harness"), std::vector<std::string>{"/w/reference"});
  ::setenv("KERNELBLASTER_SANDBOX_VIEW", "off", 1);
  EXPECT_TRUE(hidden("/w/candidate/harness").empty());
  ::setenv("KERNELBLASTER_SANDBOX_VIEW", "maybe", 1);
  EXPECT_THROW(hidden("/w/candidate/harness"), std::runtime_error);
  ::unsetenv("KERNELBLASTER_SANDBOX_VIEW");
}

// The engine runs every harness process (the original's and each
// candidate's) under these.
TEST(ProcessLimits, HarnessProcessesGetTheWholeSandboxByDefault) {
  ::unsetenv("KERNELBLASTER_SANDBOX_NETWORK");
  ::unsetenv("KERNELBLASTER_SANDBOX_MEMORY");
  kernelblaster::ProcessLimits l = kernelblaster::harness_process_limits();
  EXPECT_TRUE(l.no_core);
  EXPECT_TRUE(l.contain);
  EXPECT_GT(l.cpu_s, 0);
  EXPECT_GT(l.file_bytes, 0u);
  EXPECT_EQ(l.memory_bytes, 0u);  // the CUDA driver's address reservations
  EXPECT_TRUE(l.no_network);
  EXPECT_EQ(l.resident_bytes, kernelblaster::default_harness_memory_bytes());
  EXPECT_GT(l.resident_bytes, std::uint64_t{256} << 20);
}

TEST(ProcessLimits, HarnessSandboxSettingsAreReadOrRefused) {
  ::setenv("KERNELBLASTER_SANDBOX_NETWORK", "off", 1);
  ::setenv("KERNELBLASTER_SANDBOX_MEMORY", "3G", 1);
  kernelblaster::ProcessLimits l = kernelblaster::harness_process_limits();
  EXPECT_FALSE(l.no_network);
  EXPECT_EQ(l.resident_bytes, std::uint64_t{3} << 30);
  ::setenv("KERNELBLASTER_SANDBOX_MEMORY", "off", 1);
  EXPECT_EQ(kernelblaster::harness_process_limits().resident_bytes, 0u);
  for (const char* bad : {"lots", "-1", "16X", "G", "99999999999999999999T"}) {
    ::setenv("KERNELBLASTER_SANDBOX_MEMORY", bad, 1);
    try {
      kernelblaster::harness_process_limits();
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("KERNELBLASTER_SANDBOX_MEMORY"), std::string::npos);
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
  ::unsetenv("KERNELBLASTER_SANDBOX_MEMORY");
  ::setenv("KERNELBLASTER_SANDBOX_NETWORK", "maybe", 1);
  EXPECT_THROW(kernelblaster::harness_process_limits(), std::runtime_error);
  ::unsetenv("KERNELBLASTER_SANDBOX_NETWORK");
}

TEST(ProcessLimits, MemorySizesInBinaryUnits) {
  std::uint64_t n = 1;
  EXPECT_TRUE(kernelblaster::parse_memory_size("16G", &n));
  EXPECT_EQ(n, std::uint64_t{16} << 30);
  EXPECT_TRUE(kernelblaster::parse_memory_size("512MiB", &n));
  EXPECT_EQ(n, std::uint64_t{512} << 20);
  EXPECT_TRUE(kernelblaster::parse_memory_size("2t", &n));
  EXPECT_EQ(n, std::uint64_t{2} << 40);
  EXPECT_TRUE(kernelblaster::parse_memory_size("1048576", &n));
  EXPECT_EQ(n, 1048576u);
  EXPECT_TRUE(kernelblaster::parse_memory_size("off", &n));
  EXPECT_EQ(n, 0u);
  for (const char* bad : {"", "G", "1.5G", "16 G", "16GB2", "16Gi", "0K", "20000000T"})
    EXPECT_FALSE(kernelblaster::parse_memory_size(bad, &n)) << bad;
}
