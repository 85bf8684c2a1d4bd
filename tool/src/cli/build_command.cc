// Placeholder until the command lands; its owner replaces this file.
#include <cstdio>

#include "cli/commands.h"

namespace kernelblaster {

int build_command(const CommandArgs&, const std::string&) {
  std::fputs("kernelblaster build: not available in this build\n", stderr);
  return 2;
}

}  // namespace kernelblaster
