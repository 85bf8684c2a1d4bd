// Deterministic mutation fuzzing of every parser that reads a file a user
// writes or the tool leaves behind: from a valid seed, thousands of mutants
// (bytes flipped, inserted, deleted, a chunk repeated, the text cut short).
// Every mutant must parse or be refused with an exception whose message is
// one line; nothing may crash, hang or throw anything but std::exception.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>

#include "build_step/lockfile.h"
#include "common/kernel_replay.h"
#include "common/protocol.h"
#include "judge/manifest.h"
#include "kb/kb_store.h"
#include "kernelbench/problem.h"
#include "profile/ptxas_info.h"
#include "tuner/directives.h"
#include "tuner/launch_reach.h"
#include "tuner/replay_shapes.h"
#include "tuner/run_log.h"

namespace kernelblaster {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string mutate(const std::string& seed, std::mt19937_64& rng) {
  std::string s = seed;
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    std::size_t at = rng() % s.size();
    switch (rng() % 6) {
      case 0: s[at] = static_cast<char>(rng() % 256); break;                          // any byte
      case 1: s[at] = "{}[]\",:\\\n 0-e."[rng() % 15]; break;                          // structure
      case 2: s.erase(at, 1 + rng() % 8); break;
      case 3: s.insert(at, 1, static_cast<char>(rng() % 256)); break;
      case 4: s.insert(at, s.substr(at, 1 + rng() % 32)); break;                       // a chunk repeated
      case 5: s.resize(at); break;                                                    // cut short
    }
  }
  return s;
}

// Runs `parse` on `mutants` mutants of `seed`; fails on a refusal that is not
// one line. Returns how many were refused (so a test can see the fuzzing bit).
int fuzz(const std::string& name, const std::string& seed, const std::function<void(const std::string&)>& parse,
         int mutants = 5000) {
  EXPECT_FALSE(seed.empty()) << name << ": no seed";
  EXPECT_NO_THROW(parse(seed)) << name << ": the seed itself is refused";
  std::mt19937_64 rng(0x6b62'6675'7a7aull ^ std::hash<std::string>{}(name));
  int refused = 0;
  for (int i = 0; i < mutants; ++i) {
    std::string m = mutate(seed, rng);
    try {
      parse(m);
    } catch (const std::exception& x) {
      ++refused;
      std::string what = x.what();
      EXPECT_FALSE(what.empty()) << name << " mutant " << i;
      EXPECT_EQ(what.find('\n'), std::string::npos) << name << " mutant " << i << ": " << what;
    }
  }
  return refused;
}

TEST(ParserFuzz, Manifests) {
  std::string lines = "kernelblaster-manifest 1\ntarget t\narch sm_90\nI /a b\nD X=\"y\"\nF SHELL:-a -b\n";
  fuzz("manifest lines", lines, [](const std::string& t) { parse_manifest(t, "m"); });
  std::string json = R"({"arch": "sm_90", "include_dirs": ["/a"], "definitions": ["X=1"], "flags": ["-O3"],
                         "tunables": [{"name": "B", "values": [1, 2]}]})";
  EXPECT_GT(fuzz("manifest json", json, [](const std::string& t) { parse_manifest(t, "m"); }), 0);
}

TEST(ParserFuzz, PlansAndReports) {
  Plan plan;
  plan.runs = {{0, 1}, {0, 2}};
  EXPECT_GT(fuzz("plan", plan_to_json(plan), [](const std::string& t) { plan_from_json(t); }), 0);
  HarnessReport report;
  report.harness = "k";
  report.sizes.push_back({"small", {{"n", 4}}, false});
  EXPECT_GT(fuzz("report", report_to_json(report), [](const std::string& t) { report_from_json(t); }), 0);
}

TEST(ParserFuzz, KnowledgeBase) {
  std::string seed = slurp(KERNELBLASTER_SOURCE_DIR "/data/kb/seed.json");
  EXPECT_GT(fuzz("kb", seed, [](const std::string& t) { kb::parse_kb(t, "kb.json"); }, 2000), 0);
}

TEST(ParserFuzz, RunLogsAndDirectives) {
  std::string log = slurp(KERNELBLASTER_SOURCE_DIR "/tests/tuner/data/synthetic_recording.json");
  EXPECT_GT(fuzz("run log", log, [](const std::string& t) { tuner::run_log_from_json(t, "log.json"); }, 2000), 0);
  std::string source = slurp(KERNELBLASTER_SOURCE_DIR "/examples/kernels/src/softmax.cu");
  fuzz("directives", source, [](const std::string& t) { tuner::parse_directives(t, "softmax.cu", "sm_90"); });
}

TEST(ParserFuzz, Lockfiles) {
  std::string seed = slurp(KERNELBLASTER_SOURCE_DIR "/examples/kernels/kernelblaster.lock.json");
  std::string path = (std::filesystem::temp_directory_path() / ("kb-fuzz-lock-" + std::to_string(::getpid()))).string();
  EXPECT_GT(fuzz("lockfile", seed,
                 [&](const std::string& t) {
                   std::ofstream(path, std::ios::binary) << t;
                   build_step::read_lockfile(path);
                 },
                 2000),
            0);
  std::filesystem::remove(path);
}

TEST(ParserFuzz, DriversAndCompilerOutput) {
  std::string driver = slurp(KERNELBLASTER_SOURCE_DIR "/tests/kernelbench/002_Softmax/driver.cpp");
  fuzz("driver", driver, [](const std::string& t) {
    kernelbench::Prototype p;
    std::string why;
    if (!kernelbench::parse_driver(t, &p, &why)) throw std::runtime_error(why);  // checked like a message
  });
  std::string ptxas = "ptxas info    : Compiling entry function '_Z4kernPf' for 'sm_90'\n"
                      "ptxas info    : Used 32 registers, 8 bytes spill stores, 4 bytes spill loads\n";
  fuzz("ptxas", ptxas, [](const std::string& t) { profile::parse_ptxas_verbose(t); });
}

// The harness text the tuner reads (a kernel-replay harness and a launcher
// harness) and the source it reads launches from, each mangled while the
// other stays whole: reshaping and reach either answer or refuse in one line.
TEST(ParserFuzz, HarnessesAndLaunchesTheTunerReads) {
  const std::string source =
      "#define TILE 32\n#define ROWS 8\n#define BM 64\n"
      "__global__ void copy(float *o, float *in, int w, int h) {\n"
      "  for (int i = 0; i < TILE; i += ROWS) o[(blockIdx.y * TILE + threadIdx.y + i) * w] = in[i];\n}\n"
      "void run(int M, int N, float *C) {\n"
      "  if (M >= 128 and N >= 128) { fill<<<dim3(M / BM), dim3(BM)>>>(C, M); }\n"
      "  else { fill<<<dim3(M / 16), dim3(16)>>>(C, M); }\n}\n"
      "int main() {\n  int w, h;\n  dim3 grid(w / TILE, h / TILE), threads(TILE, ROWS);\n"
      "  copy<<<grid, threads>>>(o, in, w, h);\n}\n";
  const std::string harness =
      "#include <kernelblaster/harness.h>\n" + std::string(kKernelReplayMarker) +
      "\n// copy(float*, float*, int, int)" + kReplayedLauncherNote +
      "\nvoid k_copy(float *p0, float *p1, long long p2, long long p3, long long grid_x, long long grid_y, "
      "long long grid_z, long long block_x, long long block_y, long long block_z, long long shared_bytes) {\n"
      "  void* args[] = {&p0};\n" + kLaunchShapeAnchor + "    ;\n}\n"
      "int main(int argc, char** argv) {\n  Harness h(\"k\");\n"
      "  h.size(\"s\", {{\"p2\", 1024}, {\"p3\", 512}, {\"grid_x\", 32}, {\"grid_y\", 16}, {\"grid_z\", 1}, "
      "{\"block_x\", 32}, {\"block_y\", 8}, {\"block_z\", 1}, {\"shared_bytes\", 0}, {\"M\", 4096}, {\"N\", 4096}})\n"
      "      .launch([](Call& c) {\n"
      "        k_copy(c.out<float>(\"p0\"), c.in<float>(\"p1\"), c.dim(\"p2\"), c.dim(\"p3\"), c.dim(\"grid_x\"), "
      "c.dim(\"grid_y\"), c.dim(\"grid_z\"), c.dim(\"block_x\"), c.dim(\"block_y\"), c.dim(\"block_z\"), "
      "c.dim(\"shared_bytes\"));\n"
      "        run(c.dim(\"M\"), c.dim(\"N\"), c.out<float>(\"C\"));\n      });\n}\n";
  auto read = [](const std::string& h, const std::string& text) {
    const tuner::LaunchTunables found = tuner::find_launch_tunables(text, "/p/t.cu", tuner::SpaceDecl{}, {});
    tuner::reshape_replayed_launches(h, text, "/p/t.cu", found, {});
    tuner::launch_reach(h, text, found);
    tuner::shapes_for_tuned(h, text, "/p/t.cu", "#define ROWS 4\n" + text, {});
  };
  EXPECT_FALSE(tuner::reshape_replayed_launches(
                   harness, source, "/p/t.cu", tuner::find_launch_tunables(source, "/p/t.cu", tuner::SpaceDecl{}, {}), {})
                   .harness.empty())
      << "the seed is reshaped";
  fuzz("replay harness", harness, [&](const std::string& h) { read(h, source); }, 2000);
  fuzz("launch source", source, [&](const std::string& t) { read(harness, t); }, 2000);
}

}  // namespace
}  // namespace kernelblaster
