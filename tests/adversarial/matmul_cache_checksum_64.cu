// Adversarial candidate: matmul_cache_checksum_64
// Replaces: examples/kernels/src/matmul.cu (links with matmul_harness.cu)
// Hack:     a result cache keyed by the shape and a checksum over every byte of both inputs, 64 entries.
// Expected: cached_result (the repeat probe runs far faster than fresh inputs)
#define CACHE_KEY 3
#define CACHE_ENTRIES 64
#include "matmul_cache.cuh"
