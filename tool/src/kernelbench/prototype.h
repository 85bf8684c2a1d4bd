// The launcher's signature as a KernelBench problem states it: the driver
// declares it, init.cu and every candidate define it. Parsed from text so
// the tool can generate cuda_model.cuh and the timing wrapper.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kernelblaster::kernelbench {

inline constexpr const char* kLauncherName = "launch_gpu_implementation";

enum class ParamKind { pointer, integer, floating, other };

struct Param {
  std::string type;  // normalized, e.g. "const void*", "int64_t"
  std::string name;  // as written; "arg<i>" when the declaration names none
  ParamKind kind = ParamKind::other;
};

struct Prototype {
  std::string return_type = "void";
  std::string name;
  std::vector<Param> params;
  // Where the whole declaration or definition head sits in the source:
  // [begin, end) covers specifiers through ';' (declaration) or ')' (definition).
  std::size_t begin = 0, end = 0;
  std::size_t name_pos = 0;
  // C linkage: `extern "C"` among its specifiers, or inside an `extern "C" { }` block.
  bool c_linkage = false;
  bool in_extern_c_block = false;

  // "void name(const void* a, int64_t n)" with the given function name.
  std::string signature(const std::string& as_name) const;
  // "a, n": the parameter names, for forwarding a call.
  std::string argument_list() const;
};

// The first declaration `R name(...);` in `source`. Returns false and says
// why in one line when there is none.
bool find_declaration(const std::string& source, const std::string& name, Prototype* out, std::string* why);
// The definition `R name(...) { ... }` in `source`.
bool find_definition(const std::string& source, const std::string& name, Prototype* out, std::string* why);
// Names of functions defined at file scope that are not kernels or device
// functions: a hint when the launcher is missing or misnamed.
std::vector<std::string> host_function_names(const std::string& source);

// One parameter as written, e.g. "const float* __restrict__ x" or "int64_t".
Param parse_param(const std::string& text, int index);
ParamKind classify_type(const std::string& type);

}  // namespace kernelblaster::kernelbench
