#include "tuner/harness_reading.h"

#include <regex>

#include "common/source_text.h"

namespace kernelblaster::tuner {

std::vector<HarnessSize> labelled_harness_sizes(const std::string& harness) {
  static const std::regex kPair("\\{\"([A-Za-z_][A-Za-z0-9_]*)\", (-?[0-9]{1,18})\\}");
  static const std::regex kLabel("size\\(\"([^\"]*)\"");
  std::vector<HarnessSize> out;
  for (const std::string& line : lines_of(harness)) {
    if (line.find("{{\"") == std::string::npos) continue;
    HarnessSize size;
    for (std::sregex_iterator it(line.begin(), line.end(), kPair), end; it != end; ++it)
      size.dims[(*it)[1].str()] = std::stoll((*it)[2].str());
    if (size.dims.empty()) continue;
    std::smatch label;
    if (std::regex_search(line, label, kLabel)) size.label = label[1].str();
    out.push_back(std::move(size));
  }
  return out;
}

std::vector<std::map<std::string, long long>> harness_sizes(const std::string& harness) {
  std::vector<std::map<std::string, long long>> out;
  for (HarnessSize& s : labelled_harness_sizes(harness)) out.push_back(std::move(s.dims));
  return out;
}

std::vector<std::string> passed_dims(const std::string& harness, const std::string& function) {
  const std::size_t main_at = harness.find("int main(");
  if (main_at == std::string::npos) return {};
  const std::string body = harness.substr(main_at);
  for (std::size_t p : word_positions(body, function)) {
    const std::size_t open = body.find_first_not_of(" \t\n", p + function.size());
    if (open == std::string::npos || body[open] != '(') continue;
    const std::size_t close = matching(body, open, '(', ')');
    if (close == std::string::npos) continue;
    std::vector<std::string> dims;
    for (const std::string& arg : split_top(body.substr(open + 1, close - open - 1), ',')) {
      const std::size_t d = arg.find("c.dim(\"");
      const std::size_t e = d == std::string::npos ? d : arg.find('"', d + 7);
      dims.push_back(e == std::string::npos ? "" : arg.substr(d + 7, e - d - 7));
    }
    return dims;
  }
  return {};
}

}  // namespace kernelblaster::tuner
