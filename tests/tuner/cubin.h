// The device code of a source alone (nvcc -cubin, no line information), for
// tests that a tuned copy compiles to the original's code at its defaults
// and to other code with another value: equal bytes, equal code.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace kernelblaster::tuner::test_support {

inline const std::string kNvcc = "/usr/local/cuda/bin/nvcc";

// `dir`/`name`.cu compiled for sm_90; its cubin's bytes ("" when it failed, which is also a test failure).
inline std::string cubin_of(const std::filesystem::path& dir, const std::string& name) {
  const std::string base = (dir / name).string();
  const std::string cmd = kNvcc + " -arch=sm_90 -cubin -o " + base + ".cubin " + base + ".cu";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(base + ".cubin", std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace kernelblaster::tuner::test_support
