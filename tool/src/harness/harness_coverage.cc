#include "harness/harness_coverage.h"

#include <cctype>
#include <filesystem>

#include "common/file_util.h"
#include "common/source_lines.h"
#include "harness/launcher_scan.h"

namespace fs = std::filesystem;

namespace kernelblaster::harness {
namespace {

bool names_word(const std::string& text, const std::string& word) {
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const bool before = at > 0 && is_identifier_char(text[at - 1]);
    const bool after = at + word.size() < text.size() && is_identifier_char(text[at + word.size()]);
    if (!before && !after) return true;
  }
  return false;
}

std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::string harness_coverage_warning(const std::string& harness, const std::string& source,
                                     const std::vector<std::string>& include_dirs,
                                     const std::vector<std::string>& definitions) {
  std::string text;
  try {
    text = read_file(harness);
  } catch (const std::exception&) {
    return "";  // a missing harness is said elsewhere
  }
  // Only the parser knows the source's launchers, which is what harnesses
  // call: without it (or where it cannot read the source) nothing is said.
  if (!have_parser()) return "";
  std::vector<std::string> launchers, kernels;
  try {
    ScanOptions opt;
    opt.include_dirs = include_dirs;
    opt.definitions = definitions;
    SourceScan scan = scan_source(source, opt);
    for (const Launcher& l : scan.launchers) launchers.push_back(l.name);
    kernels = scan.defined_kernels.empty() ? scan.kernels : scan.defined_kernels;
  } catch (const std::exception& e) {
    // Not a warning about the harness, but the check did not happen: say why.
    return "whether the harness " + std::filesystem::path(harness).filename().string() +
           " runs anything of its source was not checked: " + e.what();
  }
  if (launchers.empty() && kernels.empty()) return "";  // nothing known to look for
  for (const std::string& n : launchers)
    if (names_word(text, n)) return "";
  for (const std::string& n : kernels)
    if (names_word(text, n)) return "";
  const std::string src = fs::path(source).filename().string();
  std::string what;
  if (!launchers.empty()) what = "launchers (" + listed(launchers) + ")";
  if (!kernels.empty()) what += (what.empty() ? "" : " or ") + std::string("kernels (") + listed(kernels) + ")";
  return "the harness " + fs::path(harness).filename().string() + " names none of " + src + "'s " + what +
         ": it measures nothing a tuning of " + src + " changes";
}

}  // namespace kernelblaster::harness
