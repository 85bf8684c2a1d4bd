// A scratch directory per test, removed afterwards.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "build_step/gpu_fingerprint.h"
#include "build_step/tuned_result.h"

namespace kernelblaster::build_step::testing {

class TestDir {
 public:
  TestDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kb-cache-test-XXXXXX").string();
    m_path = ::mkdtemp(tmpl.data()) ? tmpl : "";
  }
  ~TestDir() { std::filesystem::remove_all(m_path); }
  std::string path(const std::string& rel = "") const { return rel.empty() ? m_path : m_path + "/" + rel; }
  std::string write(const std::string& rel, const std::string& text) const {
    std::filesystem::create_directories(std::filesystem::path(path(rel)).parent_path());
    std::ofstream(path(rel)) << text;
    return path(rel);
  }

 private:
  std::string m_path;
};

inline GpuFingerprint h200() { return {"NVIDIA H200", 9, 0, 132, 13}; }

// A kept result of a tuning run on the H200: `key`, one setting, `speedup`.
inline TunedResult tuned_on_h200(const std::string& key, const std::string& source,
                                 std::pair<std::string, std::string> define, double speedup) {
  TunedResult r;
  r.key = key;
  r.source = source;
  r.improved = true;
  r.defines = {std::move(define)};
  r.speedup = speedup;
  r.gpu = h200();
  r.measured_at = "2026-11-28T00:00:00Z";
  return r;
}

}  // namespace kernelblaster::build_step::testing
