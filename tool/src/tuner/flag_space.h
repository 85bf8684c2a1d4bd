// The nvcc flag dimensions the tuner explores, and the KB technique of a flag.
#pragma once

#include <string>
#include <vector>

#include "tuner/space_decl.h"

namespace kernelblaster::tuner {

// Default dimensions (each with "" = no flag first): fast math and each of
// its parts alone {"", -ftz=true, -prec-div=false, -prec-sqrt=false,
// -use_fast_math}, register cap {"", --maxrregcount=64}, global-load
// caching {"", -Xptxas=-dlcm=cg}, and, where `arch` has an arch-specific
// variant (sm_90 and later), {"", -arch=<arch>a}. 40 combinations on sm_90;
// a part that changes nothing compiles to the original's SASS and is never
// measured.
std::vector<FlagDimension> default_flag_dimensions(const std::string& arch);

// A dimension by name with explicit values (the "flags" directive):
// "fast_math" (no values: {"", -use_fast_math}; else parts of ftz,
// prec_div, prec_sqrt, all), "maxrregcount" (values are register counts), "dlcm" (ca, cg,
// cs, cv), "arch" (no values: the arch-specific variant of `arch`). Throws
// SpaceError (without position; the caller adds it).
FlagDimension flag_dimension(const std::string& name, const std::vector<std::string>& values, const std::string& arch);

// The KB technique of one flag value: -use_fast_math and its parts → fast_math,
// --maxrregcount → register_pressure_reduction, -dlcm → cache_policy_flags,
// -arch → arch_specific_codegen; other flags → compiler_flags.
std::string flag_technique(const std::string& flag);

// "sm_90" → "sm_90a"; "" when the architecture has no arch-specific variant
// (before sm_90) or already is one.
std::string arch_specific_variant(const std::string& arch);

}  // namespace kernelblaster::tuner
