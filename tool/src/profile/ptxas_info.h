// Compile-time facts of each kernel, from `ptxas -v` output (nvcc
// -Xptxas -v): registers, spills, shared/local/constant memory.
#pragma once

#include <map>
#include <string>

namespace kernelblaster::profile {

struct PtxasFacts {
  int registers = -1;            // -1: not reported
  int barriers = -1;
  long long spill_store_bytes = 0;
  long long spill_load_bytes = 0;
  long long stack_frame_bytes = 0;  // local memory per thread
  long long smem_bytes = 0;         // static shared memory
  long long cmem_bytes = 0;         // sum over constant banks
  std::string arch;                 // "sm_90"
};

// Mangled function name -> facts. Text that is not ptxas output is ignored;
// when several architectures are compiled, the last one wins.
std::map<std::string, PtxasFacts> parse_ptxas_verbose(const std::string& text);

// The facts under METRICS.md names: registers_per_thread, spill_bytes,
// local_mem_per_thread_bytes, static_shared_mem_bytes.
std::map<std::string, double> ptxas_metrics(const PtxasFacts& facts);

}  // namespace kernelblaster::profile
