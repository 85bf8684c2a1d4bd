// The bound on an untrusted candidate's compiled object (judge/object_bound.h):
// read from nm and objdump text, judged against the original's object, and
// on real objects nvcc makes of hostile candidates (no GPU needed).
#include "judge/object_bound.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace kernelblaster {
namespace {

namespace fs = std::filesystem;

const char* kNm = R"(.LC0 r 0
DW.ref.__gxx_personality_v0 V 0 8
_Z10vector_addPKfS0_Pfi T 150 1b3
_ZL24__sti____cudaRegisterAllv t 0 61
__cudaRegisterFatBinary U
__cxa_guard_acquire U
atexit U
sinf U
weak_maybe w
)";

const char* kObjdump = R"(
Sections:
Idx Name          Size      VMA               LMA               File off  Algn
  9 .init_array   00000008  0000000000000000  0000000000000000  000018d8  2**3

RELOCATION RECORDS FOR [.text.startup]:
OFFSET           TYPE              VALUE
000000000000005d R_X86_64_PLT32    atexit-0x0000000000000004

Disassembly of section .text:
   0:	55                   	push   %rbp
)";

ObjectFacts facts(const std::string& nm, const std::string& objdump = kObjdump) {
  return parse_object_facts(nm, objdump);
}

TEST(ObjectBound, ReadsWhatAnObjectDefinesCallsAndAdds) {
  ObjectFacts f = facts(kNm);
  EXPECT_TRUE(f.defined.count("_Z10vector_addPKfS0_Pfi"));
  EXPECT_TRUE(f.defined.count("DW.ref.__gxx_personality_v0"));
  EXPECT_FALSE(f.defined.count("_ZL24__sti____cudaRegisterAllv"));  // local
  EXPECT_TRUE(f.undefined.count("atexit"));
  EXPECT_TRUE(f.undefined.count("weak_maybe"));
  EXPECT_EQ(f.init_entries, 1);
  EXPECT_EQ(f.exit_registrations, 1);
  EXPECT_EQ(f.system_call, "");
  EXPECT_EQ(facts("", "  12:\t0f 05                \tsyscall \n").system_call, "12:\t0f 05                \tsyscall ");
}

TEST(ObjectBound, TheOriginalIsTheMeasureAndTheBaseSetIsAllowed) {
  LibraryExports libs;
  libs.math = {"sinf", "expf"};
  libs.all = {"sinf", "expf", "cudaDeviceSynchronize", "fopen", "getenv"};
  const ObjectFacts original = facts(kNm);
  ObjectFacts honest = original;
  honest.undefined.insert({"expf", "cudaFuncSetAttribute", "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE10_M_disposeEv"});
  honest.defined.insert("_Z6helperPf");
  EXPECT_EQ(object_violation(original, honest, libs), "");

  ObjectFacts interposer = original;
  interposer.defined.insert("cudaDeviceSynchronize");
  EXPECT_NE(object_violation(original, interposer, libs).find("defines cudaDeviceSynchronize"), std::string::npos);
  ObjectFacts runtime_name = original;
  runtime_name.defined.insert("_ZN13kernelblaster9next_seedEv");  // the tool's runtime, by its mangled name
  EXPECT_NE(object_violation(original, runtime_name, libs).find("defines kernelblaster::next_seed()"), std::string::npos)
      << object_violation(original, runtime_name, libs);

  ObjectFacts reader = original;
  reader.undefined.insert("getenv");
  EXPECT_EQ(object_violation(original, reader, libs),
            "calls getenv (the environment), which the original does not and a kernel's launcher has no need of");
  ObjectFacts driver = original;
  driver.undefined.insert("cuMemGetAddressRange_v2");
  EXPECT_NE(object_violation(original, driver, libs).find("(the driver API)"), std::string::npos);
  // What the original calls, the candidate may call too.
  ObjectFacts original_reads = original;
  original_reads.undefined.insert("getenv");
  EXPECT_EQ(object_violation(original_reads, reader, libs), "");

  ObjectFacts constructor = original;
  constructor.init_entries = 2;
  EXPECT_NE(object_violation(original, constructor, libs).find("static constructor"), std::string::npos);
  ObjectFacts exit_handler = original;
  exit_handler.exit_registrations = 2;
  EXPECT_NE(object_violation(original, exit_handler, libs).find("exit handler"), std::string::npos);
  ObjectFacts raw = original;
  raw.system_call = "12: syscall";
  EXPECT_NE(object_violation(original, raw, libs).find("system-call instruction"), std::string::npos);
}

// Hostile candidates of the vector_add example, compiled by nvcc: each one
// refused with what it did named, an honest one passed.
TEST(ObjectBound, RealObjectsOfHostileCandidates) {
  const std::string nvcc = "/usr/local/cuda/bin/nvcc";
  if (!fs::exists(nvcc)) GTEST_SKIP() << "no nvcc";
  const std::string examples = std::string(KERNELBLASTER_SOURCE_DIR) + "/examples/kernels";
  const fs::path dir = fs::temp_directory_path() / "kb_object_bound";
  fs::remove_all(dir);
  fs::create_directories(dir);
  Toolchain tc;
  tc.nvcc = nvcc;
  tc.include_dir = examples + "/include";
  tc.cuda_lib_dir = "/usr/local/cuda/lib64";
  CompileSettings cs;
  cs.arch = "sm_90";
  cs.include_dirs = {examples + "/include"};
  const std::string original = examples + "/src/vector_add.cu";
  std::ifstream in(original);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto verdict = [&](const std::string& name, const std::string& added) {
    const std::string path = (dir / (name + ".cu")).string();
    std::ofstream(path) << text << "\n" << added << "\n";
    return check_candidate_object(tc, cs, original, path, (dir / name).string(), 120);
  };
  EXPECT_EQ(verdict("honest", "static int twice(int x) { return 2 * x; }").status, Status::ok);
  const Verdict sync = verdict("interposer", "extern \"C\" cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }");
  EXPECT_EQ(sync.status, Status::forbidden_code);
  EXPECT_NE(sync.detail.find("defines cudaDeviceSynchronize"), std::string::npos) << sync.detail;
  const Verdict env = verdict("environment", "#include <cstdlib>\nint reads() { return std::getenv(\"SEED\") != nullptr; }");
  EXPECT_NE(env.detail.find("calls getenv"), std::string::npos) << env.detail;
  const Verdict file = verdict("reader", "#include <cstdio>\nvoid* opens() { return std::fopen(\"plan.json\", \"r\"); }");
  EXPECT_NE(file.detail.find("calls fopen"), std::string::npos) << file.detail;
  const Verdict ctor = verdict("constructor", "volatile int armed;\n__attribute__((constructor)) void early() { armed = 1; }");
  EXPECT_NE(ctor.detail.find("static constructor"), std::string::npos) << ctor.detail;
  const Verdict global = verdict("global", "volatile int set;\nstruct Early { Early() { set = 1; } };\nstatic Early early;");
  EXPECT_NE(global.detail.find("static constructor"), std::string::npos) << global.detail;
  const Verdict handler = verdict("at_exit", "#include <cstdlib>\nstatic void late() {}\nint arm() { return std::atexit(late); }");
  EXPECT_NE(handler.detail.find("exit handler"), std::string::npos) << handler.detail;
  const Verdict raw = verdict("raw", "long raw(long n) { long r; asm volatile(\"syscall\" : \"=a\"(r) : \"a\"(n) : \"rcx\", \"r11\"); return r; }");
  EXPECT_NE(raw.detail.find("system-call instruction"), std::string::npos) << raw.detail;
  // The original compiled once for all of them (the optimize loop's case).
  EXPECT_TRUE(fs::exists(dir / "honest" / "original"));
  EXPECT_FALSE(fs::exists(dir / "raw" / "original"));
  fs::remove_all(dir);
}

// A KernelBench driver links libtorch: a candidate object that defines what
// one of the further libraries exports is refused once that library is named
// (bound_objects on objects already built, as evaluate_kernelbench has them).
TEST(ObjectBound, FurtherLinkedLibrariesAndBuiltObjects) {
  const fs::path dir = fs::temp_directory_path() / "kb_object_bound_more";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto compile = [&](const std::string& name, const std::string& text, bool shared) {
    const fs::path src = dir / (name + ".cc");
    std::ofstream(src) << text;
    const fs::path out = dir / (name + (shared ? ".so" : ".o"));
    const std::string cmd = "g++ -fPIC " + std::string(shared ? "-shared" : "-c") + " -o " + out.string() + " " +
                            src.string() + " 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return out.string();
  };
  const std::string allocator = "namespace c10 { void* raw_alloc(unsigned long n) { return nullptr; } }\n";
  const std::string lib = compile("libtorchlike", allocator, true);
  const std::string original = compile("original", "int launch(int n) { return 2 * n; }\n", false);
  const std::string honest = compile("honest", "int launch(int n) { return n + n; }\n", false);
  const std::string stand_in = compile("stand_in", "int launch(int n) { return n; }\n" + allocator, false);
  const LibraryExports& plain = library_exports("/nonexistent-cuda-lib");
  const LibraryExports& with_torch = library_exports("/nonexistent-cuda-lib", {lib});
  EXPECT_EQ(bound_objects(original, honest, with_torch).status, Status::ok);
  EXPECT_EQ(bound_objects(original, stand_in, plain).status, Status::ok);  // unknown library: nothing to stand in for
  const Verdict v = bound_objects(original, stand_in, with_torch);
  EXPECT_EQ(v.status, Status::forbidden_code);
  EXPECT_NE(v.detail.find("defines c10::raw_alloc(unsigned long)"), std::string::npos) << v.detail;
  EXPECT_EQ(bound_objects(original, (dir / "missing.o").string(), plain).status, Status::tool_error);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kernelblaster
