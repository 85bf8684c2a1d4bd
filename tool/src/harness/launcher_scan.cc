#include "harness/launcher_scan.h"

#include <clang-c/Index.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "common/file_util.h"
#include "harness/kernel_names.h"

namespace kernelblaster::harness {
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
  CXType pointee = clang_getPointeeType(canonical);
  // A pointer to an incomplete struct (cublasHandle_t, cudaEvent_t; void *
  // is memory) is a handle, and a pointer to a function is code: neither is memory a
  // recorded call could give a harness.
  const bool handle = canonical.kind == CXType_Pointer &&
                      ((clang_getCanonicalType(pointee).kind == CXType_Record &&
                        clang_Type_getSizeOf(pointee) == CXTypeLayoutError_Incomplete) ||
                       clang_getCanonicalType(pointee).kind == CXType_FunctionProto);
  if (canonical.kind == CXType_Pointer && !handle) {
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

// What a host function's body reaches: kernels it launches (or names, as
// cudaLaunchKernel's argument) and host functions of the file it calls.
struct Reach {
  std::vector<std::string> kernels;  // in the order first named
  std::set<std::string> callees;     // USRs
};

// Every host function of the file with a body, by USR; the launchers' USRs.
struct Bodies {
  std::map<std::string, Reach> of;
  std::vector<std::string> launcher_usrs;  // parallel to SourceScan::launchers
};

struct Visit {
  SourceScan* scan;
  Bodies* bodies;
  std::vector<std::string> namespaces;
};

void note_function(CXCursor f, Reach& reach) {
  CXCursor t = clang_Cursor_isNull(f) ? f : clang_getSpecializedCursorTemplate(f);
  if (!clang_Cursor_isNull(t)) f = t;
  CXCursorKind fk = clang_Cursor_isNull(f) ? CXCursor_NoDeclFound : clang_getCursorKind(f);
  if (fk != CXCursor_FunctionDecl && fk != CXCursor_FunctionTemplate) return;
  Attributes a = attributes_of(f);
  if (a.global) {
    std::string name = text(clang_getCursorSpelling(f));
    if (std::find(reach.kernels.begin(), reach.kernels.end(), name) == reach.kernels.end()) reach.kernels.push_back(name);
  } else if (!a.device) {
    reach.callees.insert(text(clang_getCursorUSR(f)));
  }
}

CXChildVisitResult collect_reach(CXCursor c, CXCursor, CXClientData data) {
  auto* reach = static_cast<Reach*>(data);
  CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_DeclRefExpr || k == CXCursor_CallExpr || k == CXCursor_MemberRefExpr) {
    note_function(clang_getCursorReferenced(c), *reach);
  } else if (k == CXCursor_OverloadedDeclRef) {
    // A name a template's body uses before instantiation: every candidate.
    for (unsigned i = 0, n = clang_getNumOverloadedDecls(c); i < n; ++i) note_function(clang_getOverloadedDecl(c, i), *reach);
  }
  return CXChildVisit_Recurse;
}

void read_body(CXCursor fn, Bodies& bodies) {
  if (!clang_isCursorDefinition(fn)) return;
  Attributes a = attributes_of(fn);
  if (a.global || a.device) return;
  Reach& r = bodies.of[text(clang_getCursorUSR(fn))];
  clang_visitChildren(fn, collect_reach, &r);
}

// The kernels a function reaches through the file's host functions.
std::vector<std::string> kernels_reached(const std::string& usr, const Bodies& bodies) {
  std::vector<std::string> out;
  std::set<std::string> seen{usr};
  std::vector<std::string> todo{usr};
  while (!todo.empty()) {
    auto it = bodies.of.find(todo.back());
    todo.pop_back();
    if (it == bodies.of.end()) continue;
    for (const std::string& k : it->second.kernels)
      if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
    for (const std::string& c : it->second.callees)
      if (seen.insert(c).second) todo.push_back(c);
  }
  return out;
}

// Keeps the launchers that reach a kernel and records which: what the
// parser saw in the bodies, and the `<<<` launches the launcher's own text
// writes (a libclang that cannot parse the CUDA launch syntax with these
// headers sees only the kernels a body names otherwise, such as in
// cudaFuncSetAttribute). A file in which no launch was found either way (a
// launch through a macro, a body it could not read) keeps every candidate,
// as before bodies were read.
void keep_launchers_that_launch(SourceScan& scan, const Bodies& bodies, const std::string& text) {
  auto add = [](std::vector<std::string>& to, const std::string& k) {
    if (std::find(to.begin(), to.end(), k) == to.end()) to.push_back(k);
  };
  for (const auto& [usr, reach] : bodies.of)
    for (const std::string& k : reach.kernels) add(scan.kernels, k);
  std::vector<std::vector<std::string>> reached(scan.launchers.size());
  for (std::size_t i = 0; i < scan.launchers.size(); ++i) {
    reached[i] = kernels_reached(bodies.launcher_usrs[i], bodies);
    for (const std::string& k : kernels_launched_in(text, scan.launchers[i].name)) {
      add(reached[i], k);
      add(scan.kernels, k);
    }
  }
  if (scan.kernels.empty()) return;
  std::vector<Launcher> kept;
  for (std::size_t i = 0; i < scan.launchers.size(); ++i) {
    Launcher& l = scan.launchers[i];
    l.kernels = reached[i];
    if (l.kernels.empty()) scan.helpers.push_back(l.name);
    else kept.push_back(std::move(l));
  }
  scan.launchers = std::move(kept);
}

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
  if (kind == CXCursor_FunctionTemplate) {  // reached through, never a launcher
    v->scan->defines_kernels |= attributes_of(c).global;
    read_body(c, *v->bodies);
  }
  if (kind != CXCursor_FunctionDecl) return CXChildVisit_Continue;
  read_body(c, *v->bodies);
  Attributes attrs = attributes_of(c);
  int n = clang_Cursor_getNumArguments(c);
  std::vector<LauncherParam> params;
  for (int i = 0; i < n; ++i) params.push_back(param_of(clang_Cursor_getArgument(c, static_cast<unsigned>(i)), i));
  if (attrs.global) {
    v->scan->defines_kernels = true;
    for (const LauncherParam& p : params)
      if (p.kind == ParamKind::buffer && !p.element.empty()) v->scan->kernel_pointers.emplace_back(p.name, p.element);
    return CXChildVisit_Continue;
  }
  // Only a definition: a prototype of a function another file defines is
  // no launcher of this one.
  if (attrs.device || clang_getCursorLinkage(c) != CXLinkage_External || !clang_isCursorDefinition(c))
    return CXChildVisit_Continue;
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
  const std::string usr = text(clang_getCursorUSR(c));
  for (const Launcher& l : v->scan->launchers)
    if (l.name == name && l.namespaces == v->namespaces) return CXChildVisit_Continue;  // declared, then defined
  Launcher l;
  l.name = name;
  l.namespaces = v->namespaces;
  l.extern_c = text(clang_Cursor_getMangling(c)) == name;  // C linkage: the symbol is the bare name
  l.return_type = text(clang_getTypeSpelling(clang_getCanonicalType(clang_getResultType(clang_getCursorType(c)))));
  l.params = std::move(params);
  unsigned line = 0, name_at = 0, end_at = 0;
  CXFile name_file = nullptr, end_file = nullptr;
  clang_getSpellingLocation(clang_getCursorLocation(c), &name_file, &line, nullptr, &name_at);
  clang_getSpellingLocation(clang_getRangeEnd(clang_getCursorExtent(c)), &end_file, nullptr, nullptr, &end_at);
  l.line = static_cast<int>(line);
  if (name_file && end_file && clang_File_isEqual(name_file, end_file)) {
    l.name_offset = name_at;
    l.end_offset = end_at;
  }
  v->scan->launchers.push_back(std::move(l));
  v->bodies->launcher_usrs.push_back(usr);
  return CXChildVisit_Continue;
}

struct DefinedKernels {
  std::vector<std::string>* names;
  std::string toolkit;  // the CUDA include directory: its kernels are not the project's
};

CXChildVisitResult visit_defined_kernel(CXCursor c, CXCursor, CXClientData data) {
  auto* d = static_cast<DefinedKernels*>(data);
  CXSourceLocation loc = clang_getCursorLocation(c);
  if (clang_Location_isInSystemHeader(loc)) return CXChildVisit_Continue;
  CXFile file = nullptr;
  clang_getSpellingLocation(loc, &file, nullptr, nullptr, nullptr);
  if (!file) return CXChildVisit_Continue;
  const std::string where = text(clang_getFileName(file));
  if (!d->toolkit.empty() && where.rfind(d->toolkit, 0) == 0) return CXChildVisit_Continue;
  CXCursorKind kind = clang_getCursorKind(c);
  if (kind == CXCursor_Namespace || kind == CXCursor_LinkageSpec || kind == CXCursor_UnexposedDecl) {
    clang_visitChildren(c, visit_defined_kernel, data);
    return CXChildVisit_Continue;
  }
  if ((kind == CXCursor_FunctionDecl || kind == CXCursor_FunctionTemplate) && clang_isCursorDefinition(c) &&
      attributes_of(c).global) {
    std::string name = text(clang_getCursorSpelling(c));
    if (std::find(d->names->begin(), d->names->end(), name) == d->names->end()) d->names->push_back(name);
  }
  return CXChildVisit_Continue;
}

// The errors libclang met in the project's own files (not the system's or
// the toolkit's headers, whose host pass gives errors of its own).
std::vector<std::string> unread_diagnostics(CXTranslationUnit tu, const std::string& toolkit) {
  std::vector<std::string> out;
  const unsigned n = clang_getNumDiagnostics(tu);
  for (unsigned i = 0; i < n && out.size() < 3; ++i) {
    CXDiagnostic d = clang_getDiagnostic(tu, i);
    const CXDiagnosticSeverity severity = clang_getDiagnosticSeverity(d);
    const CXSourceLocation loc = clang_getDiagnosticLocation(d);
    CXFile file = nullptr;
    unsigned line = 0;
    clang_getSpellingLocation(loc, &file, &line, nullptr, nullptr);
    const std::string where = file ? text(clang_getFileName(file)) : "";
    const bool own = !where.empty() && !clang_Location_isInSystemHeader(loc) &&
                     (toolkit.empty() || where.rfind(toolkit, 0) != 0);
    // Only what the build's -I and -D would resolve: clang's own CUDA rules
    // (stricter than nvcc's in places) are no reason to doubt the types.
    const std::string message = text(clang_getDiagnosticSpelling(d));
    const bool unresolved = message.find("file not found") != std::string::npos ||
                            message.find("unknown type name") != std::string::npos ||
                            message.find("undeclared identifier") != std::string::npos ||
                            message.find("no type named") != std::string::npos ||
                            message.find("no template named") != std::string::npos;
    if (own && unresolved && severity >= CXDiagnostic_Error)
      out.push_back(std::filesystem::path(where).filename().string() + ":" + std::to_string(line) + ": " + message);
    clang_disposeDiagnostic(d);
  }
  return out;
}

}  // namespace

bool have_parser() { return true; }

SourceScan scan_source(const std::string& path, const ScanOptions& opt) {
  // As nvcc does: cuda_runtime.h comes first, under __CUDACC__, so __global__ and
  // __device__ are the attributes they are there (clang reads the headers as a host pass).
  // No error limit: the host pass of the CUDA headers alone gives more errors
  // than the default 20, and parsing stops there (std::ofstream& read as int&).
  std::vector<std::string> args = {"-ferror-limit=0", "-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-std=c++17",
                                   "-D__CUDACC__", "-include", "cuda_runtime.h"};
  if (!opt.cuda_include.empty()) args.push_back("-I" + opt.cuda_include);
  // CUDA 13 keeps libcu++ (<cuda/barrier>, <cuda/std/...>) under include/cccl, which nvcc searches too.
  if (!opt.cuda_include.empty() && std::filesystem::is_directory(opt.cuda_include + "/cccl"))
    args.push_back("-I" + opt.cuda_include + "/cccl");
  for (const std::string& d : opt.include_dirs) args.push_back("-I" + d);
  for (const std::string& d : opt.definitions) args.push_back("-D" + d);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  CXIndex index = clang_createIndex(0, 0);
  CXTranslationUnit tu = nullptr;
  CXErrorCode err = clang_parseTranslationUnit2(
      index, path.c_str(), argv.data(), static_cast<int>(argv.size()), nullptr, 0,
      CXTranslationUnit_Incomplete | CXTranslationUnit_KeepGoing, &tu);
  if (err != CXError_Success || !tu) {
    clang_disposeIndex(index);
    throw ScanError(path + ": libclang could not read it (error " + std::to_string(static_cast<int>(err)) + ")");
  }
  SourceScan scan;
  Bodies bodies;
  Visit v{&scan, &bodies, {}};
  clang_visitChildren(clang_getTranslationUnitCursor(tu), visit, &v);
  DefinedKernels defined{&scan.defined_kernels, opt.cuda_include};
  clang_visitChildren(clang_getTranslationUnitCursor(tu), visit_defined_kernel, &defined);
  scan.unread = unread_diagnostics(tu, opt.cuda_include);
  clang_disposeTranslationUnit(tu);
  clang_disposeIndex(index);
  keep_launchers_that_launch(scan, bodies, read_file(path));
  infer_void_elements(scan);
  return scan;
}

}  // namespace kernelblaster::harness
