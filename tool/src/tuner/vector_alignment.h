// What a kernel's vector accesses need of its compile-time values. A kernel
// that reads or writes four floats at once through
// `reinterpret_cast<float4*>(&C[row * N + col * TN + i])` needs the address
// to be a multiple of 16 bytes; with TN = 2 the second thread's access is
// not, and the kernel dies with "misaligned address" (SGEMM_CUDA's kernel 10
// on an H200: 11 of 60 tries in one tuning run, 2026-11-28). No
// static_assert says so, so the space must derive it.
//
// Each access's index, with the offsets its pointer was given in the body
// (`float* C_interim = C + ... + wSubColIdx * WSUBN;`, `C += ...;`), is split
// into terms, each a product of factors:
//   - compile-time factors (literals, tunables, constants derived from them),
//   - locals read through their initializers where those read as terms,
//   - run-time factors that can be 1 (thread and block indices, loop
//     counters, other locals computed from them),
//   - problem values (the kernel's own arguments, such as a matrix's N, and
//     locals computed from them): the author's vector loads assume them
//     aligned, so a term with one asks nothing,
//   - anything else (calls, subscripts, casts): the term is not read.
// A term whose compile-time part depends on a tunable must then be a multiple
// of the vector's width in elements for every run-time value, so the need is
// that part modulo the width. It is a sufficient condition, derived from the
// code as written; the caller keeps it only where the original satisfies it.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace kernelblaster::tuner {

struct AlignmentNeed {
  std::string expr;  // in the kernel's own names: "TN", "WSUBN"
  int elements = 1;  // expr % elements == 0
  std::string access;  // "float4 accesses to C_interim"
};

struct AlignmentNames {
  // Whether an expression's value is known at compile time (literals,
  // tunables and what is derived from them only).
  std::function<bool(const std::string&)> compile_time;
  // Whether a compile-time expression depends on a tunable.
  std::function<bool(const std::string&)> tunable;
  // Whether a run-time name is a problem value (an argument of the kernel, or
  // computed from one).
  std::function<bool(const std::string&)> problem;
  // A local's initializer (`col` in `const int col = threadIdx.x * TN;`), or
  // "": a local whose initializer reads is read through it.
  std::function<std::string(const std::string&)> definition;
};

// `body` is the kernel's body, `signature` its parameter list (the text
// between its parentheses). One need per distinct expression and width.
std::vector<AlignmentNeed> vector_alignment_needs(const std::string& body, const std::string& signature,
                                                  const AlignmentNames& names);

// The names of a parameter list's parameters, in order.
std::vector<std::string> parameter_names(const std::string& signature);

}  // namespace kernelblaster::tuner
