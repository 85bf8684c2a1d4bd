// A driver shaped like many in the published set, with one habit that leaves
// torch's answer in memory it freed: two staging copies of the reference are
// made and dropped before the output is allocated. torch's caching allocator
// keeps their memory and hands one of the blocks to torch::empty_like, so
// the output starts out holding the answer, and the other copy lies next to
// it, free (KernelBench PR #82's "torch.empty picks up the reference's freed
// memory"). The candidates beside it use both.
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
    {
        torch::Tensor staged = ref_output.clone();
        torch::Tensor staged_again = ref_output.clone();
    }
    torch::Tensor output = torch::empty_like(ref_output);
    launch_gpu_implementation(output.data_ptr(), x.data_ptr(), batch_size, dim);

    bool is_close = torch::allclose(output, ref_output, /*rtol=*/1e-2, /*atol=*/1e-2);
    std::cout << (is_close ? "passed" : "failed") << std::endl;
    return 0;
}
