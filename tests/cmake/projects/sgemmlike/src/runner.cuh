#pragma once
#include <cublas_v2.h>
#include <fstream>

void print_matrix(const float* A, int M, int N, std::ofstream& fs);
void runCublasFP32(cublasHandle_t handle, int M, int N, int K, float alpha, float* A, float* B, float beta, float* C);
void run_sgemm_naive(int M, int N, int K, float alpha, float* A, float* B, float beta, float* C);
void run_sgemm_tiled(int M, int N, int K, float alpha, float* A, float* B, float beta, float* C);
void run_kernel(int kernel_num, int M, int N, int K, float alpha, float* A, float* B, float beta, float* C,
                cublasHandle_t handle);
