// How a tuner judges one launcher of a harness that drives several: the
// harness names its launchers, in call order, on one line, and runs only
// those whose bit is set in KERNELBLASTER_LAUNCHER_MASK when it is built
// with that macro (bit k: the k-th launcher named; launchers past the 64th
// always run). Without the macro every launcher runs, as before. A
// synthesized harness (harness/harness_text.h) writes both; the tuner reads
// the line (tuner/launcher_focus.h) and builds the original and a
// candidate with the same mask, so the time compared is that launcher's.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace kernelblaster {

inline constexpr const char* kLaunchersMarker = "// kernelblaster: launchers";
// What the first line of a synthesized harness says of it: such a harness
// calls only the launchers it was made from (tuner/launch_reach.h).
inline constexpr const char* kSynthesizedMark = "synthesized by `kernelblaster harness synth`";
inline constexpr const char* kLauncherMaskMacro = "KERNELBLASTER_LAUNCHER_MASK";
inline constexpr int kMaskedLaunchers = 64;

// The launchers a harness's text names on its marker line, in call order;
// empty when it has none (a harness of one launcher, or a user's own).
inline std::vector<std::string> harness_launchers(const std::string& harness_text) {
  std::istringstream in(harness_text);
  const std::string marker = std::string(kLaunchersMarker) + " ";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(marker, 0) != 0) continue;
    std::istringstream names(line.substr(marker.size()));
    std::vector<std::string> out;
    for (std::string name; names >> name;) out.push_back(name);
    return out;
  }
  return {};
}

// The definition that builds a harness running only the launchers of `mask`.
inline std::string launcher_mask_definition(std::uint64_t mask) {
  std::ostringstream d;
  d << kLauncherMaskMacro << "=0x" << std::hex << mask << "ull";
  return d.str();
}

}  // namespace kernelblaster
