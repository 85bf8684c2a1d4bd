#include "harness/launcher.h"

#include <map>

namespace kernelblaster::harness {

std::string element_of(const std::string& canonical_type) {
  static const std::map<std::string, std::string> kTypes = {
      {"float", "f32"},         {"double", "f64"},        {"__half", "f16"},          {"half", "f16"},
      {"__nv_bfloat16", "bf16"}, {"nv_bfloat16", "bf16"}, {"signed char", "i8"},       {"char", "i8"},
      {"int8_t", "i8"},         {"unsigned char", "u8"},  {"uint8_t", "u8"},          {"short", "i16"},
      {"int16_t", "i16"},       {"int", "i32"},           {"int32_t", "i32"},         {"unsigned int", "u32"},
      {"uint32_t", "u32"},      {"long", "i64"},          {"long long", "i64"},       {"int64_t", "i64"}};
  std::string t = canonical_type;
  for (const char* q : {"const ", "volatile "})
    for (std::size_t p; (p = t.find(q)) != std::string::npos;) t.erase(p, std::string(q).size());
  while (!t.empty() && t.back() == ' ') t.pop_back();
  auto it = kTypes.find(t);
  return it == kTypes.end() ? "" : it->second;
}

std::string default_cuda_include() { return KERNELBLASTER_CUDA_INCLUDE_DIR; }

bool same_signature(const Launcher& a, const Launcher& b) {
  if (a.name != b.name || a.namespaces != b.namespaces || a.extern_c != b.extern_c || a.return_type != b.return_type ||
      a.params.size() != b.params.size())
    return false;
  for (std::size_t i = 0; i < a.params.size(); ++i) {
    const LauncherParam& p = a.params[i];
    const LauncherParam& q = b.params[i];
    const std::string& pt = p.canonical.empty() ? p.type : p.canonical;
    const std::string& qt = q.canonical.empty() ? q.type : q.canonical;
    if (pt != qt || p.kind != q.kind || p.writable != q.writable || p.element != q.element) return false;
  }
  return true;
}

}  // namespace kernelblaster::harness
