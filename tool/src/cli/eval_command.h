// `kernelblaster eval`: judge one candidate against the original source.
#pragma once

#include <string>
#include <vector>

namespace kernelblaster {

// Exit codes: 0 accepted, 1 rejected (the result says why), 2 bad usage or
// environment, 77 no GPU here.
int eval_command(const std::vector<std::string>& args, const std::string& self_exe);

}  // namespace kernelblaster
