// KernelBench-CUDA text processing: launcher prototypes, the driver rewrite,
// the timing wrapper and the messages for a missing or misnamed launcher.
#include <gtest/gtest.h>

#include "common/compiler_output.h"

#include <algorithm>
#include <string>

#include "kernelbench/driver_rewrite.h"
#include "kernelbench/problem.h"
#include "kernelbench/prototype.h"
#include "kernelbench/source_scan.h"
#include "kernelbench/verdict.h"
#include "kernelbench/wrapper.h"

namespace kernelblaster::kernelbench {
namespace {

const char* kReluDriver = R"(#include <torch/torch.h>
#include <iostream>
#include "cuda_model.cuh"

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim);

int main() {
  torch::Device device(torch::kCUDA);
  torch::Dtype dtype = torch::kFloat16;
  int64_t batch_size = 16;
  int64_t dim = 16384;
  torch::Tensor x = torch::randn({batch_size, dim}, torch::TensorOptions().dtype(dtype).device(device));
  torch::Tensor ref_output = torch::relu(x);
  // torch::empty_like(x) in a comment stays as it is
  torch::Tensor output = torch::empty_like(ref_output);
  torch::Tensor scratch = torch::empty({batch_size}, x.options());
  launch_gpu_implementation(output.data_ptr(), x.data_ptr(), batch_size, dim);
  bool is_close = torch::allclose(output, ref_output, 1e-2, 1e-2);
  std::cout << (is_close ? "passed" : "failed") << std::endl;
  return 0;
}
)";

Prototype parse_decl(const std::string& text) {
  Prototype p;
  std::string why;
  EXPECT_TRUE(find_declaration(text, kLauncherName, &p, &why)) << why;
  return p;
}

TEST(KernelBenchPrototype, ParsesTheReluDriver) {
  Prototype p = parse_decl(kReluDriver);
  EXPECT_EQ(p.return_type, "void");
  ASSERT_EQ(p.params.size(), 4u);
  EXPECT_EQ(p.params[0].type, "void*");
  EXPECT_EQ(p.params[0].name, "output");
  EXPECT_EQ(p.params[0].kind, ParamKind::pointer);
  EXPECT_EQ(p.params[2].type, "int64_t");
  EXPECT_EQ(p.params[2].name, "batch_size");
  EXPECT_EQ(p.params[2].kind, ParamKind::integer);
  EXPECT_EQ(p.signature("f"), "void f(void* output, void* input, int64_t batch_size, int64_t dim)");
  EXPECT_EQ(p.argument_list(), "output, input, batch_size, dim");
}

TEST(KernelBenchPrototype, ParsesMultiLineConstAndCommentedPrototypes) {
  Prototype p = parse_decl(
      "#include \"cuda_model.cuh\"\n"
      "extern \"C\" void launch_gpu_implementation(\n"
      "    void *output,            // [N, M]\n"
      "    const void* __restrict__ input, /* [N, K], a, b */\n"
      "    const void *weight,\n"
      "    int N, int64_t M,\n"
      "    unsigned int K, float eps = 1e-5f);\n");
  EXPECT_EQ(p.return_type, "void");
  ASSERT_EQ(p.params.size(), 7u);
  EXPECT_EQ(p.params[0].type, "void*");
  EXPECT_EQ(p.params[1].type, "const void* __restrict__");
  EXPECT_EQ(p.params[1].name, "input");
  EXPECT_EQ(p.params[2].type, "const void*");
  EXPECT_EQ(p.params[2].kind, ParamKind::pointer);
  EXPECT_EQ(p.params[3].type, "int");
  EXPECT_EQ(p.params[5].type, "unsigned int");
  EXPECT_EQ(p.params[5].kind, ParamKind::integer);
  EXPECT_EQ(p.params[6].type, "float");
  EXPECT_EQ(p.params[6].name, "eps");
  EXPECT_EQ(p.params[6].kind, ParamKind::floating);
}

TEST(KernelBenchPrototype, NamesUnnamedParameters) {
  Prototype p = parse_decl("void launch_gpu_implementation(void*, const void*, int64_t, unsigned int);");
  ASSERT_EQ(p.params.size(), 4u);
  EXPECT_EQ(p.params[0].name, "arg0");
  EXPECT_EQ(p.params[1].type, "const void*");
  EXPECT_EQ(p.params[2].type, "int64_t");
  EXPECT_EQ(p.params[3].type, "unsigned int");
  EXPECT_EQ(p.params[3].name, "arg3");
}

TEST(KernelBenchPrototype, IgnoresCallsAndCommentedDeclarations) {
  std::string src =
      "// void launch_gpu_implementation(int x);\n"
      "int main() { launch_gpu_implementation(a, b); return 0; }\n"
      "void launch_gpu_implementation(float* y, int n);\n";
  Prototype p = parse_decl(src);
  ASSERT_EQ(p.params.size(), 2u);
  EXPECT_EQ(p.params[0].type, "float*");
}

TEST(KernelBenchPrototype, FindsTheDefinitionInAKernelSource) {
  std::string src =
      "#include <cuda_fp16.h>\n"
      "__global__ void relu_kernel(half* out, const half* in, int64_t n) { }\n"
      "void launch_gpu_implementation(void* output, const void* input, int64_t batch_size, int64_t dim) {\n"
      "  relu_kernel<<<1, 1>>>((half*)output, (const half*)input, batch_size * dim);\n"
      "}\n";
  Prototype p;
  std::string why;
  ASSERT_TRUE(find_definition(src, kLauncherName, &p, &why)) << why;
  ASSERT_EQ(p.params.size(), 4u);
  EXPECT_EQ(p.params[1].type, "const void*");
}

TEST(KernelBenchProblem, ReportsAMissingLauncherInTheDriver) {
  Prototype p;
  std::string why;
  EXPECT_FALSE(parse_driver("int main() { return 0; }", &p, &why));
  EXPECT_EQ(why, "driver.cpp: no declaration `void launch_gpu_implementation(...);` found");
}

TEST(KernelBenchProblem, ReportsAMisnamedLauncherWithTheNamesFound) {
  Prototype launcher = parse_decl(kReluDriver);
  std::string src =
      "__global__ void relu_kernel(float* o) { }\n"
      "__device__ float helper(float x) { return x; }\n"
      "void launch_relu(void* output, void* input, int64_t b, int64_t d) { relu_kernel<<<1,1>>>((float*)output); }\n";
  Prototype def;
  std::string why;
  EXPECT_FALSE(check_kernel_source(launcher, src, "candidate.cu", &def, &why));
  EXPECT_EQ(why,
            "candidate.cu: no definition of `launch_gpu_implementation(...) { ... }` found (host functions defined: "
            "launch_relu); the driver calls `void launch_gpu_implementation(void* output, void* input, int64_t "
            "batch_size, int64_t dim)`");
  EXPECT_EQ(why.find('\n'), std::string::npos);
}

TEST(KernelBenchProblem, ReportsAParameterCountMismatch) {
  Prototype launcher = parse_decl(kReluDriver);
  Prototype def;
  std::string why;
  EXPECT_FALSE(check_kernel_source(launcher, "void launch_gpu_implementation(void* o, void* i, int64_t n) {}",
                                   "init.cu", &def, &why));
  EXPECT_NE(why.find("init.cu: `launch_gpu_implementation` takes 3 parameters but the driver passes 4"),
            std::string::npos)
      << why;
}

TEST(KernelBenchDriverRewrite, PoisonsOutputsAndMovesThePrototype) {
  Prototype launcher = parse_decl(kReluDriver);
  std::string out = rewrite_driver(kReluDriver, launcher);
  EXPECT_EQ(out.rfind("#include \"kb_driver_shim.h\"", 0), 0u) << out;
  EXPECT_NE(out.find("torch::Tensor output = kb_poisoned_empty_like(ref_output);"), std::string::npos) << out;
  EXPECT_NE(out.find("torch::Tensor scratch = kb_poisoned_empty({batch_size}, x.options());"), std::string::npos);
  // The comment is left alone; no other torch::empty remains.
  EXPECT_NE(out.find("// torch::empty_like(x) in a comment"), std::string::npos);
  EXPECT_EQ(out.find("= torch::empty"), std::string::npos);
  // The declaration is gone, the call stays.
  EXPECT_EQ(out.find("void launch_gpu_implementation("), std::string::npos);
  EXPECT_NE(out.find("  launch_gpu_implementation(output.data_ptr(), x.data_ptr(), batch_size, dim);"),
            std::string::npos);
  EXPECT_NE(out.find("#include \"cuda_model.cuh\""), std::string::npos);
  // Line numbers of the driver survive (a #line directive plus same line count).
  std::string body = out.substr(out.find("#line 1"));
  body = body.substr(body.find('\n') + 1);
  std::string original = kReluDriver;
  EXPECT_EQ(std::count(body.begin(), body.end(), '\n'), std::count(original.begin(), original.end(), '\n'));
}

TEST(KernelBenchDriverRewrite, RoutesManualSeedAndLeavesOtherFactories) {
  std::string driver =
      "#include \"cuda_model.cuh\"\n"
      "void launch_gpu_implementation(void* o, int64_t n);\n"
      "int main() { torch::manual_seed(42); auto a = torch::empty_strided({2}, {1}); auto z = torch::zeros({2});\n"
      "  auto e = at::empty({3}); auto s = std::string(\"torch::empty(\"); }\n";
  std::string out = rewrite_driver(driver, parse_decl(driver));
  EXPECT_NE(out.find("kb_manual_seed(42)"), std::string::npos);
  EXPECT_NE(out.find("torch::empty_strided({2}, {1})"), std::string::npos);
  EXPECT_NE(out.find("torch::zeros({2})"), std::string::npos);
  EXPECT_NE(out.find("auto e = kb_poisoned_empty({3})"), std::string::npos);
  EXPECT_NE(out.find("std::string(\"torch::empty(\")"), std::string::npos);
}

TEST(KernelBenchDriverRewrite, MakesCudaModelHeaderAndShim) {
  std::string h = make_cuda_model_header(parse_decl(kReluDriver));
  EXPECT_NE(h.find("#include <cstdint>"), std::string::npos);
  EXPECT_NE(h.find("#include <torch/torch.h>"), std::string::npos);
  EXPECT_NE(h.find("void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim);"),
            std::string::npos);
  std::string shim = driver_shim_header();
  EXPECT_NE(shim.find("KB_SEED"), std::string::npos);
  EXPECT_NE(shim.find("torch::cuda::manual_seed_all"), std::string::npos);
  EXPECT_NE(shim.find("kb_poisoned_empty_like"), std::string::npos);
  EXPECT_NE(shim.find("quiet_NaN"), std::string::npos);
}

TEST(KernelBenchWrapper, ForwardsToTheRenamedLauncherUnderTimedCall) {
  Prototype decl = parse_decl(kReluDriver);
  Prototype def;
  ASSERT_TRUE(find_definition(
      "void launch_gpu_implementation(void* out, const void* in, int64_t b, int64_t d) { }", kLauncherName, &def,
      nullptr));
  std::string w = make_wrapper_source(decl, def);
  EXPECT_NE(w.find("void kb_candidate_launch(void* out, const void* in, int64_t b, int64_t d);"), std::string::npos)
      << w;
  EXPECT_NE(w.find("void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {"),
            std::string::npos);
  EXPECT_NE(w.find("kernelblaster::kernelbench::timed_call([&] { kb_candidate_launch(output, input, batch_size, dim); "
                   "});"),
            std::string::npos);
  EXPECT_NE(w.find("void timed_call(const std::function<void()>& fn);"), std::string::npos);
  EXPECT_EQ(rename_flag(), "-Dlaunch_gpu_implementation=kb_candidate_launch");
}

TEST(KernelBenchWrapper, StripsLinkageSpecifiersFromTheLauncher) {
  std::string src =
      "extern \"C\" void launch_gpu_implementation(void* o, int n);\n"
      "static __device__ inline int helper() { return 1; }\n"
      "extern \"C\"\n"
      "inline void launch_gpu_implementation(void* o, int n) { }\n";
  std::string out = prepare_kernel_source(src, kLauncherName);
  EXPECT_EQ(out,
            "void launch_gpu_implementation(void* o, int n);\n"
            "static __device__ inline int helper() { return 1; }\n"
            "void \n"
            "launch_gpu_implementation(void* o, int n) { }\n");
}

TEST(KernelBenchScan, MasksCommentsAndStringsKeepingPositions) {
  std::string src = "a /* b */ \"c\\\"d\" // e\nf 'g'";
  std::string m = mask_comments_and_strings(src);
  EXPECT_EQ(m.size(), src.size());
  EXPECT_EQ(m, "a         \"    \"     \nf ' '");
}

TEST(KernelBenchVerdict, ClassifiesDriverOutput) {
  ProcessResult r;
  r.exit_code = 0;
  r.output = "some log\npassed\n";
  EXPECT_EQ(classify_driver_run(r).status, Status::ok);
  r.output = "failed\n";
  EXPECT_EQ(classify_driver_run(r).status, Status::wrong_result);
  r.output = "kb_shim: launch_failed: launch: too many resources requested for launch\n";
  r.exit_code = 3;
  DriverVerdict v = classify_driver_run(r);
  EXPECT_EQ(v.status, Status::launch_failed);
  EXPECT_EQ(v.detail, "launch: too many resources requested for launch");
  r.output = "terminate called after throwing an instance of 'c10::Error'\n";
  r.exit_code = -1;
  r.signaled = true;
  r.signal = 6;
  EXPECT_EQ(classify_driver_run(r).status, Status::crashed);
  r = ProcessResult();
  r.timed_out = true;
  EXPECT_EQ(classify_driver_run(r).status, Status::timed_out);
  r = ProcessResult();
  r.exit_code = 0;
  r.output = "nothing useful\n";
  EXPECT_EQ(classify_driver_run(r).status, Status::crashed);
}

TEST(KernelBenchVerdict, ParsesShimTimingAndErrorLines) {
  ShimTiming t;
  std::string why;
  ASSERT_TRUE(parse_shim_timing(
      "{\"method\": \"cupti\", \"runs\": 40, \"warmup_runs\": 3, \"median_ns\": 1500.0, \"q1_ns\": 1400.0, "
      "\"q3_ns\": 1600.0, \"min_ns\": 1300.0, \"event_median_ns\": 1700.0, \"kernels_per_run\": 1.00, "
      "\"untimed_runs\": 0, \"foreign_activities\": 2, \"untimed_detail\": \"x\", \"tracer_note\": \"\"}",
      &t, &why))
      << why;
  EXPECT_EQ(t.runs, 40);
  EXPECT_DOUBLE_EQ(t.median_ns, 1500.0);
  EXPECT_EQ(t.foreign_activities, 2);
  EXPECT_FALSE(parse_shim_timing("{", &t, &why));
  EXPECT_EQ(first_error_line("a.cu(3): warning: x\na.cu(7): error: identifier \"foo\" is undefined\nmore\n"),
            "a.cu(7): error: identifier \"foo\" is undefined");
}

}  // namespace
}  // namespace kernelblaster::kernelbench
