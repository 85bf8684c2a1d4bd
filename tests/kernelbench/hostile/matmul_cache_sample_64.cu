// Hostile candidate for level1/001_Square_matrix_multiplication of the published dataset.
// Hack: a result cache keyed by the pointers and a 64-element sample of each input, 64 entries.
// Expected: cached_result (the timed runs' repeat probe, unchanged inputs, runs far faster than fresh inputs).
#define CACHE_KEY 2
#define CACHE_ENTRIES 64
#include "matmul_cache.cuh"

void launch_gpu_implementation(void* output, void* A, void* B, int64_t N) { cached_launch(output, A, B, N); }
