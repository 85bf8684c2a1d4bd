// Deterministic draws for the built-in policy: the same numbers on every
// platform (std:: distributions are not), which replay needs.
#pragma once

#include <cstdint>
#include <string>

namespace kernelblaster::policy {

// splitmix64: advances `state` and returns the next 64 bits.
inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A uniform draw in (0, 1].
inline double unit_draw(std::uint64_t& state) {
  return (static_cast<double>(splitmix64(state) >> 11) + 1.0) * 0x1.0p-53;
}

// A state from a run's seed and a text (FNV-1a over it), mixed once.
inline std::uint64_t draw_state(std::uint64_t seed, const std::string& text) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001B3ull;
  std::uint64_t state = seed * 0xD1B54A32D192ED03ull ^ h;
  splitmix64(state);
  return state;
}

}  // namespace kernelblaster::policy
