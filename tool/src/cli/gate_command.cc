// Placeholder until the command lands; its owner replaces this file.
#include <cstdio>

#include "cli/commands.h"

namespace kernelblaster {

int gate_command(const CommandArgs&, const std::string&) {
  std::fputs("kernelblaster gate: not available in this build\n", stderr);
  return 2;
}

}  // namespace kernelblaster
