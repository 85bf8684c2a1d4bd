#include <torch/torch.h>
#include <iostream>
#include "cuda_model.cuh"

void launch_gpu_implementation(void* output,
                               const void* input,
                               const void* weight,
                               int64_t batch_size,
                               int64_t dim);

int main() {
    torch::Device device(torch::kCUDA);
    torch::Dtype dtype = torch::kFloat32;
    int64_t batch_size = 256;
    int64_t dim = 8192;
    double eps = 1e-6;

    torch::Tensor x = torch::randn({batch_size, dim}, torch::TensorOptions().dtype(dtype).device(device));
    torch::Tensor weight = torch::randn({dim}, torch::TensorOptions().dtype(dtype).device(device));
    torch::Tensor ref_output = x * torch::rsqrt(x.pow(2).mean(-1, /*keepdim=*/true) + eps) * weight;

    torch::Tensor output = torch::empty_like(x);
    launch_gpu_implementation(output.data_ptr(), x.data_ptr(), weight.data_ptr(), batch_size, dim);

    bool is_close = torch::allclose(output, ref_output, /*rtol=*/1e-4, /*atol=*/1e-4);
    if (is_close) {
        std::cout << "passed" << std::endl;
    } else {
        std::cout << "failed" << std::endl;
    }
    return 0;
}
