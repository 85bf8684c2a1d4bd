#include "tuner/sass_hash.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "common/fnv.h"
#include "common/subprocess.h"

namespace fs = std::filesystem;

namespace kernelblaster::tuner {

std::string normalize_sass(const std::string& listing) {
  std::istringstream in(listing);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    std::size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos) continue;
    line = line.substr(b);
    bool function = line.rfind("Function :", 0) == 0;
    bool code = line.rfind("/*", 0) == 0;  // "/*0010*/  IMAD ... /* 0x... */" and encoding continuation lines
    if (function || code) out += line + "\n";
  }
  return out;
}

std::string hash_text(const std::string& text) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a_64(text)));
  return buf;
}

std::string CuobjdumpSassHasher::hash(const std::string& program) {
  std::string cuobjdump = (fs::path(m_toolchain.nvcc).parent_path() / "cuobjdump").string();
  if (!fs::exists(cuobjdump)) cuobjdump = "cuobjdump";
  ProcessOptions opt;
  opt.timeout_s = 120;
  opt.output_cap = 256u << 20;
  ProcessResult dump = run_process({cuobjdump, "-sass", program}, opt);
  if (!dump.ok()) return "";
  std::string code = normalize_sass(dump.output);
  return code.empty() ? "" : hash_text(code);
}

}  // namespace kernelblaster::tuner
