#include "judge/object_bound.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "common/file_util.h"
#include "common/subprocess.h"

namespace kernelblaster {
namespace {

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// A symbol as the line shows it: C++ names demangled ("std::thread::...").
std::string shown(const std::string& symbol) {
  int status = 0;
  char* d = starts_with(symbol, "_Z") ? abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status) : nullptr;
  if (!d || status != 0) return symbol;
  std::string out(d);
  std::free(d);
  return out;
}

// The CUDA runtime calls a launcher needs.
const std::set<std::string> kRuntimeCalls = {
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel", "cudaGetLastError",
    "cudaPeekAtLastError", "cudaGetErrorString", "cudaGetErrorName", "cudaFuncSetAttribute", "cudaFuncGetAttributes",
    "cudaFuncSetCacheConfig", "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", "cudaOccupancyAvailableDynamicSMemPerBlock",
    "cudaGetDevice", "cudaGetDeviceCount", "cudaGetDeviceProperties", "cudaGetDeviceProperties_v2",
    "cudaDeviceGetAttribute", "cudaMalloc", "cudaFree", "cudaMallocAsync", "cudaFreeAsync", "cudaMemset",
    "cudaMemsetAsync", "cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpy2D", "cudaMemcpy2DAsync", "cudaMemcpyToSymbol",
    "cudaMemcpyToSymbolAsync", "cudaMemcpyFromSymbol", "cudaMemcpyFromSymbolAsync", "cudaGetSymbolAddress",
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaGetFuncBySymbol",
    // Streams and events to order its own work (work left on a stream the
    // call never joins is untimed_work at run time).
    "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority", "cudaStreamDestroy",
    "cudaStreamWaitEvent", "cudaEventCreate", "cudaEventCreateWithFlags", "cudaEventRecord", "cudaEventDestroy",
    "cudaEventSynchronize",
    // The L2 persistence technique (what a call leaves set aside is cached_result at run time).
    "cudaStreamSetAttribute", "cudaStreamGetAttribute", "cudaDeviceSetLimit", "cudaDeviceGetLimit",
    "cudaCtxResetPersistingL2Cache",
    // Pinned staging memory.
    "cudaMallocHost", "cudaFreeHost", "cudaHostAlloc"};

// The C and C++ runtime a compiled launcher references by itself.
const std::set<std::string> kLanguageCalls = {
    "_Znwm", "_Znam", "_ZdlPv", "_ZdlPvm", "_ZdaPv", "_ZdaPvm", "_ZnwmSt11align_val_t", "_ZdlPvSt11align_val_t",
    "_ZdlPvmSt11align_val_t", "__cxa_guard_acquire", "__cxa_guard_release", "__cxa_guard_abort", "__cxa_begin_catch",
    "__cxa_end_catch", "__cxa_rethrow", "__cxa_allocate_exception", "__cxa_free_exception", "__cxa_throw",
    "__cxa_pure_virtual", "__gxx_personality_v0", "_Unwind_Resume", "__stack_chk_fail", "__dso_handle",
    "_GLOBAL_OFFSET_TABLE_", "memcpy", "memmove", "memset", "memcmp", "strlen", "strcmp", "abort", "__assert_fail",
    "printf", "fprintf", "puts", "fputs", "putchar", "fputc", "snprintf", "sprintf", "vsnprintf", "stderr", "stdout",
    "fflush", "exit", "_ZSt9terminatev", "atexit",  // atexit: nvcc's own registration; counted apart
    // Host memory (the sandbox bounds how much).
    "malloc", "calloc", "realloc", "free", "posix_memalign", "aligned_alloc"};

// libstdc++ that ordinary code reaches without being asked: strings, the
// standard exceptions and their type information, stream output, trees.
const std::vector<std::string> kLanguagePrefixes = {
    "__cuda", "_ZNSt7__cxx1112basic_string", "_ZNKSt7__cxx1112basic_string", "_ZNSt13runtime_error",
    "_ZNSt11logic_error", "_ZNSt12out_of_range", "_ZNSt16invalid_argument", "_ZNSt12length_error",
    "_ZNSt9exception", "_ZNKSt9exception", "_ZTISt", "_ZTVSt", "_ZTSSt", "_ZTVN10__cxxabiv1", "_ZSt4cerr",
    "_ZSt4cout", "_ZSt4endl", "_ZStlsI", "_ZNSo", "_ZSt16__ostream_insert", "_ZNKSt5ctypeIcE", "_ZSt16__throw_",
    "_ZSt17__throw_", "_ZSt18__throw_", "_ZSt19__throw_", "_ZSt20__throw_", "_ZSt21__throw_", "_ZSt24__throw_",
    "_ZSt25__throw_", "_ZSt18_Rb_tree", "_ZSt28_Rb_tree", "_ZSt29_Rb_tree"};

// What a call outside the bound reaches, for the line.
std::string family_of(const std::string& s) {
  static const std::map<std::string, std::string> exact = {
      {"fopen", "files"}, {"fopen64", "files"}, {"open", "files"}, {"open64", "files"}, {"openat", "files"},
      {"read", "files"}, {"write", "files"}, {"fread", "files"}, {"fwrite", "files"}, {"unlink", "files"},
      {"rename", "files"}, {"close", "files"}, {"fclose", "files"}, {"fgets", "files"}, {"fscanf", "files"},
      {"fseek", "files"}, {"ftell", "files"}, {"access", "files"}, {"chmod", "files"}, {"mkdir", "files"},
      {"remove", "files"}, {"truncate", "files"}, {"ftruncate", "files"}, {"opendir", "files"},
      {"readdir", "files"}, {"stat", "files"}, {"socket", "the network"}, {"connect", "the network"},
      {"fork", "processes"}, {"vfork", "processes"}, {"_exit", "processes"}, {"_Exit", "processes"},
      {"execv", "processes"}, {"execve", "processes"}, {"execvp", "processes"},
      {"system", "processes"}, {"popen", "processes"}, {"posix_spawn", "processes"}, {"kill", "processes"},
      {"ptrace", "processes"}, {"getenv", "the environment"}, {"secure_getenv", "the environment"},
      {"setenv", "the environment"}, {"putenv", "the environment"}, {"unsetenv", "the environment"},
      {"pthread_create", "threads"}, {"dlopen", "the dynamic loader"}, {"dlsym", "the dynamic loader"},
      {"dlvsym", "the dynamic loader"}, {"syscall", "system calls"}, {"signal", "signals"},
      {"sigaction", "signals"}, {"clock_gettime", "clocks"}, {"gettimeofday", "clocks"}, {"mmap", "memory mappings"},
      {"mprotect", "memory mappings"}, {"__cxa_atexit", "exit handlers"}, {"at_quick_exit", "exit handlers"}};
  if (auto it = exact.find(s); it != exact.end()) return it->second;
  // glibc's fortified forms (_FORTIFY_SOURCE): __fread_chk is fread.
  if (s.size() > 6 && starts_with(s, "__") && s.compare(s.size() - 4, 4, "_chk") == 0) {
    const std::string plain = s.substr(2, s.size() - 6);
    if (auto it = exact.find(plain); it != exact.end()) return it->second;
  }
  if (starts_with(s, "cupti")) return "CUPTI";
  if (starts_with(s, "cuda")) return "the CUDA runtime beyond what a launcher needs";
  if (s.size() > 2 && starts_with(s, "cu") && std::isupper(static_cast<unsigned char>(s[2]))) return "the driver API";
  if (s.find("13kernelblaster") != std::string::npos) return "the tool's own runtime";
  if (s.find("6thread") != std::string::npos) return "threads";
  if (s.find("6chrono") != std::string::npos) return "clocks";
  if (s.find("10filesystem") != std::string::npos || s.find("basic_ifstream") != std::string::npos ||
      s.find("basic_ofstream") != std::string::npos || s.find("basic_filebuf") != std::string::npos)
    return "files";
  return "";
}

// C names of the families whose definitions would stand in for a library's.
bool reserved_name(const std::string& s) {
  if (starts_with(s, "_Z")) return s.find("13kernelblaster") != std::string::npos;
  return starts_with(s, "cuda") || starts_with(s, "__cuda") || starts_with(s, "cupti") || starts_with(s, "nvtx") ||
         (s.size() > 2 && starts_with(s, "cu") && std::isupper(static_cast<unsigned char>(s[2])));
}

bool base_call(const std::string& s, const LibraryExports& libs) {
  if (kRuntimeCalls.count(s) || kLanguageCalls.count(s) || libs.math.count(s)) return true;
  return std::any_of(kLanguagePrefixes.begin(), kLanguagePrefixes.end(), [&](const std::string& p) { return starts_with(s, p); });
}

std::string run_tool(const std::vector<std::string>& argv) {
  ProcessOptions opt;
  opt.timeout_s = 60;
  ProcessResult r = run_process(argv, opt);
  if (!r.ok()) throw std::runtime_error(argv[0] + " " + argv.back() + ": " + r.how_it_ended());
  return r.output;
}

// Names nm lists, weak and versioned ones (name@@GLIBC_2.2.5) included.
void add_nm_names(const std::string& out, std::set<std::string>* names) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line.back() == ':') continue;
    std::string name = line.substr(0, line.find(' '));
    name = name.substr(0, name.find('@'));
    if (!name.empty()) names->insert(name);
  }
}

// A library's path as the host compiler finds it; "" when it does not.
std::string library_path(const std::string& name) {
  try {
    std::string p = run_tool({"g++", "-print-file-name=" + name});
    p.erase(p.find_last_not_of(" \n\r\t") + 1);
    return p.find('/') == std::string::npos ? "" : p;
  } catch (const std::exception&) {
    return "";  // no host compiler to ask: the caller says the library was not found
  }
}

}  // namespace

ObjectFacts parse_object_facts(const std::string& nm_posix, const std::string& objdump) {
  ObjectFacts f;
  std::istringstream nm(nm_posix);
  std::string line;
  while (std::getline(nm, line)) {
    std::istringstream fields(line);
    std::string name, type;
    if (!(fields >> name >> type) || type.size() != 1) continue;
    const char t = type[0];
    if (t == 'U' || t == 'w' || t == 'v') f.undefined.insert(name);
    else if (std::isupper(static_cast<unsigned char>(t))) f.defined.insert(name);
  }
  std::istringstream od(objdump);
  while (std::getline(od, line)) {
    std::istringstream fields(line);
    std::string idx, section, size;
    if ((fields >> idx >> section >> size) && starts_with(section, ".init_array") && !idx.empty() &&
        std::isdigit(static_cast<unsigned char>(idx[0])))
      f.init_entries += static_cast<int>(std::stoll(size, nullptr, 16) / 8);
    const std::size_t reloc = line.find("R_X86_64_");
    if (reloc != std::string::npos) {
      std::istringstream r(line.substr(reloc));
      std::string kind, target;
      r >> kind >> target;
      target = target.substr(0, target.find_first_of("+-"));
      if (target == "atexit" || target == "__cxa_atexit") ++f.exit_registrations;
    }
    if (f.system_call.empty())
      for (const char* op : {"\tsyscall", "\tsysenter", "\tint    $0x80"})
        if (line.find(op) != std::string::npos) f.system_call = line.substr(line.find_first_not_of(' '));
  }
  return f;
}

ObjectFacts inspect_object(const std::string& object) {
  return parse_object_facts(run_tool({"nm", "-P", object}), run_tool({"objdump", "-h", "-r", "-d", object}));
}

const LibraryExports& library_exports(const std::string& cuda_lib_dir, const std::vector<std::string>& more) {
  static std::mutex lock;
  static std::map<std::vector<std::string>, LibraryExports> found;
  std::vector<std::string> key = more;
  key.push_back(cuda_lib_dir);
  std::lock_guard<std::mutex> hold(lock);
  auto it = found.find(key);
  if (it != found.end()) return it->second;
  LibraryExports e;
  auto add = [&](const std::string& path, bool dynamic, std::set<std::string>* also) {
    if (path.empty()) return;
    try {
      const std::string out = dynamic ? run_tool({"nm", "-D", "-P", "--defined-only", path})
                                      : run_tool({"nm", "-P", "-g", "--defined-only", path});
      add_nm_names(out, &e.all);
      if (also) add_nm_names(out, also);
    } catch (const std::exception&) {
      // A library that cannot be read adds nothing; the reserved families still hold.
    }
  };
  add(library_path("libm.so.6"), true, &e.math);
  for (const char* lib : {"libc.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libcuda.so.1"})
    add(library_path(lib), true, nullptr);
  for (const char* lib : {"libcudart.so", "libcupti.so"}) add(cuda_lib_dir + "/" + lib, true, nullptr);
  add(cuda_lib_dir + "/libcudart_static.a", false, nullptr);
  for (const std::string& lib : more) add(lib, true, nullptr);
  return found.emplace(std::move(key), std::move(e)).first->second;
}

std::string object_violation(const ObjectFacts& original, const ObjectFacts& candidate, const LibraryExports& libs) {
  for (const std::string& s : candidate.defined) {
    if (original.defined.count(s) || starts_with(s, "DW.ref.")) continue;
    if (libs.all.count(s) || reserved_name(s))
      return "defines " + shown(s) + ", which the original does not: a symbol of a library the harness links, so the "
             "candidate's code would run in its place";
  }
  for (const std::string& s : candidate.undefined) {
    if (original.undefined.count(s) || base_call(s, libs)) continue;
    const std::string family = family_of(s);
    return "calls " + shown(s) + (family.empty() ? "" : " (" + family + ")") +
           ", which the original does not and a kernel's launcher has no need of";
  }
  if (candidate.init_entries > original.init_entries)
    return "adds " + std::to_string(candidate.init_entries - original.init_entries) +
           " static constructor(s) to the original's (code that runs before the harness does: a global object, "
           "<iostream>'s initializer, a constructor attribute)";
  if (candidate.exit_registrations > original.exit_registrations)
    return "registers an exit handler the original does not (atexit, __cxa_atexit): code that runs after the harness "
           "wrote its report";
  if (!candidate.system_call.empty() && original.system_call.empty())
    return "contains a system-call instruction (" + candidate.system_call + ")";
  return "";
}

namespace {

// The bound's verdict on a candidate's object, the original's facts known.
Verdict verdict_on(const ObjectFacts& original, const std::string& candidate_object, const LibraryExports& libs) {
  try {
    const std::string v = object_violation(original, inspect_object(candidate_object), libs);
    if (!v.empty()) return {Status::forbidden_code, "the candidate's compiled code " + v};
  } catch (const std::exception& x) {
    return {Status::tool_error, std::string("the objects could not be read: ") + x.what()};
  }
  return {};
}

// What the original's object holds, kept per process for the same text and
// settings: the optimize loop checks every candidate against one original.
class OriginalFacts {
 public:
  static std::string key(const CompileSettings& cs, const std::string& original) {
    std::string k = read_file(original) + '\0' + cs.arch;
    for (const auto* list : {&cs.include_dirs, &cs.definitions, &cs.flags, &cs.libraries})
      for (const std::string& item : *list) k += '\0' + item;
    return k;
  }
  static std::optional<ObjectFacts> find(const std::string& key) {
    std::lock_guard<std::mutex> hold(lock());
    auto it = known().find(key);
    if (it == known().end()) return std::nullopt;
    return it->second;
  }
  static void keep(const std::string& key, const ObjectFacts& facts) {
    std::lock_guard<std::mutex> hold(lock());
    if (known().size() > 16) known().clear();  // a long-lived process with many originals
    known().insert_or_assign(key, facts);
  }

 private:
  static std::mutex& lock() {
    static std::mutex m;
    return m;
  }
  static std::map<std::string, ObjectFacts>& known() {
    static std::map<std::string, ObjectFacts> m;
    return m;
  }
};

}  // namespace

Verdict check_candidate_object(const Toolchain& tc, const CompileSettings& cs, const std::string& original,
                               const std::string& candidate, const std::string& dir, double timeout_s) {
  std::string key;
  try {
    key = OriginalFacts::key(cs, original);
  } catch (const std::exception& x) {
    return {Status::tool_error, std::string("the original cannot be read: ") + x.what()};
  }
  std::optional<ObjectFacts> known = OriginalFacts::find(key);
  // Both compile at once where the original's facts are not known yet.
  std::future<BuildOutcome> original_object;
  if (!known)
    original_object = std::async(std::launch::async, [&] { return build_object(tc, cs, original, dir + "/original", timeout_s); });
  BuildOutcome c = build_object(tc, cs, candidate, dir + "/candidate", timeout_s);
  if (!known) {
    BuildOutcome o = original_object.get();
    if (!o.ok) return {Status::tool_error, "the original does not compile to an object on its own: " + o.first_error};
    try {
      known = inspect_object(o.binary);
    } catch (const std::exception& x) {
      return {Status::tool_error, std::string("the objects could not be read: ") + x.what()};
    }
    OriginalFacts::keep(key, *known);
  }
  if (!c.ok) return {c.failure, c.first_error};
  return verdict_on(*known, c.binary, library_exports(tc.cuda_lib_dir));
}

Verdict bound_objects(const std::string& original_object, const std::string& candidate_object,
                      const LibraryExports& libs) {
  ObjectFacts original;
  try {
    original = inspect_object(original_object);
  } catch (const std::exception& x) {
    return {Status::tool_error, std::string("the objects could not be read: ") + x.what()};
  }
  return verdict_on(original, candidate_object, libs);
}

}  // namespace kernelblaster
