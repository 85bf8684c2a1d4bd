// Turns a KernelBench driver.cpp into the program the tool builds: the
// launcher prototype moves to a generated cuda_model.cuh (as the original
// system does), output tensors start poisoned so a launcher that leaves
// elements unwritten fails instead of passing on leftover memory, and the
// inputs follow KB_SEED so each correctness run sees different data.
#pragma once

#include <string>

#include "kernelbench/prototype.h"

namespace kernelblaster::kernelbench {

inline constexpr const char* kShimHeaderName = "kb_driver_shim.h";
inline constexpr const char* kCudaModelHeaderName = "cuda_model.cuh";

// cuda_model.cuh: <cstdint>, <torch/torch.h> and the launcher's prototype.
std::string make_cuda_model_header(const Prototype& launcher);

// The driver with `launcher` (its declaration, found by find_declaration)
// removed, torch::empty / empty_like / manual_seed calls routed through the
// shim header, and that header included first.
std::string rewrite_driver(const std::string& driver, const Prototype& launcher);

// kb_driver_shim.h: the poisoning factories and the KB_SEED initializer.
std::string driver_shim_header();

}  // namespace kernelblaster::kernelbench
