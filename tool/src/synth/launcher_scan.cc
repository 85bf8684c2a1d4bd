#include "synth/launcher_scan.h"

#include <clang-c/Index.h>

#include <set>

namespace kernelblaster::synth {
namespace {

std::string text(CXString s) {
  const char* c = clang_getCString(s);
  std::string out = c ? c : "";
  clang_disposeString(s);
  return out;
}

struct Attributes {
  bool global = false;
  bool device = false;
};

Attributes attributes_of(CXCursor fn) {
  Attributes a;
  clang_visitChildren(
      fn,
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* out = static_cast<Attributes*>(data);
        if (clang_getCursorKind(c) == CXCursor_CUDAGlobalAttr) out->global = true;
        if (clang_getCursorKind(c) == CXCursor_CUDADeviceAttr) out->device = true;
        return CXChildVisit_Continue;
      },
      &a);
  return a;
}

LauncherParam param_of(CXCursor arg, int index) {
  LauncherParam p;
  p.name = text(clang_getCursorSpelling(arg));
  if (p.name.empty()) p.name = "arg" + std::to_string(index);
  CXType t = clang_getCursorType(arg);
  p.type = text(clang_getTypeSpelling(t));
  CXType canonical = clang_getCanonicalType(t);
  p.canonical = text(clang_getTypeSpelling(canonical));
  if (canonical.kind == CXType_Pointer) {
    CXType pointee = clang_getPointeeType(canonical);
    p.kind = ParamKind::buffer;
    p.writable = !clang_isConstQualifiedType(pointee);
    p.element = element_of(text(clang_getTypeSpelling(clang_getCanonicalType(pointee))));
    if (!p.element.empty()) p.element_from = "parameter type";
  } else if (canonical.kind == CXType_Bool) {
    p.kind = ParamKind::flag;
  } else if (canonical.kind == CXType_Float || canonical.kind == CXType_Double) {
    p.kind = ParamKind::real;
  } else if (canonical.kind >= CXType_Char_U && canonical.kind <= CXType_LongLong) {
    p.kind = ParamKind::dim;
  } else if (p.type.find("cudaStream_t") != std::string::npos) {
    p.kind = ParamKind::stream;
  }
  return p;
}

struct Visit {
  SourceScan* scan;
  std::vector<std::string> namespaces;
};

CXChildVisitResult visit(CXCursor c, CXCursor, CXClientData data) {
  auto* v = static_cast<Visit*>(data);
  if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) return CXChildVisit_Continue;
  CXCursorKind kind = clang_getCursorKind(c);
  // extern "C" { ... } and extern "C" on one declaration come as a
  // LinkageSpec or, in libclang 14, an unexposed declaration.
  if (kind == CXCursor_Namespace || kind == CXCursor_LinkageSpec || kind == CXCursor_UnexposedDecl) {
    Visit inner = *v;
    if (kind == CXCursor_Namespace) inner.namespaces.push_back(text(clang_getCursorSpelling(c)));
    clang_visitChildren(c, visit, &inner);
    return CXChildVisit_Continue;
  }
  if (kind != CXCursor_FunctionDecl) return CXChildVisit_Continue;
  Attributes attrs = attributes_of(c);
  int n = clang_Cursor_getNumArguments(c);
  std::vector<LauncherParam> params;
  for (int i = 0; i < n; ++i) params.push_back(param_of(clang_Cursor_getArgument(c, static_cast<unsigned>(i)), i));
  if (attrs.global) {
    for (const LauncherParam& p : params)
      if (p.kind == ParamKind::buffer && !p.element.empty()) v->scan->kernel_pointers.emplace_back(p.name, p.element);
    return CXChildVisit_Continue;
  }
  if (attrs.device || clang_getCursorLinkage(c) != CXLinkage_External) return CXChildVisit_Continue;
  bool has_pointer = false;
  for (const LauncherParam& p : params) has_pointer |= p.kind == ParamKind::buffer;
  if (!has_pointer) return CXChildVisit_Continue;
  std::string name = text(clang_getCursorSpelling(c));
  // A program's main() launches kernels, but it is the program, not a
  // launcher a harness could call (issue 27: taken for one, "recorded"
  // after every build).
  if (name == "main" && v->namespaces.empty()) {
    v->scan->defines_main = true;
    return CXChildVisit_Continue;
  }
  for (const Launcher& l : v->scan->launchers)
    if (l.name == name && l.namespaces == v->namespaces) return CXChildVisit_Continue;  // declared, then defined
  Launcher l;
  l.name = name;
  l.namespaces = v->namespaces;
  l.extern_c = text(clang_Cursor_getMangling(c)) == name;  // C linkage: the symbol is the bare name
  l.return_type = text(clang_getTypeSpelling(clang_getCanonicalType(clang_getResultType(clang_getCursorType(c)))));
  l.params = std::move(params);
  unsigned line = 0;
  clang_getSpellingLocation(clang_getCursorLocation(c), nullptr, &line, nullptr, nullptr);
  l.line = static_cast<int>(line);
  v->scan->launchers.push_back(std::move(l));
  return CXChildVisit_Continue;
}

}  // namespace

bool have_parser() { return true; }

SourceScan scan_source(const std::string& path, const ScanOptions& opt) {
  // As nvcc does: cuda_runtime.h comes first, under __CUDACC__, so __global__ and
  // __device__ are the attributes they are there (clang reads the headers as a host pass).
  std::vector<std::string> args = {"-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-std=c++17",
                                   "-D__CUDACC__", "-include", "cuda_runtime.h"};
  if (!opt.cuda_include.empty()) args.push_back("-I" + opt.cuda_include);
  for (const std::string& d : opt.include_dirs) args.push_back("-I" + d);
  for (const std::string& d : opt.definitions) args.push_back("-D" + d);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  CXIndex index = clang_createIndex(0, 0);
  CXTranslationUnit tu = nullptr;
  CXErrorCode err = clang_parseTranslationUnit2(
      index, path.c_str(), argv.data(), static_cast<int>(argv.size()), nullptr, 0,
      CXTranslationUnit_SkipFunctionBodies | CXTranslationUnit_Incomplete | CXTranslationUnit_KeepGoing, &tu);
  if (err != CXError_Success || !tu) {
    clang_disposeIndex(index);
    throw ScanError(path + ": libclang could not read it (error " + std::to_string(static_cast<int>(err)) + ")");
  }
  SourceScan scan;
  Visit v{&scan, {}};
  clang_visitChildren(clang_getTranslationUnitCursor(tu), visit, &v);
  clang_disposeTranslationUnit(tu);
  clang_disposeIndex(index);
  infer_void_elements(scan);
  return scan;
}

}  // namespace kernelblaster::synth
