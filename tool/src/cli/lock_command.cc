// kernelblaster lock merge | merge-driver: several runners' lockfiles (or
// the per-GPU fragments they wrote) as one, by the rule of
// build_step/lockfile.h, with every decision said; and the same as git's merge
// driver, so two runners' updates of kernelblaster.lock.json merge without
// hand edits.
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "build_step/lockfile.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "common/file_lock.h"
#include "common/file_util.h"
#include "common/text.h"

namespace kernelblaster {
namespace {

const char* kHelp = R"(usage: kernelblaster lock merge A B [C ...] [--out FILE] [--quiet]
       kernelblaster lock merge-driver BASE OURS THEIRS

merge         folds B, C, ... into A (in place, under A's lock; A is created
              if missing) or writes the result to --out. The inputs are
              lockfiles or the fragments runners wrote with
              KERNELBLASTER_UPDATE_LOCKFILE=fragment
              (kernelblaster.lock.d/<gpu>.json). Every (source, GPU) entry of
              any input is kept; where two differ, one stands:
                1. measured for another content key: the later measurement
                   (the other was for a source, tool or settings since changed);
                2. the same key: the re-verified one, then the one from more
                   evaluations, then the faster, then the later.
              Each decision is one line on stderr naming the entry that lost;
              an input that holds no entry is said ("nothing merged" when
              none does). B, C, ... must exist: a glob that matched nothing
              is refused.
merge-driver  git's merge driver for the lockfile: merges THEIRS into OURS
              (BASE is not needed: entries are only ever added or replaced)
              and exits 0, or 1 with one line when a side is not a lockfile
              (git then leaves the conflict to you). Set it up once:
                git config merge.kernelblaster-lock.driver \
                  "kernelblaster lock merge-driver %O %A %B"
              and in .gitattributes:
                kernelblaster.lock.json merge=kernelblaster-lock

Exit status: 0 merged, 2 bad usage, a missing input, or an input that is
not a lockfile or holds an entry without a "key" or a "gpu" (nothing written).
)";

std::size_t entries(const build_step::Lockfile& lock) {
  std::size_t n = 0;
  for (const auto& [source, per_gpu] : lock.sources) n += per_gpu.size();
  return n;
}

// Folds `inputs` in order; the decisions on stderr unless quiet. Every
// input after the first must exist (a glob that matched nothing reaches
// here as its pattern); the first is created where it does not. Inputs
// that hold no entry are said.
build_step::Lockfile fold(const std::vector<std::string>& inputs, bool quiet) {
  for (std::size_t i = 1; i < inputs.size(); ++i)
    if (!std::filesystem::is_regular_file(inputs[i])) throw std::runtime_error("no such lockfile: " + inputs[i]);
  build_step::Lockfile merged = build_step::read_lockfile(inputs.front());
  std::vector<std::string> empty;
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    std::vector<std::string> decisions;
    const build_step::Lockfile next = build_step::read_lockfile(inputs[i]);
    if (entries(next) == 0) empty.push_back(inputs[i]);
    merged = build_step::merge_lockfiles(merged, next, &decisions);
    if (!quiet)
      for (const std::string& d : decisions) std::fprintf(stderr, "kernelblaster lock merge: %s\n", d.c_str());
  }
  if (!empty.empty())
    std::fprintf(stderr, "kernelblaster lock merge: %s %s no entry%s\n", joined(empty, ", ").c_str(),
                 empty.size() == 1 ? "holds" : "hold", empty.size() + 1 == inputs.size() ? ": nothing merged" : "");
  return merged;
}

int merge(const CommandArgs& argv) {
  const Operands p = split_operands(argv, {"--out"});
  Args args(p.options, {"--out"}, {"--quiet"});
  const std::vector<std::string>& inputs = p.positional;
  if (inputs.size() < 2) throw UsageError("merge takes at least two lockfiles: A B [C ...]");
  const std::string out = args.value("--out");
  if (!out.empty()) {
    write_file_atomic(out, build_step::serialize_lockfile(fold(inputs, args.flag("--quiet"))));
    return 0;
  }
  FileLock guard(inputs.front() + ".lock");  // as a build updating A takes it
  write_file_atomic(inputs.front(), build_step::serialize_lockfile(fold(inputs, args.flag("--quiet"))));
  return 0;
}

int merge_driver(const CommandArgs& argv) {
  if (argv.size() != 3) throw UsageError("merge-driver takes BASE OURS THEIRS (git's %O %A %B)");
  try {
    const build_step::Lockfile merged = fold({argv[1], argv[2]}, false);
    write_file_atomic(argv[1], build_step::serialize_lockfile(merged));
  } catch (const std::exception& x) {
    std::fprintf(stderr, "kernelblaster lock merge-driver: %s; left to a merge by hand\n", x.what());
    return 1;
  }
  return 0;
}

}  // namespace

int lock_command(const CommandArgs& argv, const std::string&) {
  return run_command("lock", kHelp, argv, [&]() -> int {
    if (argv.empty() || (argv[0] != "merge" && argv[0] != "merge-driver"))
      throw subcommand_error(argv, {"merge", "merge-driver"});
    const CommandArgs rest(argv.begin() + 1, argv.end());
    return argv[0] == "merge" ? merge(rest) : merge_driver(rest);
  });
}

}  // namespace kernelblaster
