#include "llm/budget.h"

#include "common/text.h"

namespace kernelblaster::llm {

namespace {
std::string money(double usd) { return "$" + fixed_point(usd, 4); }
}  // namespace

std::string Budget::admit(const std::string& kernel) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_caps.run_tokens > 0 && m_run.tokens >= m_caps.run_tokens)
    return "LLM token cap of the run reached (" + std::to_string(m_run.tokens) + " of " +
           std::to_string(m_caps.run_tokens) + ")";
  if (m_caps.run_usd > 0 && m_run.usd >= m_caps.run_usd)
    return "LLM money cap of the run reached (" + money(m_run.usd) + " of " + money(m_caps.run_usd) + ")";
  auto it = m_kernels.find(kernel);
  Spent k = it == m_kernels.end() ? Spent{} : it->second;
  if (m_caps.kernel_tokens > 0 && k.tokens >= m_caps.kernel_tokens)
    return "LLM token cap of kernel '" + kernel + "' reached (" + std::to_string(k.tokens) + " of " +
           std::to_string(m_caps.kernel_tokens) + ")";
  if (m_caps.kernel_usd > 0 && k.usd >= m_caps.kernel_usd)
    return "LLM money cap of kernel '" + kernel + "' reached (" + money(k.usd) + " of " + money(m_caps.kernel_usd) + ")";
  return {};
}

void Budget::charge(const std::string& kernel, const Usage& usage, double usd) {
  std::lock_guard<std::mutex> lock(m_mutex);
  for (Spent* s : {&m_run, &m_kernels[kernel]}) {
    s->tokens += usage.total();
    s->usd += usd;
    s->requests += 1;
  }
}

Spent Budget::run() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_run;
}

Spent Budget::kernel(const std::string& kernel) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto it = m_kernels.find(kernel);
  return it == m_kernels.end() ? Spent{} : it->second;
}

}  // namespace kernelblaster::llm
