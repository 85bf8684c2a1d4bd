// compute-sanitizer's memcheck on a candidate (judge/memcheck.h): the log
// read, the program found, and an evaluation that asks for it, played with
// stand-ins (shell scripts for the programs and for the sanitizer) and a
// GPU probe that claims one: any machine.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "common/file_util.h"
#include "common/protocol.h"
#include "judge/evaluator.h"
#include "judge/memcheck.h"

namespace kernelblaster {
namespace {

namespace fs = std::filesystem;

const char* kInvalidRead =
    "========= COMPUTE-SANITIZER\n"
    "========= Invalid __global__ read of size 16 bytes\n"
    "=========     at sgemmWarptiling<128, 128, 16>(int, int, int, float, float *, float *, float, float *)+0x5c0 in runner.cu:212\n"
    "=========     by thread (96,0,0) in block (31,0,0)\n"
    "=========     Address 0x7f3a00200000 is out of bounds\n"
    "=========\n"
    "========= Invalid __global__ read of size 16 bytes\n"
    "=========     at sgemmWarptiling<128, 128, 16>(int, int, int, float, float *, float *, float, float *)+0x5c0 in runner.cu:212\n"
    "=========\n"
    "========= ERROR SUMMARY: 12 errors\n";

TEST(Memcheck, TheFirstErrorAndWhereItHappenedMakeTheLine) {
  const MemcheckFinding f = read_memcheck_log(kInvalidRead);
  EXPECT_TRUE(f.errors);
  EXPECT_EQ(f.count, 12);
  EXPECT_EQ(f.first.rfind("Invalid __global__ read of size 16 bytes at sgemmWarptiling<128, 128, 16>(", 0), 0u) << f.first;
}

TEST(Memcheck, ACleanLogHasNoErrors) {
  const MemcheckFinding f = read_memcheck_log("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n");
  EXPECT_FALSE(f.errors);
  EXPECT_TRUE(f.summarized);
  EXPECT_EQ(f.count, 0);
  EXPECT_TRUE(f.first.empty());
  EXPECT_FALSE(read_memcheck_log("").errors);
  // The sanitizer's own exit code says errors where its log was torn.
  EXPECT_TRUE(read_memcheck_log("", kMemcheckErrorExit).errors);
  EXPECT_FALSE(read_memcheck_log("", 3).errors);
}

struct Dir {
  fs::path path = fs::temp_directory_path() / ("kb_memcheck_test_" + std::to_string(::getpid()));
  Dir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Dir() { fs::remove_all(path); }
  std::string script(const std::string& name, const std::string& body) const {
    const fs::path p = path / name;
    write_file(p.string(), "#!/bin/sh\n" + body);
    fs::permissions(p, fs::perms::owner_all);
    return p.string();
  }
};

TEST(Memcheck, TheSanitizerIsFoundNextToNvccOrNamedOrTurnedOff) {
  Dir d;
  fs::create_directories(d.path / "bin");
  const std::string nvcc = (d.path / "bin" / "nvcc").string();
  std::string why;
  unsetenv("KERNELBLASTER_COMPUTE_SANITIZER");
  const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", "/nonexistent", 1);
  EXPECT_EQ(find_compute_sanitizer(nvcc, &why), "");
  EXPECT_NE(why.find("no compute-sanitizer next to nvcc or on PATH"), std::string::npos) << why;
  const std::string sanitizer = d.script("bin/compute-sanitizer", "exit 0\n");
  EXPECT_EQ(find_compute_sanitizer(nvcc, &why), sanitizer);
  setenv("KERNELBLASTER_COMPUTE_SANITIZER", "off", 1);
  EXPECT_EQ(find_compute_sanitizer(nvcc, &why), "");
  EXPECT_EQ(why, "KERNELBLASTER_COMPUTE_SANITIZER=off");
  setenv("KERNELBLASTER_COMPUTE_SANITIZER", (d.path / "missing").c_str(), 1);
  EXPECT_EQ(find_compute_sanitizer(nvcc, &why), "");
  EXPECT_NE(why.find("not a program"), std::string::npos) << why;
  unsetenv("KERNELBLASTER_COMPUTE_SANITIZER");
  setenv("PATH", old_path.c_str(), 1);
}

class ClaimedGpu final : public GpuProbe {
 public:
  GpuInfo probe(int) override { return {true, "", "Claimed GPU (test)", "sm_90"}; }
};

// A program that describes itself and writes a report with nothing to compare.
std::string program(const Dir& d, const std::string& name) {
  return d.script(name, "if [ \"$1\" = --describe ]; then\n"
                        "  echo '{\"harness\":\"stand-in\",\"sizes\":[{\"label\":\"default\"}]}'; exit 0\n"
                        "fi\n"
                        "touch \"$4/" + std::string(kLockHeldMarker) + "\"\n"
                        "echo '{\"harness\":\"stand-in\",\"sizes\":[{\"label\":\"default\"}]}' > \"$4/report.json\"\n");
}

// A sanitizer stand-in: writes `log` to its --log-file, runs the program
// after its options, and exits `code` (its own when `code` is empty).
std::string sanitizer(const Dir& d, const std::string& log, const std::string& code) {
  write_file((d.path / "log.txt").string(), log);
  return d.script("sanitizer.sh", "while [ \"$1\" != \"${1#-}\" ]; do\n"
                                  "  if [ \"$1\" = --log-file ]; then cp '" + (d.path / "log.txt").string() + "' \"$2\"; fi\n"
                                  "  shift 2\n"
                                  "done\n"
                                  "\"$@\"\n"
                                  "rc=$?\n" +
                                  (code.empty() ? "exit $rc\n" : "exit " + code + "\n"));
}

EvalResult evaluate(const Dir& d, EvalRequest::Memcheck m) {
  EvalRequest req;
  req.reference_binary = program(d, "original.sh");
  req.candidate_binary = program(d, "candidate.sh");
  req.work_dir = (d.path / "work").string();
  req.memcheck = std::move(m);
  ClaimedGpu gpu;
  return Evaluator(Toolchain{}, gpu).evaluate(req);
}

TEST(Memcheck, AnInvalidAccessTheSanitizerReportsRejectsTheCandidate) {
  Dir d;
  EvalResult r = evaluate(d, {true, sanitizer(d, kInvalidRead, "86"), ""});
  EXPECT_EQ(r.status, Status::out_of_bounds) << r.detail;
  EXPECT_NE(r.detail.find("compute-sanitizer's memcheck: Invalid __global__ read of size 16 bytes at sgemmWarptiling"),
            std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("(12 errors)"), std::string::npos) << r.detail;
}

TEST(Memcheck, ACleanRunSaysSoAndKeepsTheVerdict) {
  Dir d;
  const EvalResult without = evaluate(d, {});
  EvalResult r = evaluate(d, {true, sanitizer(d, "========= ERROR SUMMARY: 0 errors\n", ""), ""});
  EXPECT_EQ(r.status, without.status) << r.detail;
  EXPECT_EQ(r.memcheck.rfind("compute-sanitizer's memcheck: no invalid access in 2 runs (", 0), 0u) << r.memcheck;
  EXPECT_TRUE(without.memcheck.empty());
}

TEST(Memcheck, ASanitizerThatCannotRunTheProgramSaysWhyAndRejectsNothing) {
  Dir d;
  const EvalResult without = evaluate(d, {});
  EvalResult r = evaluate(d, {true, sanitizer(d, "", "3"), ""});
  EXPECT_EQ(r.status, without.status) << r.detail;
  EXPECT_EQ(r.memcheck.rfind("not checked under compute-sanitizer's memcheck: the program did not run under it", 0), 0u)
      << r.memcheck;
  // A sanitizer that ran the program but wrote no summary checked nothing anyone saw.
  EvalResult silent = evaluate(d, {true, sanitizer(d, "", ""), ""});
  EXPECT_EQ(silent.status, without.status) << silent.detail;
  EXPECT_EQ(silent.memcheck, "not checked under compute-sanitizer's memcheck: it wrote no error summary");
  EvalResult none = evaluate(d, {true, "", "no compute-sanitizer next to nvcc or on PATH"});
  EXPECT_EQ(none.memcheck,
            "not checked under compute-sanitizer's memcheck: no compute-sanitizer next to nvcc or on PATH");
}

}  // namespace
}  // namespace kernelblaster
