// What a Lua policy returns from select(), accept() and stop(): the input is
// the returned expression, run in the sandbox on a context the tuner builds.
#include "fuzz_check.h"
#include "policy/lua_policy.h"
#include "tuner/sample_contexts.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<kernelblaster::tuner::SampleContext> contexts = kernelblaster::tuner::sample_contexts(1);
  kernelblaster::fuzz::expect_one_line(data, size, [](const std::string& ret) {
    using namespace kernelblaster::policy;
    SandboxLimits limits;
    limits.instructions = 200'000;
    limits.seconds = 0.5;
    limits.memory_bytes = 4u << 20;
    std::string script = "function select(ctx)\nreturn " + ret + "\nend\nfunction accept(ctx, r)\nreturn " + ret +
                         "\nend\nfunction stop(ctx)\nreturn " + ret + "\nend\n";
    auto policy = load_lua_policy("fuzz", script, limits);
    const Context& ctx = contexts.front().ctx;
    try {
      policy->select(ctx);
    } catch (const std::exception& x) {
      std::string what = x.what();
      if (what.empty() || what.find('\n') != std::string::npos) throw;  // reported by expect_one_line
    }
    try {
      policy->accept(ctx, kernelblaster::tuner::sample_result(ctx, ""));
    } catch (const std::exception& x) {
      std::string what = x.what();
      if (what.empty() || what.find('\n') != std::string::npos) throw;
    }
    policy->stop(ctx);
  });
  return 0;
}
