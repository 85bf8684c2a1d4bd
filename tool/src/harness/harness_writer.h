// A native harness drafted from a launcher's signature (`harness init`):
// ready to compile, with every guess it had to make marked `CONFIRM` in the
// text and listed in `confirm`.
//
// What it decides: integers are problem dimensions; pointers to const are
// inputs and other pointers outputs (a `void *` is an output when its name
// says so, out/output/dst/result/y/c, else the first `void *` when no other
// buffer is written); element types from the pointer's type, else a kernel
// parameter of the same name (launcher_scan.h), else f32; every buffer has
// the shape of all dimensions in order, except A {M,K}, B {K,N} and C {M,N}
// when the dimensions are M, N and K. Sizes: a small and a large one, and an
// odd validation size; floats are 1.0, bools false, streams the default one.
#pragma once

#include <string>
#include <vector>

#include "harness/launcher.h"

namespace kernelblaster::harness {

struct HarnessDraft {
  std::string file_name;             // "<stem>_harness.cu", or "<stem>_<launcher>_harness.cu" beside others
  std::string text;
  std::vector<std::string> confirm;  // one line per guess the user must check
};

// `source_stem`: the kernel source's file name without extension; `only`:
// whether this is the source's only launcher (then the file pairs with the
// source by name, as kernelblaster_optimize() looks for it).
// `unread`: what libclang could not read in the source (SourceScan::unread);
// then the draft does not claim to compile as it is, and each line is a
// CONFIRM of its own.
HarnessDraft draft_harness(const Launcher& launcher, const std::string& source_name, const std::string& source_stem,
                           bool only, const std::vector<std::string>& unread = {});

// One harness for every launcher of a source, "<stem>_harness.cu", which
// kernelblaster_optimize() pairs with the source as it is: each launcher's
// dimensions and buffers are prefixed with its name ("first_n"), and the
// launch calls each in turn, so every kernel a tuning changes runs.
HarnessDraft draft_harness(const std::vector<Launcher>& launchers, const std::string& source_name,
                           const std::string& source_stem, const std::vector<std::string>& unread = {});

}  // namespace kernelblaster::harness
