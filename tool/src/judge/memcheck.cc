#include "judge/memcheck.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "common/file_util.h"
#include "common/source_lines.h"
#include "common/text.h"

namespace fs = std::filesystem;

namespace kernelblaster {

namespace {

bool runnable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && (fs::status(p, ec).permissions() & fs::perms::owner_exec) != fs::perms::none;
}

// A sanitizer log line without its "========= " prefix, trimmed.
std::string body(const std::string& line) {
  std::size_t i = line.find_first_not_of('=');
  if (i == std::string::npos || i == 0) return "";
  return trim(line.substr(i));
}

}  // namespace

std::string find_compute_sanitizer(const std::string& nvcc, std::string* why) {
  if (const char* env = std::getenv("KERNELBLASTER_COMPUTE_SANITIZER"); env && *env) {
    const std::string chosen = env;
    if (chosen == "off") {
      *why = "KERNELBLASTER_COMPUTE_SANITIZER=off";
      return "";
    }
    if (runnable(chosen)) return chosen;
    *why = "KERNELBLASTER_COMPUTE_SANITIZER names " + quoted_excerpt(chosen) + ", which is not a program";
    return "";
  }
  if (!nvcc.empty())
    if (const fs::path beside = fs::path(nvcc).parent_path() / "compute-sanitizer"; runnable(beside))
      return beside.string();
  if (std::string on_path = find_on_path("compute-sanitizer"); !on_path.empty()) return on_path;
  *why = "no compute-sanitizer next to nvcc or on PATH";
  return "";
}

std::vector<std::string> memcheck_command(const std::string& sanitizer, const std::string& log_file) {
  return {sanitizer,       "--tool",      "memcheck",   "--leak-check", "no",
          "--error-exitcode", std::to_string(kMemcheckErrorExit), "--print-limit", "4",
          "--log-file",    log_file};
}

MemcheckFinding read_memcheck_log(const std::string& log_text, int exit_code) {
  MemcheckFinding f;
  f.errors = exit_code == kMemcheckErrorExit;
  std::istringstream in(log_text);
  bool in_error = false;
  for (std::string line; std::getline(in, line);) {
    const std::string b = body(line);
    if (b.empty()) {
      in_error = false;
      continue;
    }
    if (b.rfind("ERROR SUMMARY:", 0) == 0) {
      f.count = std::atoi(b.c_str() + 14);
      f.summarized = true;
      f.errors = f.errors || f.count > 0;
      continue;
    }
    if (f.first.empty() && (b.rfind("Invalid ", 0) == 0 || b.rfind("Out-of-range ", 0) == 0 ||
                            b.rfind("Misaligned ", 0) == 0 || b.rfind("Program hit ", 0) == 0)) {
      f.first = b;
      f.errors = true;
      in_error = true;
      continue;
    }
    if (in_error && b.rfind("at ", 0) == 0) {
      std::string where = b;
      if (where.size() > 160) where = where.substr(0, 160) + "...";
      f.first += " " + where;
      in_error = false;
    }
  }
  return f;
}

}  // namespace kernelblaster
