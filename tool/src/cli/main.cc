// kernelblaster: the command-line tool. One executable, one subcommand per
// job; the CMake module only ever calls this.
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/eval_command.h"
#include "kernelblaster/build_paths.h"

namespace {

const char* kUsage = R"(usage: kernelblaster <command> [options]

commands:
  eval      judge a candidate kernel source against the original (correctness, speed)
  version   print the version

Run 'kernelblaster <command> --help' for a command's options.
)";

std::string self_exe() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string command = argv[1];
  std::vector<std::string> rest(argv + 2, argv + argc);
  if (command == "eval") return kernelblaster::eval_command(rest, self_exe());
  if (command == "version" || command == "--version") {
    std::printf("kernelblaster %s\n", KB_VERSION);
    return 0;
  }
  if (command == "help" || command == "--help" || command == "-h") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::fprintf(stderr, "kernelblaster: unknown command '%s'\n%s", command.c_str(), kUsage);
  return 2;
}
