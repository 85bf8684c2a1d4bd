// kernelblaster stats: how build steps ended, per cause, as `ccache -s`
// shows its outcomes (cache/build_stats.h).
#include <cstdio>
#include <string>

#include "cache/build_stats.h"
#include "cache/results_cache.h"
#include "cli/args.h"
#include "cli/commands.h"

namespace kernelblaster {
namespace {

const char* kHelp = R"(usage: kernelblaster stats [--cache-dir DIR] [--zero]

How the build steps that used DIR ended, one count per cause: applied,
tuned, no_gain, no_gpu, gpu_unusable, nvcc_unusable, manifest_unreadable,
tuning_failed, ... and stale_lockfile (an entry that no longer matched).

  --cache-dir DIR  the results cache (default: KERNELBLASTER_CACHE_DIR, else
                   ~/.cache/kernelblaster)
  --zero           forget the counts
)";

}  // namespace

int stats_command(const CommandArgs& argv, const std::string& self_exe) {
  (void)self_exe;
  for (const std::string& a : argv)
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      return 0;
    }
  try {
    Args args(argv, {"--cache-dir"}, {"--zero"});
    std::string dir = args.value("--cache-dir");
    if (dir.empty()) dir = cache::ResultsCache::default_dir();
    if (args.flag("--zero")) {
      cache::zero_build_stats(dir);
      std::printf("kernelblaster stats: counts of %s zeroed\n", dir.c_str());
      return 0;
    }
    auto counts = cache::read_build_stats(dir);
    long long total = 0;
    for (const auto& [name, n] : counts)
      if (name != "stale_lockfile") total += n;
    std::printf("build steps (%s): %lld\n", dir.c_str(), total);
    for (const auto& [name, n] : counts) std::printf("  %-22s %lld\n", name.c_str(), n);
    return 0;
  } catch (const std::exception& x) {
    std::fprintf(stderr, "kernelblaster stats: %s (see --help)\n", x.what());
    return 2;
  }
}

}  // namespace kernelblaster
