// Helpers shared by the KB tests: scratch directories and small KBs.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/file_util.h"
#include "kb/knowledge_base.h"

namespace kernelblaster::kb::testing {

// A fresh directory under /tmp, removed when the object goes away.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = "/tmp/kb-test-XXXXXX";
    if (!::mkdtemp(tmpl.data())) std::abort();
    m_path = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  std::string file(const std::string& name) const { return m_path + "/" + name; }
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

inline Outcome outcome(const std::string& state, const std::string& technique, double speedup, bool verified = true) {
  Outcome o;
  o.state = state;
  o.technique = technique;
  o.arch = "sm_90";
  o.verified = verified;
  o.speedup = speedup;
  return o;
}

}  // namespace kernelblaster::kb::testing
