#include "tuner/start_from.h"

#include <algorithm>
#include <stdexcept>

#include "common/source_text.h"

namespace kernelblaster::tuner {

StartFrom parse_start_from(const std::string& spec) {
  StartFrom out;
  for (const std::string& item : split_top(spec, ',')) {  // trimmed
    if (item.empty()) continue;
    if (item.front() == '-') {
      out.flags.push_back(item);
      continue;
    }
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw std::invalid_argument("`" + item + "` is neither NAME=VALUE nor an nvcc flag");
    out.values[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return out;
}

std::optional<std::string> find_start(const ConfigSpace& space, const StartFrom& start) {
  std::map<std::string, std::string> values = space.original.values;
  for (const auto& [name, value] : start.values) {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;  // a tunable the source no longer has
    it->second = value;
  }
  std::vector<std::string> flags = start.flags;
  std::sort(flags.begin(), flags.end());
  for (const Configuration& c : space.configs) {
    if (c.values != values || c.flags.size() != flags.size()) continue;
    std::vector<std::string> own = c.flags;
    std::sort(own.begin(), own.end());
    if (own == flags) return c.id;
  }
  return std::nullopt;
}

}  // namespace kernelblaster::tuner
