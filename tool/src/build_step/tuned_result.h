// A tuned source as the cache and the lockfile keep it, and how it becomes
// the text the build compiles. A plain value type; its JSON form lives in
// result_json.h.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "build_step/gpu_fingerprint.h"

namespace kernelblaster::build_step {

// Where a portable tuned text names the original source (#line directives):
// replaced by the local path of the original when the text is applied.
inline constexpr const char* kSourcePathToken = "@KERNELBLASTER_SOURCE@";

struct TunedResult {
  std::string key;          // the content key it was measured under
  std::string source;       // the source's name (a path relative to the lockfile, or the file name)
  // false: tuning ran and nothing beat the original; the original stands and
  // the build need not tune again for this key.
  bool improved = false;
  // The usual tuned text is `#define NAME VALUE` lines, a #line back to the
  // original and the original text: then only the defines are kept and the
  // text is regenerated exactly. Anything else is kept whole in `text`
  // (portable: the original's path replaced by kSourcePathToken).
  std::vector<std::pair<std::string, std::string>> defines;
  // The exact directive lines before the #line when they are not only
  // `#define`s (the tuner also writes `#undef NAME` before redefining a -D
  // of the target); path-free, so kept instead of the whole text.
  std::string prelude;
  std::string text;
  std::vector<std::string> flags;           // nvcc flags the tuned source needs
  std::map<std::string, std::string> config;  // the tuner's settings, for people
  // The source's own value of every tunable of `config` (absent in results
  // older than it: then every setting counts as changed).
  std::map<std::string, std::string> original;
  std::map<std::string, double> kernels;  // each kernel's speedup in the winner's look (may be empty)
  double speedup = 1;
  double reference_median_us = 0;
  double median_us = 0, q1_us = 0, q3_us = 0;  // the tuned source's timing
  // What a merge of two runners' results weighs (build_step/lockfile.h): the
  // winner held on the tuner's second look (fresh seeds, the validation
  // sizes, back to back), and how many configurations the run measured.
  // Absent in results older than both: false, 0.
  bool reverified = false;
  long long evaluations = 0;
  // The search that found it goes on: the best verified so far, which a
  // build on this GPU resumes from the results cache (tuner/search_state.h)
  // while any build applies it. Absent in older results: false.
  bool search_open = false;
  // The content key's parts it was measured under (content_key.h
  // key_parts), so a build whose key differs can say where. Absent in
  // older results: empty.
  std::map<std::string, std::string> key_parts;
  GpuFingerprint gpu;
  std::string measured_at;   // ISO 8601, UTC
  std::string tool_version;
};

// `#line 1 "<path>"` and the original text: what the build compiles when no
// tuned result applies, so compiler messages still name the user's file.
std::string render_original(const std::string& original_path, const std::string& original_text);

// The text the build compiles for `r`, given the local original.
std::string render_tuned(const TunedResult& r, const std::string& original_path, const std::string& original_text);

// Fills r.defines (or r.text) from a tuned text produced for the original at
// `tuned_for_path` (the path the tuner was given).
void absorb_tuned_text(TunedResult& r, const std::string& tuned_text, const std::string& tuned_for_path,
                       const std::string& original_text);

// "1.41x, BLOCK_SIZE=128, -use_fast_math": what a build line says about r.
// What the result assumes of the program beyond what was measured ("" when
// nothing): `__restrict__` on a kernel (tuner/kernel_rewrites.h) assumes
// its buffers never overlap, as they did in every recorded launch.
std::string assumptions(const TunedResult& r);
std::string describe(const TunedResult& r);
// What a build line says of r: its speedup, the settings and flags that
// differ from the source's own, and the kernels it moved ("1.08x, BM=64,
// -use_fast_math; sgemm5 1.28x, 9 other kernels unchanged"). The full
// configuration is describe()'s, for the report and the lockfile.
std::string describe_change(const TunedResult& r);
// The settings of r that differ from the source's own ("NAME=VALUE"), or
// all of settings_text(r) where r does not know the source's values.
std::vector<std::string> changed_settings(const TunedResult& r);
// "sgemm5 1.28x, sgemm6 0.99x, 9 other kernels unchanged": the kernels the
// winner moved by more than 1% either way; "" when r has no kernel figures.
std::string kernels_text(const TunedResult& r);
// The settings a line names, "NAME=VALUE" in order (the definitions, else
// the configuration), without the rewrites left off (value 0: the code as
// written).
std::vector<std::string> settings_text(const TunedResult& r);

// Quotes a path for a #line directive.
std::string line_directive_path(const std::string& path);

}  // namespace kernelblaster::build_step
