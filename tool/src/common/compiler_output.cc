#include "common/compiler_output.h"

#include <sstream>
#include <vector>

namespace kernelblaster {

std::string first_error_line(const std::string& output) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    lines.push_back(line);
  }
  const char* markers[] = {"error:", "error :", ": error", "undefined reference", "cannot find -l", "fatal error"};
  for (const std::string& line : lines) {
    if (line.find("collect2") != std::string::npos) continue;  // "ld returned 1": the cause comes earlier
    for (const char* m : markers)
      if (line.find(m) != std::string::npos) return line;
  }
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (!it->empty()) return *it;
  return "";
}

}  // namespace kernelblaster
