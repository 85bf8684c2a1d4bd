// Adversarial candidate: cupti_on_copy
// Replaces: examples/kernels/src/vector_add.cu (links with vector_add_harness.cu)
// Hack:     subscribes a CUPTI callback to the runtime's memory copies and
//           computes only when the harness reads an output back: the timed
//           calls launch nothing.
// Expected: forbidden_code (its object calls CUPTI).
#include <kbexamples/kernels.h>

#include <cuda_runtime.h>
#include <cupti.h>

__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

static const float *last_a, *last_b;
static float* last_c;
static int last_n;

static void CUPTIAPI on_copy(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* info) {
  const CUpti_CallbackData* data = static_cast<const CUpti_CallbackData*>(info);
  if (data->callbackSite == CUPTI_API_ENTER && last_n > 0) {
    add_kernel<<<(last_n + 255) / 256, 256>>>(last_a, last_b, last_c, last_n);
    last_n = 0;
  }
}

void vector_add(const float* a, const float* b, float* c, int n) {
  static CUpti_SubscriberHandle subscriber;
  static bool subscribed = cuptiSubscribe(&subscriber, on_copy, nullptr) == CUPTI_SUCCESS &&
                           cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                                               CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020) == CUPTI_SUCCESS;
  (void)subscribed;
  last_a = a;
  last_b = b;
  last_c = c;
  last_n = n;
}
