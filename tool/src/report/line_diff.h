// Lines of two texts paired for a side-by-side view: equal lines side by
// side, a removed line against nothing, an added one against nothing. A
// longest common subsequence of lines; above kMaxCells (n x m) the texts
// are paired line by line instead, so a huge file costs no quadratic memory.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kernelblaster::report {

struct DiffRow {
  enum class Kind { same, removed, added, changed } kind = Kind::same;
  std::string left, right;  // empty on the side that has no line
};

inline constexpr std::size_t kMaxDiffCells = 4'000'000;

std::vector<std::string> split_lines(const std::string& text);
std::vector<DiffRow> diff_lines(const std::vector<std::string>& left, const std::vector<std::string>& right);

}  // namespace kernelblaster::report
