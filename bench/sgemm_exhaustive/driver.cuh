// The exhaustive run's measuring program, included by each generated chunk
// (bench/sgemm_exhaustive/space.py): a table of launchers, one per
// configuration of one SGEMM_CUDA kernel, the author's first.
//
//   CHUNK screen START     from table position START on: each configuration
//                          checked against cuBLAS at 128 and 2048, its
//                          buffers' guards and inputs checked, then timed at
//                          2048 (3 calls back to back after the checked one)
//   CHUNK time I,J,...     the author's and the listed configurations checked
//                          at every size the program runs (128-4096), then
//                          timed at 4096 as the program times (calls back to
//                          back, the L2 warm), in 3 rounds that alternate them
//
// One JSON line per configuration on stdout; before each, {"start": I}, so
// the caller can name a configuration that hangs. A configuration that
// leaves the context unusable (an illegal address, a device assert) is
// reported "crashed" and the program exits 3: the caller starts it again
// after that configuration.
//
// The inputs are the program's: entries k + 0.01 j (k, j in 0..4) with a
// random sign, alpha 0.5, beta 3, the check its own (no element more than
// 0.01 from cuBLAS's). Every buffer has 4 MiB of guard words on each side.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifndef CEIL_DIV
#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))
#endif

namespace exhaustive {

struct Config {
  int index;
  const char* values;
  void (*launch)(int M, int N, int K, float alpha, float* A, float* B, float beta, float* C);
};

constexpr int kMax = 4096;
constexpr size_t kElems = size_t(kMax) * kMax;
constexpr size_t kGuard = (4u << 20) / sizeof(unsigned);
constexpr unsigned kPoison = 0xDEADBEEFu;
constexpr float kAlpha = 0.5f, kBeta = 3.0f;
constexpr int kSizes[] = {128, 256, 512, 1024, 2048, 4096};

__global__ void fill_inputs(float* p, size_t n, unsigned salt) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ salt;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    const float v = float(h % 5) + 0.01f * float((h >> 8) % 5);
    p[i] = (h >> 16) & 1 ? -v : v;
  }
}

__global__ void fill_words(unsigned* p, size_t n, unsigned word) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) p[i] = word;
}

// Counts the elements more than 0.01 from the reference (NaN counts).
__global__ void count_diverging(const float* out, const float* ref, size_t n, unsigned long long* bad) {
  unsigned long long mine = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    if (!(fabsf(out[i] - ref[i]) <= 0.01f)) ++mine;
  if (mine) atomicAdd(bad, mine);
}

__global__ void count_changed(const unsigned* a, const unsigned* b, size_t n, unsigned long long* bad) {
  unsigned long long mine = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    if (a[i] != b[i]) ++mine;
  if (mine) atomicAdd(bad, mine);
}

__global__ void count_not(const unsigned* p, size_t n, unsigned word, unsigned long long* bad) {
  unsigned long long mine = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    if (p[i] != word) ++mine;
  if (mine) atomicAdd(bad, mine);
}

// A buffer of kElems floats with guard words before and after.
struct Guarded {
  unsigned* base = nullptr;
  float* data() const { return reinterpret_cast<float*>(base + kGuard); }
  unsigned* after() const { return base + kGuard + kElems; }
};

class Bench {
 public:
  Bench() {
    for (Guarded* g : {&m_a, &m_b, &m_c}) check(cudaMalloc(&g->base, (kElems + 2 * kGuard) * sizeof(unsigned)), "malloc");
    for (float** p : {&m_a0, &m_b0, &m_c0}) check(cudaMalloc(p, kElems * sizeof(float)), "malloc");
    check(cudaMalloc(&m_counter, sizeof(unsigned long long)), "malloc");
    fill_inputs<<<1024, 256>>>(m_a0, kElems, 0x1234567u);
    fill_inputs<<<1024, 256>>>(m_b0, kElems, 0x89abcdefu);
    fill_inputs<<<1024, 256>>>(m_c0, kElems, 0x2468aceu);
    restore();
    for (int s : kSizes) {
      float* ref = nullptr;
      check(cudaMalloc(&ref, size_t(s) * s * sizeof(float)), "malloc");
      m_refs.push_back(ref);
    }
    if (!read_references()) compute_references();
    check(cudaEventCreate(&m_begin), "event");
    check(cudaEventCreate(&m_end), "event");
  }

  // cuBLAS's results at every size, as the program asks for them (row-major
  // C = alpha A B + beta C), kept in a file ($EXH_REFERENCES, default
  // /dev/shm/sgemm_exhaustive_references_v1) for the programs started after a
  // crash: cublasCreate and six SGEMMs are most of a start's cost.
  void compute_references() {
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) fail("cublasCreate");
    for (size_t k = 0; k < m_refs.size(); ++k) {
      const int s = kSizes[k];
      check(cudaMemcpy(m_refs[k], m_c0, size_t(s) * s * sizeof(float), cudaMemcpyDeviceToDevice), "copy");
      if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, s, s, s, &kAlpha, m_b0, s, m_a0, s, &kBeta, m_refs[k], s) !=
          CUBLAS_STATUS_SUCCESS)
        fail("cublasSgemm");
    }
    check(cudaDeviceSynchronize(), "reference");
    cublasDestroy(handle);
    std::vector<float> host;
    for (size_t k = 0; k < m_refs.size(); ++k) {
      const size_t n = size_t(kSizes[k]) * kSizes[k];
      host.resize(host.size() + n);
      check(cudaMemcpy(host.data() + host.size() - n, m_refs[k], n * sizeof(float), cudaMemcpyDeviceToHost), "copy");
    }
    const std::string path = references_path(), partial = path + ".partial";
    if (FILE* f = std::fopen(partial.c_str(), "wb")) {
      const bool whole = std::fwrite(host.data(), sizeof(float), host.size(), f) == host.size();
      if (std::fclose(f) == 0 && whole) std::rename(partial.c_str(), path.c_str());
    }
  }

  bool read_references() {
    FILE* f = std::fopen(references_path().c_str(), "rb");
    if (!f) return false;
    std::vector<float> host;
    bool whole = true;
    for (size_t k = 0; k < m_refs.size() && whole; ++k) {
      const size_t n = size_t(kSizes[k]) * kSizes[k];
      host.resize(n);
      whole = std::fread(host.data(), sizeof(float), n, f) == n;
      if (whole) check(cudaMemcpy(m_refs[k], host.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy");
    }
    std::fclose(f);
    return whole;
  }

  static std::string references_path() {
    const char* p = std::getenv("EXH_REFERENCES");
    return p && *p ? p : "/dev/shm/sgemm_exhaustive_references_v1";  // inputs and sizes of this file
  }

  // The inputs and guards as they started, C as the program starts it.
  void restore() {
    check(cudaMemcpy(m_a.data(), m_a0, kElems * sizeof(float), cudaMemcpyDeviceToDevice), "copy");
    check(cudaMemcpy(m_b.data(), m_b0, kElems * sizeof(float), cudaMemcpyDeviceToDevice), "copy");
    check(cudaMemcpy(m_c.data(), m_c0, kElems * sizeof(float), cudaMemcpyDeviceToDevice), "copy");
    for (const Guarded* g : {&m_a, &m_b, &m_c}) {
      fill_words<<<256, 256>>>(g->base, kGuard, kPoison);
      fill_words<<<256, 256>>>(g->after(), kGuard, kPoison);
    }
    check(cudaDeviceSynchronize(), "restore");
  }

  // "" when the configuration computes the program's result at size s and
  // writes nothing outside C; else the status and a detail.
  std::string checked_at(const Config& c, int s, std::string* detail) {
    // All of C, not only the s x s result: the check below compares the rest
    // with its start values, and a check or timing before this one at a
    // larger size wrote there (the first H200 run, 2026-11-29, counted that
    // as this configuration's stray writes).
    check(cudaMemcpy(m_c.data(), m_c0, kElems * sizeof(float), cudaMemcpyDeviceToDevice), "copy");
    c.launch(s, s, s, kAlpha, m_a.data(), m_b.data(), kBeta, m_c.data());
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) {
      *detail = cudaGetErrorString(e);
      return "launch_failed";
    }
    if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) crashed(c, e);
    const unsigned long long changed = stray_words(s);
    if (changed) {
      *detail = std::to_string(changed) + " words written outside C's result at size " + std::to_string(s);
      restore();
      return "out_of_bounds";
    }
    reset_counter();
    count_diverging<<<1024, 256>>>(m_c.data(), m_refs[index_of(s)], size_t(s) * s, m_counter);
    const unsigned long long bad = read_counter();
    if (bad) {
      *detail = std::to_string(bad) + " of " + std::to_string(size_t(s) * s) + " elements off cuBLAS at size " +
                std::to_string(s);
      return "wrong_result";
    }
    return "";
  }

  // Mean microseconds a call, `calls` back to back after `warm` untimed ones.
  double time_at(const Config& c, int s, int warm, int calls) {
    for (int i = 0; i < warm; ++i) c.launch(s, s, s, kAlpha, m_a.data(), m_b.data(), kBeta, m_c.data());
    check(cudaEventRecord(m_begin), "event");
    for (int i = 0; i < calls; ++i) c.launch(s, s, s, kAlpha, m_a.data(), m_b.data(), kBeta, m_c.data());
    check(cudaEventRecord(m_end), "event");
    if (cudaError_t e = cudaEventSynchronize(m_end); e != cudaSuccess) crashed(c, e);
    float ms = 0;
    check(cudaEventElapsedTime(&ms, m_begin, m_end), "elapsed");
    return 1000.0 * ms / calls;
  }

 private:
  static void fail(const char* what) {
    std::printf("{\"fatal\": \"%s\"}\n", what);
    std::exit(2);
  }
  static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
      std::printf("{\"fatal\": \"%s: %s\"}\n", what, cudaGetErrorString(e));
      std::exit(2);
    }
  }
  [[noreturn]] static void crashed(const Config& c, cudaError_t e) {
    std::printf("{\"i\": %d, \"values\": \"%s\", \"status\": \"crashed\", \"detail\": \"%s\"}\n", c.index, c.values,
                cudaGetErrorString(e));
    std::fflush(stdout);
    std::exit(3);
  }
  static int index_of(int s) {
    for (int i = 0; i < int(sizeof kSizes / sizeof kSizes[0]); ++i)
      if (kSizes[i] == s) return i;
    return 0;
  }
  void reset_counter() { check(cudaMemset(m_counter, 0, sizeof(unsigned long long)), "memset"); }
  unsigned long long read_counter() {
    unsigned long long n = 0;
    check(cudaMemcpy(&n, m_counter, sizeof n, cudaMemcpyDeviceToHost), "copy");
    return n;
  }
  static unsigned* words(float* p) { return reinterpret_cast<unsigned*>(p); }

  // Words written outside C's s x s result: the guards, A and B against
  // their pristine copies, and C beyond the result against its start values.
  // The counting kernels add into one counter, read once.
  unsigned long long stray_words(int s) {
    reset_counter();
    for (const Guarded* g : {&m_a, &m_b, &m_c}) {
      count_not<<<256, 256>>>(g->base, kGuard, kPoison, m_counter);
      count_not<<<256, 256>>>(g->after(), kGuard, kPoison, m_counter);
    }
    count_changed<<<1024, 256>>>(words(m_a.data()), words(m_a0), kElems, m_counter);
    count_changed<<<1024, 256>>>(words(m_b.data()), words(m_b0), kElems, m_counter);
    const size_t used = size_t(s) * s;
    if (used < kElems)
      count_changed<<<1024, 256>>>(words(m_c.data()) + used, words(m_c0) + used, kElems - used, m_counter);
    return read_counter();
  }

  Guarded m_a, m_b, m_c;
  float *m_a0 = nullptr, *m_b0 = nullptr, *m_c0 = nullptr;
  std::vector<float*> m_refs;
  unsigned long long* m_counter = nullptr;
  cudaEvent_t m_begin{}, m_end{};
};

inline void say_start(const Config& c) {
  std::printf("{\"start\": %d}\n", c.index);
  std::fflush(stdout);
}

inline void say_result(const Config& c, const std::string& status, const std::string& detail, const char* key,
                       double us) {
  std::printf("{\"i\": %d, \"values\": \"%s\", \"status\": \"%s\", \"detail\": \"%s\", \"%s\": %.3f}\n", c.index,
              c.values, status.c_str(), detail.c_str(), key, us);
  std::fflush(stdout);
}

inline void screen(Bench& bench, const Config* table, int n, int start) {
  for (int p = start; p < n; ++p) {
    const Config& c = table[p];
    say_start(c);
    std::string detail;
    std::string status = bench.checked_at(c, 128, &detail);
    if (status.empty()) status = bench.checked_at(c, 2048, &detail);
    const double us = status.empty() ? bench.time_at(c, 2048, 0, 3) : 0.0;
    say_result(c, status.empty() ? "ok" : status, detail, "us2048", us);
  }
}

inline void time_listed(Bench& bench, const Config* table, int n, const std::vector<int>& wanted) {
  std::vector<const Config*> ok;
  for (int p = 0; p < n; ++p) {
    const Config& c = table[p];
    if (c.index != 0 && std::find(wanted.begin(), wanted.end(), c.index) == wanted.end()) continue;
    say_start(c);
    std::string status, detail;
    for (int s : kSizes)
      if (status.empty()) status = bench.checked_at(c, s, &detail);
    if (status.empty())
      ok.push_back(&c);
    else
      say_result(c, status, detail, "us4096", 0.0);
  }
  constexpr int kRounds = 3;
  std::vector<std::vector<double>> us(ok.size());
  for (int r = 0; r < kRounds; ++r)
    for (size_t k = 0; k < ok.size(); ++k) us[k].push_back(bench.time_at(*ok[k], 4096, 2, 20));
  for (size_t k = 0; k < ok.size(); ++k) {
    std::sort(us[k].begin(), us[k].end());
    say_result(*ok[k], "ok", "", "us4096", us[k][kRounds / 2]);
  }
}

inline int run(int argc, char** argv, int kernel, const Config* table, int n) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s screen START | time I,J,...  (kernel %d, %d configurations)\n", argv[0], kernel, n);
    return 2;
  }
  Bench bench;
  if (std::strcmp(argv[1], "screen") == 0) {
    screen(bench, table, n, std::atoi(argv[2]));
    return 0;
  }
  std::vector<int> wanted;
  for (const char* p = argv[2]; *p;) {
    wanted.push_back(std::atoi(p));
    while (*p && *p != ',') ++p;
    if (*p == ',') ++p;
  }
  time_listed(bench, table, n, wanted);
  return 0;
}

}  // namespace exhaustive
