#include "recorder/kernel_signature.h"

#include <map>

#include "common/source_lines.h"

namespace kernelblaster::recorder {
namespace {

std::string trimmed(const std::string& s) {
  std::size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// The position of the '(' that opens the parameter list: the last
// top-level one (template arguments may hold parentheses).
std::size_t params_open(const std::string& s) {
  if (s.empty() || s.back() != ')') return std::string::npos;
  int depth = 0;
  for (std::size_t i = s.size(); i-- > 0;) {
    char c = s[i];
    if (c == ')' || c == '>' || c == ']') ++depth;
    if (c == '(' || c == '<' || c == '[') {
      --depth;
      if (depth == 0 && c == '(') return i;
    }
  }
  return std::string::npos;
}

std::vector<std::string> split_top_level(const std::string& s) {
  std::vector<std::string> out = split_outside_brackets(s, ',', "(<[", ")>]");
  for (std::string& piece : out) piece = trimmed(piece);
  if (out.back().empty()) out.pop_back();
  return out;
}

// "float const" / "const float" -> "float"
std::string without_const(std::string t) {
  for (const char* q : {"const ", " const", "volatile ", " volatile", "__restrict__", "__restrict"}) {
    std::size_t at;
    while ((at = t.find(q)) != std::string::npos) t.erase(at, std::string(q).size());
  }
  return trimmed(t);
}

const std::map<std::string, std::string>& arithmetic() {
  static const std::map<std::string, std::string> kTypes = {
      {"float", "f32"},          {"double", "f64"},          {"__half", "f16"},
      {"half", "f16"},           {"__nv_bfloat16", "bf16"},  {"signed char", "i8"},
      {"char", "i8"},            {"unsigned char", "u8"},    {"short", "i16"},
      {"unsigned short", "i16"}, {"int", "i32"},             {"unsigned int", "u32"},
      {"unsigned", "u32"},       {"long", "i64"},            {"unsigned long", "i64"},
      {"long long", "i64"},      {"unsigned long long", "i64"}, {"bool", "u8"}};
  return kTypes;
}

}  // namespace

KernelSignature read_signature(const std::string& demangled) {
  KernelSignature sig;
  std::size_t open = params_open(demangled);
  if (open == std::string::npos) return sig;
  std::string head = trimmed(demangled.substr(0, open));
  // A return type in front ("void k<4>"): the name is the last top-level word.
  int depth = 0;
  std::size_t name_start = 0;
  for (std::size_t i = 0; i < head.size(); ++i) {
    char c = head[i];
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (c == ' ' && depth == 0) name_start = i + 1;
  }
  sig.name = head.substr(name_start);
  if (sig.name.empty()) return sig;
  std::string base = sig.name.substr(0, sig.name.find('<'));
  std::size_t colon = base.rfind("::");
  sig.base_name = colon == std::string::npos ? base : base.substr(colon + 2);
  std::string list = demangled.substr(open + 1, demangled.size() - open - 2);
  if (trimmed(list) != "void") sig.params = split_top_level(list);
  sig.ok = !sig.base_name.empty();
  return sig;
}

bool is_pointer(const std::string& type) {
  std::string t = trimmed(type);
  while (!t.empty() && (t.back() == ' ' || t.substr(t.size() >= 11 ? t.size() - 11 : 0) == "__restrict__")) {
    if (t.back() == ' ') t.pop_back();
    else t.erase(t.size() - 11);
  }
  if (t.size() >= 6 && t.compare(t.size() - 6, 6, " const") == 0) t = trimmed(t.substr(0, t.size() - 6));
  return !t.empty() && t.back() == '*';
}

bool points_to_const(const std::string& type) {
  if (!is_pointer(type)) return false;
  std::string pointee = type.substr(0, type.rfind('*'));
  return pointee.find("const") != std::string::npos;
}

std::string pointee_dtype(const std::string& type) {
  if (!is_pointer(type)) return "";
  std::string pointee = without_const(type.substr(0, type.rfind('*')));
  if (pointee.find('*') != std::string::npos) return "";
  auto it = arithmetic().find(pointee);
  return it == arithmetic().end() || pointee == "bool" ? "" : it->second;
}

std::string scalar_dtype(const std::string& type) {
  if (is_pointer(type)) return "";
  auto it = arithmetic().find(without_const(type));
  return it == arithmetic().end() ? "" : it->second;
}

}  // namespace kernelblaster::recorder
