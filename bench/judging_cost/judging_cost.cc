// What judging a KernelBench-sized output costs on this machine's CPUs, with
// no GPU: the dumps a driver process leaves (an f16 output and torch's
// oracle per run, seven runs: three seeds, the first again, and three checked
// timed calls)
// are written, then calibrated (the original against the oracle and
// itself) and judged (a candidate against both), as eval does. The default
// size is level1/037_FrobeniusNorm's output, 16x64x256x256 f16.
//
//   judging_cost [--elements N] [--dir DIR] [--zeros]
//
// --zeros judges an all-zero candidate (rejected: wrong_result) instead of
// a copy of the original's answers. Prints one line per phase, in seconds.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "common/file_util.h"
#include "common/protocol.h"
#include "judge/calibration.h"
#include "judge/judge.h"

using namespace kernelblaster;
namespace fs = std::filesystem;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Random f16 values in [0.125, 0.25): finite, the same for the same seed.
std::string f16_values(std::int64_t n, unsigned seed) {
  std::string bytes(static_cast<std::size_t>(n) * 2, '\0');
  std::mt19937 gen(seed);
  auto* p = reinterpret_cast<std::uint16_t*>(bytes.data());
  for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<std::uint16_t>(0x3000 + (gen() & 0x3ff));
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t n = 16LL * 64 * 256 * 256;
  std::string dir = (fs::temp_directory_path() / "kernelblaster-judging-cost").string();
  bool zeros = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--elements" && i + 1 < argc) n = std::atoll(argv[++i]);
    else if (a == "--dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--zeros") zeros = true;
    else {
      std::fprintf(stderr, "usage: judging_cost [--elements N] [--dir DIR] [--zeros]\n");
      return 2;
    }
  }
  if (n <= 0) {
    std::fprintf(stderr, "judging_cost: --elements must be positive\n");
    return 2;
  }
  const std::string ref_dir = dir + "/reference", cand_dir = dir + "/candidate";
  fs::remove_all(dir);
  fs::create_directories(ref_dir);
  fs::create_directories(cand_dir);

  HarnessReport ref;
  ref.harness = "kernelbench";
  ref.sizes = {{"default", {}, false}};
  BufferDecl out;
  out.name = "output";
  out.dtype = "f16";
  out.role = "output";
  out.tolerance = {1e-3, 1e-3, 1e-3};
  out.elements_per_size["default"] = n;
  ref.buffers.push_back(out);
  HarnessReport cand = ref;
  const std::uint64_t seeds[7] = {11, 12, 13, 11, 97, 98, 99};

  auto t = std::chrono::steady_clock::now();
  for (int k = 0; k < 7; ++k) {
    RunReport run;
    run.index = k;
    run.size = 0;
    run.seed = seeds[k];
    run.timed_call = k >= 4 ? 100 * (k - 3) : -1;
    const std::string answer = f16_values(n, static_cast<unsigned>(seeds[k]));
    const std::string name = "run" + std::to_string(k) + "_output";
    write_file(ref_dir + "/" + name + ".bin", answer);
    write_file(ref_dir + "/" + name + ".oracle.bin", answer);
    write_file(cand_dir + "/" + name + ".bin", zeros ? std::string(answer.size(), '\0') : answer);
    OutputDump d;
    d.name = "output";
    d.file = name + ".bin";
    d.count = n;
    d.poison_byte = 0xFF;
    OutputDump oracle = d;
    oracle.file = name + ".oracle.bin";
    oracle.dtype = "f16";
    oracle.poison_byte = 0;
    run.outputs = {d};
    run.oracle = {oracle};
    ref.runs.push_back(run);
    run.oracle.clear();  // a candidate's process dumps no oracles
    cand.runs.push_back(run);
  }
  std::printf("elements %lld, 7 runs, f16\n", static_cast<long long>(n));
  std::printf("write %.3f s\n", seconds_since(t));
  t = std::chrono::steady_clock::now();
  Calibration cal = calibrate(ref, ref_dir);
  std::printf("calibrate %.3f s\n", seconds_since(t));
  std::vector<RunCheck> checks;
  t = std::chrono::steady_clock::now();
  Verdict v = judge_correctness(ref, ref_dir, cand, cand_dir, cal, &checks);
  std::printf("judge %.3f s: %s\n", seconds_since(t), status_name(v.status));
  fs::remove_all(dir);
  const bool expected = zeros ? v.status == Status::wrong_result : v.status == Status::ok;
  if (!expected) std::fprintf(stderr, "judging_cost: unexpected verdict %s: %s\n", status_name(v.status), v.detail.c_str());
  return expected ? 0 : 1;
}
