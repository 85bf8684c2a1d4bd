#include "common/ctest_resources.h"

#include <stdexcept>

namespace kernelblaster {
namespace {

std::string read(const std::function<const char*(const char*)>& env, const std::string& name) {
  const char* v = env(name.c_str());
  return v ? v : "";
}

bool is_index(const std::string& s) {
  return !s.empty() && s.size() <= 4 && s.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

std::optional<int> ctest_allocated_gpu(const std::function<const char*(const char*)>& env) {
  const std::string count = read(env, "CTEST_RESOURCE_GROUP_COUNT");
  if (!is_index(count)) return std::nullopt;
  for (int g = 0; g < std::stoi(count); ++g) {
    const std::string group = "CTEST_RESOURCE_GROUP_" + std::to_string(g);
    const std::string types = "," + read(env, group) + ",";
    if (types.find(",gpus,") == std::string::npos) continue;
    // "id:1,slots:1", several allocations separated by ';': the first.
    const std::string alloc = read(env, group + "_GPUS");
    const std::size_t at = alloc.find("id:");
    if (at == std::string::npos) continue;
    const std::string id = alloc.substr(at + 3, alloc.find_first_of(",;", at) - at - 3);
    if (!is_index(id))
      throw std::invalid_argument("CTest allocated GPU '" + id + "' (" + group +
                                  "_GPUS): the resource spec file's gpus ids must be CUDA device indices");
    return std::stoi(id);
  }
  return std::nullopt;
}

}  // namespace kernelblaster
