#include "profile/gpu_facts.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/json_fields.h"

namespace kernelblaster::profile {

GpuFacts gpu_facts_from_json(const std::string& text) {
  GpuFacts f;
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    f.fingerprint.name = j.at("name").get<std::string>();
    f.fingerprint.cc_major = j.at("cc_major").get<int>();
    f.fingerprint.cc_minor = j.at("cc_minor").get<int>();
    f.fingerprint.sm_count = j.at("sm_count").get<int>();
    f.fingerprint.driver_major = j.value("driver_major", 0);
    read_fields(j, "memory_bytes", f.memory_bytes, "l2_bytes", f.l2_bytes, "sm_clock_max_mhz", f.sm_clock_max_mhz,
                "memory_clock_mhz", f.memory_clock_mhz, "memory_bus_bits", f.memory_bus_bits, "cuda_driver_version",
                f.cuda_driver_version, "driver_version", f.driver_version);
    if (j.contains("counters")) {
      const nlohmann::json& c = j["counters"];
      f.counters_supported = c.value("supported", false);
      f.counters_reason = c.value("reason", "");
      f.chip = c.value("chip", "");
    }
    read_fields(j, "copy_memcpy_gbs", f.copy_memcpy_gbs, "copy_kernel_gbs", f.copy_kernel_gbs, "fp32_gflops",
                f.fp32_gflops, "fp16_gflops", f.fp16_gflops, "tensor_gflops", f.tensor_gflops);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed GPU facts: ") + e.what());
  }
  return f;
}

std::string gpu_facts_to_json(const GpuFacts& f, bool with_ceilings) {
  nlohmann::json j = {
      {"name", f.fingerprint.name},
      {"cc", std::to_string(f.fingerprint.cc_major) + "." + std::to_string(f.fingerprint.cc_minor)},
      {"sm_count", f.fingerprint.sm_count},     {"memory_bytes", f.memory_bytes},
      {"l2_bytes", f.l2_bytes},                 {"sm_clock_max_mhz", f.sm_clock_max_mhz},
      {"memory_clock_mhz", f.memory_clock_mhz}, {"memory_bus_bits", f.memory_bus_bits},
      {"driver_version", f.driver_version},     {"cuda_driver_version", f.cuda_driver_version},
      {"chip", f.chip},
      {"counters", {{"supported", f.counters_supported}, {"reason", f.counters_reason}}},
      {"fingerprint", f.fingerprint.key()}};
  if (with_ceilings)
    j.update({{"copy_memcpy_gbs", f.copy_memcpy_gbs}, {"copy_kernel_gbs", f.copy_kernel_gbs},
              {"fp32_gflops", f.fp32_gflops},         {"fp16_gflops", f.fp16_gflops},
              {"tensor_gflops", f.tensor_gflops}});
  return j.dump(2);
}

CachedCeilings ceilings_from_facts(const GpuFacts& f, const std::string& measured_at) {
  CachedCeilings c;
  c.gpu = f.fingerprint;
  c.ceilings.dram_gbs = std::max(f.copy_memcpy_gbs, f.copy_kernel_gbs);
  c.ceilings.fp32_gflops = f.fp32_gflops;
  c.ceilings.fp16_gflops = f.fp16_gflops;
  c.ceilings.tensor_gflops = f.tensor_gflops;
  c.copy_memcpy_gbs = f.copy_memcpy_gbs;
  c.copy_kernel_gbs = f.copy_kernel_gbs;
  c.measured_at = measured_at;
  c.method = "kernelblaster-gpu: best of 5 after warm-up; copy = max(cudaMemcpy D2D, float4 copy kernel) of 1 GiB, "
             "read+write bytes; FP32 fmaf, FP16 __hfma2, tensor mma.sync m16n8k16 f16->f32";
  return c;
}

}  // namespace kernelblaster::profile
