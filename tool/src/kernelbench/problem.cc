#include "kernelbench/problem.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "common/file_util.h"

namespace kernelblaster::kernelbench {
namespace {

std::string file_label(const std::string& path) { return std::filesystem::path(path).filename().string(); }

}  // namespace

bool parse_driver(const std::string& driver_source, Prototype* launcher, std::string* why) {
  std::string reason;
  if (!find_declaration(driver_source, kLauncherName, launcher, &reason)) {
    if (why) *why = "driver.cpp: " + reason;
    return false;
  }
  if (launcher->return_type != "void") {
    if (why) *why = "driver.cpp: the launcher returns `" + launcher->return_type + "`, expected void";
    return false;
  }
  return true;
}

bool load_problem(const std::string& dir, Problem* out, std::string* why) {
  namespace fs = std::filesystem;
  Problem p;
  p.dir = dir;
  p.name = fs::path(dir).lexically_normal().filename().string();
  if (p.name.empty()) p.name = fs::path(dir).lexically_normal().parent_path().filename().string();
  std::string driver_path = (fs::path(dir) / "driver.cpp").string();
  p.init_path = (fs::path(dir) / "init.cu").string();
  if (!read_file_if_present(driver_path, &p.driver_source)) {
    if (why) *why = "cannot read " + driver_path + " (a KernelBench problem holds init.cu and driver.cpp)";
    return false;
  }
  if (!fs::exists(p.init_path)) {
    if (why) *why = "cannot read " + p.init_path + " (a KernelBench problem holds init.cu and driver.cpp)";
    return false;
  }
  if (!parse_driver(p.driver_source, &p.launcher, why)) return false;
  *out = std::move(p);
  return true;
}

bool check_kernel_source(const Prototype& launcher, const std::string& source, const std::string& label,
                         Prototype* definition, std::string* why) {
  std::string reason;
  if (!find_definition(source, launcher.name, definition, &reason)) {
    if (why) *why = label + ": " + reason + "; the driver calls `" + launcher.signature(launcher.name) + "`";
    return false;
  }
  if (definition->params.size() != launcher.params.size()) {
    if (why)
      *why = label + ": `" + launcher.name + "` takes " + std::to_string(definition->params.size()) +
             " parameters but the driver passes " + std::to_string(launcher.params.size()) + " (`" +
             launcher.signature(launcher.name) + "`)";
    return false;
  }
  // The same name at another position: the arguments would arrive in the
  // wrong parameters (an original that never linked with its driver).
  for (std::size_t i = 0; i < definition->params.size(); ++i) {
    const std::string& name = definition->params[i].name;
    if (name == launcher.params[i].name || name.rfind("arg", 0) == 0) continue;
    for (std::size_t j = 0; j < launcher.params.size(); ++j)
      if (launcher.params[j].name == name) {
        if (why)
          *why = label + ": `" + launcher.name + "` takes `" + name + "` as parameter " + std::to_string(i + 1) +
                 " but the driver passes it as parameter " + std::to_string(j + 1) + " (`" +
                 launcher.signature(launcher.name) + "`)";
        return false;
      }
  }
  return true;
}

bool load_kernel_source(const Problem& problem, const std::string& path, KernelSource* out, std::string* why) {
  KernelSource k;
  k.path = path;
  if (!read_file_if_present(path, &k.source)) {
    if (why) *why = "cannot read " + path;
    return false;
  }
  if (!check_kernel_source(problem.launcher, k.source, file_label(path), &k.definition, why)) return false;
  *out = std::move(k);
  return true;
}

std::vector<std::string> problem_directories(const std::string& root) {
  namespace fs = std::filesystem;
  constexpr int kMaxDepth = 8;
  if (fs::is_regular_file(fs::path(root) / "driver.cpp")) return {root};
  std::vector<std::string> out;
  std::set<fs::path> seen;  // canonical paths of the directories entered and the drivers found
  auto options = fs::directory_options::skip_permission_denied | fs::directory_options::follow_directory_symlink;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, options, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::error_code ignored;
    if (it->is_directory(ignored)) {
      if (it.depth() + 1 >= kMaxDepth || !seen.insert(fs::canonical(it->path(), ignored)).second)
        it.disable_recursion_pending();
    } else if (it->path().filename() == "driver.cpp" && it->is_regular_file(ignored) &&
               seen.insert(fs::canonical(it->path(), ignored)).second) {
      out.push_back(it->path().parent_path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string problem_name(const std::string& dir, const std::string& root) {
  namespace fs = std::filesystem;
  fs::path d = fs::path(dir).lexically_normal(), r = fs::path(root).lexically_normal();
  if (!d.has_filename()) d = d.parent_path();  // "a/b/" names b
  if (!r.has_filename()) r = r.parent_path();
  std::string rel = d.lexically_relative(r).generic_string();
  if (rel.empty() || rel == "." || rel.rfind("..", 0) == 0) return d.filename().string();
  return rel;
}

std::string Shard::text() const { return std::to_string(index) + "/" + std::to_string(count); }

namespace {

// A whole number of at most 6 digits, or -1.
int small_number(const std::string& s) {
  if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoi(s);
}

int index_from_environment(const std::function<const char*(const char*)>& env) {
  auto read = [&](const char* name) -> std::string {
    const char* v = env(name);
    return v ? v : "";
  };
  if (std::string id = read("SLURM_ARRAY_TASK_ID"); !id.empty()) {
    const std::string min = read("SLURM_ARRAY_TASK_MIN");
    const int i = small_number(id), m = min.empty() ? 0 : small_number(min);
    if (i < 0 || m < 0) throw std::invalid_argument("SLURM_ARRAY_TASK_ID '" + id + "' is not a task number");
    return i - m;
  }
  if (std::string id = read("JOB_COMPLETION_INDEX"); !id.empty()) {
    const int i = small_number(id);
    if (i < 0) throw std::invalid_argument("JOB_COMPLETION_INDEX '" + id + "' is not an index");
    return i;
  }
  throw std::invalid_argument("--shard auto/N needs SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX in the environment");
}

}  // namespace

Shard parse_shard(const std::string& text, const std::function<const char*(const char*)>& env) {
  const std::size_t slash = text.find('/');
  const std::string i = text.substr(0, slash), n = slash == std::string::npos ? "" : text.substr(slash + 1);
  Shard s;
  s.count = small_number(n);
  if (slash == std::string::npos || s.count < 1)
    throw std::invalid_argument("--shard takes I/N (or auto/N) with N a whole number of jobs, got '" + text + "'");
  s.index = i == "auto" ? index_from_environment(env) : small_number(i);
  if (s.index < 0 || s.index >= s.count)
    throw std::invalid_argument("--shard " + text + ": the job's index must be from 0 to " + std::to_string(s.count - 1) +
                                (i == "auto" ? " (read " + std::to_string(s.index) + " from the environment)" : ""));
  return s;
}

std::vector<std::string> shard_of(const std::vector<std::string>& sorted, const Shard& shard) {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < sorted.size(); ++k)
    if (static_cast<int>(k % static_cast<std::size_t>(shard.count)) == shard.index) out.push_back(sorted[k]);
  return out;
}

}  // namespace kernelblaster::kernelbench
