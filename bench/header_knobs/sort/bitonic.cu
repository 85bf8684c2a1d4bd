#include "sort_common.h"
__global__ void sort_shared(unsigned* keys, unsigned length) {
  __shared__ unsigned s[SHARED_SIZE_LIMIT];
  unsigned base = blockIdx.x * SHARED_SIZE_LIMIT;
  s[threadIdx.x] = keys[base + threadIdx.x];
  s[threadIdx.x + SHARED_SIZE_LIMIT / 2] = keys[base + threadIdx.x + SHARED_SIZE_LIMIT / 2];
  __syncthreads();
  for (unsigned size = 2; size <= SHARED_SIZE_LIMIT; size <<= 1) {
    __syncthreads();
  }
  keys[base + threadIdx.x] = s[threadIdx.x];
  keys[base + threadIdx.x + SHARED_SIZE_LIMIT / 2] = s[threadIdx.x + SHARED_SIZE_LIMIT / 2];
}
__global__ void merge_global(unsigned* keys, unsigned length, unsigned stride) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned j = i ^ stride;
  if (j > i && keys[i] > keys[j]) { unsigned t = keys[i]; keys[i] = keys[j]; keys[j] = t; }
}
unsigned bitonic_sort(unsigned* keys, unsigned batch, unsigned length) {
  unsigned blocks = batch * length / SHARED_SIZE_LIMIT;
  unsigned threads = SHARED_SIZE_LIMIT / 2;
  sort_shared<<<blocks, threads>>>(keys, length);
  for (unsigned stride = length / 2; stride > 0; stride >>= 1)
    merge_global<<<(batch * length) / 512, 256>>>(keys, length, stride);
  return threads;
}
