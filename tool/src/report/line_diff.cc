#include "report/line_diff.h"

#include <algorithm>
#include <cstdint>

namespace kernelblaster::report {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

namespace {

std::vector<DiffRow> paired(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<DiffRow> rows;
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    DiffRow r;
    r.left = i < a.size() ? a[i] : "";
    r.right = i < b.size() ? b[i] : "";
    if (i >= a.size()) r.kind = DiffRow::Kind::added;
    else if (i >= b.size()) r.kind = DiffRow::Kind::removed;
    else r.kind = a[i] == b[i] ? DiffRow::Kind::same : DiffRow::Kind::changed;
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace

std::vector<DiffRow> diff_lines(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const std::size_t n = a.size(), m = b.size();
  if ((n + 1) * (m + 1) > kMaxDiffCells) return paired(a, b);
  // lcs[i][j]: the common subsequence's length of a[i..] and b[j..].
  std::vector<std::uint32_t> lcs((n + 1) * (m + 1), 0);
  auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return lcs[i * (m + 1) + j]; };
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      at(i, j) = a[i] == b[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  std::vector<DiffRow> rows;
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      rows.push_back({DiffRow::Kind::same, a[i++], b[j++]});
    } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
      rows.push_back({DiffRow::Kind::removed, a[i++], ""});
    } else {
      rows.push_back({DiffRow::Kind::added, "", b[j++]});
    }
  }
  return rows;
}

}  // namespace kernelblaster::report
