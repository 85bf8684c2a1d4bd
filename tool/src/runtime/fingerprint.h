// The input fingerprint: an order-independent sum of position-mixed 64-bit
// words, so the GPU computes it with atomics in any order, yet a changed,
// moved or swapped word changes it. Shared by the device kernel and the host
// reference implementation the tests use.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define KERNELBLASTER_HOST_DEVICE __host__ __device__
#else
#define KERNELBLASTER_HOST_DEVICE
#endif

namespace kernelblaster {

KERNELBLASTER_HOST_DEVICE inline std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Contribution of the 8-byte word at word index i.
KERNELBLASTER_HOST_DEVICE inline std::uint64_t fingerprint_word(std::uint64_t word, std::uint64_t i) {
  return mix64(word ^ mix64(i));
}
// Contribution of a trailing byte at byte offset i (past the last full word).
KERNELBLASTER_HOST_DEVICE inline std::uint64_t fingerprint_tail_byte(unsigned char b, std::uint64_t i) {
  return mix64(b ^ mix64(i + 0x100000000ull));
}

// The same fingerprint computed on the host.
inline std::uint64_t fingerprint_host(const unsigned char* p, std::size_t bytes) {
  std::uint64_t sum = 0;
  std::size_t words = bytes / 8;
  for (std::size_t i = 0; i < words; ++i) {
    std::uint64_t w = 0;
    for (int b = 7; b >= 0; --b) w = (w << 8) | p[i * 8 + b];  // little-endian, as the GPU reads it
    sum += fingerprint_word(w, i);
  }
  for (std::size_t i = words * 8; i < bytes; ++i) sum += fingerprint_tail_byte(p[i], i);
  return sum ^ bytes;
}

}  // namespace kernelblaster
