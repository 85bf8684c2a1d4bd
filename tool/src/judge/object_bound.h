// What an untrusted candidate's host code may call, define and contain,
// checked on its compiled object (nvcc -c), never on its text: a mangled
// name, a macro or a redefinition reads past any pattern, the linker's
// symbol table does not (issue 39). The original's object is the measure:
// what it does, a candidate may do too. Beyond that a candidate may
//
//   call      the base set: nvcc's launch and registration plumbing
//             (__cuda*), the CUDA runtime calls a launcher needs (launch,
//             errors, attributes, occupancy, device properties, memory it
//             allocates, sets and copies, synchronisation, its own streams
//             and events, L2 persistence, pinned staging), the C++ runtime
//             (new/delete, guards, exceptions, std::string, the standard
//             exceptions, stream output), printing to stdout and stderr, exit,
//             and every function the system's libm exports (math). Nothing
//             else: no files, processes, environment, threads, signals,
//             dynamic loading, clocks, the driver API, CUPTI or the tool's
//             own runtime, unless the original calls it;
//   define    no symbol a library the harness links exports (libc, libm,
//             libstdc++, libgcc_s, the CUDA runtime, CUPTI, the driver)
//             and no C name of the CUDA, driver, CUPTI or tool families:
//             a definition there would stand in for the library's
//             (cudaDeviceSynchronize run inside the harness's own sync);
//   add       no static constructor or exit handler beyond the original's
//             (.init_array entries, relocations against atexit and
//             __cxa_atexit), and no system-call instruction in host code.
//
// The tuner's own candidates (the user's source with other values) are
// trusted and not checked; `eval --candidate` and the optimize loop's are.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "judge/candidate_build.h"
#include "judge/candidate_result.h"

namespace kernelblaster {

struct ObjectFacts {
  std::set<std::string> defined;    // global symbols it defines, weak ones too
  std::set<std::string> undefined;  // symbols it references
  int init_entries = 0;             // static constructors (.init_array entries)
  int exit_registrations = 0;       // relocations against atexit and __cxa_atexit
  std::string system_call;          // the first system-call instruction, "" when none
};

// From `nm -P` of the object and `objdump -h -r -d` of it (pure: unit-tested).
ObjectFacts parse_object_facts(const std::string& nm_posix, const std::string& objdump);

// Runs nm and objdump on `object`; throws std::runtime_error saying why it could not.
ObjectFacts inspect_object(const std::string& object);

// Symbols the libraries a harness links export (found once: libc, libm,
// libstdc++, libgcc_s, libcudart, libcupti, libcuda where present), and
// those of libm alone (the math a candidate may call); `more` names further
// shared libraries the harness links (a KernelBench driver's libtorch).
struct LibraryExports {
  std::set<std::string> all, math;
};
const LibraryExports& library_exports(const std::string& cuda_lib_dir, const std::vector<std::string>& more = {});

// "" when the candidate stays within the bound; else one line naming the
// first symbol or addition past it and what it is.
std::string object_violation(const ObjectFacts& original, const ObjectFacts& candidate, const LibraryExports& libs);

// The bound applied: the original and the candidate each compiled to an
// object in `dir` (original/, candidate/) with `cs` and read. ok,
// forbidden_code (the detail names what), compile_failed (the candidate
// alone does not compile), or tool_error (the original's object cannot be
// had, or the objects cannot be read).
Verdict check_candidate_object(const Toolchain& tc, const CompileSettings& cs, const std::string& original,
                               const std::string& candidate, const std::string& dir, double timeout_s);

// The bound on two objects already compiled alike (a KernelBench problem's
// init.cu and candidate): ok, forbidden_code, or tool_error when they
// cannot be read.
Verdict bound_objects(const std::string& original_object, const std::string& candidate_object,
                      const LibraryExports& libs);

}  // namespace kernelblaster
