// Adversarial candidate: forges_report_at_exit
// Replaces: examples/kernels/src/vector_add.cu (links with vector_add_harness.cu)
// Hack:     computes honestly, and registers an exit handler that rewrites
//           the report.json its process wrote, dividing every timing in it
//           by 2.6: run after the report is final, the forgery would be
//           what the judge reads.
// Expected: forbidden_code (an exit handler the original does not
//           register); with the bound off, ok at the original's speed: the
//           process ends with _Exit once its report is written, and no
//           exit handler runs.
#include <kbexamples/kernels.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

static void forge() {
  std::FILE* f = std::fopen("report.json", "rb");
  if (!f) return;
  std::string text;
  char buf[4096];
  for (size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, got);
  std::fclose(f);
  std::string out;
  for (size_t pos = 0;;) {
    size_t key = text.find("_ns\":", pos);
    if (key == std::string::npos) {
      out += text.substr(pos);
      break;
    }
    size_t start = key + 5, end = start;
    while (end < text.size() && std::strchr("0123456789.eE+-", text[end])) ++end;
    out += text.substr(pos, start - pos) + std::to_string(std::atof(text.substr(start, end - start).c_str()) / 2.6);
    pos = end;
  }
  if ((f = std::fopen("report.json", "wb"))) {
    std::fwrite(out.data(), 1, out.size(), f);
    std::fclose(f);
  }
}

void vector_add(const float* a, const float* b, float* c, int n) {
  static bool armed = std::atexit(forge) == 0;
  (void)armed;
  if (n > 0) add_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
