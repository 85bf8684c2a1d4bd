#include "harness/harness_text.h"

#include "common/launcher_mask.h"
#include "harness/kernel_capture.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace kernelblaster::harness {

std::string cpp_type(const std::string& element) {
  static const std::map<std::string, std::string> kTypes = {
      {"f32", "float"}, {"f64", "double"}, {"f16", "__half"},   {"bf16", "__nv_bfloat16"}, {"i8", "signed char"},
      {"u8", "unsigned char"}, {"i16", "short"}, {"i32", "int"}, {"u32", "unsigned int"}, {"i64", "long long"}};
  auto it = kTypes.find(element.empty() ? "f32" : element);
  return it == kTypes.end() ? "float" : it->second;
}

bool integer_element(const std::string& element) {
  return !element.empty() && element != "f32" && element != "f64" && element != "f16" && element != "bf16";
}

int element_bytes(const std::string& element) {
  static const std::map<std::string, int> kBytes = {{"f32", 4}, {"f64", 8}, {"f16", 2}, {"bf16", 2}, {"i8", 1},
                                                    {"u8", 1},  {"i16", 2}, {"i32", 4}, {"u32", 4},  {"i64", 8}};
  auto it = kBytes.find(element.empty() ? "f32" : element);
  return it == kBytes.end() ? 4 : it->second;
}

std::string qualified_name(const Launcher& l) {
  std::string out;
  for (const std::string& ns : l.namespaces) out += ns + "::";
  return out + l.name;
}

std::string launcher_prototype(const Launcher& l) {
  std::ostringstream proto;
  for (const std::string& ns : l.namespaces) proto << "namespace " << ns << " {\n";
  proto << (l.extern_c ? "extern \"C\" " : "") << l.return_type << " " << l.name << "(";
  for (std::size_t i = 0; i < l.params.size(); ++i)
    proto << (i ? ", " : "") << l.params[i].canonical << " " << l.params[i].name;
  proto << ");\n";
  for (std::size_t i = 0; i < l.namespaces.size(); ++i) proto << "}\n";
  return proto.str();
}

std::string buffer_argument(const LauncherParam& p, bool output) {
  std::string t = cpp_type(p.element);
  std::string arg;
  if (output) arg = "c.out<" + t + ">(\"" + p.name + "\")";
  else if (p.writable) arg = "const_cast<" + t + "*>(c.in<" + t + ">(\"" + p.name + "\"))";
  else arg = "c.in<" + t + ">(\"" + p.name + "\")";
  if (p.type.find("void") != std::string::npos || p.element.empty()) arg = "(" + p.canonical + ")" + arg;
  return arg;
}

std::string dim_argument(const LauncherParam& p) {
  return "static_cast<" + p.canonical + ">(c.dim(\"" + p.name + "\"))";
}

std::string shape_literal(const std::vector<std::string>& shape) {
  std::string out = "{";
  for (std::size_t i = 0; i < shape.size(); ++i) out += std::string(i ? ", " : "") + "\"" + shape[i] + "\"";
  return out + "}";
}

std::string dims_literal(const std::vector<std::pair<std::string, long long>>& dims) {
  std::string out = "{";
  for (std::size_t i = 0; i < dims.size(); ++i)
    out += std::string(i ? ", " : "") + "{\"" + dims[i].first + "\", " + std::to_string(dims[i].second) + "}";
  return out + "}";
}

std::string returned_element(const std::string& return_type) {
  static const std::map<std::string, std::string> kTypes = {
      {"float", "f32"},          {"double", "f64"},        {"int", "i32"},          {"unsigned int", "u32"},
      {"unsigned", "u32"},       {"long", "i64"},          {"long long", "i64"},    {"unsigned long", "i64"},
      {"unsigned long long", "i64"}, {"short", "i16"},     {"unsigned short", "i16"}, {"signed char", "i8"},
      {"char", "i8"},            {"unsigned char", "u8"},  {"bool", "u8"},          {"_Bool", "u8"},
      {"__half", "f16"},         {"__nv_bfloat16", "bf16"}, {"int64_t", "i64"},     {"int32_t", "i32"},
      {"uint32_t", "u32"},       {"size_t", "i64"}};
  std::string t = return_type;
  for (const char* q : {"const ", "volatile "})
    if (t.rfind(q, 0) == 0) t = t.substr(std::string(q).size());
  auto it = kTypes.find(t);
  return it == kTypes.end() ? "" : it->second;
}

std::string returned_output(const Launcher& l) {
  std::string name = "returned";
  for (bool taken = true; taken;) {
    taken = false;
    for (const LauncherParam& p : l.params) taken = taken || p.name == name;
    if (taken) name += "_";
  }
  return name;
}

namespace {

// The output a launcher's return value is copied to, as a builder line; empty when it returns nothing to compare.
std::string returned_line(const HarnessCall& c, bool several) {
  const std::string returned = returned_element(c.launcher.return_type);
  if (returned.empty() || c.returned.empty()) return "";
  return "      .output(\"" + c.returned + "\", DType::" + returned + ", {1})  // " +
         (several ? c.launcher.name + "'s" : std::string("the launcher's")) + " return value\n";
}

// The marker line naming the launchers and the selection a tuner builds with.
std::string launcher_selection(const std::vector<HarnessCall>& calls) {
  std::ostringstream t;
  t << kLaunchersMarker;
  for (const HarnessCall& c : calls) t << " " << c.launcher.name;
  t << "\n"
    << "// Built with " << kLauncherMaskMacro << " (bit k: the k-th launcher above), the harness\n"
       "// runs only those launchers: a tuner judges one launcher's kernels alone.\n"
       "static bool kb_runs(int k) {\n"
       "#ifdef "
    << kLauncherMaskMacro << "\n"
    << "  return k >= " << kMaskedLaunchers << " || ((static_cast<unsigned long long>(" << kLauncherMaskMacro
    << ") >> k) & 1ull) != 0;\n"
       "#else\n"
       "  (void)k;\n"
       "  return true;\n"
       "#endif\n"
       "}\n\n";
  return t.str();
}

// The launcher's call inside the launch lambda (and its return value's copy to the device).
std::string call_text(const HarnessCall& c, std::size_t k, bool several, const std::string& indent) {
  std::ostringstream t;
  const std::string returned = c.returned.empty() ? "" : returned_element(c.launcher.return_type);
  const std::string var = several ? "kb_returned_" + std::to_string(k) : "kb_returned";
  t << indent << (returned.empty() ? "" : "const auto " + var + " = ") << qualified_name(c.launcher) << "(\n";
  for (std::size_t i = 0; i < c.arguments.size(); ++i) t << (i ? ",\n" : "") << indent << "    " << c.arguments[i];
  t << ");\n";
  if (!returned.empty()) {
    const std::string type = cpp_type(returned);
    const std::string value = several ? "kb_value_" + std::to_string(k) : "kb_value";
    t << indent << "// The return value is an output: on the device, compared as the buffers are.\n"
      << indent << "const " << type << " " << value << " = static_cast<" << type << ">(" << var << ");\n"
      << indent << "cudaMemcpy(c.out<" << type << ">(\"" << c.returned << "\"), &" << value << ", sizeof " << value
      << ",\n"
      << indent << "           cudaMemcpyHostToDevice);\n";
  }
  return t.str();
}

}  // namespace

std::string harness_file(const std::string& comment, const std::string& name, const std::vector<HarnessCall>& calls,
                         const std::string& chain_in) {
  const bool several = calls.size() > 1;
  std::string chain = chain_in;
  if (!several)
    for (const HarnessCall& c : calls) chain += c.buffers + returned_line(c, false);
  std::ostringstream t;
  t << comment
    << "#include <kernelblaster/harness.h>\n"
       "#include <cuda_bf16.h>\n"
       "#include <cuda_fp16.h>\n"
       "#include <cuda_runtime.h>\n\n";
  const bool defines = std::any_of(calls.begin(), calls.end(), [](const HarnessCall& c) { return !c.definition.empty(); });
  if (defines) t << "#include <cstdio>\n#include <cstdlib>\n\n" << kKernelReplayMarker << "\n";
  for (const HarnessCall& c : calls) t << (c.definition.empty() ? launcher_prototype(c.launcher) : c.definition);
  t << "\n";
  if (several) t << launcher_selection(calls);
  t << "int main(int argc, char** argv) {\n"
       "  using namespace kernelblaster;\n"
       "  Harness h(\""
    << name << "\");\n"
    << "  h" << chain.substr(chain.find_first_not_of(' '));
  if (several) {
    // A statement per launcher. A line may end in a comment, so the
    // semicolon that ends a statement gets a line of its own.
    auto statement = [](const std::string& lines) { return lines + "      ;\n"; };
    t << "      ;\n";
    for (std::size_t k = 0; k < calls.size(); ++k) {
      const std::string lines = calls[k].buffers + returned_line(calls[k], true);
      if (!lines.empty())
        t << "  if (kb_runs(" << k << "))\n    h" << statement(lines.substr(lines.find_first_not_of(' ')));
    }
    t << "  h.launch([](Call& c) {\n";
  } else {
    t << "      .launch([](Call& c) {\n";
  }
  for (std::size_t k = 0; k < calls.size(); ++k) {
    if (several) t << "        if (kb_runs(" << k << ")) {\n";
    t << call_text(calls[k], k, several, several ? "          " : "        ");
    if (several) t << "        }\n";
  }
  t << "      });\n"
       "  return h.main(argc, argv);\n"
       "}\n";
  return t.str();
}

std::string harness_file(const std::string& comment, const Launcher& l, const std::string& chain,
                         const std::vector<std::string>& arguments) {
  return harness_file(comment, l.name, {{l, arguments, returned_output(l)}}, chain);
}

}  // namespace kernelblaster::harness
