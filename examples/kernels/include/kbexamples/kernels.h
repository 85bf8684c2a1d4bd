// Host launchers for the example kernels.
//
// Every launcher takes device pointers, launches on the legacy default stream
// and returns without synchronizing, the way most first versions are written.
// Sizes are element counts, not bytes.
#pragma once

#include <cuda_fp16.h>

// c[i] = a[i] + b[i] for i in [0, n).
void vector_add(const float* a, const float* b, float* c, int n);

// Row-wise softmax of a row-major rows x cols matrix.
void softmax_rows(const float* x, float* y, int rows, int cols);

// y[r][c] = x[r][c] / sqrt(mean_c(x[r][:]^2) + eps) * weight[c], fp16 storage
// with fp32 accumulation.
void rmsnorm(const __half* x, const __half* weight, __half* y, int rows, int cols, float eps);

// out (cols x rows) = transpose of in (rows x cols), both row-major.
void transpose(const float* in, float* out, int rows, int cols);

// C (M x N) = A (M x K) * B (K x N), all row-major fp32.
void matmul(const float* A, const float* B, float* C, int M, int N, int K);
