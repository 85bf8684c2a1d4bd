// kernelblaster stats: how build steps ended, per cause, as `ccache -s`
// shows its outcomes (build_step/build_stats.h).
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "build_step/build_record.h"
#include "build_step/build_stats.h"
#include "build_step/results_cache.h"
#include "cli/args.h"
#include "cli/commands.h"

namespace kernelblaster {
namespace {

const char* kHelp = R"(usage: kernelblaster stats [--cache-dir DIR | --build-dir DIR] [--zero] [--json]

How build steps ended, one count per cause: applied, tuned, no_gain, no_gpu,
gpu_unusable, nvcc_unusable, manifest_unreadable, tuning_failed, ... and
stale_lockfile (an entry that no longer matched).

For a build tree, two things, each said as what it is:
  - this build tree's sources: the last build step of each (its record);
  - the results caches its steps used: every build step that ever used
    them, from any build tree that shares them (as `ccache -s` counts).

  --cache-dir DIR  that results cache only
  --build-dir DIR  that build tree (each target's kernelblaster_generated/<target>/)
  --zero           forget the caches' counts (a build tree's records stay)
  --json           {"build_tree": {"dir", "sources", "counts"}, "caches": [{"dir", "total", "counts"}], "total"}
                   ("total": the caches' steps)

Without either: the build tree in the current directory, where there is
one, else KERNELBLASTER_CACHE_DIR, else $XDG_CACHE_HOME/kernelblaster/results,
else ~/.cache/kernelblaster/results.

Exit status: 0 done, 2 bad usage.
)";

// One cache's counts; returns their total (stale_lockfile apart). Printed
// as text, or added to `json`'s "caches".
long long report_counts(const std::string& dir, nlohmann::json* json) {
  auto counts = build_step::read_build_stats(dir);
  long long total = 0;
  for (const auto& [name, n] : counts)
    if (name != "stale_lockfile") total += n;
  if (json) {
    nlohmann::json c = {{"dir", dir}, {"total", total}, {"counts", nlohmann::json::object()}};
    for (const auto& [name, n] : counts) c["counts"][name] = n;
    (*json)["caches"].push_back(c);
    return total;
  }
  std::printf("results cache %s (every build that uses it): %lld build steps\n", dir.c_str(), total);
  for (const auto& [name, n] : counts) std::printf("  %-22s %lld\n", name.c_str(), n);
  return total;
}

// The last build step of each of a build tree's sources, per cause.
void report_build_tree(const std::string& tree, nlohmann::json* json) {
  std::map<std::string, long long> counts;
  const std::vector<build_step::BuildRecord> records = build_step::build_tree_records(tree, nullptr);
  for (const build_step::BuildRecord& r : records) ++counts[build_step::build_cause_name(r.cause)];
  if (json) {
    (*json)["build_tree"] = {{"dir", tree}, {"sources", records.size()}, {"counts", counts}};
    return;
  }
  std::printf("this build tree (%s): %zu sources, by the last build step of each\n", tree.c_str(), records.size());
  for (const auto& [name, n] : counts) std::printf("  %-22s %lld\n", name.c_str(), n);
}

}  // namespace

int stats_command(const CommandArgs& argv, const std::string& self_exe) {
  (void)self_exe;
  return run_command("stats", kHelp, argv, [&]() -> int {
    Args args(argv, {"--cache-dir", "--build-dir"}, {"--zero", "--json"});
    std::string dir = args.value("--cache-dir");
    std::string build_dir = args.value("--build-dir");
    if (!dir.empty() && !build_dir.empty()) throw UsageError("give --cache-dir or --build-dir, not both");
    std::vector<std::string> dirs;
    bool tree = false;  // a build tree's steps are counted
    if (!dir.empty()) {
      dirs = {dir};
    } else {
      const bool here = build_dir.empty();
      if (here) build_dir = ".";
      dirs = build_step::build_tree_cache_dirs(build_dir);
      if (dirs.empty() && !here)
        throw UsageError("no KernelBlaster build step has run in " + build_dir + " yet (no kernelblaster_generated/*/" +
                         build_step::kCacheDirRecord + ")");
      tree = !dirs.empty();
      if (dirs.empty()) dirs = {build_step::ResultsCache::default_dir()};
    }
    if (args.flag("--zero")) {
      for (const std::string& d : dirs) {
        build_step::zero_build_stats(d);
        std::printf("kernelblaster stats: counts of %s zeroed\n", d.c_str());
      }
      return 0;
    }
    long long total = 0;
    nlohmann::json json = {{"caches", nlohmann::json::array()}};
    const bool as_json = args.flag("--json");
    if (tree) report_build_tree(build_dir, as_json ? &json : nullptr);
    for (const std::string& d : dirs) total += report_counts(d, as_json ? &json : nullptr);
    if (as_json) {
      json["total"] = total;
      std::printf("%s\n", json.dump(2).c_str());
    } else if (dirs.size() > 1) {
      std::printf("build steps in all: %lld\n", total);
    }
    return 0;
  });
}

}  // namespace kernelblaster
