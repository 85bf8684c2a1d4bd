#include "profile/ptxas_info.h"

#include <regex>
#include <sstream>

namespace kernelblaster::profile {
namespace {

// "<number> bytes <what>" anywhere in a line.
long long bytes_of(const std::string& line, const std::string& what) {
  std::regex re("(\\d+) bytes " + what);
  std::smatch m;
  return std::regex_search(line, m, re) ? std::stoll(m[1].str()) : 0;
}

}  // namespace

std::map<std::string, PtxasFacts> parse_ptxas_verbose(const std::string& text) {
  static const std::regex compiling(R"(Compiling entry function '([^']+)' for '([^']+)')");
  static const std::regex properties(R"(Function properties for (\S+))");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex barriers(R"(used (\d+) barriers)");
  static const std::regex cmem(R"((\d+) bytes cmem\[\d+\])");
  std::map<std::string, PtxasFacts> out;
  std::string current;  // the function the next lines describe
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, compiling)) {
      current = m[1].str();
      PtxasFacts fresh;
      fresh.arch = m[2].str();
      out[current] = fresh;  // a later architecture replaces an earlier one
    } else if (std::regex_search(line, m, properties)) {
      current = m[1].str();
      out[current];  // device functions get an entry too
    } else if (!current.empty() && line.find("bytes stack frame") != std::string::npos) {
      PtxasFacts& f = out[current];
      f.stack_frame_bytes = bytes_of(line, "stack frame");
      f.spill_store_bytes = bytes_of(line, "spill stores");
      f.spill_load_bytes = bytes_of(line, "spill loads");
    } else if (!current.empty() && std::regex_search(line, m, used)) {
      PtxasFacts& f = out[current];
      f.registers = std::stoi(m[1].str());
      if (std::regex_search(line, m, barriers)) f.barriers = std::stoi(m[1].str());
      f.smem_bytes = bytes_of(line, "smem");
      long long lmem = bytes_of(line, "lmem");  // older ptxas reports local memory here
      if (lmem > f.stack_frame_bytes) f.stack_frame_bytes = lmem;
      f.cmem_bytes = 0;
      for (auto it = std::sregex_iterator(line.begin(), line.end(), cmem); it != std::sregex_iterator(); ++it)
        f.cmem_bytes += std::stoll((*it)[1].str());
    }
  }
  return out;
}

std::map<std::string, double> ptxas_metrics(const PtxasFacts& f) {
  std::map<std::string, double> m;
  if (f.registers >= 0) m["registers_per_thread"] = f.registers;
  m["spill_bytes"] = static_cast<double>(f.spill_store_bytes + f.spill_load_bytes);
  m["local_mem_per_thread_bytes"] = static_cast<double>(f.stack_frame_bytes);
  m["static_shared_mem_bytes"] = static_cast<double>(f.smem_bytes);
  return m;
}

}  // namespace kernelblaster::profile
