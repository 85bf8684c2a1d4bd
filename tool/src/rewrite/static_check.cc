#include "rewrite/static_check.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "common/source_lines.h"
#include "common/text.h"
#include "rewrite/code_blocks.h"

namespace kernelblaster::rewrite {
namespace {


int line_at(const std::string& text, std::size_t pos) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

struct Token {
  std::string text;  // an identifier, with "::" qualifiers joined ("std::ifstream")
  std::size_t pos = 0;
  bool called = false;  // followed by '('
  bool member = false;  // after '.' or '->': a member, not a library function
};

// Identifiers of the code (comments and literals already blanked), with
// their qualifiers.
std::vector<Token> identifiers(const std::string& plain) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < plain.size()) {
    if (!is_identifier_char(plain[i]) || std::isdigit(static_cast<unsigned char>(plain[i])) ||
        (i > 0 && is_identifier_char(plain[i - 1]))) {
      ++i;
      continue;
    }
    Token t;
    t.pos = i;
    std::size_t k = i;
    while (k > 0 && std::isspace(static_cast<unsigned char>(plain[k - 1]))) --k;
    t.member = k > 0 && (plain[k - 1] == '.' || (k > 1 && plain[k - 1] == '>' && plain[k - 2] == '-'));
    if (k > 1 && plain[k - 1] == ':' && plain[k - 2] == ':') t.text = "::";  // the global namespace
    for (;;) {
      std::size_t b = i;
      while (i < plain.size() && is_identifier_char(plain[i])) ++i;
      t.text += plain.substr(b, i - b);
      std::size_t j = i;
      while (j < plain.size() && (plain[j] == ' ' || plain[j] == '\t')) ++j;
      if (j + 1 < plain.size() && plain[j] == ':' && plain[j + 1] == ':') {
        j += 2;
        while (j < plain.size() && (plain[j] == ' ' || plain[j] == '\t')) ++j;
        if (j < plain.size() && is_identifier_char(plain[j]) && !std::isdigit(static_cast<unsigned char>(plain[j]))) {
          t.text += "::";
          i = j;
          continue;
        }
      }
      break;
    }
    std::size_t j = i;
    while (j < plain.size() && std::isspace(static_cast<unsigned char>(plain[j]))) ++j;
    t.called = j < plain.size() && plain[j] == '(';
    out.push_back(t);
  }
  return out;
}

// The last name of a qualified identifier: "std::getenv" → "getenv".
std::string unqualified(const std::string& name) {
  std::size_t c = name.rfind("::");
  return c == std::string::npos ? name : name.substr(c + 2);
}

// Host calls a candidate never needs, by what they reach.
const std::map<std::string, std::string>& host_calls() {
  static const std::map<std::string, std::string> calls = [] {
    std::map<std::string, std::string> m;
    for (const char* n : {"system", "popen", "pclose", "fork", "vfork", "execl", "execlp", "execle", "execv", "execvp",
                          "execvpe", "execve", "fexecve", "posix_spawn", "posix_spawnp", "kill", "raise", "abort",
                          "exit", "_exit", "_Exit", "quick_exit", "atexit", "ptrace", "prctl", "setrlimit", "signal",
                          "sigaction"})
      m[n] = "a process call";
    for (const char* n : {"fopen", "freopen", "fdopen", "open", "openat", "creat", "unlink", "unlinkat", "remove",
                          "rename", "renameat", "mkdir", "rmdir", "chdir", "chmod", "truncate", "ftruncate",
                          "symlink", "link", "opendir", "readdir", "mmap", "dup2", "write", "pwrite", "read", "pread",
                          "tmpfile", "mkstemp"})
      m[n] = "a file call";
    for (const char* n : {"socket", "connect", "bind", "listen", "accept", "send", "sendto", "recv", "recvfrom",
                          "getaddrinfo", "gethostbyname", "curl_easy_init", "curl_easy_perform"})
      m[n] = "a network call";
    for (const char* n : {"getenv", "secure_getenv", "setenv", "putenv", "unsetenv", "clearenv"})
      m[n] = "an environment call";
    for (const char* n : {"pthread_create", "thrd_create"}) m[n] = "a host thread";
    for (const char* n : {"dlopen", "dlsym", "dlmopen"}) m[n] = "dynamic loading";
    for (const char* n : {"cudaDeviceReset", "cudaSetDevice", "cudaProfilerStart", "cudaProfilerStop",
                          "cudaDeviceSetLimit", "cudaSetDeviceFlags", "cudaIpcOpenMemHandle"})
      m[n] = "a CUDA call that changes the process's device state";
    return m;
  }();
  return calls;
}

// Types and namespaces a candidate never needs, used or called.
const std::map<std::string, std::string>& host_names() {
  static const std::map<std::string, std::string> names = {
      {"std::ifstream", "a file stream"}, {"std::ofstream", "a file stream"}, {"std::fstream", "a file stream"},
      {"std::filesystem", "the file system"}, {"std::thread", "a host thread"}, {"std::jthread", "a host thread"},
      {"std::async", "a host thread"}, {"std::system", "a process call"}, {"std::getenv", "an environment call"},
      {"std::exit", "a process call"}, {"std::abort", "a process call"}, {"std::quick_exit", "a process call"},
      {"std::remove", "a file call"}, {"std::rename", "a file call"}, {"std::fopen", "a file call"},
      {"std::tmpfile", "a file call"}, {"std::chrono", "a host clock"}};
  return names;
}

// Library families: allowed only where the original mentions the family.
struct Family {
  const char* name;
  std::vector<const char*> prefixes;  // identifier prefixes, e.g. "cublas", "thrust::"
};

const std::vector<Family>& families() {
  static const std::vector<Family> f = {
      {"cuBLAS", {"cublas"}},          {"cuDNN", {"cudnn"}},
      {"Thrust", {"thrust::"}},        {"CUB", {"cub::"}},
      {"cuRAND", {"curand"}},          {"cuFFT", {"cufft"}},
      {"cuSPARSE", {"cusparse"}},      {"cuSOLVER", {"cusolver"}},
      {"CUTLASS", {"cutlass::", "cute::"}},
      {"torch", {"torch::", "at::", "c10::"}},
      {"CUPTI", {"cupti", "CUpti_"}},  {"NVML", {"nvml"}},
      {"the CUDA driver API", {"cuLaunch", "cuModule", "cuCtx", "cuMem", "cuGraph"}},
      // The evaluation's own runtime, linked into the same process: it knows
      // the seeds and the checks (kernelbench_runtime.h, kernelbench_driver.h).
      {"the evaluation's runtime", {"kernelblaster", "kb_driver", "kb_track", "kb_allclose", "kb_manual_seed",
                                    "kb_poisoned_empty"}}};
  return f;
}

// Headers any CUDA kernel source may include.
bool base_header(const std::string& h) {
  static const std::set<std::string> base = {
      "cuda_runtime.h", "cuda_runtime_api.h", "cuda.h", "cuda_fp16.h", "cuda_fp16.hpp", "cuda_bf16.h",
      "cuda_bf16.hpp", "cuda_fp8.h", "mma.h", "math_constants.h", "device_launch_parameters.h",
      "cooperative_groups.h", "vector_types.h", "cuda/pipeline", "cuda/barrier", "cuda/std/cstdint",
      "cassert", "assert.h", "cstdio", "stdio.h", "cmath", "math.h", "cstdint", "stdint.h", "cstddef", "stddef.h",
      "cfloat", "float.h", "climits", "limits.h", "limits", "cstring", "string.h", "cstdlib", "stdlib.h",
      "algorithm", "type_traits", "utility", "array", "iostream", "vector", "string", "stdexcept", "initializer_list",
      "numeric", "tuple"};
  return base.count(h) > 0 || h.rfind("cooperative_groups/", 0) == 0;
}

struct Include {
  std::string header;  // empty: computed (#include MACRO)
  int line = 0;
};

std::vector<Include> includes(const std::string& text) {
  std::vector<Include> out;
  std::size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    ++line_no;
    auto [directive, rest] = preprocessor_line(text.substr(pos, end - pos));
    if (directive == "include" || directive == "include_next" || directive == "import") {
      rest = trim(strip_comment(rest));
      Include inc;
      inc.line = line_no;
      if (rest.size() >= 2 && ((rest.front() == '<' && rest.find('>') != std::string::npos) || rest.front() == '"')) {
        char close = rest.front() == '<' ? '>' : '"';
        std::size_t c = rest.find(close, 1);
        inc.header = c == std::string::npos ? "" : rest.substr(1, c - 1);
      }
      out.push_back(inc);
    }
    pos = end + 1;
  }
  return out;
}

// A raw string literal's opening: R" with an optional u8, u, U or L prefix,
// not inside an identifier.
bool has_raw_string(const std::string& plain_with_quotes) {
  for (std::size_t at = plain_with_quotes.find("R\""); at != std::string::npos;
       at = plain_with_quotes.find("R\"", at + 1)) {
    std::size_t b = at;
    while (b > 0 && is_identifier_char(plain_with_quotes[b - 1])) --b;
    std::string prefix = plain_with_quotes.substr(b, at - b);
    if (prefix.empty() || prefix == "u8" || prefix == "u" || prefix == "U" || prefix == "L") return true;
  }
  return false;
}

// Inline assembly statements: the position of each asm keyword and the raw
// text of its parenthesized operand (literals included).
std::vector<std::pair<std::size_t, std::string>> asm_statements(const std::string& text, const std::string& plain) {
  std::vector<std::pair<std::size_t, std::string>> out;
  for (const Token& t : identifiers(plain)) {
    if (t.text != "asm" && t.text != "__asm__" && t.text != "__asm") continue;
    std::size_t i = plain.find('(', t.pos);
    if (i == std::string::npos) continue;
    int depth = 0;
    std::size_t j = i;
    for (; j < plain.size(); ++j) {
      if (plain[j] == '(') ++depth;
      else if (plain[j] == ')' && --depth == 0) break;
    }
    out.emplace_back(t.pos, text.substr(i, j - i + 1));
  }
  return out;
}

// A header name as a finding shows it: as written when it is plain text,
// else escaped (a finding is one printable line).
std::string shown(const std::string& header) {
  for (char c : header)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) return quoted_excerpt(header, 80);
  return header;
}

bool mentions_timer_register(const std::string& ptx) {
  return ptx.find("%clock") != std::string::npos || ptx.find("%globaltimer") != std::string::npos;
}

struct Uses {
  std::set<std::string> names;  // every identifier, qualified and unqualified
  std::set<std::string> headers;
  bool token_pasting = false, computed_include = false, raw_string = false, timer_asm = false;
};

Uses uses_of(const std::string& text) {
  Uses u;
  const std::string plain = code_only(text);
  for (const Token& t : identifiers(plain)) {
    u.names.insert(t.text);
    u.names.insert(unqualified(t.text));
  }
  for (const Include& i : includes(text)) {
    if (i.header.empty()) u.computed_include = true;
    else u.headers.insert(i.header);
  }
  u.token_pasting = plain.find("##") != std::string::npos;
  u.raw_string = has_raw_string(text);
  for (const auto& [pos, operand] : asm_statements(text, plain))
    if (mentions_timer_register(operand)) u.timer_asm = true;
  return u;
}

bool family_used(const Family& f, const Uses& u, const std::set<std::string>& headers) {
  for (const std::string& n : u.names)
    for (const char* p : f.prefixes)
      if (n.rfind(p, 0) == 0) return true;
  std::string lower = f.prefixes.front();
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.size() > 2 && lower.compare(lower.size() - 2, 2, "::") == 0) lower.resize(lower.size() - 2);
  for (const std::string& h : headers) {
    std::string hl = h;
    for (char& c : hl) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (hl.find(lower) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

std::vector<Finding> check_candidate(const std::string& candidate, const std::string& original) {
  std::vector<Finding> out;
  const Uses orig = uses_of(original);
  // Header names are the include rule's, not identifiers: blank #include lines.
  std::string plain = code_only(candidate);
  for (std::size_t pos = 0; pos < plain.size();) {
    std::size_t end = plain.find('\n', pos);
    if (end == std::string::npos) end = plain.size();
    const std::string directive = preprocessor_line(plain.substr(pos, end - pos)).first;
    if (directive == "include" || directive == "include_next" || directive == "import")
      std::fill(plain.begin() + static_cast<std::ptrdiff_t>(pos), plain.begin() + static_cast<std::ptrdiff_t>(end), ' ');
    pos = end + 1;
  }
  auto add = [&](const char* rule, std::size_t pos_or_line, bool is_line, const std::string& detail) {
    out.push_back({rule, is_line ? static_cast<int>(pos_or_line) : line_at(candidate, pos_or_line), detail});
  };

  for (const Include& inc : includes(candidate)) {
    if (inc.header.empty()) {
      if (!orig.computed_include)
        add("hidden_code", inc.line, true, "an #include of a macro (the header it names cannot be checked)");
    } else if (!base_header(inc.header) && !orig.headers.count(inc.header)) {
      add("include", inc.line, true, "#include <" + shown(inc.header) + ">: a header the original does not include");
    }
  }
  const std::vector<Token> tokens = identifiers(plain);
  std::map<std::string, bool> own_function;  // names the candidate defines, asked once each
  auto defines = [&](const std::string& name) {
    auto it = own_function.find(name);
    if (it == own_function.end()) it = own_function.emplace(name, defines_function(candidate, name)).first;
    return it->second;
  };
  for (const Token& t : tokens) {
    const std::string last = unqualified(t.text);
    if (orig.names.count(t.text)) continue;  // whatever the original does, the candidate may do
    if (auto n = host_names().find(t.text); n != host_names().end()) {
      add("host_call", t.pos, false, t.text + " is " + n->second);
      continue;
    }
    if (t.text.rfind("std::filesystem", 0) == 0 || t.text.rfind("std::chrono", 0) == 0) {
      add("host_call", t.pos, false, t.text + " reaches outside the computation");
      continue;
    }
    // A bare name the candidate defines itself is its own function; a
    // qualified one (std::, or :: for the global namespace) never is.
    const bool qualified = t.text != last;
    const bool library_name = qualified ? t.text.rfind("std::", 0) == 0 || t.text.rfind("::", 0) == 0
                                        : !t.member && !defines(last);
    if (auto c = host_calls().find(last); t.called && library_name && c != host_calls().end() && !orig.names.count(last)) {
      add("host_call", t.pos, false, last + " is " + c->second);
      continue;
    }
    if (t.called && (last == "clock" || last == "clock64" || last == "__globaltimer") && !orig.names.count(last)) {
      add("timer", t.pos, false, last + "() reads a timer");
      continue;
    }
  }
  for (const Family& f : families()) {
    if (family_used(f, orig, orig.headers)) continue;
    for (const Token& t : tokens) {
      bool hit = false;
      for (const char* p : f.prefixes)
        if (t.text.rfind(p, 0) == 0) hit = true;
      if (hit) {
        add("library", t.pos, false, t.text + ": " + f.name + ", which the original does not use");
        break;
      }
    }
  }
  for (const auto& [pos, operand] : asm_statements(candidate, plain))
    if (mentions_timer_register(operand) && !orig.timer_asm)
      add("timer", pos, false, "inline PTX that reads a timer register (%clock, %globaltimer)");
  if (plain.find("##") != std::string::npos && !orig.token_pasting)
    add("hidden_code", plain.find("##"), false, "token pasting (##) can spell a name these checks look for");
  if (has_raw_string(candidate) && !orig.raw_string)
    add("hidden_code", candidate.find("R\""), false, "a raw string literal (R\"...\")");
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) { return a.line < b.line; });
  return out;
}

std::string findings_line(const std::vector<Finding>& findings) {
  if (findings.empty()) return "";
  const Finding& f = findings.front();
  std::string line = "line " + std::to_string(f.line) + ": " + f.detail + " (rule " + f.rule + ")";
  if (findings.size() > 1) line += "; " + std::to_string(findings.size() - 1) + " more";
  return line;
}

}  // namespace kernelblaster::rewrite
