// What `harness init` knows of a host launcher: its signature as a C++
// parser read it (launcher_scan.h), before any guess about sizes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kernelblaster::harness {

enum class ParamKind {
  buffer,  // a pointer: device memory the launcher reads or writes
  dim,     // an integer: a problem dimension
  real,    // float or double: a value the user must confirm
  flag,    // bool
  stream,  // cudaStream_t: the default stream is passed
  other,   // anything else: the user must write the value
};

struct LauncherParam {
  std::string name;       // as declared (a placeholder "arg<i>" when unnamed)
  std::string type;       // as written, e.g. "const float *", "int64_t"
  std::string canonical;  // without typedefs, e.g. "long": what a prototype can spell anywhere
  ParamKind kind = ParamKind::other;
  bool writable = false;  // buffer: a pointer to non-const
  std::string element;    // buffer: harness DType name ("f32", ...); empty when unknown (void *)
  std::string element_from;  // where `element` came from, e.g. "kernel parameter 'input'"
};

struct Launcher {
  std::string name;
  std::vector<std::string> namespaces;  // enclosing namespaces, outermost first
  bool extern_c = false;
  std::string return_type;
  std::vector<LauncherParam> params;
  int line = 0;
  // The kernels it launches, itself or through the file's host functions
  // (launcher_scan; empty when not known). Not part of the signature.
  std::vector<std::string> kernels;
  // Where its definition's name and end are in the source (bytes;
  // launcher_scan): the recording shim renames the definition there.
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  std::size_t name_offset = npos, end_offset = npos;
};

// The harness DType name of a C++ element type spelled canonically
// ("float", "__half", "const __nv_bfloat16"); empty when there is none.
std::string element_of(const std::string& canonical_type);

// Whether two reads of a launcher have the same signature (name, scope,
// linkage, return and parameter types): what decides whether calls recorded
// with one can drive the other. The line it is declared on does not count.
bool same_signature(const Launcher& a, const Launcher& b);

// The CUDA toolkit's include directory this tool was built with.
std::string default_cuda_include();

}  // namespace kernelblaster::harness
