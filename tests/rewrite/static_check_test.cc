#include "rewrite/static_check.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kernelblaster::rewrite {
namespace {

const std::string kOriginal =
    "#include <cuda_runtime.h>\n"
    "#include <cuda_fp16.h>\n"
    "#include <cstdio>\n"
    "__global__ void relu(const half* x, half* y, int64_t n) {\n"
    "  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = __hgt(x[i], __float2half(0.f)) ? x[i] : __float2half(0.f);\n"
    "}\n"
    "void launch_gpu_implementation(void* out, void* in, int64_t n) {\n"
    "  relu<<<(n + 255) / 256, 256>>>((const half*)in, (half*)out, n);\n"
    "  cudaError_t e = cudaGetLastError();\n"
    "  if (e != cudaSuccess) fprintf(stderr, \"relu: %s\\n\", cudaGetErrorString(e));\n"
    "}\n";

// The original with `line` inserted before the launcher's closing brace.
std::string with_body_line(const std::string& line) {
  std::string s = kOriginal;
  s.insert(s.rfind('}'), "  " + line + "\n");
  return s;
}

std::vector<std::string> rules(const std::vector<Finding>& f) {
  std::vector<std::string> out;
  for (const Finding& x : f) out.push_back(x.rule);
  return out;
}

TEST(StaticCheck, TheOriginalAgainstItselfIsClean) { EXPECT_TRUE(check_candidate(kOriginal, kOriginal).empty()); }

TEST(StaticCheck, HostReachIsRejectedWithTheRuleAndLine) {
  struct Case {
    std::string line, rule, detail;
  } cases[] = {
      {"system(\"nvidia-smi -lgc 2000\");", "host_call", "system is a process call"},
      {"FILE* f = fopen(\"/tmp/cache.bin\", \"rb\");", "host_call", "fopen is a file call"},
      {"const char* k = getenv(\"OPENAI_API_KEY\");", "host_call", "getenv is an environment call"},
      {"const char* k = std::getenv(\"HOME\");", "host_call", "std::getenv is an environment call"},
      {"int s = socket(2, 1, 0);", "host_call", "socket is a network call"},
      {"std::thread t([]{}); t.detach();", "host_call", "std::thread is a host thread"},
      {"std::ofstream o(\"x\");", "host_call", "std::ofstream is a file stream"},
      {"auto t0 = std::chrono::steady_clock::now();", "host_call", "std::chrono::steady_clock::now reaches outside the computation"},
      {"void* h = dlopen(\"libcuda.so\", 1);", "host_call", "dlopen is dynamic loading"},
      {"cudaDeviceReset();", "host_call", "cudaDeviceReset is a CUDA call that changes the process's device state"},
      {"::write(1, \"x\", 1);", "host_call", "write is a file call"},
  };
  for (const Case& c : cases) {
    std::vector<Finding> f = check_candidate(with_body_line(c.line), kOriginal);
    ASSERT_EQ(f.size(), 1u) << c.line << ": " << findings_line(f);
    EXPECT_EQ(f[0].rule, c.rule) << c.line;
    EXPECT_EQ(f[0].detail, c.detail) << c.line;
    EXPECT_EQ(f[0].line, 12) << c.line;
  }
}

TEST(StaticCheck, LibrariesAndHeadersTheOriginalDoesNotUseAreRejected) {
  std::string cublas = "#include <cublas_v2.h>\n" + with_body_line("cublasHandle_t h; cublasCreate(&h);");
  std::vector<Finding> f = check_candidate(cublas, kOriginal);
  EXPECT_EQ(rules(f), (std::vector<std::string>{"include", "library"}));
  EXPECT_EQ(f[0].detail, "#include <cublas_v2.h>: a header the original does not include");
  EXPECT_EQ(f[1].detail, "cublasHandle_t: cuBLAS, which the original does not use");
  EXPECT_EQ(rules(check_candidate(with_body_line("thrust::fill((half*)out, (half*)out + n, half(0));"), kOriginal)),
            std::vector<std::string>{"library"});
  EXPECT_EQ(rules(check_candidate("#include <torch/extension.h>\n" + with_body_line("at::Tensor t;"), kOriginal)),
            (std::vector<std::string>{"include", "library"}));
  EXPECT_EQ(rules(check_candidate("#include <unistd.h>\n" + kOriginal, kOriginal)), std::vector<std::string>{"include"});
  // What the original uses, the candidate may use.
  std::string with_cub = "#include <cub/cub.cuh>\n" + with_body_line("cub::DeviceReduce::Sum(nullptr, b, x, y, n);");
  EXPECT_TRUE(check_candidate(with_cub, with_cub).empty());
}

TEST(StaticCheck, TimersAreRejected) {
  std::string ptx = with_body_line("");
  ptx.insert(ptx.find("__global__"),
             "__device__ unsigned long long now() { unsigned long long t; asm volatile(\"mov.u64 %0, %globaltimer;\" : \"=l\"(t)); return t; }\n");
  std::vector<Finding> f = check_candidate(ptx, kOriginal);
  ASSERT_EQ(f.size(), 1u) << findings_line(f);
  EXPECT_EQ(f[0].rule, "timer");
  EXPECT_EQ(f[0].line, 4);
  std::string spin = kOriginal;
  spin.insert(spin.find("  if (i < n)"), "  long long t = clock64(); while (clock64() - t < 100) {}\n");
  EXPECT_EQ(rules(check_candidate(spin, kOriginal)), (std::vector<std::string>{"timer", "timer"}));
  // PTX that reads no timer is fine (tensor-core mma in the original's style).
  std::string mma = kOriginal;
  mma.insert(mma.find("__global__"), "__device__ void f(unsigned a) { asm volatile(\"mov.b32 %0, %0;\" : \"+r\"(a)); }\n");
  EXPECT_TRUE(check_candidate(mma, kOriginal).empty());
}

TEST(StaticCheck, CodeThatHidesFromTheChecksIsRejected) {
  EXPECT_EQ(rules(check_candidate("#define H <fstream>\n#include H\n" + kOriginal, kOriginal)),
            std::vector<std::string>{"hidden_code"});
  EXPECT_EQ(rules(check_candidate("#define CALL(a, b) a##b\n" + with_body_line("CALL(fop, en)(\"x\", \"w\");"), kOriginal)),
            std::vector<std::string>{"hidden_code"});
  // A raw string that a simple lexer would end early, hiding the call after it.
  std::vector<Finding> raw = check_candidate(with_body_line("const char* s = R\"(\")\"; (void)s;"), kOriginal);
  EXPECT_EQ(rules(raw), std::vector<std::string>{"hidden_code"});
}

TEST(StaticCheck, NamesInCommentsStringsMembersAndOwnFunctionsAreNotCalls) {
  std::string s = kOriginal;
  s.insert(s.find("__global__"),
           "// we do not call system() or fopen() here; cublas would be slower\n"
           "__device__ float read(const float* p) { return *p; }\n"
           "struct Q { __device__ void send(int) {} };\n");
  s = s.substr(0, s.rfind('}')) + "  printf(\"getenv(HOME) not used\\n\"); Q q; (void)q;\n}\n";
  std::vector<Finding> f = check_candidate(s, kOriginal);
  EXPECT_TRUE(f.empty()) << findings_line(f);
  std::string member = with_body_line("struct W { void write(int) {} } w; w.write(1);");
  EXPECT_TRUE(check_candidate(member, kOriginal).empty()) << findings_line(check_candidate(member, kOriginal));
}

TEST(StaticCheck, FindingsLineIsOneLineWithACount) {
  std::vector<Finding> f = check_candidate("#include <unistd.h>\n" + with_body_line("system(\"x\");"), kOriginal);
  EXPECT_EQ(findings_line(f), "line 1: #include <unistd.h>: a header the original does not include (rule include); 1 more");
  EXPECT_EQ(findings_line({}), "");
}

// The published dataset, where this checkout can see it: no init.cu is
// flagged against itself, and each one with a call to getenv added is.
TEST(StaticCheck, NoPublishedOriginalIsFlaggedAgainstItself) {
  std::string data;
  const char* env = std::getenv("KERNELBLASTER_KERNELBENCH_DATA");
  for (std::string d : {std::string(env ? env : ""), std::string(KERNELBLASTER_SOURCE_DIR "/../shared/kernelbench-cuda")})
    if (!d.empty() && std::filesystem::is_directory(d + "/level1")) {
      data = d;
      break;
    }
  if (data.empty()) GTEST_SKIP() << "the KernelBench-CUDA dataset is not here";
  int checked = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(data)) {
    if (entry.path().filename() != "init.cu") continue;
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    std::vector<Finding> self = check_candidate(text, text);
    EXPECT_TRUE(self.empty()) << entry.path() << ": " << findings_line(self);
    std::string bad = text + "\nstatic const char* kb_probe = getenv(\"HOME\");\n";
    EXPECT_EQ(rules(check_candidate(bad, text)), std::vector<std::string>{"host_call"}) << entry.path();
    ++checked;
  }
  EXPECT_EQ(checked, 184);
}

}  // namespace
}  // namespace kernelblaster::rewrite

namespace kernelblaster::rewrite {
namespace {

std::string read_source(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The evaluation's runtime is linked into the candidate's process and knows
// the seeds of every call: a candidate may not reach it.
TEST(StaticCheck, TheEvaluationsRuntimeIsOutOfReach) {
  for (const char* line : {"auto s = kernelblaster::kernelbench::invocation_seed();",
                           "using namespace kernelblaster::kernelbench;", "kb_driver::tracked().clear();"}) {
    std::vector<Finding> f = check_candidate(with_body_line(line), kOriginal);
    ASSERT_FALSE(f.empty()) << line;
    EXPECT_EQ(f[0].rule, "library") << line;
    EXPECT_NE(f[0].detail.find("the evaluation's runtime"), std::string::npos) << f[0].detail;
  }
  std::string declared = "namespace kernelblaster { namespace kernelbench { unsigned long invocation_seed(); } }\n" +
                         kOriginal;
  EXPECT_FALSE(check_candidate(declared, kOriginal).empty());
}

// The KernelBench hostile set reaches the engine in `optimize`: caches,
// copies and corner-cutters pass the static checks (they call only CUDA),
// so the judge must name them; the persisting-L2 one changes the device's
// state and stops here.
TEST(StaticCheck, TheHostileMatmulsReachTheEngine) {
  const std::string dir = std::string(KERNELBLASTER_SOURCE_DIR) + "/tests/kernelbench/hostile/";
  const std::string data = std::string(KERNELBLASTER_SOURCE_DIR) +
                           "/../shared/kernelbench-cuda/level1/001_Square_matrix_multiplication/init.cu";
  std::string original = read_source(data);
  if (original.empty()) GTEST_SKIP() << "the KernelBench-CUDA dataset is not here";
  auto inlined = [&](const std::string& name) {
    return read_source(dir + "matmul_common.cuh") + read_source(dir + "matmul_cache.cuh") + read_source(dir + name);
  };
  for (const char* name : {"matmul_cache_sample_64.cu", "matmul_cache_checksum_64.cu", "matmul_first_calls.cu",
                           "matmul_seen_inputs.cu", "matmul_copy_neighbour.cu", "matmul_copy_same_size.cu"}) {
    std::string code = inlined(name);
    // What scripted_llm.py sends: the quoted includes inlined.
    for (const char* inc : {"#include \"matmul_cache.cuh\"", "#include \"matmul_common.cuh\"", "#pragma once"})
      for (std::size_t at; (at = code.find(inc)) != std::string::npos;) code.erase(at, std::string(inc).size());
    EXPECT_EQ(findings_line(check_candidate(code, original)), "") << name;
  }
  std::string l2 = read_source(dir + "matmul_common.cuh") + read_source(dir + "matmul_l2_persisting.cu");
  l2.erase(l2.find("#include \"matmul_common.cuh\""), std::string("#include \"matmul_common.cuh\"").size());
  EXPECT_NE(findings_line(check_candidate(l2, original)).find("cudaDeviceSetLimit"), std::string::npos);
}

}  // namespace
}  // namespace kernelblaster::rewrite
