// The build without libclang: `harness init` says so in one line.
#include "harness/launcher_scan.h"

namespace kernelblaster::harness {

bool have_parser() { return false; }

SourceScan scan_source(const std::string&, const ScanOptions&) {
  throw ScanError("this kernelblaster was built without libclang (install libclang-dev and reconfigure)");
}

}  // namespace kernelblaster::harness
