// Adversarial candidate: matmul_cache_sample_4
// Replaces: examples/kernels/src/matmul.cu (links with matmul_harness.cu)
// Hack:     a result cache keyed by the pointers, the shape and a 64-element sample of each input, 4 entries.
// Expected: cached_result (the timed runs' repeat probe, unchanged inputs, runs far faster than fresh inputs)
#define CACHE_KEY 2
#define CACHE_ENTRIES 4
#include "matmul_cache.cuh"
