#include "common/process_tree.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "common/file_util.h"

namespace kernelblaster {

std::optional<ProcessEntry> read_process(pid_t pid) {
  std::string stat;
  try {
    stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  } catch (const std::exception&) {
    return std::nullopt;  // gone meanwhile
  }
  // "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
  // majflt cmajflt utime stime cutime cstime priority nice threads
  // itrealvalue starttime vsize rss ...": the command may hold spaces and
  // parentheses, so the fields are read after the last ')'.
  std::size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return std::nullopt;
  const char* p = stat.c_str() + close + 2;
  ProcessEntry e;
  e.pid = pid;
  e.zombie = *p == 'Z';
  ++p;
  // Fields after the state, counted from 1: ppid is 1, pgrp 2, rss 21.
  long long fields[21] = {};
  for (int i = 0; i < 21; ++i) {
    char* end = nullptr;
    fields[i] = std::strtoll(p, &end, 10);
    if (end == p) return std::nullopt;
    p = end;
  }
  e.parent = static_cast<pid_t>(fields[0]);
  e.group = static_cast<pid_t>(fields[1]);
  static const long page = ::sysconf(_SC_PAGESIZE);
  e.resident_bytes = fields[20] > 0 ? static_cast<std::uint64_t>(fields[20]) * static_cast<std::uint64_t>(page) : 0;
  return e;
}

std::vector<ProcessEntry> list_processes() {
  std::vector<ProcessEntry> out;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc", ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (auto e = read_process(static_cast<pid_t>(std::strtol(name.c_str(), nullptr, 10)))) out.push_back(*e);
  }
  return out;
}

std::vector<ProcessEntry> process_tree(const std::vector<ProcessEntry>& all, pid_t root) {
  std::multimap<pid_t, const ProcessEntry*> children;
  for (const ProcessEntry& e : all) children.emplace(e.parent, &e);
  std::map<pid_t, const ProcessEntry*> found;
  std::vector<pid_t> frontier;  // found, their children not yet looked at
  for (const ProcessEntry& e : all)
    if (e.pid == root || e.group == root) {
      found.emplace(e.pid, &e);
      frontier.push_back(e.pid);
    }
  while (!frontier.empty()) {
    pid_t pid = frontier.back();
    frontier.pop_back();
    auto [lo, hi] = children.equal_range(pid);
    for (auto it = lo; it != hi; ++it)
      if (found.emplace(it->second->pid, it->second).second) frontier.push_back(it->second->pid);
  }
  std::vector<ProcessEntry> out;
  out.reserve(found.size());
  for (const auto& [pid, e] : found) out.push_back(*e);
  return out;
}

}  // namespace kernelblaster
