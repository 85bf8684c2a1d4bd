// What the build step of a source with no harness compiles (the CMake
// module's capture, issue 13): once the project's own runs have recorded
// calls of the source's launchers, a harness synthesized from them (and the
// source is tuned like any other); until then, the recording shim, which
// calls the original and appends each new call shape to the lines file.
#pragma once

#include <string>
#include <vector>

namespace kernelblaster::harness {

struct CaptureStep {
  std::string source;   // the original
  std::string harness;  // where the synthesized harness is written
  std::string lines;    // the recorded-calls file the shim appends to
  // The shim's name under KERNELBLASTER_CAPTURE_DIR ("<target>/<stem>": `lines`
  // is that file); empty: it records only where KERNELBLASTER_CAPTURE_FILE is set.
  std::string name;
  std::string kernel_records;  // the kernel recorder's directory (tool/src/recorder); empty: none
  std::string runtime_dir;  // where kernelblaster/capture.h is written for the shim
  std::vector<std::string> include_dirs, definitions;  // the target's, for reading the source
  bool dry_run = false;     // decide, write nothing
  bool on_request = false;  // only the CAPTURE_TESTS record (said in the note); the shim records wherever
                            // KERNELBLASTER_CAPTURE_FILE is set, and nowhere else
};

struct CaptureOutcome {
  enum class State { harness_ready, recording, unavailable };
  State state = State::unavailable;
  std::string note;  // harness_ready: how the harness came to be; recording: whose calls; unavailable: why
  std::string shim_text;                 // recording; empty: the original is compiled as it is (the
                                         // kernel recorder records its kernels' launches)
  std::vector<std::string> shim_flags;   // recording: nvcc flags the shim needs
  // recording: what the user must do for a harness to come, where the
  // build's usual "run the tests, the next build synthesizes" would not be
  // true (the calls recorded so far cannot give one); empty otherwise.
  std::string next;
  // harness_ready: what a tuning would change that the harness never runs
  // (a tuning changes the whole file: flags, macros), so the build does not
  // tune the source unless told to. The file's kernels that no launcher
  // the harness calls reaches ("kernel"), or, where the scan could not tell
  // which launcher reaches which kernel, the launchers ("launcher").
  std::vector<std::string> unverified;
  std::string unverified_kind;
  std::vector<std::string> launchers_replayed;  // harness_ready: the recorded launchers the harness calls
  std::string unverified_why;  // e.g. "invert was never called while calls were recorded"
};

CaptureOutcome prepare_capture_step(const CaptureStep& step);

// Where a source's harness says which of its launchers must not be replayed
// (refuse_launchers): beside the synthesized harness.
std::string refused_launchers_path(const std::string& harness);
// The original failed under the synthesized harness that calls `launchers`
// (`why`: the tuner's reason): the next synthesis replays their kernels'
// recorded launches instead, until the source changes. Best effort.
void refuse_launchers(const CaptureStep& step, const std::vector<std::string>& launchers, const std::string& why);

}  // namespace kernelblaster::harness
