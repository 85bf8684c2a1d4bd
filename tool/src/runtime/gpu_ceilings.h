// Measured peaks of the current GPU, for the roofline: device-to-device copy
// bandwidth (cudaMemcpy and a copy kernel, the better of the two) and FP32,
// FP16 (half2) and tensor-core (mma.sync f16 -> f32) FMA throughput. Each is
// the best of a few timed repetitions after a warm-up.
#pragma once

namespace kernelblaster {

struct MeasuredCeilings {
  double copy_memcpy_gbs = 0;  // (read + written bytes) / s / 1e9
  double copy_kernel_gbs = 0;
  double fp32_gflops = 0;
  double fp16_gflops = 0;
  double tensor_gflops = 0;    // 0 where the architecture has no mma.sync (below sm_80)
};

// Throws std::runtime_error on a CUDA failure.
MeasuredCeilings measure_ceilings(int device);

}  // namespace kernelblaster
