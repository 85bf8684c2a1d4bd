#include <torch/torch.h>
#include <iostream>
#include "cuda_model.cuh"

void launch_gpu_implementation(void* output, void* a, void* b, int64_t M, int64_t N, int64_t K);

int main() {
    torch::Device device(torch::kCUDA);
    torch::Dtype dtype = torch::kFloat16;
    int64_t M = 1024;
    int64_t N = 1024;
    int64_t K = 1024;

    torch::Tensor a = torch::randn({M, K}, torch::TensorOptions().dtype(dtype).device(device));
    torch::Tensor b = torch::randn({K, N}, torch::TensorOptions().dtype(dtype).device(device));
    // fp32 accumulation, rounded to fp16 once at the end.
    torch::Tensor ref_output = torch::matmul(a.to(torch::kFloat32), b.to(torch::kFloat32)).to(dtype);

    torch::Tensor output = torch::empty({M, N}, torch::TensorOptions().dtype(dtype).device(device));
    launch_gpu_implementation(output.data_ptr(), a.data_ptr(), b.data_ptr(), M, N, K);

    bool is_close = torch::allclose(output, ref_output, /*rtol=*/1e-2, /*atol=*/1e-2);
    if (is_close) {
        std::cout << "passed" << std::endl;
    } else {
        std::cout << "failed" << std::endl;
    }
    return 0;
}
