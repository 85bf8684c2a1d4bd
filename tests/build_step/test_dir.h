// A scratch directory per test, removed afterwards.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

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

}  // namespace kernelblaster::build_step::testing
