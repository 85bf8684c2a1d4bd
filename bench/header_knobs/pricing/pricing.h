#pragma once
#define THREADS 128
__global__ void __launch_bounds__(THREADS) price_kernel(float* call, float* put, const float* s, const float* x, int n);
