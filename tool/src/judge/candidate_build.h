// Building a harness program against one kernel source (the reference or a
// candidate) with nvcc, in a scratch directory of its own.
#pragma once

#include <future>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/subprocess.h"

namespace kernelblaster {

// Where nvcc, the harness headers and the harness runtime are.
struct Toolchain {
  std::string nvcc;
  std::string include_dir;   // holds kernelblaster/harness.h
  std::string harness_lib;   // libkernelblaster_harness.a
  std::string cuda_lib_dir;  // libcupti.so, libcudart.so
};

// Finds the toolchain of this tool: the installed layout next to `self_exe`
// (../include, ../lib) first, else the build tree it was built in. nvcc comes
// from KERNELBLASTER_NVCC, the CUDA toolkit this tool was built with, or PATH.
Toolchain find_toolchain(const std::string& self_exe);

// Compiler settings of a target, from the command line or a manifest.
struct CompileSettings {
  std::string arch;                      // e.g. "sm_90"; empty: nvcc's default
  std::vector<std::string> include_dirs;
  std::vector<std::string> definitions;  // NAME or NAME=VALUE
  std::vector<std::string> flags;        // extra nvcc flags
  // What a harness of the target links besides its source (toolkit_libraries
  // of the original, found once; a candidate's own includes never add any).
  std::vector<std::string> libraries;
};

// The compile settings of a manifest (judge/manifest.h, either form); throws
// ManifestError, a std::runtime_error, with the reason in one line.
CompileSettings settings_from_manifest(const std::string& path);

// A target's settings as a command resolves them: the manifest's (when
// given), then `arch` (else the GPU's own), the extra include directories
// and definitions; every include directory made absolute, and the source's
// own directory added last; the toolkit libraries the source uses.
CompileSettings resolve_compile_settings(const std::string& manifest, const std::string& arch,
                                         const std::vector<std::string>& include_dirs,
                                         const std::vector<std::string>& definitions, const std::string& gpu_arch,
                                         const std::string& source);

// The nvcc command that links `harness` with `kernel_source` into `output`.
// Whether a harness launches recorded kernels (common/kernel_replay.h): its
// build links the source for its kernels alone, and tuning keeps
// launch-shaping tunables off.
bool replays_recorded_launches(const std::string& harness);

// The CUDA toolkit libraries a source uses, as linker flags (-lcublas,
// -lcufft, ...): named by the toolkit headers it or the project headers it
// reaches (common/include_scan.h) include. A harness links them, as the
// user's target does, so a source whose other functions call cuBLAS still
// links. Found from the original when its settings are resolved
// (resolve_compile_settings, the evaluator), never from a candidate.
std::vector<std::string> toolkit_libraries(const std::string& source, const std::vector<std::string>& include_dirs);

std::vector<std::string> harness_build_command(const Toolchain& tc, const CompileSettings& cs,
                                               const std::string& harness, const std::string& kernel_source,
                                               const std::string& output);

struct BuildOutcome {
  bool ok = false;
  std::string binary;
  std::string log;         // compiler output
  std::string first_error; // the first line that says "error", for one-line reports
  double seconds = 0;
  // nvcc itself could not be started: the toolchain is at fault, not the
  // source, and a report must say so first.
  bool nvcc_unusable = false;
  // What a failed build is judged, the one place a build becomes a status:
  // the compiler refused it (compile_failed), its object went past the
  // bound of judge/object_bound.h (forbidden_code), or the tool could not
  // build at all (tool_error: nvcc cannot be run, the scratch directory
  // cannot be written), which says nothing about the candidate.
  Status failure = Status::compile_failed;
};

// A build the tool could not attempt (an exception on the way): tool_error,
// `why` as its first error.
BuildOutcome build_not_attempted(const std::string& why);

// Built files kept across tuning runs of one source: the original's harness
// objects and programs, each under a digest of everything its build read
// (the options, the harness, the headers it includes, the source text, the
// harness runtime), so a later run of the same content key
// (tuner/search_state.h) builds none of them again. A store with no
// directory keeps nothing. Writes are atomic; a store that cannot be
// written is one that keeps nothing.
class BuildStore {
 public:
  BuildStore() = default;
  // `scratch_dir`: the run's own directory, taken out of every digest (a
  // harness written there has another path each run).
  BuildStore(std::string dir, std::string scratch_dir) : m_dir(std::move(dir)), m_scratch(std::move(scratch_dir)) {}
  bool keeps() const { return !m_dir.empty(); }
  std::string digest(const std::vector<std::string>& words) const;
  // Copies the file kept under `digest` to `to`; false when none is kept.
  bool take(const std::string& digest, const std::string& to) const;
  void keep(const std::string& digest, const std::string& from) const;

 private:
  std::string m_dir, m_scratch;
};

// A run's harness compiled once for each set of compile options, so that a
// candidate's build is its own source's compile and a link. On the
// development machine, softmax's candidate build took 2.96 s as one nvcc of
// the harness and the source, and 1.08 s as the source's compile and the
// link (2026-11-30, bench/candidate_build).
//
// The key is every compile option (definitions, flags, arch, include
// directories) with the harness's path and text. So a candidate whose
// settings reach the harness gets a harness object of its own: a macro the
// harness reads (EngineMeasurer's harness_macros), a launcher mask, a flag.
// Thread-safe: the first caller of a key compiles it, the others wait.
class HarnessObjects {
 public:
  // With a `store` that keeps, an object an earlier run compiled is taken from it.
  explicit HarnessObjects(std::string dir, const BuildStore* store = nullptr) : m_dir(std::move(dir)), m_store(store) {}
  // `binary` is the object, or the outcome says why the harness did not compile.
  BuildOutcome object(const Toolchain& tc, const CompileSettings& cs, const std::string& harness, double timeout_s);

 private:
  std::string m_dir;
  const BuildStore* m_store;
  std::mutex m_mutex;
  std::map<std::string, std::shared_future<BuildOutcome>> m_objects;
};

// `objects` given: its object of the harness, the source compiled alone, and
// the two linked as harness_build_command links them. Without it: one nvcc
// for both. With a `store` that keeps, the program is taken from it where
// an earlier run built it, and kept there once built (the original's).
BuildOutcome build_harness(const Toolchain& tc, const CompileSettings& cs, const std::string& harness,
                           const std::string& kernel_source, const std::string& scratch_dir, double timeout_s,
                           HarnessObjects* objects = nullptr, const BuildStore* store = nullptr);

// `kernel_source` alone compiled to an object (`binary` names it), with the
// settings a harness build uses: what judge/object_bound.h reads.
BuildOutcome build_object(const Toolchain& tc, const CompileSettings& cs, const std::string& kernel_source,
                          const std::string& scratch_dir, double timeout_s);

}  // namespace kernelblaster
