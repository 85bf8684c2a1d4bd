// Where a kernel sits under the roofline of the GPU it ran on: achieved
// bandwidth and FLOP rate from the harness's declared work and the measured
// duration, against the ceilings measured once per GPU (gpu ceilings).
#pragma once

#include <map>
#include <string>

namespace kernelblaster::profile {

// Measured peaks of one GPU. Zero: not measured.
struct Ceilings {
  double dram_gbs = 0;        // device-to-device copy: bytes read + written per second / 1e9
  double fp32_gflops = 0;     // FMA = 2 FLOP
  double fp16_gflops = 0;     // half2 FMA = 4 FLOP
  double tensor_gflops = 0;   // fp16 inputs, fp32 accumulate (mma.sync)
};

// `flops` and `bytes` are the declared work of one call (negative: not
// declared); `duration_us` the time of that work. `uses_tensor_cores` picks
// the tensor ceiling as the compute bound (else FP32).
// Returns achieved_bandwidth_gbs, achieved_gflops, arithmetic_intensity,
// bandwidth_pct_of_peak, flops_pct_of_peak, roofline_bound_pct (the bound that
// applies at this intensity: min(compute peak, intensity x bandwidth)), each
// only where its inputs exist.
std::map<std::string, double> roofline_position(double flops, double bytes, double duration_us,
                                                const Ceilings& ceilings, bool uses_tensor_cores);

}  // namespace kernelblaster::profile
