#include "rewrite/code_blocks.h"

#include <gtest/gtest.h>

namespace kernelblaster::rewrite {
namespace {

const char* kKernel =
    "#include <cuda_runtime.h>\n"
    "__global__ void k(float* y) { y[threadIdx.x] = 1; }\n"
    "void launch_gpu_implementation(void* out, int64_t n) {\n"
    "  k<<<1, 32>>>(static_cast<float*>(out));\n"
    "}\n";

TEST(CodeBlocks, AnyFenceTagAndTildesAreBlocks) {
  for (const std::string open : {"```cuda", "```c++", "```cpp", "``` CUDA", "```", "~~~cu", "````cuda"}) {
    std::string close = open.substr(0, open.find_first_not_of(open[0]));
    std::string reply = "Here is the kernel:\n\n" + open + "\n" + kKernel + close + "\n\nIt fuses the loads.\n";
    Extraction e = extract_candidate(reply, "launch_gpu_implementation");
    EXPECT_EQ(e.code, kKernel) << open;
    EXPECT_EQ(e.blocks, 1) << open;
  }
}

TEST(CodeBlocks, TheBlockThatDefinesTheLauncherWinsOverExplanations) {
  std::string reply = std::string("First the old code:\n```cuda\n__global__ void old(float* y) {}\n```\n") +
                      "A shell step:\n```bash\nnvcc -O3 x.cu\n```\nThe kernel:\n```cuda\n" + kKernel +
                      "```\nUsage:\n```cpp\nlaunch_gpu_implementation(out, n);\n```\n";
  Extraction e = extract_candidate(reply, "launch_gpu_implementation");
  EXPECT_EQ(e.code, kKernel);
  EXPECT_EQ(e.blocks, 4);
}

TEST(CodeBlocks, OfSeveralDefiningBlocksTheLastIsTaken) {
  std::string second = std::string(kKernel) + "// v2\n";
  std::string reply = "```cuda\n" + std::string(kKernel) + "```\nBetter:\n```cuda\n" + second + "```\n";
  EXPECT_EQ(extract_candidate(reply, "launch_gpu_implementation").code, second);
}

TEST(CodeBlocks, ABareSourceWithNoFencesIsTakenWhole) {
  Extraction e = extract_candidate(kKernel, "launch_gpu_implementation");
  EXPECT_EQ(e.code, kKernel);
  EXPECT_EQ(e.blocks, 0);
}

TEST(CodeBlocks, NoCodeAndCutOffRepliesSayWhy) {
  Extraction none = extract_candidate("I cannot make this faster: it is memory-bound.", "launch_gpu_implementation");
  EXPECT_TRUE(none.code.empty());
  EXPECT_EQ(none.why, "the reply holds no code block and does not define launch_gpu_implementation");
  Extraction cut = extract_candidate(std::string("```cuda\n") + kKernel + "__global__ void more(", "launch_gpu_implementation");
  EXPECT_TRUE(cut.code.empty());
  EXPECT_EQ(cut.why, "the reply ends inside a code block (cut off?)");
  Extraction two = extract_candidate("```cuda\n__global__ void a() {}\n```\n```cuda\n__global__ void b() {}\n```\n",
                                     "launch_gpu_implementation");
  EXPECT_TRUE(two.code.empty());
  EXPECT_EQ(two.why, "2 code blocks look like CUDA and none defines launch_gpu_implementation");
}

TEST(CodeBlocks, AFenceNeedsThreeMarksAndTheSameKindToClose) {
  std::string reply = "~~~cuda\n" + std::string(kKernel) + "```\nstill inside\n~~~\n";
  std::vector<CodeBlock> b = fenced_blocks(reply);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_NE(b[0].code.find("still inside"), std::string::npos);
  EXPECT_EQ(b[0].tag, "cuda");
  EXPECT_EQ(b[0].first_line, 2);
  EXPECT_TRUE(fenced_blocks("``not a fence``\n").empty());
}

TEST(CodeBlocks, DefinitionsAreToldFromDeclarationsCallsAndComments) {
  EXPECT_TRUE(defines_function("void f(int a) {}", "f"));
  EXPECT_TRUE(defines_function("extern \"C\" void f(int a)\n  noexcept {\n}", "f"));
  EXPECT_FALSE(defines_function("void f(int a);", "f"));
  EXPECT_FALSE(defines_function("int main() { f(1); }", "f"));
  EXPECT_FALSE(defines_function("// void f(int a) {}\n", "f"));
  EXPECT_FALSE(defines_function("void ff(int a) {}", "f"));
}

}  // namespace
}  // namespace kernelblaster::rewrite
