// Placeholder until the command lands; its owner replaces this file.
#include <cstdio>

#include "cli/commands.h"

namespace kernelblaster {

int gpu_command(const CommandArgs&, const std::string&) {
  std::fputs("kernelblaster gpu: not available in this build\n", stderr);
  return 2;
}

}  // namespace kernelblaster
