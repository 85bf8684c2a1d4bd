#include <torch/torch.h>
#include <iostream>
#include "cuda_model.cuh"

void launch_gpu_implementation(void* output, void* input, int64_t batch_size, int64_t dim);

int main() {
    torch::Device device(torch::kCUDA);
    torch::Dtype dtype = torch::kFloat16;
    int64_t batch_size = 16;
    int64_t dim = 16384;

    torch::Tensor x = torch::randn({batch_size, dim}, torch::TensorOptions().dtype(dtype).device(device));
    torch::Tensor ref_output = torch::relu(x);

    torch::Tensor output = torch::empty_like(ref_output);
    launch_gpu_implementation(output.data_ptr(), x.data_ptr(), batch_size, dim);

    bool is_close = torch::allclose(output, ref_output, /*rtol=*/1e-2, /*atol=*/1e-2);
    if (is_close) {
        std::cout << "passed" << std::endl;
    } else {
        std::cout << "failed" << std::endl;
    }
    return 0;
}
