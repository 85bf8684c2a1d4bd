#include "runtime/driver_version.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kernelblaster::runtime {

std::string driver_version_from_text(const std::string& text) {
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul ..."
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);
  std::istringstream words(line);
  std::string w;
  while (words >> w)
    if (std::isdigit(static_cast<unsigned char>(w[0])) && w.find('.') != std::string::npos) return w;
  return "";
}

std::string kernel_driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  if (!in) return "";
  std::stringstream s;
  s << in.rdbuf();
  return driver_version_from_text(s.str());
}

int version_major(const std::string& version) { return version.empty() ? 0 : std::atoi(version.c_str()); }

}  // namespace kernelblaster::runtime
