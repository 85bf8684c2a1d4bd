// Hard caps on what the LLM may spend, per kernel and per run, in tokens and
// in dollars. Every request asks first (admit) and is charged after (charge);
// once a cap is reached every further request is refused with cap_reached,
// so the loop stops cleanly with the best result so far. Requests already
// admitted still finish and are charged: a cap can be passed by the requests
// in flight, never by one admitted after it was reached. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "llm/types.h"

namespace kernelblaster::llm {

struct Caps {
  std::int64_t run_tokens = 0;  // 0: no cap
  double run_usd = 0;
  std::int64_t kernel_tokens = 0;
  double kernel_usd = 0;
  bool any_money() const { return run_usd > 0 || kernel_usd > 0; }
};

struct Spent {
  std::int64_t tokens = 0;  // input + output
  double usd = 0;
  int requests = 0;
};

class Budget {
 public:
  explicit Budget(Caps caps) : m_caps(caps) {}
  // Empty when `kernel` may send another request; else the one line saying
  // which cap was reached.
  std::string admit(const std::string& kernel) const;
  void charge(const std::string& kernel, const Usage& usage, double usd);
  Spent run() const;
  Spent kernel(const std::string& kernel) const;
  const Caps& caps() const { return m_caps; }

 private:
  Caps m_caps;
  mutable std::mutex m_mutex;
  Spent m_run;
  std::map<std::string, Spent> m_kernels;
};

}  // namespace kernelblaster::llm
