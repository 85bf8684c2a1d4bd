#include "judge/candidate_build.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/compiler_output.h"
#include "common/kernel_replay.h"
#include "common/file_util.h"
#include "common/include_scan.h"
#include "common/sha256.h"
#include "judge/manifest.h"
#include "kernelblaster/build_paths.h"

namespace fs = std::filesystem;

namespace kernelblaster {

namespace {
bool exists(const std::string& p) { return !p.empty() && ::access(p.c_str(), F_OK) == 0; }
}  // namespace

Toolchain find_toolchain(const std::string& self_exe) {
  Toolchain tc;
  fs::path exe_dir = fs::path(self_exe).parent_path();
  fs::path installed_lib = exe_dir / ".." / "lib" / "libkernelblaster_harness.a";
  fs::path installed_inc = exe_dir / ".." / "include";
  if (exists(installed_lib.string()) && exists((installed_inc / "kernelblaster" / "harness.h").string())) {
    tc.harness_lib = fs::weakly_canonical(installed_lib).string();
    tc.include_dir = fs::weakly_canonical(installed_inc).string();
  } else {
    tc.harness_lib = KERNELBLASTER_BUILD_HARNESS_LIB;
    tc.include_dir = KERNELBLASTER_BUILD_INCLUDE_DIR;
  }
  if (const char* env = std::getenv("KERNELBLASTER_NVCC"); env && *env) tc.nvcc = env;
  else if (exists(std::string(KERNELBLASTER_CUDA_BIN_DIR) + "/nvcc")) tc.nvcc = std::string(KERNELBLASTER_CUDA_BIN_DIR) + "/nvcc";
  else tc.nvcc = "nvcc";
  // CUPTI where the build found it, else where the toolkit of this nvcc keeps
  // it (toolkits lay out lib, lib64 and targets/<arch>/lib differently).
  tc.cuda_lib_dir = KERNELBLASTER_CUDA_LIB_DIR;
  if (!exists(tc.cuda_lib_dir + "/libcupti.so")) {
    fs::path nvcc = tc.nvcc;
    if (!nvcc.has_parent_path())
      if (std::string found = find_on_path(tc.nvcc); !found.empty()) nvcc = found;
    fs::path root = nvcc.has_parent_path() ? nvcc.parent_path().parent_path() : fs::path(KERNELBLASTER_CUDA_BIN_DIR).parent_path();
    for (const char* sub : {"lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib", "extras/CUPTI/lib64"})
      if (exists((root / sub / "libcupti.so").string())) {
        tc.cuda_lib_dir = (root / sub).string();
        break;
      }
  }
  return tc;
}

CompileSettings settings_from_manifest(const std::string& path) { return read_manifest(path).settings; }

CompileSettings resolve_compile_settings(const std::string& manifest, const std::string& arch,
                                         const std::vector<std::string>& include_dirs,
                                         const std::vector<std::string>& definitions, const std::string& gpu_arch,
                                         const std::string& source) {
  CompileSettings cs;
  if (!manifest.empty()) cs = settings_from_manifest(manifest);
  if (!arch.empty()) cs.arch = arch;
  if (cs.arch.empty()) cs.arch = gpu_arch;
  cs.include_dirs.insert(cs.include_dirs.end(), include_dirs.begin(), include_dirs.end());
  cs.definitions.insert(cs.definitions.end(), definitions.begin(), definitions.end());
  for (std::string& d : cs.include_dirs) d = fs::absolute(d).string();
  cs.include_dirs.push_back(fs::absolute(source).parent_path().string());
  cs.libraries = toolkit_libraries(source, cs.include_dirs);
  return cs;
}

// A harness that launches recorded kernels needs the source's kernels only
// (common/kernel_replay.h).
bool replays_recorded_launches(const std::string& harness) {
  std::ifstream in(harness);
  std::string line;
  while (std::getline(in, line))
    if (line == kKernelReplayMarker) return true;
  return false;
}

std::vector<std::string> toolkit_libraries(const std::string& source, const std::vector<std::string>& include_dirs) {
  static const std::vector<std::pair<std::string, std::string>> kHeaders = {
      {"cublas_v2.h", "-lcublas"},  {"cublas.h", "-lcublas"},       {"cublasLt.h", "-lcublasLt"},
      {"cufft.h", "-lcufft"},       {"curand.h", "-lcurand"},       {"cusparse.h", "-lcusparse"},
      {"cusolverDn.h", "-lcusolver"}, {"cusolverSp.h", "-lcusolver"}, {"nvrtc.h", "-lnvrtc"},
      {"cuda.h", "-lcuda"}};
  std::vector<std::string> files = scan_includes(source, include_dirs), libs;
  files.insert(files.begin(), source);
  for (const std::string& file : files) {
    std::string text;
    if (!read_file_if_present(file, &text)) continue;
    for (const auto& [name, quoted] : include_directives(text))
      for (const auto& [header, flag] : kHeaders)
        if (name == header && std::find(libs.begin(), libs.end(), flag) == libs.end()) libs.push_back(flag);
  }
  return libs;
}

namespace {

// nvcc with a target's settings, before the inputs: `extra` after the optimisation level.
std::vector<std::string> compile_options(const Toolchain& tc, const CompileSettings& cs, const char* extra) {
  std::vector<std::string> cmd = {tc.nvcc, "-std=c++17", "-O3", extra};
  if (!cs.arch.empty()) cmd.push_back("-arch=" + cs.arch);
  cmd.push_back("-I" + tc.include_dir);
  // A candidate lives elsewhere than the original but includes its neighbours:
  // the original's directory comes through cs.include_dirs.
  for (const auto& d : cs.include_dirs) cmd.push_back("-I" + d);
  for (const auto& d : cs.definitions) cmd.push_back("-D" + d);
  for (const auto& f : cs.flags) cmd.push_back(f);
  return cmd;
}

// What follows a harness program's inputs (its sources or objects): the
// harness runtime, CUPTI, the original's libraries, the rpath, the output.
void append_link(std::vector<std::string>& cmd, const Toolchain& tc, const CompileSettings& cs,
                 const std::string& harness, const std::string& output) {
  cmd.insert(cmd.end(), {tc.harness_lib, "-L" + tc.cuda_lib_dir, "-lcupti", "-ldl"});
  cmd.insert(cmd.end(), cs.libraries.begin(), cs.libraries.end());
  cmd.insert(cmd.end(), {"-Xlinker", "-rpath=" + tc.cuda_lib_dir});
  if (replays_recorded_launches(harness))
    cmd.insert(cmd.end(), {"-Xlinker", "--unresolved-symbols=ignore-all", "-Xlinker", "--allow-multiple-definition"});
  cmd.insert(cmd.end(), {"-o", output});
}

}  // namespace

std::vector<std::string> harness_build_command(const Toolchain& tc, const CompileSettings& cs,
                                               const std::string& harness, const std::string& kernel_source,
                                               const std::string& output) {
  std::vector<std::string> cmd = compile_options(tc, cs, "-lineinfo");
  cmd.insert(cmd.end(), {harness, kernel_source});
  append_link(cmd, tc, cs, harness, output);
  return cmd;
}

namespace {

// Runs one nvcc command whose product is `b.binary`, in `scratch_dir`.
BuildOutcome run_nvcc(const Toolchain& tc, const std::vector<std::string>& cmd, const std::string& scratch_dir,
                      double timeout_s, BuildOutcome b) {
  ProcessOptions opt;
  opt.timeout_s = timeout_s;
  opt.cwd = scratch_dir;  // nvcc's temporaries stay in the candidate's own directory
  opt.extra_env["TMPDIR"] = scratch_dir;
  ProcessResult r = run_process(cmd, opt);
  b.seconds = r.seconds;
  b.log = r.output;
  b.ok = r.ok() && exists(b.binary);
  if (r.spawn_failed) {
    b.nvcc_unusable = true;
    b.failure = Status::tool_error;
    b.first_error = "nvcc could not be run (" + tc.nvcc + ": " + r.how_it_ended() + ")";
  } else if (!b.ok) {
    b.first_error = r.timed_out ? "nvcc " + r.how_it_ended() : first_error_line(r.output);
  }
  return b;
}

}  // namespace

BuildOutcome build_not_attempted(const std::string& why) {
  BuildOutcome b;
  b.failure = Status::tool_error;
  b.first_error = "not built: " + why;
  return b;
}

std::string BuildStore::digest(const std::vector<std::string>& words) const {
  Sha256 h;
  for (std::string w : words) {
    if (!m_scratch.empty())
      for (std::size_t at = w.find(m_scratch); at != std::string::npos; at = w.find(m_scratch, at + 1))
        w.replace(at, m_scratch.size(), "<scratch>");
    h.field(w);
  }
  return h.hex();
}

bool BuildStore::take(const std::string& digest, const std::string& to) const {
  if (!keeps()) return false;
  std::error_code ec;
  const fs::path kept = fs::path(m_dir) / digest;
  if (!fs::is_regular_file(kept, ec)) return false;
  fs::create_directories(fs::path(to).parent_path(), ec);
  fs::copy_file(kept, to, fs::copy_options::overwrite_existing, ec);
  if (ec) return false;
  fs::last_write_time(kept, fs::file_time_type::clock::now(), ec);  // used: the cache's eviction keeps it
  return true;
}

void BuildStore::keep(const std::string& digest, const std::string& from) const {
  if (!keeps()) return;
  std::error_code ec;
  fs::create_directories(m_dir, ec);
  const fs::path kept = fs::path(m_dir) / digest;
  const fs::path part = fs::path(m_dir) / (digest + ".part" + std::to_string(::getpid()));
  fs::copy_file(from, part, fs::copy_options::overwrite_existing, ec);
  if (!ec) fs::rename(part, kept, ec);
  if (ec) fs::remove(part, ec);
}

namespace {

// What a harness's build read besides its options: its text and the
// project headers it includes, and the harness runtime it links.
std::vector<std::string> harness_inputs(const Toolchain& tc, const CompileSettings& cs, const std::string& harness,
                                        const std::string& text) {
  std::vector<std::string> words = {harness, text};
  for (const std::string& h : scan_includes(harness, cs.include_dirs)) {
    std::string header;
    words.push_back(h);
    words.push_back(read_file_if_present(h, &header) ? header : "(unreadable)");
  }
  std::error_code ec;
  words.push_back(tc.harness_lib + " " + std::to_string(fs::file_size(tc.harness_lib, ec)) + " " +
                  std::to_string(fs::last_write_time(tc.harness_lib, ec).time_since_epoch().count()));
  return words;
}

}  // namespace

BuildOutcome HarnessObjects::object(const Toolchain& tc, const CompileSettings& cs, const std::string& harness,
                                   double timeout_s) {
  const std::string path = fs::absolute(harness).string();
  std::vector<std::string> cmd = compile_options(tc, cs, "-lineinfo");
  std::string text;
  if (!read_file_if_present(path, &text)) return build_not_attempted("the harness " + path + " cannot be read");
  std::string key;
  for (const std::string& word : cmd) key += word + '\n';
  key += path + '\n' + text;
  std::promise<BuildOutcome> mine;
  std::shared_future<BuildOutcome> found;
  std::string dir;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_objects.find(key);
    if (it == m_objects.end()) {
      dir = m_dir + "/h" + std::to_string(m_objects.size());
      found = mine.get_future().share();
      m_objects.emplace(key, found);
    } else {
      found = it->second;
    }
  }
  if (dir.empty()) return found.get();  // compiled, or being compiled, by another caller
  try {
    fs::create_directories(dir);
    BuildOutcome b;
    b.binary = dir + "/harness.o";
    std::string kept;
    if (m_store && m_store->keeps()) {
      std::vector<std::string> words = cmd;
      const std::vector<std::string> inputs = harness_inputs(tc, cs, path, text);
      words.insert(words.end(), inputs.begin(), inputs.end());
      words.push_back("harness object");
      kept = m_store->digest(words);
      if (m_store->take(kept, b.binary)) {
        b.ok = true;
        mine.set_value(b);
        return found.get();
      }
    }
    cmd.insert(cmd.end(), {"-c", path, "-o", b.binary});
    b = run_nvcc(tc, cmd, dir, timeout_s, b);
    if (b.ok && !kept.empty()) m_store->keep(kept, b.binary);
    mine.set_value(b);
  } catch (const std::exception& x) {
    mine.set_value(build_not_attempted(std::string("the harness's object: ") + x.what()));
  }
  return found.get();
}

namespace {

// The digest of a harness program in `store`: its options, its harness's
// inputs, the kernel source's path and text, what it links.
std::string program_digest(const BuildStore& store, const Toolchain& tc, const CompileSettings& cs,
                           const std::string& harness_path, const std::string& source) {
  std::vector<std::string> words = compile_options(tc, cs, "-lineinfo");
  std::string text, source_text;
  read_file_if_present(harness_path, &text);
  const std::vector<std::string> inputs = harness_inputs(tc, cs, harness_path, text);
  words.insert(words.end(), inputs.begin(), inputs.end());
  read_file_if_present(source, &source_text);
  words.insert(words.end(), {source, source_text, "program"});
  append_link(words, tc, cs, harness_path, "");
  return store.digest(words);
}

}  // namespace

BuildOutcome build_harness(const Toolchain& tc, const CompileSettings& cs, const std::string& harness,
                           const std::string& kernel_source, const std::string& scratch_dir, double timeout_s,
                           HarnessObjects* objects, const BuildStore* store) {
  BuildOutcome b;
  fs::create_directories(scratch_dir);
  b.binary = (fs::path(scratch_dir) / "harness").string();
  const std::string harness_path = fs::absolute(harness).string(), source = fs::absolute(kernel_source).string();
  if (store && store->keeps()) {
    const std::string kept = program_digest(*store, tc, cs, harness_path, source);
    if (store->take(kept, b.binary)) {
      fs::permissions(b.binary, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
      b.ok = true;
      return b;
    }
    b = build_harness(tc, cs, harness, kernel_source, scratch_dir, timeout_s, objects);
    if (b.ok) store->keep(kept, b.binary);
    return b;
  }
  if (!objects)
    return run_nvcc(tc, harness_build_command(tc, cs, harness_path, source, b.binary), scratch_dir, timeout_s, b);
  BuildOutcome shared = objects->object(tc, cs, harness_path, timeout_s);
  if (!shared.ok) return shared;
  const std::vector<std::string> options = compile_options(tc, cs, "-lineinfo");
  BuildOutcome own;
  own.binary = (fs::path(scratch_dir) / "kernel.o").string();
  std::vector<std::string> cmd = options;
  cmd.insert(cmd.end(), {"-c", source, "-o", own.binary});
  own = run_nvcc(tc, cmd, scratch_dir, timeout_s, own);
  if (!own.ok) return own;
  cmd = options;
  cmd.insert(cmd.end(), {shared.binary, own.binary});
  append_link(cmd, tc, cs, harness_path, b.binary);
  b = run_nvcc(tc, cmd, scratch_dir, timeout_s, b);
  b.seconds += own.seconds;
  b.log = own.log + b.log;
  return b;
}

BuildOutcome build_object(const Toolchain& tc, const CompileSettings& cs, const std::string& kernel_source,
                          const std::string& scratch_dir, double timeout_s) {
  BuildOutcome b;
  fs::create_directories(scratch_dir);
  b.binary = (fs::path(scratch_dir) / "kernel.o").string();
  std::vector<std::string> cmd = compile_options(tc, cs, "-c");
  cmd.insert(cmd.end(), {fs::absolute(kernel_source).string(), "-o", b.binary});
  return run_nvcc(tc, cmd, scratch_dir, timeout_s, b);
}

}  // namespace kernelblaster
