// Every subcommand of `kernelblaster`. Each takes the arguments after its
// name and the tool's own path, and returns the process exit code:
// 0 success, 1 a negative verdict (rejected, invalid, slower), 2 bad usage or
// environment (one line on stderr), 77 no GPU where one is needed.
#pragma once

#include <string>
#include <vector>

namespace kernelblaster {

using CommandArgs = std::vector<std::string>;

int eval_command(const CommandArgs& args, const std::string& self_exe);    // eval_command.cc
int tune_command(const CommandArgs& args, const std::string& self_exe);    // tune_command.cc
int kb_command(const CommandArgs& args, const std::string& self_exe);      // kb_command.cc
int policy_command(const CommandArgs& args, const std::string& self_exe);  // policy_command.cc
int policy_replay_command(const CommandArgs& args, const std::string& self_exe);  // policy_replay_command.cc
int gpu_command(const CommandArgs& args, const std::string& self_exe);     // gpu_command.cc
int build_command(const CommandArgs& args, const std::string& self_exe);   // build_command.cc
int gate_command(const CommandArgs& args, const std::string& self_exe);    // gate_command.cc
int stats_command(const CommandArgs& args, const std::string& self_exe);   // stats_command.cc
int harness_command(const CommandArgs& args, const std::string& self_exe); // harness_command.cc
int capture_command(const CommandArgs& args, const std::string& self_exe); // capture_command.cc
int optimize_command(const CommandArgs& args, const std::string& self_exe); // optimize_command.cc
int llm_command(const CommandArgs& args, const std::string& self_exe);     // llm_command.cc
int report_command(const CommandArgs& args, const std::string& self_exe);  // report_command.cc
int lock_command(const CommandArgs& args, const std::string& self_exe);    // lock_command.cc

}  // namespace kernelblaster
