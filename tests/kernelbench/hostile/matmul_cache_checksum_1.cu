// Hostile candidate for level1/001_Square_matrix_multiplication of the published dataset.
// Hack: a result cache keyed by a checksum over every byte of both inputs, 1 entry.
// Expected: cached_result (the repeat probe runs far faster than fresh inputs).
#define CACHE_KEY 3
#define CACHE_ENTRIES 1
#include "matmul_cache.cuh"

void launch_gpu_implementation(void* output, void* A, void* B, int64_t N) { cached_launch(output, A, B, N); }
