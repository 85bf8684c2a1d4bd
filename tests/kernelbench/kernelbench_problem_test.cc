// KernelBench-CUDA text processing: launcher prototypes and their linkage,
// the driver rewrite, the launcher wrapper, the driver's printed verdict and
// the messages for a missing or misnamed launcher.
#include <gtest/gtest.h>

#include "common/compiler_output.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <string>

#include "kernelbench/build_step.h"
#include "runtime/driver_output.h"
#include "kernelbench/driver_rewrite.h"
#include "kernelbench/problem.h"
#include "kernelbench/prototype.h"
#include "kernelbench/source_scan.h"
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

// A directory of problems: nested levels, links to chosen problems (a
// subset), a link back to an ancestor, and the same problem twice.
TEST(KernelBenchProblems, FindsEveryProblemOnceThroughLinks) {
  namespace fs = std::filesystem;
  char tmpl[] = "/tmp/kbproblemsXXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const fs::path root = tmpl, data = root / "data", chosen = root / "chosen";
  for (const char* p : {"level1/001_A", "level1/002_B", "level2/001_C"}) {
    fs::create_directories(data / p);
    std::ofstream(data / p / "driver.cpp") << "int main() {}\n";
  }
  fs::create_directories(data / "level1/003_not_a_problem");
  fs::create_directories(chosen / "sub");
  fs::create_directory_symlink(data / "level1/002_B", chosen / "002_B");
  fs::create_directory_symlink(data / "level2/001_C", chosen / "sub/001_C");
  fs::create_directory_symlink(data / "level2/001_C", chosen / "again");  // the same problem twice
  fs::create_directory_symlink(chosen, chosen / "sub/up");              // a loop
  std::vector<std::string> all = problem_directories(data.string());
  EXPECT_EQ(all, (std::vector<std::string>{(data / "level1/001_A").string(), (data / "level1/002_B").string(),
                                           (data / "level2/001_C").string()}));
  std::vector<std::string> subset = problem_directories(chosen.string());
  ASSERT_EQ(subset.size(), 2u) << ::testing::PrintToString(subset);
  EXPECT_EQ(fs::path(subset[0]).filename(), "002_B");
  EXPECT_EQ(fs::canonical(subset[1]), fs::canonical(data / "level2/001_C"));
  EXPECT_EQ(problem_directories((data / "level1/001_A").string()),
            std::vector<std::string>{(data / "level1/001_A").string()});
  EXPECT_TRUE(problem_directories((root / "missing").string()).empty());
  // Names stay those under the root, links included (not where they lead).
  EXPECT_EQ(problem_name(subset[1], chosen.string()), subset[1].substr(chosen.string().size() + 1));
  EXPECT_EQ(problem_name(subset[0], chosen.string() + "/"), "002_B");
  EXPECT_EQ(problem_name((data / "level2/001_C").string(), data.string()), "level2/001_C");
  EXPECT_EQ(problem_name("/elsewhere/007_X/", data.string()), "007_X");
  fs::remove_all(root);
}

TEST(KernelBenchSourceScan, AnIdentifierIsWholeAndOutsideCommentsAndStrings) {
  auto found = [](const std::string& code, const std::string& name) {
    return !find_identifier(code_only(code), name).empty();
  };
  EXPECT_TRUE(found("int main() { softmax_rows(x, y, n); }", "softmax_rows"));
  EXPECT_TRUE(found("auto fn = &scale;", "scale"));
  EXPECT_FALSE(found("scale_shift(x, y);", "scale"));
  EXPECT_FALSE(found("// calls scale\nconst char* s = \"scale\";", "scale"));
  EXPECT_FALSE(found("anything", ""));
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

TEST(KernelBenchProblem, ReportsParametersInAnotherOrderThanTheDriverPasses) {
  Prototype launcher = parse_decl(kReluDriver);
  Prototype def;
  std::string why;
  EXPECT_FALSE(check_kernel_source(
      launcher, "void launch_gpu_implementation(void* output, void* input, int64_t dim, int64_t batch_size) {}",
      "init.cu", &def, &why));
  EXPECT_NE(why.find("init.cu: `launch_gpu_implementation` takes `dim` as parameter 3 but the driver passes it as "
                     "parameter 4"),
            std::string::npos)
      << why;
  // Other names are the candidate's own business.
  EXPECT_TRUE(check_kernel_source(launcher, "void launch_gpu_implementation(void* o, void* i, int64_t b, int64_t d) {}",
                                  "cand.cu", &def, &why));
}

TEST(KernelBenchDriverRewrite, PoisonsOutputsAndMovesThePrototype) {
  Prototype launcher = parse_decl(kReluDriver);
  std::string out = rewrite_driver(kReluDriver, launcher);
  EXPECT_EQ(out.rfind("#include \"kernelblaster/kernelbench_driver.h\"", 0), 0u) << out;
  EXPECT_NE(out.find("torch::Tensor output = kb_poisoned_empty_like(ref_output);"), std::string::npos) << out;
  EXPECT_NE(out.find("torch::Tensor scratch = kb_poisoned_empty({batch_size}, x.options());"), std::string::npos);
  // The comment is left alone; no other torch::empty remains.
  EXPECT_NE(out.find("// torch::empty_like(x) in a comment"), std::string::npos);
  EXPECT_EQ(out.find("= torch::empty"), std::string::npos);
  // The declaration is gone, the call stays (its pointers tracked).
  EXPECT_EQ(out.find("void launch_gpu_implementation("), std::string::npos);
  EXPECT_NE(out.find("  launch_gpu_implementation(kb_track(output).data_ptr(), kb_track(x).data_ptr(), batch_size, "
                     "dim);"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("#include \"cuda_model.cuh\""), std::string::npos);
  // Line numbers of the driver survive (a #line directive plus same line count up to the appended main).
  std::string body = out.substr(out.find("#line 1"));
  body = body.substr(body.find('\n') + 1);
  body = body.substr(0, body.find("\n// Added by KernelBlaster"));
  std::string original = kReluDriver;
  EXPECT_EQ(std::count(body.begin(), body.end(), '\n'), std::count(original.begin(), original.end(), '\n'));
}

TEST(KernelBenchDriverRewrite, RenamesMainAndHandsTheProcessToTheRuntime) {
  std::string out = rewrite_driver(kReluDriver, parse_decl(kReluDriver));
  EXPECT_NE(out.find("int kb_driver_main() {"), std::string::npos) << out;
  EXPECT_EQ(out.find("int main() {"), std::string::npos);
  EXPECT_NE(out.find("int main(int argc, char** argv) { return kb_driver::process_main(argc, argv, &kb_driver_main); }"),
            std::string::npos);
  std::string with_args =
      "void launch_gpu_implementation(void* o);\n"
      "int main(int argc, char* argv[]) { return 0; }\n";
  EXPECT_NE(rewrite_driver(with_args, parse_decl(with_args)).find("int kb_driver_main(int argc, char* argv[])"),
            std::string::npos);
  std::string no_main = "void launch_gpu_implementation(void* o);\nint helper() { return 0; }\n";
  EXPECT_THROW(rewrite_driver(no_main, parse_decl(no_main)), std::runtime_error);
}

TEST(KernelBenchDriverRewrite, RoutesAllcloseWithTheTextOfBothSides) {
  std::string out = rewrite_driver(kReluDriver, parse_decl(kReluDriver));
  EXPECT_NE(out.find("bool is_close = kb_allclose(\"output\", \"ref_output\", output, ref_output, 1e-2, 1e-2);"),
            std::string::npos)
      << out;
  std::string driver =
      "void launch_gpu_implementation(void* o);\n"
      "int main() {\n"
      "  bool ok = at::allclose(\n"
      "      out.to(torch::kFloat32),   // \"quoted\" comment\n"
      "      ref[0], /*rtol=*/1e-1, /*atol=*/1e-1, false);\n"
      "  auto s = \"torch::allclose(a, b)\";\n"
      "}\n";
  out = rewrite_driver(driver, parse_decl(driver));
  EXPECT_NE(out.find("kb_allclose(\"out.to(torch::kFloat32)\", \"ref[0]\", \n      out.to(torch::kFloat32),"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("auto s = \"torch::allclose(a, b)\";"), std::string::npos);
}

TEST(KernelBenchDriverRewrite, TracksTheTensorBehindEveryDataPointer) {
  std::string driver =
      "void launch_gpu_implementation(void* o, void* a, void* b, void* c, void* d, void* e, void* f);\n"
      "int main() {\n"
      "  void* w = model->conv->weight.data_ptr();\n"
      "  auto p = input.contiguous().data_ptr<at::Half>();\n"
      "  launch_gpu_implementation(out.data_ptr(), xs[1].data_ptr(), static_cast<void*>(y.data_ptr<float>()),\n"
      "      bias.defined() ? bias.data_ptr() : nullptr, torch::empty({2}).data_ptr(), (a + b).data_ptr(),\n"
      "      t.const_data_ptr());\n"
      "  // x.data_ptr() in a comment\n"
      "}\n";
  std::string out = rewrite_driver(driver, parse_decl(driver));
  for (const char* expected :
       {"void* w = kb_track(model->conv->weight).data_ptr();", "auto p = kb_track(input.contiguous()).data_ptr<at::Half>();",
        "launch_gpu_implementation(kb_track(out).data_ptr(), kb_track(xs[1]).data_ptr(), "
        "static_cast<void*>(kb_track(y).data_ptr<float>()),",
        "bias.defined() ? kb_track(bias).data_ptr() : nullptr, kb_track(kb_poisoned_empty({2})).data_ptr(), "
        "kb_track((a + b)).data_ptr(),",
        "kb_track(t).const_data_ptr());", "// x.data_ptr() in a comment"})
    EXPECT_NE(out.find(expected), std::string::npos) << expected << "\n" << out;
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

TEST(KernelBenchDriverRewrite, MakesCudaModelHeader) {
  std::string h = make_cuda_model_header(parse_decl(kReluDriver));
  EXPECT_NE(h.find("#include <cstdint>"), std::string::npos);
  EXPECT_NE(h.find("#include <torch/torch.h>"), std::string::npos);
  EXPECT_NE(h.find("void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim);"),
            std::string::npos);
  std::string c_driver = "extern \"C\" void launch_gpu_implementation(void* o, int64_t n);\nint main() {}\n";
  EXPECT_NE(make_cuda_model_header(parse_decl(c_driver)).find("extern \"C\" void launch_gpu_implementation("),
            std::string::npos);
}

TEST(KernelBenchWrapper, HandsEveryCallToTheRuntimeWithItsArguments) {
  Prototype decl = parse_decl(kReluDriver);
  Prototype def;
  ASSERT_TRUE(find_definition(
      "void launch_gpu_implementation(void* out, const void* in, int64_t b, int64_t d) { }", kLauncherName, &def,
      nullptr));
  std::string w = make_wrapper_source(decl, def);
  EXPECT_NE(w.find("\nvoid kb_candidate_launch(void* out, const void* in, int64_t b, int64_t d);"), std::string::npos)
      << w;
  EXPECT_NE(w.find("\nvoid launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {"),
            std::string::npos);
  EXPECT_NE(w.find("kb_args.pointers = {(const void*)(output), (const void*)(input)};"), std::string::npos) << w;
  EXPECT_NE(w.find("kb_args.pointer_names = {\"output\", \"input\"};"), std::string::npos);
  EXPECT_NE(w.find("kb_args.integers = {{\"batch_size\", static_cast<std::int64_t>(batch_size)}, {\"dim\", "
                   "static_cast<std::int64_t>(dim)}};"),
            std::string::npos);
  EXPECT_NE(w.find("kernelblaster::kernelbench::on_launch(kb_args, [&] { kb_candidate_launch(output, input, "
                   "batch_size, dim); });"),
            std::string::npos);
  EXPECT_NE(w.find("#include \"kernelblaster/kernelbench_runtime.h\""), std::string::npos);
  EXPECT_EQ(rename_flag(), "-Dlaunch_gpu_implementation=kb_candidate_launch");
}

TEST(KernelBenchWrapper, CastsPointersToTheKernelSourcesOwnTypes) {
  Prototype decl;
  ASSERT_TRUE(find_declaration("void launch_gpu_implementation(void* output, const void* input, int64_t n);",
                               kLauncherName, &decl, nullptr));
  Prototype def;
  ASSERT_TRUE(find_definition("void launch_gpu_implementation(half* out, void* in, int64_t n) { }", kLauncherName,
                              &def, nullptr));
  std::string w = make_wrapper_source(decl, def);
  EXPECT_NE(w.find("kb_candidate_launch((half*)(output), (void*)(input), n); });"), std::string::npos) << w;
}

TEST(KernelBenchWrapper, KeepsCLinkageOfALauncherInsideAnExternCBlock) {
  std::string src =
      "#include <cuda_runtime.h>\n"
      "extern \"C\" {\n"
      "__global__ void k(float* y) { y[0] = 1; }\n"
      "void launch_gpu_implementation(void* out, int64_t n) { k<<<1, 1>>>((float*)out); }\n"
      "}\n";
  Prototype def;
  std::string why;
  ASSERT_TRUE(find_definition(src, kLauncherName, &def, &why)) << why;
  EXPECT_TRUE(def.in_extern_c_block);
  EXPECT_TRUE(def.c_linkage);
  std::string w = make_wrapper_source(parse_decl("void launch_gpu_implementation(void* o, int64_t n);"), def);
  EXPECT_NE(w.find("extern \"C\" void kb_candidate_launch(void* out, int64_t n);"), std::string::npos) << w;
  // The block stays as it is: the renamed launcher keeps C linkage.
  EXPECT_EQ(prepare_kernel_source(src, kLauncherName), src);

  // On its own line, `extern "C"` is dropped: the renamed launcher is C++.
  std::string on_line = "extern \"C\" void launch_gpu_implementation(void* out, int64_t n) { }\n";
  ASSERT_TRUE(find_definition(on_line, kLauncherName, &def, &why));
  EXPECT_TRUE(def.c_linkage);
  EXPECT_FALSE(def.in_extern_c_block);
  w = make_wrapper_source(parse_decl("void launch_gpu_implementation(void* o, int64_t n);"), def);
  EXPECT_NE(w.find("\nvoid kb_candidate_launch(void* out, int64_t n);"), std::string::npos) << w;
  EXPECT_EQ(prepare_kernel_source(on_line, kLauncherName), "void launch_gpu_implementation(void* out, int64_t n) { }\n");

  // A block that closed before the launcher does not count.
  std::string closed = "extern \"C\" { int helper(); }\nvoid launch_gpu_implementation(void* o) { }\n";
  ASSERT_TRUE(find_definition(closed, kLauncherName, &def, &why));
  EXPECT_FALSE(def.in_extern_c_block);
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
  std::string m = code_only(src);
  EXPECT_EQ(m.size(), src.size());
  EXPECT_EQ(m, "a         \"    \"     \nf ' '");
}

TEST(KernelBenchDriverOutput, TheLastVerdictLineDecides) {
  std::string detail;
  EXPECT_EQ(runtime::driver_verdict_of("some log\npassed\n", &detail), DriverVerdict::passed);
  EXPECT_EQ(detail, "passed");
  EXPECT_EQ(runtime::driver_verdict_of("failed\nReference: 1.0\nGPU Output: 0.0\n", &detail), DriverVerdict::failed);
  EXPECT_NE(detail.find("failed | Reference: 1.0 | GPU Output: 0.0"), std::string::npos) << detail;
  // Words inside other words do not count; the last verdict line wins.
  EXPECT_EQ(runtime::driver_verdict_of("unpassed\nfailed\nall passed\n", &detail), DriverVerdict::passed);
  EXPECT_EQ(runtime::driver_verdict_of("nothing useful\nat all\n", &detail), DriverVerdict::none);
  EXPECT_EQ(detail, "nothing useful | at all");
  EXPECT_EQ(runtime::driver_verdict_of("", &detail), DriverVerdict::none);
}

TEST(KernelBenchBuild, FirstErrorLineOfACompiler) {
  EXPECT_EQ(first_error_line("a.cu(3): warning: x\na.cu(7): error: identifier \"foo\" is undefined\nmore\n"),
            "a.cu(7): error: identifier \"foo\" is undefined");
}

// The published dataset, where this checkout can see it (test data, never
// copied into the project): every init.cu fits its driver except the ones
// whose launcher takes other parameters than the driver passes.
TEST(KernelBenchDataset, EveryInitFitsItsDriverButTheKnownMisfits) {
  std::string data;
  const char* env = std::getenv("KERNELBLASTER_KERNELBENCH_DATA");
  for (std::string d : {std::string(env ? env : ""), std::string(KERNELBLASTER_SOURCE_DIR "/../shared/kernelbench-cuda")})
    if (!d.empty() && std::filesystem::is_directory(d + "/level1")) {
      data = d;
      break;
    }
  if (data.empty()) GTEST_SKIP() << "the KernelBench-CUDA dataset is not here";
  std::vector<std::string> misfits;
  int problems = 0;
  for (const auto& level : std::filesystem::directory_iterator(data)) {
    if (!level.is_directory()) continue;
    for (const auto& dir : std::filesystem::directory_iterator(level.path())) {
      if (!std::filesystem::exists(dir.path() / "driver.cpp")) continue;
      ++problems;
      Problem problem;
      std::string why;
      ASSERT_TRUE(load_problem(dir.path().string(), &problem, &why)) << why;
      KernelSource init;
      if (!load_kernel_source(problem, problem.init_path, &init, &why))
        misfits.push_back(level.path().filename().string() + "/" + dir.path().filename().string().substr(0, 3));
    }
  }
  std::sort(misfits.begin(), misfits.end());
  EXPECT_EQ(problems, 184);
  EXPECT_EQ(misfits, (std::vector<std::string>{"level1/056", "level1/067", "level1/068", "level1/070", "level1/075",
                                                "level1/077", "level1/083"}));
}

}  // namespace
}  // namespace kernelblaster::kernelbench

// The driver object's cache: rebuilt when an input's content or the command
// changes, reused otherwise; a failed command leaves no stamp behind.
TEST(KernelBenchBuildStep, RebuildsOnlyWhenTheCommandOrAnInputChanges) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("kb-build-step-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string input = (dir / "in.txt").string(), output = (dir / "out.txt").string();
  std::ofstream(input) << "one";
  kernelblaster::kernelbench::BuildStep step;
  step.argv = {"/bin/sh", "-c", "cat '" + input + "' > '" + output + "'"};
  step.output = output;
  step.inputs = {input};
  auto first = kernelblaster::kernelbench::run_build_step(step);
  EXPECT_TRUE(first.ok && !first.cached) << first.error;
  auto again = kernelblaster::kernelbench::run_build_step(step);
  EXPECT_TRUE(again.ok && again.cached);
  std::ofstream(input) << "two";
  auto changed = kernelblaster::kernelbench::run_build_step(step);
  EXPECT_TRUE(changed.ok && !changed.cached);
  step.argv[2] += " ";  // another command line
  EXPECT_FALSE(kernelblaster::kernelbench::run_build_step(step).cached);
  kernelblaster::kernelbench::BuildStep failing = step;
  failing.argv = {"/bin/sh", "-c", "echo 'error: no' >&2; exit 1"};
  auto failed = kernelblaster::kernelbench::run_build_step(failing);
  EXPECT_FALSE(failed.ok);
  EXPECT_FALSE(fs::exists(output + ".kbkey"));
  fs::remove_all(dir);
}

// Issue 41: a dataset spread over a job array. Every job takes a disjoint
// share, the shares cover the dataset, and sizes differ by one at most.
TEST(KernelBenchShard, SharesAreDisjointCoverEverythingAndStayBalanced) {
  std::vector<std::string> problems;
  for (int i = 0; i < 184; ++i) problems.push_back("level" + std::to_string(1 + i / 100) + "/" + std::to_string(1000 + i));
  std::sort(problems.begin(), problems.end());
  std::vector<std::string> seen;
  std::size_t smallest = problems.size(), largest = 0;
  for (int i = 0; i < 8; ++i) {
    const std::vector<std::string> share = kernelblaster::kernelbench::shard_of(problems, {i, 8});
    seen.insert(seen.end(), share.begin(), share.end());
    smallest = std::min(smallest, share.size());
    largest = std::max(largest, share.size());
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, problems);
  EXPECT_LE(largest - smallest, 1u);
  EXPECT_EQ(kernelblaster::kernelbench::shard_of(problems, {0, 1}), problems);
}

TEST(KernelBenchShard, TheIndexComesFromTheTextOrTheJobArray) {
  using kernelblaster::kernelbench::parse_shard;
  auto none = [](const char*) -> const char* { return nullptr; };
  EXPECT_EQ(parse_shard("2/8", none).text(), "2/8");
  // Slurm arrays may start at 1: the index is the task's place in the array.
  auto slurm = [](const char* n) -> const char* {
    const std::string name = n;
    return name == "SLURM_ARRAY_TASK_ID" ? "3" : name == "SLURM_ARRAY_TASK_MIN" ? "1" : nullptr;
  };
  EXPECT_EQ(parse_shard("auto/4", slurm).index, 2);
  auto k8s = [](const char* n) -> const char* { return std::string(n) == "JOB_COMPLETION_INDEX" ? "5" : nullptr; };
  EXPECT_EQ(parse_shard("auto/6", k8s).index, 5);
  for (const char* bad : {"8/8", "-1/4", "1", "1/0", "a/3", "1/x", ""})
    EXPECT_THROW(parse_shard(bad, none), std::invalid_argument) << bad;
  EXPECT_THROW(parse_shard("auto/4", none), std::invalid_argument);
  EXPECT_THROW(parse_shard("auto/4", k8s), std::invalid_argument);  // index 5 of 4 jobs
}
