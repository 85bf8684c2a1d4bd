// The KernelBench driver runtime: what a rewritten KernelBench-CUDA driver
// (driver.cpp + init.cu or a candidate) links from the harness runtime
// library. The driver's own main() becomes one "invocation" the runtime
// calls once per seed; the generated launcher hands every call of the
// kernel source's launcher to on_launch(); the driver's torch::allclose
// becomes a report of what the launcher wrote and what torch computed for
// the same inputs (the oracle). The process then speaks the same protocol
// as a native harness (plan.json in, report.json and dumps out), so the
// tool's judges decide, not the driver.
//
// This header has no torch dependency: the torch side lives in
// kernelbench_driver.h, which the rewritten driver includes first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace kernelblaster::kernelbench {

// Elements in memory as the driver made them.
struct TensorView {
  const void* data = nullptr;
  std::int64_t count = 0;            // elements from `data` to the end of the tensor
  std::string dtype;                 // "f16", "f32", "i64", ...; empty when the type has no name here
  std::vector<std::int64_t> shape;
  std::size_t span_bytes = 0;        // bytes from `data` to the end of the tensor's memory (strides counted)
};

// A range of device memory.
struct DeviceRange {
  const void* data = nullptr;
  std::size_t bytes = 0;
};

// The tolerances of a driver's torch::allclose.
struct AllcloseTolerance {
  double rtol = 1e-05, atol = 1e-08;
  bool equal_nan = false;
};

// What the torch side of a driver gives the runtime.
struct DriverHooks {
  std::function<int()> run_main;                                     // the driver's main(), renamed
  std::function<void(std::uint64_t seed)> begin;                     // seeds torch for one invocation
  std::function<void()> end;                                         // drops the invocation's tensors
  std::function<bool(const void* ptr, TensorView* out)> find_tensor; // the device tensor holding `ptr`
  // Every range of device memory the driver's allocator holds (torch's
  // caching allocator: its segments, used and free), for isolation
  // (Plan::isolate). Empty: the allocator cannot be asked.
  std::function<std::vector<DeviceRange>()> device_memory;
};

// The driver program's main: --describe (no GPU), or --plan FILE --out DIR.
int run_driver_process(int argc, char** argv, const DriverHooks& hooks);

// One call of the launcher, as the generated wrapper passes it.
struct LaunchArgs {
  std::vector<const void*> pointers;       // the pointer parameters, in order
  std::vector<std::string> pointer_names;  // their names in the driver's prototype
  std::vector<std::pair<std::string, std::int64_t>> integers;  // integer parameters: the problem's dimensions
};
void on_launch(const LaunchArgs& args, const std::function<void()>& call);

// The pointers of the invocation's last launcher call (null ones included).
std::vector<const void*> last_launch_pointers();
// The index among those of the pointer that lies in [data, data + bytes), or -1.
int launch_argument_at(const void* data, std::size_t bytes);

// One comparison the driver made. `argument` is the launcher pointer
// argument the compared tensor holds (-1: none could be found, `problem`
// says why); `oracle` is the other side as contiguous host memory in the
// output's shape; `allclose` is what the driver's torch::allclose returned,
// with `tolerance`, which the tool applies itself to a candidate whose
// process never had torch's answer (Plan::isolate).
void on_compare(int argument, const TensorView& oracle, bool allclose, const AllcloseTolerance& tolerance,
                const std::string& text, const std::string& problem);

// Whether this process keeps torch's side of a comparison (the original's
// does; a candidate's oracles are never read, so it skips their copy).
bool oracle_wanted();

// The seed of the running invocation (drivers that seed torch themselves get it instead).
std::uint64_t invocation_seed();

}  // namespace kernelblaster::kernelbench
