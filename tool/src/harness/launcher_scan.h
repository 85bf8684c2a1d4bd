// The host launchers of a CUDA source, read with libclang (Debian's
// libclang-14-dev): function definitions in the file itself that are not
// __global__ or __device__, have external linkage, are not templates, take
// at least one pointer and launch a kernel, themselves or through the
// file's host functions (a helper that prints a matrix is no launcher).
// Nothing has to compile; CUDA headers come from the toolkit (`cuda_include`).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "harness/launcher.h"

namespace kernelblaster::harness {

class ScanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ScanOptions {
  std::vector<std::string> include_dirs;
  std::vector<std::string> definitions;  // NAME or NAME=VALUE
  std::string cuda_include = default_cuda_include();  // the toolkit's include directory
};

struct SourceScan {
  std::vector<Launcher> launchers;
  // Pointer parameters of the file's __global__ kernels: {name, DType name}.
  // They give the element type of a launcher's `void *` of the same name.
  std::vector<std::pair<std::string, std::string>> kernel_pointers;
  // The file defines main(): a program, never taken for a launcher.
  bool defines_main = false;
  // The kernels the file's host functions launch (main() and templates
  // included), in the order first seen; empty when no launch was found, and
  // then `launchers` holds every candidate.
  std::vector<std::string> kernels;
  // The file defines a __global__ function (a template included).
  bool defines_kernels = false;
  // The kernels compiled into this file: __global__ definitions (templates
  // included) in it or in a header it includes that is not the toolkit's or
  // the system's, in the order first seen. A tuning of the file changes them.
  std::vector<std::string> defined_kernels;
  // Candidates left out because they launch no kernel.
  std::vector<std::string> helpers;
  // What libclang could not read in the project's own files (an include it
  // did not find, a type it does not know), "file:line: message", at most
  // three; a type it could not resolve reads as int in `launchers`.
  std::vector<std::string> unread;
};

// Whether this build has libclang (without it, scan_source throws).
bool have_parser();

// Throws ScanError for a file libclang cannot read at all.
SourceScan scan_source(const std::string& path, const ScanOptions& opt);

// Fills `element` of every void * buffer that a kernel parameter of the
// same name, or failing that the kernels' only element type, decides.
void infer_void_elements(SourceScan& scan);

}  // namespace kernelblaster::harness
