// FNV-1a, 64 bits: a fast non-cryptographic hash for names and texts (SASS
// de-duplication, the kernel recorder's file names and shape keys). Content
// keys use SHA-256 (build_step/content_key.h).
#pragma once

#include <cstdint>
#include <string>

namespace kernelblaster {

inline std::uint64_t fnv1a_64(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace kernelblaster
