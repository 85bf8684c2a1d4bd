// The shim's own bookkeeping on the host when nothing records: what a call
// of a shimmed launcher adds before and after the original, without a GPU
// (every CUDA call it could make is skipped when nothing records).
//   nvcc -O3 -I tool/include -o host_only bench/shim_cost/host_only.cu && ./host_only
#include <kernelblaster/capture.h>
#include <chrono>
#include <cstdio>
__attribute__((noinline)) void shimmed_call(float* y, const float* x, float a, int n) {
  kernelblaster::capture::Call kb_call("/src/scale.cu", R"KB({"name":"scale","params":[]})KB", "lib/scale");
  kb_call.buffer(y, 4);
  kb_call.buffer(x, 4);
  kb_call.value(static_cast<double>(a));
  kb_call.value(static_cast<long long>(n));
  kb_call.begin();
  kb_call.finish();
}
int main() {
  const int calls = 10000000;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) shimmed_call(nullptr, nullptr, 2.0f, i);
  double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / calls;
  std::printf("shim bookkeeping, nothing recording: %.2f ns per call\n", ns);
}
