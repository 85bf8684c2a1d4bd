// Turns a KernelBench driver.cpp into the program the tool builds: the
// launcher prototype moves to a generated cuda_model.cuh (as the original
// system does), and the driver is routed through KernelBlaster's runtime
// (tool/include/kernelblaster/kernelbench_driver.h, included first):
//   - `X.data_ptr...()` becomes `kb_track(X).data_ptr...()`, so the tensors
//     behind the launcher's pointer arguments are known;
//   - `torch::allclose(a, b, ...)` becomes `kb_allclose("a", "b", a, b, ...)`,
//     which reports the launcher's output and torch's result for the tool's
//     own comparison;
//   - torch::empty / empty_like make NaN-poisoned tensors, and
//     torch::manual_seed follows the runtime's seed;
//   - `main` becomes `kb_driver_main`, and a main() that hands the process to
//     the runtime is appended.
// Line numbers of the driver survive (#line), so compiler messages point at
// driver.cpp.
#pragma once

#include <string>

#include "kernelbench/prototype.h"

namespace kernelblaster::kernelbench {

inline constexpr const char* kDriverRuntimeHeader = "kernelblaster/kernelbench_driver.h";
inline constexpr const char* kCudaModelHeaderName = "cuda_model.cuh";
inline constexpr const char* kRenamedDriverMain = "kb_driver_main";

// cuda_model.cuh: <cstdint>, <torch/torch.h> and the launcher's prototype.
std::string make_cuda_model_header(const Prototype& launcher);

// The rewritten driver. `launcher` is its declaration (find_declaration).
// Throws std::runtime_error when the driver defines no `int main(...)`.
std::string rewrite_driver(const std::string& driver, const Prototype& launcher);

}  // namespace kernelblaster::kernelbench
