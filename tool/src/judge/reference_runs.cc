#include "judge/reference_runs.h"

#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

namespace kernelblaster {

ReferenceRun::~ReferenceRun() {
  std::error_code ec;  // a directory already gone (the scratch root removed) is no fault
  if (remove_dir && !out_dir.empty()) fs::remove_all(out_dir, ec);
}

ReferenceRuns::ReferenceRuns(std::string dir, double reuse_s) : m_dir(std::move(dir)), m_reuse_s(reuse_s) {
  fs::create_directories(m_dir);
  m_dir = fs::absolute(m_dir).lexically_normal().string();
}

std::string ReferenceRuns::new_run_dir() {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_dir + "/run-" + std::to_string(m_next++);
}

namespace {

std::string key(const std::string& binary, const std::string& plan_json) { return binary + '\n' + plan_json; }

}  // namespace

bool ReferenceRuns::stale(const Entry& e, std::chrono::steady_clock::time_point now) const {
  return std::chrono::duration<double>(now - e.taken).count() > m_reuse_s;
}

std::shared_ptr<const ReferenceRun> ReferenceRuns::find(const std::string& binary, const std::string& plan_json) {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto it = m_entries.find(key(binary, plan_json));
  if (it == m_entries.end()) return nullptr;
  if (stale(it->second, std::chrono::steady_clock::now())) {
    m_entries.erase(it);  // its directory goes with the last evaluation still reading it
    return nullptr;
  }
  return it->second.run;
}

void ReferenceRuns::keep(const std::string& binary, const std::string& plan_json,
                         std::shared_ptr<const ReferenceRun> run) {
  std::lock_guard<std::mutex> lock(m_mutex);
  const auto now = std::chrono::steady_clock::now();
  // Runs past their window go now, with their dumps (hundreds of MB for a large output).
  std::erase_if(m_entries, [&](const auto& e) { return stale(e.second, now); });
  m_entries[key(binary, plan_json)] = {std::move(run), now};
  ++m_kept;
}

int ReferenceRuns::runs_kept() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_kept;
}

std::optional<HarnessReport> ReferenceRuns::description(const std::string& binary) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto it = m_descriptions.find(binary);
  if (it == m_descriptions.end()) return std::nullopt;
  return it->second;
}

void ReferenceRuns::keep_description(const std::string& binary, const HarnessReport& declared) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_descriptions[binary] = declared;
}

}  // namespace kernelblaster
