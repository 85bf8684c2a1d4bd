// Included first by every KernelBench-CUDA driver that KernelBlaster
// rewrites (tool/src/kernelbench/driver_rewrite.h says what is rewritten):
//   - tensor.data_ptr() becomes kb_track(tensor).data_ptr(): the tensors
//     whose memory the driver hands out are known, so a launcher pointer
//     argument has a type and an extent;
//   - torch::allclose(a, b, ...) becomes kb_allclose("a", "b", a, b, ...):
//     the side that holds the launcher's output, and torch's result on the
//     other side (the oracle), go to the runtime; the driver still gets
//     allclose's own answer;
//   - torch::empty / empty_like make NaN-poisoned tensors, so what a
//     launcher leaves unwritten shows even on the driver's own call;
//   - torch::manual_seed follows the runtime's seed;
//   - main() is renamed kb_driver_main, and the main() appended at the end
//     hands the process to the runtime (kernelbench_runtime.h).
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <torch/torch.h>
#include <c10/cuda/CUDACachingAllocator.h>

#include "kernelblaster/kernelbench_runtime.h"

namespace kb_driver {

namespace rt = kernelblaster::kernelbench;

// The tensors whose memory this invocation of the driver handed out.
inline std::vector<at::Tensor>& tracked() {
  static std::vector<at::Tensor> tensors;
  return tensors;
}

inline const char* dtype_name(at::ScalarType t) {
  switch (t) {
    case at::kHalf: return "f16";
    case at::kBFloat16: return "bf16";
    case at::kFloat: return "f32";
    case at::kDouble: return "f64";
    case at::kChar: return "i8";
    case at::kByte: return "u8";
    case at::kBool: return "u8";
    case at::kShort: return "i16";
    case at::kInt: return "i32";
    case at::kLong: return "i64";
    default: return "";
  }
}

// One past the last byte a tensor's elements occupy, strides counted (a
// strided view reaches past numel() elements).
inline const char* footprint_end(const at::Tensor& t) {
  std::int64_t last = 0;
  for (std::int64_t d = 0; d < t.dim(); ++d)
    if (t.size(d) > 1 && t.stride(d) > 0) last += (t.size(d) - 1) * t.stride(d);
  const char* begin = static_cast<const char*>(t.data_ptr());
  return std::max(begin + t.nbytes(), begin + (last + 1) * static_cast<std::int64_t>(t.element_size()));
}

// The segments torch's caching allocator holds on the device, in use or not:
// what isolation overwrites (outside the launcher's own arguments).
inline std::vector<rt::DeviceRange> allocator_segments() {
  std::vector<rt::DeviceRange> out;
  const auto snap = c10::cuda::CUDACachingAllocator::snapshot();
  for (const auto& seg : snap.segments)
    out.push_back({reinterpret_cast<const void*>(static_cast<std::uintptr_t>(seg.address)),
                   static_cast<std::size_t>(seg.total_size)});
  return out;
}

inline bool find_tensor(const void* ptr, rt::TensorView* out) {
  const char* p = static_cast<const char*>(ptr);
  std::vector<at::Tensor>& ts = tracked();
  for (auto it = ts.rbegin(); it != ts.rend(); ++it) {
    const at::Tensor& t = *it;
    if (!t.defined() || !t.is_cuda() || t.numel() == 0) continue;
    const char* begin = static_cast<const char*>(t.data_ptr());
    const char* end = begin + t.nbytes();
    if (p < begin || p >= end) continue;
    out->data = ptr;
    out->count = static_cast<std::int64_t>((end - p) / static_cast<std::ptrdiff_t>(t.element_size()));
    out->dtype = dtype_name(t.scalar_type());
    out->span_bytes = static_cast<std::size_t>(footprint_end(t) - p);
    if (p == begin) {
      out->shape = t.sizes().vec();
    } else {
      out->shape = {out->count};
    }
    return true;
  }
  return false;
}

// The tensor a launcher pointer argument lies in, if the driver handed it out.
inline const at::Tensor* tensor_at(const void* ptr) {
  const char* p = static_cast<const char*>(ptr);
  std::vector<at::Tensor>& ts = tracked();
  for (auto it = ts.rbegin(); it != ts.rend(); ++it) {
    if (!it->defined() || !it->is_cuda() || it->numel() == 0) continue;
    const char* begin = static_cast<const char*>(it->data_ptr());
    if (p == begin) return &*it;
  }
  return nullptr;
}

inline void seed_torch(std::uint64_t seed) {
  torch::manual_seed(seed);
  if (torch::cuda::is_available()) torch::cuda::manual_seed_all(seed);
}

inline torch::Tensor poison(torch::Tensor t) {
  if (t.is_floating_point() || t.is_complex()) {
    t.fill_(std::numeric_limits<double>::quiet_NaN());
    return t;
  }
  switch (t.scalar_type()) {
    case torch::kBool: t.fill_(true); break;
    case torch::kByte: t.fill_(static_cast<int64_t>(0xA5)); break;
    case torch::kChar: t.fill_(static_cast<int64_t>(static_cast<int8_t>(0xA5))); break;
    case torch::kShort: t.fill_(static_cast<int64_t>(static_cast<int16_t>(0xA5A5))); break;
    case torch::kInt: t.fill_(static_cast<int64_t>(static_cast<int32_t>(0xA5A5A5A5u))); break;
    case torch::kLong: t.fill_(static_cast<int64_t>(0xA5A5A5A5A5A5A5A5ull)); break;
    default: break;
  }
  return t;
}

// Which launcher argument a compared tensor holds: by address, else (a
// converted copy such as output.to(torch::kFloat32)) by equal values.
inline int argument_by_address(const at::Tensor& t) {
  if (!t.defined() || !t.is_cuda() || t.numel() == 0) return -1;
  return rt::launch_argument_at(t.data_ptr(), t.nbytes());
}

inline int argument_by_value(const at::Tensor& t) {
  if (!t.defined() || t.numel() == 0) return -1;
  std::vector<const void*> ptrs = rt::last_launch_pointers();
  int found = -1;
  for (std::size_t i = 0; i < ptrs.size(); ++i) {
    if (!ptrs[i]) continue;
    const at::Tensor* arg = tensor_at(ptrs[i]);
    if (!arg || arg->numel() != t.numel()) continue;
    at::Tensor x = at::nan_to_num(t.detach().reshape({-1}).to(at::kDouble));
    at::Tensor y = at::nan_to_num(arg->detach().reshape({-1}).to(t.device()).to(at::kDouble));
    if (at::equal(x, y)) {
      if (found >= 0) return -1;  // ambiguous
      found = static_cast<int>(i);
    }
  }
  return found;
}

inline bool mentions_reference(const std::string& text) {
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("ref") != std::string::npos || lower.find("expected") != std::string::npos;
}

inline void report_compare(const at::Tensor& a, const at::Tensor& b, const char* a_text, const char* b_text,
                           bool result, const rt::AllcloseTolerance& tol) {
  const std::string text = std::string("torch::allclose(") + a_text + ", " + b_text + ")";
  int ia = argument_by_address(a), ib = argument_by_address(b);
  if (ia >= 0 && ib >= 0) {
    // Both sides are launcher arguments: the name says which is the reference.
    bool ra = mentions_reference(a_text), rb = mentions_reference(b_text);
    if (ra != rb) (ra ? ia : ib) = -1;
  }
  if (ia < 0 && ib < 0) {
    ia = argument_by_value(a);
    ib = argument_by_value(b);
    // Both converted sides equal the same output (the launcher gave exactly
    // torch's answer, as a scalar loss or an argmin often does): either side
    // is torch's value, so the name decides, else the second is the oracle.
    if (ia >= 0 && ia == ib) (mentions_reference(a_text) && !mentions_reference(b_text) ? ia : ib) = -1;
  }
  rt::TensorView oracle_view;
  if ((ia >= 0) == (ib >= 0)) {
    rt::on_compare(-1, oracle_view, result, tol, text,
                   "cannot tell which side of " + text + " holds the launcher's output");
    return;
  }
  if (!rt::oracle_wanted()) {
    rt::on_compare(ia >= 0 ? ia : ib, oracle_view, result, tol, text, "");
    return;
  }
  const at::Tensor& output = ia >= 0 ? a : b;
  at::Tensor oracle = (ia >= 0 ? b : a).detach();
  try {
    if (!oracle.sizes().equals(output.sizes()))
      oracle = oracle.numel() == output.numel() ? oracle.reshape(output.sizes()) : oracle.expand(output.sizes());
    oracle = oracle.contiguous().cpu();
  } catch (const std::exception&) {
    rt::on_compare(-1, oracle_view, result, tol, text, "torch's side of " + text + " does not fit the output's shape");
    return;
  }
  oracle_view.data = oracle.data_ptr();
  oracle_view.count = oracle.numel();
  oracle_view.dtype = dtype_name(oracle.scalar_type());
  oracle_view.shape = oracle.sizes().vec();
  rt::on_compare(ia >= 0 ? ia : ib, oracle_view, result, tol, text, "");
}

inline int call_main(int (*f)()) { return f(); }
inline int call_main(int (*f)(int, char**)) {
  static char name[] = "driver";
  static char* argv[] = {name, nullptr};
  return f(1, argv);
}
inline int call_main(int (*f)(int, const char**)) {
  static const char* argv[] = {"driver", nullptr};
  return f(1, argv);
}

template <class Main>
int process_main(int argc, char** argv, Main driver_main) {
  rt::DriverHooks hooks;
  hooks.run_main = [driver_main] { return call_main(driver_main); };
  hooks.begin = [](std::uint64_t seed) {
    tracked().clear();
    seed_torch(seed);
  };
  hooks.end = [] { tracked().clear(); };
  hooks.find_tensor = find_tensor;
  hooks.device_memory = allocator_segments;
  return rt::run_driver_process(argc, argv, hooks);
}

}  // namespace kb_driver

template <class T>
decltype(auto) kb_track(T&& t) {
  using Plain = std::remove_cv_t<std::remove_reference_t<T>>;
  if constexpr (std::is_base_of_v<at::TensorBase, Plain>) {
    if (t.defined()) kb_driver::tracked().emplace_back(t);
  }
  return std::forward<T>(t);
}

inline bool kb_allclose(const char* a_text, const char* b_text, const at::Tensor& a, const at::Tensor& b,
                        double rtol = 1e-05, double atol = 1e-08, bool equal_nan = false) {
  bool result = at::allclose(a, b, rtol, atol, equal_nan);
  kb_driver::report_compare(a, b, a_text, b_text, result, {rtol, atol, equal_nan});
  return result;
}

inline void kb_manual_seed(std::uint64_t seed) {
  // Every seed the driver picks is mapped through the invocation's own, so
  // each correctness run draws different inputs, reproducibly.
  kb_driver::seed_torch(kernelblaster::kernelbench::invocation_seed() * 1000003u + seed);
}

inline torch::Tensor kb_poisoned_empty(at::IntArrayRef size, const at::TensorOptions& options = {}) {
  return kb_driver::poison(torch::empty(size, options));
}
template <typename MemoryFormat>
inline torch::Tensor kb_poisoned_empty(at::IntArrayRef size, const at::TensorOptions& options, MemoryFormat&& format) {
  return kb_driver::poison(torch::empty(size, options, std::forward<MemoryFormat>(format)));
}

inline torch::Tensor kb_poisoned_empty_like(const torch::Tensor& like, const at::TensorOptions& options = {}) {
  return kb_driver::poison(torch::empty_like(like, options));
}
template <typename MemoryFormat>
inline torch::Tensor kb_poisoned_empty_like(const torch::Tensor& like, const at::TensorOptions& options,
                                            MemoryFormat&& format) {
  return kb_driver::poison(torch::empty_like(like, options, std::forward<MemoryFormat>(format)));
}
