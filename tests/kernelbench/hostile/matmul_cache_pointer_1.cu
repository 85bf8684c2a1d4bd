// Hostile candidate for level1/001_Square_matrix_multiplication of the published dataset.
// Hack: a result cache keyed by the launcher's pointers (output, A, B), 1 entry.
// Expected: cached_result (a later correctness run, other inputs on the same buffers, gets an earlier run's answer).
#define CACHE_KEY 1
#define CACHE_ENTRIES 1
#include "matmul_cache.cuh"

void launch_gpu_implementation(void* output, void* A, void* B, int64_t N) { cached_launch(output, A, B, N); }
