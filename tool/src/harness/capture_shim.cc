#include "harness/capture_shim.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/capture.h"
#include "harness/harness_text.h"

namespace fs = std::filesystem;

namespace kernelblaster::harness {

std::string launcher_json(const Launcher& l) {
  nlohmann::json params = nlohmann::json::array();
  for (const LauncherParam& p : l.params)
    params.push_back({{"name", p.name}, {"type", p.type}, {"canonical", p.canonical}, {"kind", param_kind_name(p.kind)},
                      {"writable", p.writable}, {"element", p.element}});
  return nlohmann::json{{"name", l.name},
                        {"namespaces", l.namespaces},
                        {"extern_c", l.extern_c},
                        {"return_type", l.return_type},
                        {"line", l.line},
                        {"params", params}}
      .dump();
}

namespace {

// `name`: the expression the shim passes as the source's name under
// KERNELBLASTER_CAPTURE_DIR ("nullptr" when it has none).
void write_definition(std::ostringstream& t, const Launcher& l, const std::string& source_path,
                      const std::string& name) {
  const std::string renamed = "kb_capture_original_" + l.name;
  for (const std::string& ns : l.namespaces) t << "namespace " << ns << " {\n";
  t << (l.extern_c ? "extern \"C\" " : "") << l.return_type << " " << l.name << "(";
  for (std::size_t i = 0; i < l.params.size(); ++i)
    t << (i ? ", " : "") << l.params[i].canonical << " " << l.params[i].name;
  t << ") {\n";
  // The launcher's JSON goes in a raw string whose delimiter cannot occur in it.
  // The source's own default file goes with each call (capture.h): with
  // several shims in one program, each records into its own.
  t << "  kernelblaster::capture::Call kb_call(" << nlohmann::json(source_path).dump() << ", R\"KBCAPTURE("
    << launcher_json(l) << ")KBCAPTURE\", " << name << ");\n";
  for (const LauncherParam& p : l.params) {
    switch (p.kind) {
      case ParamKind::buffer: {
        const bool typed = p.type.find("void") == std::string::npos && !p.element.empty();
        const std::string bytes = p.element.empty() ? "1" : std::to_string(element_bytes(p.element));
        if (typed) t << "  kb_call.buffer(" << p.name << ", " << bytes << ");\n";
        else t << "  kb_call.buffer(static_cast<const void*>(" << p.name << "), " << bytes << ");\n";
        break;
      }
      case ParamKind::dim: t << "  kb_call.value(static_cast<long long>(" << p.name << "));\n"; break;
      case ParamKind::real: t << "  kb_call.value(static_cast<double>(" << p.name << "));\n"; break;
      case ParamKind::flag: t << "  kb_call.value(static_cast<long long>(" << p.name << " ? 1 : 0));\n"; break;
      case ParamKind::stream:
      case ParamKind::other: t << "  kb_call.none();\n"; break;
    }
  }
  t << "  kb_call.begin();\n";
  std::string args;
  for (std::size_t i = 0; i < l.params.size(); ++i) args += (i ? ", " : "") + l.params[i].name;
  if (l.return_type == "void") {
    t << "  " << renamed << "(" << args << ");\n  kb_call.finish();\n";
  } else {
    t << "  auto kb_result = " << renamed << "(" << args << ");\n  kb_call.finish();\n  return kb_result;\n";
  }
  t << "}\n";
  for (std::size_t i = 0; i < l.namespaces.size(); ++i) t << "}\n";
}

}  // namespace

namespace {

std::string prototype(const Launcher& l) {
  std::string t = std::string(l.extern_c ? "extern \"C\" " : "") + l.return_type + " " + l.name + "(";
  for (std::size_t i = 0; i < l.params.size(); ++i) t += (i ? ", " : "") + l.params[i].canonical + " " + l.params[i].name;
  return t + ");";
}

// The source with each launcher's definition renamed where it stands and the
// recording launcher declared right after it, so that the file's own calls
// (run_kernel calling run_sgemm_naive) go through the recording one too.
// Same lines as the original. Empty when a definition cannot be placed (a
// name made by a macro, a source that changed since the scan).
std::string renamed_in_place(const std::vector<Launcher>& launchers, const std::string& text) {
  std::vector<const Launcher*> order;
  for (const Launcher& l : launchers) {
    if (l.name_offset == Launcher::npos || l.end_offset == Launcher::npos || l.end_offset > text.size() ||
        l.name_offset >= l.end_offset || text.compare(l.name_offset, l.name.size(), l.name) != 0 ||
        text[l.end_offset - 1] != '}')
      return "";
    order.push_back(&l);
  }
  std::sort(order.begin(), order.end(), [](const Launcher* a, const Launcher* b) { return a->name_offset < b->name_offset; });
  std::string out;
  std::size_t at = 0;
  for (const Launcher* l : order) {
    if (l->name_offset < at) return "";
    out += text.substr(at, l->name_offset - at) + "kb_capture_original_" + l->name;
    out += text.substr(l->name_offset + l->name.size(), l->end_offset - l->name_offset - l->name.size());
    out += " " + prototype(*l);
    at = l->end_offset;
  }
  return out + text.substr(at);
}

}  // namespace

std::string capture_shim(const std::vector<Launcher>& launchers, const std::string& source_path,
                         const std::string& name, const std::string& source_text) {
  std::ostringstream t;
  t << "// Recording shim for " << source_path << ", written by kernelblaster.\n"
       "// Compiled in the source's place, it records each call of its launchers when\n"
    << (name.empty() ? "// KERNELBLASTER_CAPTURE_FILE is set"
                     : "// KERNELBLASTER_CAPTURE_FILE or KERNELBLASTER_CAPTURE_DIR is set")
    << " (kernelblaster/capture.h) and calls the originals.\n";
  const std::string renamed = source_text.empty() ? "" : renamed_in_place(launchers, source_text);
  if (!renamed.empty()) {
    // The source itself, its launchers' definitions renamed: its quoted
    // includes need its directory on the include path.
    t << "// The source follows with each launcher's definition renamed, so its own\n"
         "// calls of a launcher are recorded too; compile with -I" << fs::path(source_path).parent_path().string()
      << "\n#line 1 " << nlohmann::json(source_path).dump() << "\n" << renamed;
    if (renamed.back() != '\n') t << "\n";
    // What follows is counted on past the source's end: a #line naming no
    // file would enter the compiler's dependency list as a missing file,
    // and the object would be rebuilt every time.
    t << "#line " << std::count(renamed.begin(), renamed.end(), '\n') + 2 << " " << nlohmann::json(source_path).dump()
      << "\n";
  } else {
    for (const Launcher& l : launchers) t << "#define " << l.name << " kb_capture_original_" << l.name << "\n";
    t << "#include " << nlohmann::json(source_path).dump() << "\n";
    for (const Launcher& l : launchers) t << "#undef " << l.name << "\n";
  }
  if (!name.empty()) t << "#define KERNELBLASTER_CAPTURE_NAME " << nlohmann::json(name).dump() << "\n";
  t << "#include <kernelblaster/capture.h>\n";
  for (const Launcher& l : launchers) {
    t << "\n";
    write_definition(t, l, source_path, name.empty() ? "nullptr" : "KERNELBLASTER_CAPTURE_NAME");
  }
  return t.str();
}

}  // namespace kernelblaster::harness
