#include "harness/harness_writer.h"

#include <gtest/gtest.h>

#include "harness/harness_text.h"
#include "harness/launcher_scan.h"

using namespace kernelblaster::harness;

namespace {

LauncherParam buffer(const std::string& name, const std::string& type, bool writable, const std::string& element) {
  LauncherParam p;
  p.name = name;
  p.type = p.canonical = type;
  p.kind = ParamKind::buffer;
  p.writable = writable;
  p.element = element;
  if (!element.empty()) p.element_from = "parameter type";
  return p;
}

LauncherParam scalar(const std::string& name, const std::string& type, ParamKind kind) {
  LauncherParam p;
  p.name = name;
  p.type = p.canonical = type;
  p.kind = kind;
  return p;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(HarnessWriter, ADraftOfASourceLibclangCouldNotReadWhollyDoesNotClaimToCompile) {
  Launcher l;
  l.name = "run";
  l.line = 3;
  l.params = {{"y", "float *", "float *", ParamKind::buffer, true, "f32"}, {"n", "int", "int", ParamKind::dim}};
  const HarnessDraft read = draft_harness(l, "k.cu", "k", true);
  EXPECT_TRUE(has(read.text, "It compiles as it is;"));
  const HarnessDraft unread = draft_harness(l, "k.cu", "k", true, {"k.cu:1: 'mytypes.h' file not found"});
  EXPECT_FALSE(has(unread.text, "It compiles as it is"));
  ASSERT_GE(unread.confirm.size(), 1u);
  EXPECT_TRUE(has(unread.confirm[0], "libclang could not read the source: k.cu:1: 'mytypes.h' file not found"));
  EXPECT_EQ(unread.confirm.size(), read.confirm.size() + 1);
}

}  // namespace

TEST(HarnessWriter, TheIssuesLauncherBecomesAOneDimensionalHarness) {
  Launcher l;
  l.name = "scale_shift";
  l.return_type = "void";
  l.line = 12;
  l.params = {buffer("x", "const float *", false, "f32"), buffer("y", "float *", true, "f32"),
              scalar("a", "float", ParamKind::real), scalar("b", "float", ParamKind::real),
              scalar("n", "unsigned long", ParamKind::dim)};
  HarnessDraft d = draft_harness(l, "scale.cu", "scale", true);
  EXPECT_EQ(d.file_name, "scale_harness.cu");
  EXPECT_TRUE(has(d.text, "void scale_shift(const float * x, float * y, float a, float b, unsigned long n);"));
  EXPECT_TRUE(has(d.text, ".input(\"x\", DType::f32, {\"n\"}, Distribution::normal(0, 1))"));
  EXPECT_TRUE(has(d.text, ".output(\"y\", DType::f32, {\"n\"})"));
  EXPECT_TRUE(has(d.text, "h.size(\"small\", {{\"n\", 4096}})"));
  EXPECT_TRUE(has(d.text, ".validation_size(\"odd\", {{\"n\", 1000003}})"));
  EXPECT_TRUE(has(d.text, "static_cast<unsigned long>(c.dim(\"n\"))"));
  EXPECT_EQ(d.confirm.size(), 2u);  // a and b
}

TEST(HarnessWriter, MatmulDimensionsShapeABAndC) {
  Launcher l;
  l.name = "gemm";
  l.return_type = "void";
  l.params = {buffer("A", "const __half *", false, "f16"), buffer("B", "const __half *", false, "f16"),
              buffer("C", "__half *", true, "f16"), scalar("M", "int", ParamKind::dim),
              scalar("N", "int", ParamKind::dim), scalar("K", "int", ParamKind::dim)};
  HarnessDraft d = draft_harness(l, "g.cu", "g", false);
  EXPECT_EQ(d.file_name, "g_gemm_harness.cu");
  EXPECT_TRUE(has(d.text, ".input(\"A\", DType::f16, {\"M\", \"K\"}"));
  EXPECT_TRUE(has(d.text, ".input(\"B\", DType::f16, {\"K\", \"N\"}"));
  EXPECT_TRUE(has(d.text, ".output(\"C\", DType::f16, {\"M\", \"N\"})"));
  EXPECT_FALSE(has(d.text, "CONFIRM shape"));
}

TEST(HarnessWriter, VoidPointersFollowTheirNamesAndTheKernels) {
  SourceScan scan;
  Launcher l;
  l.name = "launch_gpu_implementation";
  l.return_type = "void";
  l.extern_c = true;
  l.params = {buffer("input", "void *", true, ""), buffer("output", "void *", true, ""),
              buffer("weights", "const void *", false, ""), scalar("n", "long", ParamKind::dim),
              scalar("eps", "double", ParamKind::real), scalar("stream", "cudaStream_t", ParamKind::stream)};
  scan.launchers.push_back(l);
  scan.kernel_pointers = {{"input", "f16"}, {"output", "f16"}};
  infer_void_elements(scan);
  const Launcher& got = scan.launchers[0];
  EXPECT_EQ(got.params[0].element, "f16");
  EXPECT_EQ(got.params[0].element_from, "kernel parameter 'input'");
  EXPECT_EQ(got.params[2].element, "f16");  // no kernel parameter of that name: the kernels' only type
  HarnessDraft d = draft_harness(got, "init.cu", "init", true);
  EXPECT_TRUE(has(d.text, "extern \"C\" void launch_gpu_implementation("));
  EXPECT_TRUE(has(d.text, ".output(\"output\", DType::f16"));
  EXPECT_TRUE(has(d.text, ".input(\"input\", DType::f16"));
  EXPECT_TRUE(has(d.text, "(void *)const_cast<__half*>(c.in<__half>(\"input\"))"));
  EXPECT_TRUE(has(d.text, "(void *)c.out<__half>(\"output\")"));
  EXPECT_TRUE(has(d.text, "1e-5 /* CONFIRM eps */"));
  EXPECT_TRUE(has(d.text, "0 /* the default stream */"));
}

TEST(HarnessWriter, UnknownTypesAndMissingSizesAreNamedForTheUser) {
  Launcher l;
  l.name = "fill";
  l.namespaces = {"lib", "detail"};
  l.return_type = "int";
  LauncherParam opaque = scalar("cfg", "Config", ParamKind::other);
  l.params = {buffer("p", "void *", true, ""), opaque};
  HarnessDraft d = draft_harness(l, "f.cu", "f", true);
  EXPECT_TRUE(has(d.text, "namespace lib {\nnamespace detail {\nint fill(void * p, Config cfg);\n}\n}\n"));
  EXPECT_TRUE(has(d.text, "lib::detail::fill("));
  EXPECT_TRUE(has(d.text, ".output(\"p\", DType::f32, {\"n\"})"));
  ASSERT_EQ(d.confirm.size(), 4u);
  EXPECT_TRUE(has(d.confirm[0], "no sizes"));
  EXPECT_TRUE(has(d.confirm[1], "first writable pointer"));
  EXPECT_TRUE(has(d.confirm[2], "element type of 'p'"));
  EXPECT_TRUE(has(d.confirm[3], "'cfg' (Config) is passed as {}"));
}

TEST(HarnessWriter, ElementTypesFromCanonicalSpellings) {
  EXPECT_EQ(element_of("const float"), "f32");
  EXPECT_EQ(element_of("__half"), "f16");
  EXPECT_EQ(element_of("const __nv_bfloat16"), "bf16");
  EXPECT_EQ(element_of("long"), "i64");
  EXPECT_EQ(element_of("unsigned char"), "u8");
  EXPECT_EQ(element_of("void"), "");
  EXPECT_EQ(element_of("float2"), "");
}

// Issue 27: a launcher that returns its result (`float sum_of_squares(...)`)
// has that result as an output, compared as the buffers are.
TEST(HarnessWriter, ALaunchersReturnValueIsAnOutput) {
  Launcher l;
  l.name = "sum_of_squares";
  l.return_type = "float";
  l.params = {buffer("x", "const float *", false, "f32"), scalar("n", "int", ParamKind::dim)};
  HarnessDraft d = draft_harness(l, "stats.cu", "stats", true);
  EXPECT_TRUE(has(d.text, ".output(\"returned\", DType::f32, {1})  // the launcher's return value")) << d.text;
  EXPECT_TRUE(has(d.text, "const auto kb_returned = sum_of_squares(")) << d.text;
  EXPECT_TRUE(has(d.text, "cudaMemcpy(c.out<float>(\"returned\"), &kb_value, sizeof kb_value,")) << d.text;
  EXPECT_EQ(returned_element("unsigned long"), "i64");
  EXPECT_EQ(returned_element("const double"), "f64");
  EXPECT_EQ(returned_element("void"), "");
  EXPECT_EQ(returned_element("float *"), "");
  l.params.push_back(scalar("returned", "int", ParamKind::dim));
  EXPECT_EQ(returned_output(l), "returned_");
  l.return_type = "void";
  EXPECT_FALSE(has(draft_harness(l, "stats.cu", "stats", true).text, "kb_returned"));
}

// One harness per source: every launcher called, each one's names prefixed.
TEST(HarnessWriter, SeveralLaunchersShareOneHarnessNamedAfterTheSource) {
  Launcher first;
  first.name = "scale";
  first.return_type = "void";
  first.params = {buffer("x", "const float *", false, "f32"), buffer("y", "float *", true, "f32"),
                  scalar("n", "int", ParamKind::dim)};
  Launcher second = first;
  second.name = "shift";
  HarnessDraft d = draft_harness(std::vector<Launcher>{first, second}, "ops.cu", "ops");
  EXPECT_EQ(d.file_name, "ops_harness.cu");
  EXPECT_TRUE(has(d.text, "Harness h(\"ops\")")) << d.text;
  EXPECT_TRUE(has(d.text, ".size(\"small\", {{\"scale_n\", 4096}, {\"shift_n\", 4096}})")) << d.text;
  EXPECT_TRUE(has(d.text, ".output(\"shift_y\", DType::f32, {\"shift_n\"})")) << d.text;
  EXPECT_TRUE(has(d.text, "scale(\n")) << d.text;
  EXPECT_TRUE(has(d.text, "shift(\n")) << d.text;
  EXPECT_EQ(draft_harness(std::vector<Launcher>{first}, "ops.cu", "ops").text, draft_harness(first, "ops.cu", "ops", true).text);
}
