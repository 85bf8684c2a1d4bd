// Finding libtorch for building KernelBench drivers: a prefix given by the
// caller, else KERNELBLASTER_TORCH_PREFIX, else what the local Python's torch
// reports (torch.utils.cmake_prefix_path).
#pragma once

#include <string>

namespace kernelblaster::kernelbench {

struct TorchInstall {
  std::string root;         // holds include/, lib/, share/cmake/Torch
  std::string include_dir;  // <root>/include
  std::string api_include_dir;  // <root>/include/torch/csrc/api/include
  std::string lib_dir;      // <root>/lib, with libtorch.so
  int cxx11_abi = 1;        // value for -D_GLIBCXX_USE_CXX11_ABI
};

// False with `why` ("tried ...: reason; ...") when no usable install is found.
// With `remembered` (a file), what Python's torch said is kept there and
// used by later calls while the same python3 is first on PATH and the
// install is still usable: importing torch takes seconds, and a KernelBench
// candidate is evaluated in a few.
bool locate_torch(const std::string& prefix_hint, double python_timeout_s, TorchInstall* out, std::string* why,
                  const std::string& remembered = "");

// The torch root for a prefix that is the root itself, a CMake prefix path
// (<root>/share/cmake) or the Torch package dir (<root>/share/cmake/Torch);
// empty when none of them holds TorchConfig.cmake.
std::string torch_root_from_prefix(const std::string& prefix);

// The ABI flag's value from TorchConfig.cmake or Caffe2Config.cmake text; -1
// when the text does not say.
int abi_from_cmake_text(const std::string& text);

}  // namespace kernelblaster::kernelbench
