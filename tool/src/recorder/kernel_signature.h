// A kernel's parameter types as its demangled name spells them
// ("void sgemm_tiled<64, 8>(int, float const*, float*)"), read by both the
// kernel recorder (inside the user's process, for value ranges) and the
// tool (to type the recorded bytes). Plain string work: no demangler here.
#pragma once

#include <string>
#include <vector>

namespace kernelblaster::recorder {

struct KernelSignature {
  std::string name;                 // "sgemm_tiled<64, 8>", with its namespaces ("ns::k")
  std::string base_name;            // "sgemm_tiled": what the source declares
  std::vector<std::string> params;  // "int", "float const*", ...
  bool ok = false;                  // false: not a demangled function signature
};

// Reads "void ns::k<T, 4>(int, float const*)"; a return type in front is
// skipped (template kernels' names carry it).
KernelSignature read_signature(const std::string& demangled);

// A parameter type as a harness DType name when it is a pointer to an
// arithmetic element ("float const*" -> "f32", "unsigned char*" -> "u8");
// empty otherwise.
std::string pointee_dtype(const std::string& type);
bool is_pointer(const std::string& type);
bool points_to_const(const std::string& type);

// The harness DType name of an arithmetic scalar type ("int" -> "i32",
// "unsigned long" -> "i64"-sized unsigned), empty for anything else.
std::string scalar_dtype(const std::string& type);

}  // namespace kernelblaster::recorder
