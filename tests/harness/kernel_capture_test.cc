// Kernel-level captures (harness/kernel_capture.h) from launch records written
// the way the kernel recorder writes them: signatures read from demangled
// names, launches a harness cannot replay left out with the reason, the
// launcher the harness defines, and the build step of a source whose kernels
// are launched from main() and through launchers taking a handle.
#include "harness/kernel_capture.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "recorder/kernel_signature.h"
#include "recorder/launch_line.h"
#include "harness/capture_harness.h"
#include "harness/capture_shim.h"
#include "harness/launcher_state.h"
#include "harness/capture_step.h"
#include "harness/harness_coverage.h"
#include "harness/kernel_names.h"
#include "harness/launcher_scan.h"

namespace fs = std::filesystem;
using namespace kernelblaster;
using namespace kernelblaster::harness;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

recorder::ParamBytes scalar(int v) {
  recorder::ParamBytes p;
  p.bytes.resize(4);
  std::memcpy(p.bytes.data(), &v, 4);
  return p;
}

recorder::ParamBytes buffer(std::uint64_t address, std::uint64_t extent, bool written, double lo = 0, double hi = 0) {
  recorder::ParamBytes p;
  p.bytes.resize(8);
  std::memcpy(p.bytes.data(), &address, 8);
  p.buffer = true;
  p.extent = extent;
  p.written_known = true;
  p.written = written;
  if (lo < hi) p.min = lo, p.max = hi;
  return p;
}

recorder::LaunchLine launch(const std::string& mangled, const std::string& name, unsigned grid, unsigned block,
                            std::vector<recorder::ParamBytes> params) {
  recorder::LaunchLine l;
  l.kernel = mangled;
  l.demangled = name;
  l.grid[0] = grid;
  l.block[0] = block;
  l.params = std::move(params);
  return l;
}

class KernelCaptureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("kb-kernel-capture-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir);
    fs::create_directories(dir / "launches");
  }
  void TearDown() override { fs::remove_all(dir); }
  void record(const recorder::LaunchLine& l) {
    std::ofstream(dir / "launches" / recorder::kernel_file_name(l.kernel), std::ios::app) << recorder::line_json(l) << "\n";
  }
  fs::path dir;
};

}  // namespace

TEST(KernelSignature, ReadsTemplatesNamespacesAndParameterTypes) {
  auto s = recorder::read_signature("void ns::tile<64, (Layout)1>(int, float const*, float*, Params)");
  ASSERT_TRUE(s.ok);
  EXPECT_EQ(s.name, "ns::tile<64, (Layout)1>");
  EXPECT_EQ(s.base_name, "tile");
  ASSERT_EQ(s.params.size(), 4u);
  EXPECT_EQ(s.params[1], "float const*");
  EXPECT_TRUE(recorder::is_pointer(s.params[1]));
  EXPECT_TRUE(recorder::points_to_const(s.params[1]));
  EXPECT_FALSE(recorder::points_to_const(s.params[2]));
  EXPECT_EQ(recorder::pointee_dtype(s.params[1]), "f32");
  EXPECT_EQ(recorder::pointee_dtype("unsigned char*"), "u8");
  EXPECT_EQ(recorder::pointee_dtype("float4 const*"), "");
  EXPECT_EQ(recorder::scalar_dtype("int"), "i32");
  EXPECT_EQ(recorder::scalar_dtype("Params"), "");
  auto plain = recorder::read_signature("(anonymous namespace)::invert(unsigned char*, int)");
  ASSERT_TRUE(plain.ok);
  EXPECT_EQ(plain.base_name, "invert");
  EXPECT_TRUE(recorder::read_signature("k()").params.empty());
  EXPECT_FALSE(recorder::read_signature("_Z1kv").ok);  // not demangled: no types
}

TEST_F(KernelCaptureTest, EachKernelsLaunchesComeBackFromItsOwnFileAndBadLinesAreNamed) {
  record(launch("_Z5scalePKfPfi", "scale(float const*, float*, int)", 4, 256,
                {buffer(0x7000, 4096, false, -2, 3), buffer(0x9000, 4096, true), scalar(1024)}));
  record(launch("_Z5scalePKfPfi", "scale(float const*, float*, int)", 8, 256,
                {buffer(0x7000, 8192, false, -2, 3), buffer(0x9000, 8192, true), scalar(2048)}));
  record(launch("_Z4fillPhi", "fill(unsigned char*, int)", 2, 128, {buffer(0x5000, 256, true), scalar(256)}));
  std::ofstream(dir / "launches" / "k_0000000000000bad.jsonl") << "{not json\n";
  KernelRecords r = read_kernel_records((dir / "launches").string());
  ASSERT_EQ(r.kernels.size(), 2u);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_TRUE(has(r.errors[0], "k_0000000000000bad.jsonl:1"));
  const KernelRecording& scale = r.kernels[0].kernel == "_Z5scalePKfPfi" ? r.kernels[0] : r.kernels[1];
  ASSERT_EQ(scale.launches.size(), 2u);
  EXPECT_EQ(scale.launches[1].grid[0], 8u);
  EXPECT_EQ(scale.launches[1].params[1].extent, 8192);
  EXPECT_TRUE(read_kernel_records((dir / "none").string()).kernels.empty());
}

TEST_F(KernelCaptureTest, ARecordingBecomesALauncherTheHarnessDefines) {
  recorder::ParamBytes raw;  // a struct passed by value
  raw.bytes = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  record(launch("_Z10block_sumsILi128EEvPKfPf6Paramsi", "void block_sums<128>(float const*, float*, Params, int)", 512,
                128, {buffer(0x7000, 262144, false, 1, 7), buffer(0x9000, 2048, true), raw, scalar(65536)}));
  // A launch with a host pointer cannot be replayed.
  record(launch("_Z10block_sumsILi128EEvPKfPf6Paramsi", "void block_sums<128>(float const*, float*, Params, int)", 4,
                128, {scalar(1), buffer(0x9000, 2048, true), raw, scalar(512)}));
  KernelRecords r = read_kernel_records((dir / "launches").string());
  ASSERT_EQ(r.kernels.size(), 1u);
  r.kernels[0].launches[1].params[0].bytes = {1, 2, 3, 4, 5, 6, 7, 8};  // non-zero, not a buffer
  KernelCapture kc = kernel_capture(r.kernels[0], "sums.cu");
  EXPECT_EQ(kc.capture.launcher.name, "k_block_sums_128");
  ASSERT_EQ(kc.capture.calls.size(), 1u);
  ASSERT_EQ(kc.left_out.size(), 1u);
  EXPECT_TRUE(has(kc.left_out[0], "argument 0 (float const*) was not device memory")) << kc.left_out[0];
  EXPECT_TRUE(has(kc.definition, "kernelblaster::kernel_symbol(\"_Z10block_sumsILi128EEvPKfPf6Paramsi\")"));
  EXPECT_TRUE(has(kc.definition, "alignas(16) unsigned char kb_a2[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};"));
  EXPECT_TRUE(has(kc.definition, "int kb_a3 = static_cast<int>(p3);"));
  EXPECT_TRUE(has(kc.definition, "cudaLaunchKernel(kernel, dim3(grid_x, grid_y, grid_z)"));
  HarnessDraft d = synthesize_harness({kc.capture}, {kc.definition});
  EXPECT_TRUE(has(d.text, kKernelReplayMarker));
  EXPECT_TRUE(has(d.text, ".input(\"p0\", DType::f32, {\"p3\"}, Distribution::uniform(1, 7))")) << d.text;
  EXPECT_TRUE(has(d.text, ".inout(\"p1\", DType::f32, {\"grid_x\"}")) << d.text;  // one sum per block
  EXPECT_TRUE(has(d.text, "{\"grid_x\", 512}")) << d.text;
  EXPECT_FALSE(has(d.text, "void k_block_sums_128(const float * p0, float * p1, long long p3, long long grid_x, "
                           "long long grid_y, long long grid_z, long long block_x, long long block_y, long long block_z, "
                           "long long shared_bytes);"))
      << "the launcher is defined, not declared";
}

// An optional pointer, null in one launch: that launch is left out, never
// given the other's recorded address.
TEST_F(KernelCaptureTest, ALaunchPassingNullWhereTheFirstPassedABufferIsLeftOut) {
  recorder::ParamBytes null_pointer;
  null_pointer.bytes.assign(8, 0);
  record(launch("_Z4biasPfPKfi", "bias(float*, float const*, int)", 4, 256,
                {buffer(0x9000, 4096, true), buffer(0x7000, 4096, false), scalar(1024)}));
  record(launch("_Z4biasPfPKfi", "bias(float*, float const*, int)", 8, 256,
                {buffer(0x9000, 8192, true), null_pointer, scalar(2048)}));
  KernelRecords r = read_kernel_records((dir / "launches").string());
  KernelCapture kc = kernel_capture(r.kernels[0], "bias.cu");
  ASSERT_EQ(kc.capture.calls.size(), 1u);
  ASSERT_EQ(kc.left_out.size(), 1u);
  EXPECT_TRUE(has(kc.left_out[0], "argument 1 (float const*) is null where the first launch passed a buffer")) << kc.left_out[0];
}

TEST_F(KernelCaptureTest, ABufferPassedTwiceStaysOneBuffer) {
  record(launch("_Z4axpyPfS_f", "axpy(float*, float*, float)", 4, 256,
                {buffer(0x9000, 4096, true), buffer(0x9000, 4096, true), scalar(0)}));
  KernelRecords r = read_kernel_records((dir / "launches").string());
  KernelCapture kc = kernel_capture(r.kernels[0], "axpy.cu");
  EXPECT_TRUE(has(kc.definition, "void* kb_a1 = kb_a0;")) << kc.definition;
  ASSERT_EQ(kc.capture.launcher.params.size(), 2u + 7u);  // p0, p2 and the launch configuration
}

// The one fact that lets the tuner offer __restrict__ on a kernel: in every
// recorded launch its buffers' ranges (pointer to allocation end) were apart.
TEST_F(KernelCaptureTest, BuffersApartInEveryRecordedLaunchAreSaidAndNoOthers) {
  const std::string note = std::string(kDisjointBuffersNote) + "axpy\n";
  record(launch("_Z4axpyPfS_f", "axpy(float*, float*, float)", 4, 256,
                {buffer(0x9000, 4096, true), buffer(0xA000, 4096, false), scalar(0)}));
  record(launch("_Z4axpyPfS_f", "axpy(float*, float*, float)", 8, 256,
                {buffer(0x20000, 8192, true), buffer(0x10000, 8192, false), scalar(0)}));
  KernelRecords apart = read_kernel_records((dir / "launches").string());
  EXPECT_TRUE(has(kernel_capture(apart.kernels[0], "axpy.cu").definition, note));
  // A third launch whose second pointer lies inside the first's allocation.
  record(launch("_Z4axpyPfS_f", "axpy(float*, float*, float)", 8, 256,
                {buffer(0x40000, 8192, true), buffer(0x40800, 6144, false), scalar(0)}));
  KernelRecords inside = read_kernel_records((dir / "launches").string());
  EXPECT_FALSE(has(kernel_capture(inside.kernels[0], "axpy.cu").definition, note));
}

TEST_F(KernelCaptureTest, KernelsLaunchedFromMainAreHarnessedAndTheOthersNamed) {
  if (!have_parser()) GTEST_SKIP() << "built without libclang";
  const fs::path source = dir / "app.cu";
  std::ofstream(source) << "__global__ void fill(unsigned char* p, int n) { int i = threadIdx.x; if (i < n) p[i] = 1; }\n"
                           "__global__ void spare(float* p) { p[0] = 0; }\n"
                           "int main() { unsigned char* p; cudaMalloc(&p, 256); fill<<<1, 256>>>(p, 256); return 0; }\n";
  CaptureStep step;
  step.source = source.string();
  step.harness = (dir / "gen" / "app_harness.cu").string();
  step.lines = (dir / "gen" / "app.calls.jsonl").string();
  step.runtime_dir = (dir / "gen" / "runtime").string();
  step.kernel_records = (dir / "launches").string();
  CaptureOutcome waiting = prepare_capture_step(step);
  EXPECT_EQ(waiting.state, CaptureOutcome::State::recording);
  EXPECT_TRUE(waiting.shim_text.empty()) << "main() is no launcher: nothing to wrap";
  EXPECT_TRUE(has(waiting.note, "recording the launches of fill, spare into ")) << waiting.note;
  record(launch("_Z4fillPhi", "fill(unsigned char*, int)", 1, 256, {buffer(0x5000, 256, true), scalar(256)}));
  record(launch("_Z5otherPf", "other(float*)", 1, 1, {buffer(0x6000, 4, true)}));  // another source's kernel
  CaptureOutcome o = prepare_capture_step(step);
  ASSERT_EQ(o.state, CaptureOutcome::State::harness_ready) << o.note;
  EXPECT_EQ(o.note, "harness synthesized from 1 recorded launch of fill; ");
  ASSERT_EQ(o.unverified, std::vector<std::string>{"spare"});
  EXPECT_EQ(o.unverified_why, "it was never launched while launches were recorded");
  std::ifstream in(step.harness);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_TRUE(has(text, "kernel_symbol(\"_Z4fillPhi\")"));
  EXPECT_FALSE(has(text, "_Z5otherPf"));
}

// Two programs of one build tree (Tony-Tan/CUDA_Freshman) each define a
// `warmup` kernel with other parameters; the recorder's directory holds
// both. Each source's harness replays its own, and a source with two
// overloads of one name gets two launchers, not one declared twice.
TEST_F(KernelCaptureTest, AKernelOfTheSameNameInAnotherProgramIsLeftOutAndOverloadsGetTheirOwnLaunchers) {
  if (!have_parser()) GTEST_SKIP() << "built without libclang";
  const fs::path source = dir / "reduce.cu";
  std::ofstream(source) << "__global__ void warmup(int* in, int* out, unsigned int n) { out[0] = in[0] + n; }\n"
                           "__global__ void scale(float* p) { p[0] *= 2; }\n"
                           "__global__ void scale(float* p, int n) { p[0] *= n; }\n"
                           "int main() { return 0; }\n";
  CaptureStep step;
  step.source = source.string();
  step.harness = (dir / "gen" / "reduce_harness.cu").string();
  step.lines = (dir / "gen" / "reduce.calls.jsonl").string();
  step.runtime_dir = (dir / "gen" / "runtime").string();
  step.kernel_records = (dir / "launches").string();
  record(launch("_Z6warmupPiS_j", "warmup(int*, int*, unsigned int)", 1, 32,
                {buffer(0x5000, 128, false), buffer(0x6000, 128, true), scalar(32)}));
  record(launch("_Z6warmupPfS_ii", "warmup(float*, float*, int, int)", 1, 32,  // the other program's
                {buffer(0x7000, 128, false), buffer(0x8000, 128, true), scalar(32), scalar(1)}));
  record(launch("_Z5scalePf", "scale(float*)", 1, 1, {buffer(0x9000, 4, true)}));
  record(launch("_Z5scalePfi", "scale(float*, int)", 1, 1, {buffer(0xa000, 4, true), scalar(3)}));
  CaptureOutcome o = prepare_capture_step(step);
  ASSERT_EQ(o.state, CaptureOutcome::State::harness_ready) << o.note;
  std::ifstream in(step.harness);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_TRUE(has(text, "kernel_symbol(\"_Z6warmupPiS_j\")"));
  EXPECT_FALSE(has(text, "_Z6warmupPfS_ii"));
  EXPECT_TRUE(has(text, "kernel_symbol(\"_Z5scalePf\")"));
  EXPECT_TRUE(has(text, "kernel_symbol(\"_Z5scalePfi\")"));
  EXPECT_TRUE(has(text, "k_scale_2")) << "the second overload's launcher";
  EXPECT_EQ(kernel_parameter_counts("__global__ void k(void) {}\n__global__ void k(int a, float* b) {}", "k"),
            (std::vector<std::size_t>{0, 2}));
  EXPECT_TRUE(kernel_parameter_counts("__global__ void other(int a) {}", "k").empty());
  EXPECT_EQ(kernel_parameter_counts("__global__ void k(Pair<int, float>* p, int n) {}", "k"),
            std::vector<std::size_t>{2});  // a comma inside template arguments separates nothing
}

// A histogram as sample code writes it (issue 72): its scratch buffer is a
// file-scope pointer an init function allocates, and the launcher reads
// it. Called alone from its recorded arguments it would launch on a null
// buffer, and the original would crash under its harness.
const char* const kHistogram =
    "static unsigned int* d_partial;\n"
    "static const int kBins = 64;\n"
    "__global__ void partial_kernel(unsigned int* partial, const unsigned int* data, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(&partial[data[i] % kBins], 1u); }\n"
    "__global__ void merge_kernel(unsigned int* hist, const unsigned int* partial, int count) {\n"
    "  hist[threadIdx.x] = partial[threadIdx.x] + count; }\n"
    "void init_histogram() { cudaMalloc((void**)&d_partial, kBins * sizeof(unsigned int)); }\n"
    "void close_histogram() { cudaFree(d_partial); }\n"
    "void histogram(unsigned int* d_hist, void* d_data, unsigned int bytes) {\n"
    "  partial_kernel<<<16, 256>>>(d_partial, (unsigned int*)d_data, bytes / 4);\n"
    "  merge_kernel<<<1, kBins>>>(d_hist, d_partial, 16);\n"
    "}\n";

Launcher launcher_named(const std::string& text, const std::string& name) {
  Launcher l;
  l.name = name;
  l.name_offset = text.find("void " + name + "(") + 5;
  l.end_offset = text.find("\n}\n", l.name_offset) + 2;
  return l;
}

TEST(LauncherState, ALauncherReadingWhatAnotherFunctionSetsIsNamed) {
  EXPECT_EQ(state_set_elsewhere(kHistogram, launcher_named(kHistogram, "histogram")),
            "reads d_partial, which init_histogram sets");
  // A launcher that sets its state itself, reads only constants, or whose
  // parameter hides the variable needs nothing from another function.
  const std::string lazy = std::string(kHistogram).replace(
      std::string(kHistogram).find("  partial_kernel<<<"), 0, "  if (!d_partial) cudaMalloc(&d_partial, 256);\n");
  EXPECT_EQ(state_set_elsewhere(lazy, launcher_named(lazy, "histogram")), "");
  const std::string constants = "namespace {\nconst int kBlock = 256;\nint g_calls = 0;\n}\n"
                                "void count() { g_calls = 1; }\n"
                                "void run(float* p, int n) {\n  k<<<n / kBlock, kBlock>>>(p, n);\n}\n";
  EXPECT_EQ(state_set_elsewhere(constants, launcher_named(constants, "run")), "");
  Launcher hidden = launcher_named(kHistogram, "histogram");
  hidden.params.push_back({"d_partial", "unsigned int *", "unsigned int *", ParamKind::buffer, true, "u32", ""});
  EXPECT_EQ(state_set_elsewhere(kHistogram, hidden), "");
  const std::string in_namespace = "namespace img {\nfloat* g_lut;\nvoid setup() { cudaMalloc(&g_lut, 1024); }\n"
                                   "void apply(float* p, int n) {\n  k<<<1, 32>>>(p, g_lut, n);\n}\n}\n";
  EXPECT_EQ(state_set_elsewhere(in_namespace, launcher_named(in_namespace, "apply")), "reads g_lut, which setup sets");
}

// Its recorded calls give no harness; its kernels' recorded launches do,
// and the line says why the launcher is not replayed.
TEST_F(KernelCaptureTest, ALauncherThatNeedsStateSetElsewhereIsReplayedByItsKernels) {
  if (!have_parser()) GTEST_SKIP() << "built without libclang";
  const fs::path source = dir / "histogram.cu";
  std::ofstream(source) << kHistogram;
  CaptureStep step;
  step.source = source.string();
  step.harness = (dir / "gen" / "histogram_harness.cu").string();
  step.lines = (dir / "gen" / "calls.jsonl").string();
  step.runtime_dir = (dir / "gen" / "runtime").string();
  const SourceScan scan = scan_source(source.string(), {});
  ASSERT_EQ(scan.launchers.size(), 1u);
  fs::create_directories(dir / "gen");
  std::ofstream(step.lines) << R"({"source": )" << nlohmann::json(fs::absolute(source).lexically_normal().string()).dump()
                            << R"(, "launcher": )" << launcher_json(scan.launchers[0])
                            << R"(, "args": [{"elements": 64, "written": true}, {"elements": 4096, "written": false},)"
                            << R"( {"value": "16384"}]})" << "\n";
  CaptureOutcome o = prepare_capture_step(step);  // no kernel recorder
  EXPECT_EQ(o.state, CaptureOutcome::State::unavailable);
  EXPECT_EQ(o.note, "no harness: histogram is not replayed: it reads d_partial, which init_histogram sets, which its "
                    "recorded arguments do not give (the kernel recorder would record its kernels' launches; this "
                    "build has none)");
  step.kernel_records = (dir / "launches").string();
  record(launch("_Z14partial_kernelPjPKji", "partial_kernel(unsigned int*, const unsigned int*, int)", 16, 256,
                {buffer(0x5000, 256, true), buffer(0x6000, 16384, false), scalar(4096)}));
  record(launch("_Z12merge_kernelPjPKji", "merge_kernel(unsigned int*, const unsigned int*, int)", 1, 64,
                {buffer(0x7000, 256, true), buffer(0x5000, 256, false), scalar(16)}));
  o = prepare_capture_step(step);
  ASSERT_EQ(o.state, CaptureOutcome::State::harness_ready) << o.note;
  EXPECT_TRUE(has(o.note, "histogram is not replayed: it reads d_partial, which init_histogram sets")) << o.note;
  EXPECT_TRUE(o.launchers_replayed.empty());
  EXPECT_TRUE(o.unverified.empty());
  std::ifstream in(step.harness);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_TRUE(has(text, "kernel_symbol(\"_Z14partial_kernelPjPKji\")"));
  EXPECT_TRUE(has(text, "kernel_symbol(\"_Z12merge_kernelPjPKji\")"));
}

// Whatever the cause, an original that failed under the harness replaying
// a launcher's calls is not replayed by that launcher again (the build
// step says so: cli/build_command.cc), until the source changes.
TEST_F(KernelCaptureTest, ALauncherTheOriginalFailedUnderIsReplayedByItsKernelsUntilTheSourceChanges) {
  if (!have_parser()) GTEST_SKIP() << "built without libclang";
  const fs::path source = dir / "app.cu";
  std::ofstream(source) << "__global__ void fill(unsigned char* p, int n) { int i = threadIdx.x; if (i < n) p[i] = 1; }\n"
                           "void run_fill(unsigned char* p, int n) {\n  fill<<<1, 256>>>(p, n);\n}\n";
  CaptureStep step;
  step.source = source.string();
  step.harness = (dir / "gen" / "app_harness.cu").string();
  step.lines = (dir / "gen" / "calls.jsonl").string();
  step.runtime_dir = (dir / "gen" / "runtime").string();
  step.kernel_records = (dir / "launches").string();
  const SourceScan scan = scan_source(source.string(), {});
  ASSERT_EQ(scan.launchers.size(), 1u);
  fs::create_directories(dir / "gen");
  std::ofstream(step.lines) << R"({"source": )" << nlohmann::json(fs::absolute(source).lexically_normal().string()).dump()
                            << R"(, "launcher": )" << launcher_json(scan.launchers[0])
                            << R"(, "args": [{"elements": 256, "written": true}, {"value": "256"}]})" << "\n";
  record(launch("_Z4fillPhi", "fill(unsigned char*, int)", 1, 256, {buffer(0x5000, 256, true), scalar(256)}));
  CaptureOutcome o = prepare_capture_step(step);
  ASSERT_EQ(o.state, CaptureOutcome::State::harness_ready) << o.note;
  EXPECT_EQ(o.launchers_replayed, std::vector<std::string>{"run_fill"});
  refuse_launchers(step, o.launchers_replayed, "the original fails with its harness: illegal address in run 0");
  o = prepare_capture_step(step);
  ASSERT_EQ(o.state, CaptureOutcome::State::harness_ready) << o.note;
  EXPECT_TRUE(o.launchers_replayed.empty());
  EXPECT_TRUE(has(o.note, "run_fill is not replayed: the original failed under its recorded calls (the original fails "
                          "with its harness: illegal address in run 0)"))
      << o.note;
  std::ofstream(source, std::ios::app) << "// edited\n";
  EXPECT_EQ(prepare_capture_step(step).launchers_replayed, std::vector<std::string>{"run_fill"});
}

TEST(KernelNames, DefinitionsAreReadFromTextWithoutAParser) {
  const std::string text =
      "// __global__ void commented(int* p) {}\n"
      "template <const int BM, const int BN>\n"
      "__global__ void __launch_bounds__((BM * BN) / 64, 1)\n"
      "    sgemm2DBlocktiling(int M, float* A) {\n"
      "  const char* s = \"__global__ void quoted() {}\";\n"
      "}\n"
      "__global__ void declared_only(float* p);\n"
      "extern \"C\" __global__ void plain(float* __restrict__ p, int n) { p[0] = n; }\n"
      "namespace ns { __global__ void inner() {} }\n"
      "__global__ void plain(float* p, int n, int m) { }\n";
  EXPECT_EQ(kernel_definitions_in_text(text), (std::vector<std::string>{"sgemm2DBlocktiling", "plain", "inner"}));
}

TEST(KernelNames, QuotedIncludesAreFollowed) {
  const fs::path dir = fs::temp_directory_path() / "kb-kernel-names";
  fs::remove_all(dir);
  fs::create_directories(dir / "src" / "kernels");
  std::ofstream(dir / "src" / "runner.cu") << "#include \"kernels.cuh\"\n#include <cstdio>\nvoid run() {}\n";
  std::ofstream(dir / "src" / "kernels.cuh") << "#pragma once\n#include \"kernels/1_naive.cuh\"\n";
  std::ofstream(dir / "src" / "kernels" / "1_naive.cuh") << "__global__ void sgemm_naive(float* C) { C[0] = 0; }\n";
  EXPECT_EQ(kernels_defined_in((dir / "src" / "runner.cu").string(), {}, "/usr/local/cuda/include"),
            std::vector<std::string>{"sgemm_naive"});
  fs::remove_all(dir);
}

// A harness of the user's that runs nothing of its source is a warning.
TEST(HarnessCoverage, AHarnessNamingNothingOfItsSourceIsAWarning) {
  if (!have_parser()) GTEST_SKIP() << "built without libclang: nothing is said";
  const fs::path dir = fs::temp_directory_path() / "kb-harness-coverage";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "x.cu") << "__global__ void x_kernel(float* y) { y[0] = 1; }\n"
                                 "void run_x(float* y) { x_kernel<<<1, 1>>>(y); }\n";
  std::ofstream(dir / "good_harness.cu") << "void run_x(float* y);\nint main() { /* ... */ run_x(nullptr); }\n";
  std::ofstream(dir / "kernel_harness.cu") << "__global__ void x_kernel(float* y);\n";
  std::ofstream(dir / "stale_harness.cu") << "void run_x_old(float* y);\nint main() { run_x_old(nullptr); }\n";
  const std::string src = (dir / "x.cu").string();
  EXPECT_EQ(harness_coverage_warning((dir / "good_harness.cu").string(), src, {}, {}), "");
  EXPECT_EQ(harness_coverage_warning((dir / "kernel_harness.cu").string(), src, {}, {}), "");
  const std::string w = harness_coverage_warning((dir / "stale_harness.cu").string(), src, {}, {});
  EXPECT_NE(w.find("the harness stale_harness.cu names none of x.cu's "), std::string::npos) << w;
  EXPECT_NE(w.find("kernels (x_kernel): it measures nothing a tuning of x.cu changes"), std::string::npos) << w;
  EXPECT_EQ(harness_coverage_warning((dir / "missing.cu").string(), src, {}, {}), "");
  // A source libclang cannot read at all: the check is said not to have happened, with why.
  const std::string unread = harness_coverage_warning((dir / "good_harness.cu").string(), (dir / "gone.cu").string(), {}, {});
  EXPECT_NE(unread.find("whether the harness good_harness.cu runs anything of its source was not checked: "),
            std::string::npos) << unread;
  fs::remove_all(dir);
}

// The examples' harnesses call their launchers: no warning.
TEST(HarnessCoverage, TheExamplesHarnessesRunTheirSources) {
  if (!have_parser()) GTEST_SKIP() << "built without libclang";
  const fs::path examples = fs::path(__FILE__).parent_path().parent_path().parent_path() / "examples" / "kernels";
  for (const char* stem : {"matmul", "rmsnorm", "softmax", "transpose", "vector_add"})
    EXPECT_EQ(harness_coverage_warning((examples / "harness" / (std::string(stem) + "_harness.cu")).string(),
                                       (examples / "src" / (std::string(stem) + ".cu")).string(),
                                       {(examples / "include").string()}, {}),
              "")
        << stem;
}

// What a launcher launches, read from the text where the parser saw no
// launch: template arguments dropped, comments and strings ignored, other
// functions' launches not counted.
TEST(KernelNames, TheLaunchesOfOneHostFunctionFromItsText) {
  const std::string text = R"(__global__ void rows(float* x) {}
template <int B> __global__ void cols(float* x) {}
void other(float* x) { rows<<<1, 1>>>(x); }
extern "C" void run(float* x, int n) {
  // not_a_kernel<<<1, 1>>>(x);
  rows<<<n, 64>>>(x);
  cols<16> <<<dim3(n), dim3(16)>>>(x);
  rows<<<n, 64>>>(x);
}
)";
  EXPECT_EQ(kernelblaster::harness::kernels_launched_in(text, "run"), (std::vector<std::string>{"rows", "cols"}));
  EXPECT_EQ(kernelblaster::harness::kernels_launched_in(text, "other"), (std::vector<std::string>{"rows"}));
  EXPECT_TRUE(kernelblaster::harness::kernels_launched_in(text, "missing").empty());
}
