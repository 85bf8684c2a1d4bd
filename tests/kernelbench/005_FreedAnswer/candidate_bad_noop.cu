// expected status: cached_result (it writes nothing, on buffers an earlier call got: without the runtime's
// poison the output would hold the answer torch freed there)
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdint>

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim) {
    (void)output;
    (void)input;
    (void)batch_size;
    (void)dim;
}
