#include "build_step/gpu_memo.h"

#include <cstdlib>
#include <exception>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "build_step/result_json.h"
#include "common/sha256.h"
#include "common/file_util.h"

namespace kernelblaster::build_step {

namespace fs = std::filesystem;

std::string gpu_memo_key(const std::string& boot_id, const std::string& visible_devices, int device) {
  if (boot_id.empty()) return "";
  Sha256 h;
  h.field(boot_id);
  h.field(visible_devices);
  h.field(std::to_string(device));
  return h.hex().substr(0, 32);
}

std::optional<GpuFingerprint> probe_gpu_remembered(const std::string& memo_dir, int device, std::string* why_not,
                                                   const GpuProber& probe, const std::string& boot_id_path) {
  std::string key;
  try {
    std::string boot_id = read_file(boot_id_path);
    while (!boot_id.empty() && (boot_id.back() == '\n' || boot_id.back() == ' ')) boot_id.pop_back();
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    key = gpu_memo_key(boot_id, visible ? std::string("=") + visible : std::string("unset"), device);
  } catch (const std::exception&) {
    key.clear();  // no boot id: nothing to key a memo on, so the GPU is probed each time
  }
  const std::string path = memo_dir.empty() || key.empty() ? "" : (fs::path(memo_dir) / ("gpu-" + key + ".json")).string();
  if (!path.empty()) {
    try {
      GpuFingerprint fp = gpu_from_json(nlohmann::json::parse(read_file(path)));
      if (!fp.empty()) return fp;
    } catch (const std::exception&) {
      // Missing or unreadable: probe again.
    }
  }
  std::optional<GpuFingerprint> fp = probe(device, why_not);
  if (fp && !path.empty()) {
    try {
      std::error_code ec;
      fs::create_directories(memo_dir, ec);
      write_file_atomic(path, gpu_to_json(*fp).dump() + "\n");
    } catch (const std::exception&) {
      // Not remembered: the next step probes again.
    }
  }
  return fp;
}

}  // namespace kernelblaster::build_step
