#include "kernelbench/driver_rewrite.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "common/source_lines.h"
#include "kernelbench/source_scan.h"

namespace kernelblaster::kernelbench {
namespace {

// A replacement of [begin, end) by `text`; begin == end inserts.
struct Edit {
  std::size_t begin, end;
  std::string text;
};

// Calls of `qualified` (e.g. "torch::empty") followed by '(' and not part of
// a longer name: the position of the name and of the '('.
std::vector<std::pair<std::size_t, std::size_t>> find_calls(const std::string& masked, const std::string& qualified) {
  std::vector<std::pair<std::size_t, std::size_t>> calls;
  for (std::size_t p = masked.find(qualified); p != std::string::npos; p = masked.find(qualified, p + 1)) {
    if (p > 0 && (is_identifier_char(masked[p - 1]) || masked[p - 1] == ':')) continue;
    std::size_t end = p + qualified.size();
    if (end < masked.size() && is_identifier_char(masked[end])) continue;
    std::size_t open = skip_space(masked, end);
    if (open == std::string::npos || masked[open] != '(') continue;
    calls.emplace_back(p, open);
  }
  return calls;
}

void rename_calls(const std::string& masked, const std::string& qualified, const std::string& replacement,
                  std::vector<Edit>* edits) {
  for (auto [p, open] : find_calls(masked, qualified)) edits->push_back({p, p + qualified.size(), replacement});
}

// Index of the bracket opening the one that closes at `close`, or npos.
std::size_t matching_open(const std::string& masked, std::size_t close) {
  char c = masked[close];
  char o = c == ')' ? '(' : c == ']' ? '[' : c == '>' ? '<' : '\0';
  if (!o) return std::string::npos;
  int depth = 0;
  for (std::size_t i = close + 1; i-- > 0;) {
    if (masked[i] == c) ++depth;
    if (masked[i] == o && --depth == 0) return i;
  }
  return std::string::npos;
}

// Start of the postfix expression that ends just before `end` (a '.'):
// names joined by '.', '->' and '::', with calls, subscripts and template
// arguments, e.g. `model->conv->weight`, `x.contiguous()`, `xs[0]`.
std::size_t receiver_begin(const std::string& masked, std::size_t end) {
  std::size_t i = end;
  std::size_t begin = end;
  while (i > 0) {
    std::size_t j = i;
    while (j > 0 && std::isspace(static_cast<unsigned char>(masked[j - 1]))) --j;
    if (j == 0) break;
    char c = masked[j - 1];
    if (c == ')' || c == ']' || (c == '>' && !(j >= 2 && masked[j - 2] == '-'))) {
      std::size_t open = matching_open(masked, j - 1);
      if (open == std::string::npos) break;
      begin = i = open;
      continue;
    }
    if (is_identifier_char(c)) {
      while (j > 0 && is_identifier_char(masked[j - 1])) --j;
      begin = i = j;
      // What joins this name to the one before it, if anything.
      std::size_t k = i;
      while (k > 0 && std::isspace(static_cast<unsigned char>(masked[k - 1]))) --k;
      if (k >= 1 && masked[k - 1] == '.') {
        i = k - 1;
        continue;
      }
      if (k >= 2 && ((masked[k - 2] == '-' && masked[k - 1] == '>') || (masked[k - 2] == ':' && masked[k - 1] == ':'))) {
        i = k - 2;
        continue;
      }
      break;
    }
    break;
  }
  return begin;
}

// `.data_ptr<T>()`, `.data_ptr()`, `.const_data_ptr...`, `.mutable_data_ptr...`:
// the receiver goes through kb_track().
void track_data_pointers(const std::string& masked, std::vector<Edit>* edits) {
  for (const char* member : {"data_ptr", "const_data_ptr", "mutable_data_ptr"}) {
    for (std::size_t p : find_identifier(masked, member)) {
      std::size_t dot = p;
      while (dot > 0 && std::isspace(static_cast<unsigned char>(masked[dot - 1]))) --dot;
      if (dot == 0 || masked[dot - 1] != '.') continue;
      --dot;
      std::size_t begin = receiver_begin(masked, dot);
      if (begin == dot) continue;
      edits->push_back({begin, begin, "kb_track("});
      edits->push_back({dot, dot, ")"});
    }
  }
}

std::string c_string_literal(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

// The top-level arguments of the call whose '(' is at `open`, as masked text.
std::vector<std::string> call_arguments(const std::string& masked, std::size_t open) {
  std::size_t close = matching_close(masked, open);
  if (close == std::string::npos) return {};
  std::vector<std::string> args = split_outside_brackets(std::string_view(masked).substr(open + 1, close - open - 1), ',');
  for (std::string& a : args) a = collapse_space(a);
  return args;
}

void route_allclose(const std::string& masked, std::vector<Edit>* edits) {
  for (const char* name : {"torch::allclose", "at::allclose"}) {
    for (auto [p, open] : find_calls(masked, name)) {
      std::vector<std::string> args = call_arguments(masked, open);
      if (args.size() < 2) continue;
      edits->push_back(
          {p, open + 1, "kb_allclose(" + c_string_literal(args[0]) + ", " + c_string_literal(args[1]) + ", "});
    }
  }
}

}  // namespace

std::string make_cuda_model_header(const Prototype& launcher) {
  return "// Generated by KernelBlaster from driver.cpp's launcher prototype.\n"
         "#pragma once\n"
         "#include <cstdint>\n"
         "#include <torch/torch.h>\n\n" +
         std::string(launcher.c_linkage ? "extern \"C\" " : "") + launcher.signature(launcher.name) + ";\n";
}

std::string rewrite_driver(const std::string& driver, const Prototype& launcher) {
  std::string masked = code_only(driver);
  Prototype main_fn;
  if (!find_definition(driver, "main", &main_fn, nullptr))
    throw std::runtime_error("driver.cpp defines no main()");
  std::vector<Edit> edits;
  // Keep the line count so compiler messages still point at driver.cpp lines.
  std::string removed = driver.substr(launcher.begin, launcher.end - launcher.begin);
  std::string keep_lines(static_cast<std::size_t>(std::count(removed.begin(), removed.end(), '\n')), '\n');
  edits.push_back({launcher.begin, launcher.end, "/* launcher prototype: see cuda_model.cuh */" + keep_lines});
  edits.push_back({main_fn.name_pos, main_fn.name_pos + 4, kRenamedDriverMain});
  for (const char* ns : {"torch::", "at::"}) {
    rename_calls(masked, std::string(ns) + "empty_like", "kb_poisoned_empty_like", &edits);
    rename_calls(masked, std::string(ns) + "empty", "kb_poisoned_empty", &edits);
  }
  rename_calls(masked, "torch::manual_seed", "kb_manual_seed", &edits);
  route_allclose(masked, &edits);
  track_data_pointers(masked, &edits);
  // Nothing may change inside the removed prototype.
  edits.erase(std::remove_if(edits.begin(), edits.end(),
                             [&](const Edit& e) {
                               return e.begin > launcher.begin && e.begin < launcher.end;
                             }),
              edits.end());
  // Back to front; at one position a replacement goes in before an insertion,
  // so the insertion ends up in front of the replaced text.
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) {
    if (a.begin != b.begin) return a.begin > b.begin;
    return (a.end > a.begin) && (b.end == b.begin);
  });
  std::string out = driver;
  for (const Edit& e : edits) out.replace(e.begin, e.end - e.begin, e.text);
  std::string head = std::string("#include \"") + kDriverRuntimeHeader + "\"  // added by KernelBlaster\n";
  if (driver.find(std::string("\"") + kCudaModelHeaderName + "\"") == std::string::npos)
    head += std::string("#include \"") + kCudaModelHeaderName + "\"  // added by KernelBlaster\n";
  std::string tail = std::string("\n// Added by KernelBlaster: the runtime calls the driver's main once per seed.\n") +
                     "int main(int argc, char** argv) { return kb_driver::process_main(argc, argv, &" +
                     kRenamedDriverMain + "); }\n";
  // #line keeps diagnostics on the driver's own line numbers.
  return head + "#line 1 \"driver.cpp\"\n" + out + tail;
}

}  // namespace kernelblaster::kernelbench
