#include "runtime/driver_output.h"

#include <cctype>
#include <sstream>
#include <vector>

namespace kernelblaster::runtime {
namespace {

bool has_word(const std::string& line, const std::string& word) {
  for (std::size_t p = line.find(word); p != std::string::npos; p = line.find(word, p + 1)) {
    bool left = p == 0 || !std::isalnum(static_cast<unsigned char>(line[p - 1]));
    std::size_t e = p + word.size();
    bool right = e >= line.size() || !std::isalnum(static_cast<unsigned char>(line[e]));
    if (left && right) return true;
  }
  return false;
}

std::string clip(const std::string& s, std::size_t n) { return s.size() <= n ? s : s.substr(0, n) + "..."; }

}  // namespace

DriverVerdict driver_verdict_of(const std::string& output, std::string* detail) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) lines.push_back(line);
  }
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    bool failed = has_word(*it, "failed"), passed = has_word(*it, "passed");
    if (!failed && !passed) continue;
    std::string why;
    // A failing driver usually prints its evidence right after the verdict.
    for (auto next = it.base(); next != lines.end() && why.size() < 200; ++next) why += " | " + *next;
    if (detail) *detail = clip(*it + why, 300);
    return failed ? DriverVerdict::failed : DriverVerdict::passed;
  }
  if (detail) {
    std::string tail;
    for (std::size_t i = lines.size() > 2 ? lines.size() - 2 : 0; i < lines.size(); ++i)
      tail += (tail.empty() ? "" : " | ") + lines[i];
    *detail = clip(tail, 300);
  }
  return DriverVerdict::none;
}

}  // namespace kernelblaster::runtime
