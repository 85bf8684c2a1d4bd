#include "profile/ceilings_cache.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/file_util.h"

namespace kernelblaster::profile {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GpuFingerprint, name, cc_major, cc_minor, sm_count, driver_major)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Ceilings, dram_gbs, fp32_gflops, fp16_gflops, tensor_gflops)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CachedCeilings, gpu, ceilings, measured_at, method, copy_memcpy_gbs,
                                                copy_kernel_gbs)

std::string GpuFingerprint::key() const {
  std::string k;
  for (char ch : name) {
    unsigned char c = static_cast<unsigned char>(ch);
    k += std::isalnum(c) ? static_cast<char>(std::tolower(c)) : '-';
  }
  if (k.empty()) k = "gpu";
  return k + "-sm" + std::to_string(cc_major) + std::to_string(cc_minor) + "-" + std::to_string(sm_count) + "sm-drv" +
         std::to_string(driver_major);
}

std::string default_cache_dir() {
  if (const char* d = std::getenv("KERNELBLASTER_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/kernelblaster";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/kernelblaster";
}

std::string CeilingsCache::path_for(const GpuFingerprint& gpu) const {
  return m_dir + "/ceilings/" + gpu.key() + ".json";
}

std::optional<CachedCeilings> CeilingsCache::load(const GpuFingerprint& gpu) const {
  std::string path = path_for(gpu);
  if (!std::filesystem::exists(path)) return std::nullopt;
  CachedCeilings c;
  try {
    c = ceilings_from_json(read_file(path));
  } catch (const std::exception& x) {
    throw std::runtime_error(path + ": " + x.what());
  }
  if (c.gpu.key() != gpu.key()) throw std::runtime_error(path + ": holds ceilings of " + c.gpu.key());
  return c;
}

void CeilingsCache::store(const CachedCeilings& entry) const {
  std::string path = path_for(entry.gpu);
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  write_file_atomic(path, ceilings_to_json(entry));
}

std::string ceilings_to_json(const CachedCeilings& c) { return nlohmann::json(c).dump(2); }

std::string ceilings_report_json(const CachedCeilings& c, bool cached, const std::string& path) {
  nlohmann::json j = c;
  j["cached"] = cached;
  j["path"] = path;
  j["fingerprint"] = c.gpu.key();
  return j.dump(2);
}

CachedCeilings ceilings_from_json(const std::string& text) {
  try {
    CachedCeilings c = nlohmann::json::parse(text).get<CachedCeilings>();
    const Ceilings& v = c.ceilings;
    if (v.dram_gbs < 0 || v.fp32_gflops < 0 || v.fp16_gflops < 0 || v.tensor_gflops < 0)
      throw std::runtime_error("negative ceiling");
    return c;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed ceilings: ") + e.what());
  }
}

}  // namespace kernelblaster::profile
