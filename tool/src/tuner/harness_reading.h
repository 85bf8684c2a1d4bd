// What the tuner reads of a synthesized harness's text (harness/harness_text.h
// writes it): its sizes, each a call the program made, and the dimension
// main() passes to each parameter of a launcher. Launch shapes of replayed
// kernels (replay_shapes.h) and the launches a harness reaches
// (launch_reach.h) are decided from them.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kernelblaster::tuner {

// Every `{{"name", value}, ...}` line of the harness: the dimensions of one size.
std::vector<std::map<std::string, long long>> harness_sizes(const std::string& harness);

// The same with each size's label (`.size("call5", ...)`, `.validation_size("call0", ...)`;
// "" where the line names none).
struct HarnessSize {
  std::string label;
  std::map<std::string, long long> dims;
};
std::vector<HarnessSize> labelled_harness_sizes(const std::string& harness);

// The dimension main()'s first call of `function` passes to each of its
// parameters, in order ("" where an argument is no `c.dim("...")`); empty
// when main() does not call it.
std::vector<std::string> passed_dims(const std::string& harness, const std::string& function);

}  // namespace kernelblaster::tuner
