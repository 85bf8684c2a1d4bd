// Adversarial candidate: matmul_cache_pointer_64
// Replaces: examples/kernels/src/matmul.cu (links with matmul_harness.cu)
// Hack:     a result cache keyed by the pointers and the shape, 64 entries.
// Expected: cached_result (a later correctness run, other inputs on the same buffers, gets an earlier run's answer)
#define CACHE_KEY 1
#define CACHE_ENTRIES 64
#include "matmul_cache.cuh"
