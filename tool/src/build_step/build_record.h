// What one build step decided and what the CTest gates said of it, kept in
// the build tree so that `kernelblaster report BUILD_DIR` can say per source
// what was compiled and why without running anything again.
//   <out>.stamp                  the build step's record (its stamp file)
//   <out>.gate-correctness.json  the correctness gate's last verdict
//   <out>.gate-speed.json        the speed gate's last verdict
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "build_step/build_step.h"
#include "build_step/tuned_result.h"

namespace kernelblaster::build_step {

inline constexpr int kBuildRecordVersion = 1;

struct BuildRecord {
  std::string target;            // the CMake target (from the manifest)
  std::string source, out;       // the original and the source the target compiles
  BuildAction action = BuildAction::original;
  BuildCause cause = BuildCause::no_gpu;
  ResultOrigin origin = ResultOrigin::none;
  std::string key, selector, line;
  std::string decided_at;        // ISO 8601, UTC
  std::string lockfile, cache_dir;
  bool stale_lockfile = false;
  std::string remote;            // the remote storage's URL where the result came from there
  std::string refused_entry;     // why a cached, locked or served entry was refused ("" none)
  std::optional<TunedResult> result;
};

std::string build_record_text(const BuildRequest& req, const BuildReport& rep);
// The record in `text` (a stamp's content); nullopt with `why` set for
// anything else, an older tool's plain stamp included. Never throws.
std::optional<BuildRecord> parse_build_record(const std::string& text, const std::string& where, std::string* why);

// Every build step's record in a build tree (each source's last decision:
// <tree>/.../kernelblaster_generated/<target>/<source>.stamp), in path
// order; a record's empty target is its directory's name. What is not a
// record (an older tool's plain stamp) is said in `unreadable`.
std::vector<BuildRecord> build_tree_records(const std::string& tree, std::vector<std::string>* unreadable);

struct GateRecord {
  std::string check;    // "correctness" or "speed"
  int exit_code = 0;    // 0 pass, 1 fail, 77 skipped, 2 could not run
  std::string verdict;  // the gate's own line, after the source's name
  double speedup = 0;   // speed: the speedup it judged (0: none)
  std::string device, judged_at;
  std::string judged_sha256;  // of the tuned source it judged
};

// Where the gate of `check` keeps its verdict for the compiled source `out`.
std::string gate_record_path(const std::string& out, const std::string& check);
std::string gate_record_text(const GateRecord& g);
std::optional<GateRecord> parse_gate_record(const std::string& text);  // never throws

}  // namespace kernelblaster::build_step
