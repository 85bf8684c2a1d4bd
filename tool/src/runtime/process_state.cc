#include "runtime/process_state.h"

#include <signal.h>
#include <string.h>

#include <fstream>
#include <iterator>

extern char** environ;

namespace kernelblaster {
namespace {

void add_entry(const std::string& entry, Environment* env) {
  const std::size_t eq = entry.find('=');
  if (eq == std::string::npos || eq == 0) return;
  env->emplace(entry.substr(0, eq), entry.substr(eq + 1));
}

std::string signal_name(int sig) {
  const char* name = sigabbrev_np(sig);
  return name ? std::string("SIG") + name : "signal " + std::to_string(sig);
}

}  // namespace

Environment initial_environment() {
  Environment env;
  std::ifstream in("/proc/self/environ", std::ios::binary);
  const std::string block((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (std::size_t start = 0; start < block.size();) {
    std::size_t end = block.find('\0', start);
    if (end == std::string::npos) end = block.size();
    add_entry(block.substr(start, end - start), &env);
    start = end + 1;
  }
  return env;
}

Environment current_environment() {
  Environment env;
  for (char** e = environ; e && *e; ++e) add_entry(*e, &env);
  return env;
}

std::map<int, std::uintptr_t> signal_handlers() {
  std::map<int, std::uintptr_t> out;
  for (int sig = 1; sig < SIGRTMIN; ++sig) {
    struct sigaction sa {};
    if (sig == SIGKILL || sig == SIGSTOP || ::sigaction(sig, nullptr, &sa) != 0) continue;
    out[sig] = (sa.sa_flags & SA_SIGINFO) ? reinterpret_cast<std::uintptr_t>(sa.sa_sigaction)
                                          : reinterpret_cast<std::uintptr_t>(sa.sa_handler);
  }
  return out;
}

std::vector<std::string> environment_changes(const Environment& before, const Environment& after) {
  std::vector<std::string> out;
  for (const auto& [name, value] : after) {
    auto it = before.find(name);
    if (it == before.end()) out.push_back(name + " set in its environment");
    else if (it->second != value) out.push_back(name + " changed in its environment");
  }
  for (const auto& [name, value] : before)
    if (!after.count(name)) out.push_back(name + " removed from its environment");
  return out;
}

std::vector<std::string> handler_changes(const std::map<int, std::uintptr_t>& before,
                                         const std::map<int, std::uintptr_t>& after) {
  std::vector<std::string> out;
  for (const auto& [sig, handler] : after) {
    auto it = before.find(sig);
    if (it != before.end() && it->second != handler) out.push_back("its handler of " + signal_name(sig) + " replaced");
  }
  return out;
}

ProcessWatch::ProcessWatch() : m_started_with(initial_environment()), m_handlers(signal_handlers()) {}

void ProcessWatch::arm() { m_handlers = signal_handlers(); }

std::vector<std::string> ProcessWatch::changes() const {
  std::vector<std::string> out;
  // Without /proc, nothing to compare the environment with.
  if (!m_started_with.empty()) out = environment_changes(m_started_with, current_environment());
  for (std::string& c : handler_changes(m_handlers, signal_handlers())) out.push_back(std::move(c));
  return out;
}

}  // namespace kernelblaster
