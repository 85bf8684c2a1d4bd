#include "tuner/flag_space.h"

#include <algorithm>
#include <cctype>

namespace kernelblaster::tuner {

std::string infer_technique(const std::string& name) {
  std::string n = name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::toupper(c); });
  auto has = [&](const char* s) { return n.find(s) != std::string::npos; };
  if (has("UNROLL")) return "loop_unrolling";
  if (has("ITEM") || has("COARSEN") || has("PER_THREAD") || has("WORK") || has("VEC")) return "thread_coarsening";
  if (has("BLOCK") || has("THREAD") || has("WARP") || has("TILE")) return "block_size_adaptation";
  return "parameter_tuning";
}

std::string arch_specific_variant(const std::string& arch) {
  if (arch.rfind("sm_", 0) != 0 || arch.size() < 5) return "";
  if (!std::isdigit(static_cast<unsigned char>(arch.back()))) return "";  // sm_90a already
  int major = 0;
  try {
    major = std::stoi(arch.substr(3)) / 10;
  } catch (const std::exception&) {
    return "";  // an architecture without a number has no arch-specific variant
  }
  return major >= 9 ? arch + "a" : "";
}

// -use_fast_math is -ftz=true, -prec-div=false, -prec-sqrt=false and the
// fast intrinsics together; a part alone can keep the accuracy the whole loses.
std::string fast_math_part(const std::string& v) {
  if (v == "ftz") return "-ftz=true";
  if (v == "prec_div") return "-prec-div=false";
  if (v == "prec_sqrt") return "-prec-sqrt=false";
  if (v == "all") return "-use_fast_math";
  throw SpaceError("fast_math value '" + v + "' is not one of ftz, prec_div, prec_sqrt, all");
}

FlagDimension flag_dimension(const std::string& name, const std::vector<std::string>& values, const std::string& arch) {
  FlagDimension d;
  d.name = name;
  d.values = {""};
  auto need_no_values = [&] {
    if (!values.empty()) throw SpaceError("flag dimension '" + name + "' takes no values");
  };
  if (name == "fast_math") {
    d.technique = "fast_math";
    if (values.empty()) d.values.push_back("-use_fast_math");
    for (const std::string& v : values) d.values.push_back(fast_math_part(v));
  } else if (name == "maxrregcount") {
    d.technique = "register_pressure_reduction";
    if (values.empty()) throw SpaceError("flag dimension 'maxrregcount' needs register counts, e.g. maxrregcount=32,64");
    for (const std::string& v : values) {
      bool digits = !v.empty() && std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); });
      if (!digits || std::stoi(v) < 16 || std::stoi(v) > 255)
        throw SpaceError("maxrregcount value '" + v + "' is not a register count in 16..255");
      d.values.push_back("--maxrregcount=" + v);
    }
  } else if (name == "dlcm") {
    d.technique = "cache_policy_flags";
    if (values.empty()) throw SpaceError("flag dimension 'dlcm' needs cache operators, e.g. dlcm=ca,cg");
    for (const std::string& v : values) {
      if (v != "ca" && v != "cg" && v != "cs" && v != "cv")
        throw SpaceError("dlcm value '" + v + "' is not one of ca, cg, cs, cv");
      d.values.push_back("-Xptxas=-dlcm=" + v);
    }
  } else if (name == "arch") {
    need_no_values();
    d.technique = "arch_specific_codegen";
    std::string variant = arch_specific_variant(arch);
    if (!variant.empty()) d.values.push_back("-arch=" + variant);
  } else {
    throw SpaceError("unknown flag dimension '" + name + "' (known: fast_math, maxrregcount, dlcm, arch)");
  }
  return d;
}

std::vector<FlagDimension> default_flag_dimensions(const std::string& arch) {
  std::vector<FlagDimension> dims = {
      flag_dimension("fast_math", {"ftz", "prec_div", "prec_sqrt", "all"}, arch),
      flag_dimension("maxrregcount", {"64"}, arch),
      flag_dimension("dlcm", {"cg"}, arch),
  };
  FlagDimension a = flag_dimension("arch", {}, arch);
  if (a.values.size() > 1) dims.push_back(a);
  return dims;
}

std::string flag_technique(const std::string& flag) {
  for (const char* part : {"use_fast_math", "ftz=true", "prec-div=false", "prec-sqrt=false"})
    if (flag == std::string("-") + part || flag == std::string("--") + part) return "fast_math";
  if (flag.find("maxrregcount") != std::string::npos) return "register_pressure_reduction";
  if (flag.find("dlcm") != std::string::npos) return "cache_policy_flags";
  if (flag.rfind("-arch=", 0) == 0) return "arch_specific_codegen";
  return "compiler_flags";
}

}  // namespace kernelblaster::tuner
