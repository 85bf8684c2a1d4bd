// The text of kernelblaster/capture.h, the recording shim's runtime, built
// into the tool: a build step that compiles a shim writes it into the build
// tree, so that neither an installed tool nor a source checkout has to be
// found at compile time.
#pragma once

namespace kernelblaster::harness {

const char* capture_runtime_header();

}  // namespace kernelblaster::harness
