// Machine-code identity of a candidate: the SASS of its harness program
// (cuobjdump -sass), reduced to function names and instructions and hashed.
// The harness runtime's kernels are the same precompiled code in every
// program, so two programs hash alike exactly when the candidate's kernels
// compiled to the same SASS; reading the program already built saves a
// second nvcc run per candidate. Configurations with one hash are measured
// once.
#pragma once

#include <string>

#include "judge/candidate_build.h"

namespace kernelblaster::tuner {

class SassHasher {
 public:
  virtual ~SassHasher() = default;
  // Empty when the program cannot be disassembled.
  virtual std::string hash(const std::string& program) = 0;
};

class CuobjdumpSassHasher final : public SassHasher {
 public:
  explicit CuobjdumpSassHasher(Toolchain toolchain) : m_toolchain(std::move(toolchain)) {}
  std::string hash(const std::string& program) override;

 private:
  Toolchain m_toolchain;
};

// The lines of a cuobjdump -sass listing that are code (function names and
// instructions with their encodings), without headers that name files or
// the architecture variant: sm_90 and sm_90a code that is identical compares
// equal.
std::string normalize_sass(const std::string& listing);
// FNV-1a 64 of `text` as 16 hex digits.
std::string hash_text(const std::string& text);

}  // namespace kernelblaster::tuner
