// The GPU CTest allocated to a test (CTest's resource allocation: a test
// with RESOURCE_GROUPS "gpus:1", run with `ctest --resource-spec-file`),
// read from the environment CTest sets for it:
//   CTEST_RESOURCE_GROUP_COUNT=1
//   CTEST_RESOURCE_GROUP_0=gpus
//   CTEST_RESOURCE_GROUP_0_GPUS=id:1,slots:1
// The ids are those of the spec file, which KernelBlaster's gates take as
// CUDA device indices (docs/cmake.md shows the file).
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace kernelblaster {

// The allocated GPU's index; nullopt when CTest allocated none (no spec
// file given, or the test runs outside CTest). Throws std::invalid_argument
// with one line when the allocation names a GPU that is not an index.
std::optional<int> ctest_allocated_gpu(const std::function<const char*(const char*)>& env);

}  // namespace kernelblaster
