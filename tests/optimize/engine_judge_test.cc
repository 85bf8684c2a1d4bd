// The optimize loop's judge before anything runs: a model's code is built
// with the harness and held to the object bound, with no GPU needed.
#include "optimize/engine_judge.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/file_util.h"

using namespace kernelblaster;
namespace fs = std::filesystem;

namespace {

class NoGpu final : public GpuProbe {
 public:
  GpuInfo probe(int) override { return {false, "no CUDA device (test)", "", ""}; }
};

std::string examples() { return std::string(KERNELBLASTER_SOURCE_DIR) + "/examples/kernels"; }

}  // namespace

// A redefined cudaDeviceSynchronize breaks its own link against the static
// CUDA runtime. The model must be told the symbol the bound refuses, not the
// linker's "ld returned 1" (seen on an H200, 2026-11-28: compile_failed).
TEST(EngineJudge, ADefinitionTheBoundRefusesIsForbiddenCodeEvenWhenItBreaksTheLink) {
  const Toolchain tc = find_toolchain(KERNELBLASTER_TOOL);
  if (!fs::exists(tc.nvcc)) GTEST_SKIP() << "no nvcc";
  const fs::path work = fs::temp_directory_path() / "kb_engine_judge_test";
  fs::remove_all(work);
  EngineTarget target;
  target.source = examples() + "/src/vector_add.cu";
  target.source_text = read_file(target.source);
  target.harness = examples() + "/harness/vector_add_harness.cu";
  target.compile.arch = "sm_90";
  target.compile.include_dirs = {examples() + "/include", examples() + "/src"};
  target.work_dir = work.string();
  NoGpu probe;
  optimize::EngineJudge judge(tc, probe, target, 0);

  const std::string interposer = read_file(std::string(KERNELBLASTER_SOURCE_DIR) + "/tests/adversarial/interposes_sync.cu");
  const optimize::Judgement refused = judge.judge(interposer, "t0-s0-a0");
  EXPECT_EQ(refused.status, Status::forbidden_code) << refused.detail;
  EXPECT_NE(refused.detail.find("defines cudaDeviceSynchronize"), std::string::npos) << refused.detail;

  // Code that does not compile is still the compiler's failure, with its output for the fix prompt.
  const optimize::Judgement broken = judge.judge(target.source_text + "\nint broken( {\n", "t0-s0-a1");
  EXPECT_EQ(broken.status, Status::compile_failed) << broken.detail;
  EXPECT_FALSE(broken.compiler_output.empty());
  fs::remove_all(work);
}
