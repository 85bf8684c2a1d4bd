#include "synth/harness_text.h"

#include <map>
#include <sstream>

namespace kernelblaster::synth {

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

std::string harness_file(const std::string& comment, const Launcher& l, const std::string& chain,
                         const std::vector<std::string>& arguments) {
  std::ostringstream t;
  t << comment
    << "#include <kernelblaster/harness.h>\n"
       "#include <cuda_bf16.h>\n"
       "#include <cuda_fp16.h>\n"
       "#include <cuda_runtime.h>\n\n"
    << launcher_prototype(l) << "\n"
    << "int main(int argc, char** argv) {\n"
       "  using namespace kernelblaster;\n"
       "  Harness h(\""
    << l.name << "\");\n"
    << "  h" << chain.substr(chain.find_first_not_of(' ')) << "      .launch([](Call& c) {\n"
    << "        " << qualified_name(l) << "(\n";
  for (std::size_t i = 0; i < arguments.size(); ++i) t << (i ? ",\n" : "") << "            " << arguments[i];
  t << ");\n"
    << "      });\n"
       "  return h.main(argc, argv);\n"
       "}\n";
  return t.str();
}

}  // namespace kernelblaster::synth
