// The native harness API: a small program that tells KernelBlaster how to
// call a kernel's host launcher with realistic inputs.
//
//   #include <kernelblaster/harness.h>
//   void softmax_rows(const float* x, float* y, int rows, int cols);
//
//   int main(int argc, char** argv) {
//     using namespace kernelblaster;
//     Harness h("softmax");
//     h.size("small", {{"rows", 1024}, {"cols", 1000}})
//      .size("large", {{"rows", 8192}, {"cols", 4096}})
//      .input("x", DType::f32, {"rows", "cols"}, Distribution::normal(0, 3))
//      .output("y", DType::f32, {"rows", "cols"})
//      .launch([](Call& c) {
//        softmax_rows(c.in<float>("x"), c.out<float>("y"), c.dim("rows"), c.dim("cols"));
//      });
//     return h.main(argc, argv);
//   }
//
// The runtime owns everything else: seeded input generation on the GPU,
// NaN-poisoning of outputs before every run, input checksums, output dumps,
// device-wide timing, and the per-GPU lock. The program is driven by the
// `kernelblaster` tool through a plan file (see tool/src/runtime/spec.h); run
// by hand it checks itself once and prints a summary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dtype.h"

namespace kernelblaster {

// How input values are drawn. Every draw is a pure function of
// (seed, buffer name, element index), so inputs are reproducible across
// processes and builds.
struct Distribution {
  enum class Kind { uniform, normal, integers, constant };
  Kind kind = Kind::normal;
  double a = 0.0;  // uniform: low, normal: mean, integers: low, constant: value
  double b = 1.0;  // uniform: high, normal: stddev, integers: high (inclusive)

  static Distribution uniform(double low = -1.0, double high = 1.0) { return {Kind::uniform, low, high}; }
  static Distribution normal(double mean = 0.0, double stddev = 1.0) { return {Kind::normal, mean, stddev}; }
  static Distribution integers(double low, double high) { return {Kind::integers, low, high}; }
  static Distribution constant(double value) { return {Kind::constant, value, value}; }
};

// Tolerance of one output. A negative field means "the dtype's default".
// An element passes when |out - ref| <= atol * scale + rtol * |ref|, where
// scale is the RMS of the reference output (so atol is relative to the
// output's typical magnitude); the whole output also needs
// ||out - ref|| / ||ref|| <= rel_l2.
struct Tolerance {
  double rel_l2 = -1.0;
  double atol = -1.0;
  double rtol = -1.0;
  static Tolerance exact() { return {0.0, 0.0, 0.0}; }
};

// One extent of a shape: either a named dimension of the problem size or a
// literal number.
class Dim {
 public:
  Dim(const char* name) : m_name(name) {}
  Dim(std::string name) : m_name(std::move(name)) {}
  Dim(int value) : m_value(value) {}
  Dim(long value) : m_value(value) {}
  Dim(long long value) : m_value(value) {}
  bool is_named() const { return !m_name.empty(); }
  const std::string& name() const { return m_name; }
  std::int64_t value() const { return m_value; }

 private:
  std::string m_name;
  std::int64_t m_value = 0;
};
using Shape = std::vector<Dim>;

// A problem size: named dimensions, e.g. {{"rows", 4096}, {"cols", 1024}}.
using Dims = std::map<std::string, std::int64_t>;

// What the launch function sees for one run: device pointers and dimensions.
class Call {
 public:
  virtual ~Call() = default;
  template <class T>
  const T* in(const std::string& name) const {
    return static_cast<const T*>(pointer(name, sizeof(T), false));
  }
  template <class T>
  T* out(const std::string& name) const {
    return static_cast<T*>(pointer(name, sizeof(T), true));
  }
  virtual std::int64_t dim(const std::string& name) const = 0;
  virtual std::int64_t count(const std::string& buffer) const = 0;  // elements
  virtual const std::string& size_label() const = 0;

 protected:
  virtual void* pointer(const std::string& name, std::size_t element_size, bool writable) const = 0;
};

using LaunchFn = std::function<void(Call&)>;

class Harness {
 public:
  explicit Harness(std::string name);
  ~Harness();
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  // A problem size to check (and time). Declare at least one.
  Harness& size(std::string label, Dims dims);
  // A size used only when re-verifying an implausible speedup: checked, never timed.
  Harness& validation_size(std::string label, Dims dims);

  Harness& input(std::string name, DType dtype, Shape shape, Distribution dist = Distribution::normal());
  Harness& output(std::string name, DType dtype, Shape shape, Tolerance tol = {});
  // Read and written by the kernel: generated like an input, compared like an output.
  Harness& inout(std::string name, DType dtype, Shape shape, Distribution dist = Distribution::normal(),
                 Tolerance tol = {});
  // Device memory the launcher may use freely: neither generated nor compared.
  Harness& workspace(std::string name, DType dtype, Shape shape);

  Harness& launch(LaunchFn fn);
  // Optional work counts per run, used for roofline positions in reports.
  Harness& flops(std::function<double(const Dims&)> fn);
  Harness& bytes(std::function<double(const Dims&)> fn);

  // Runs the harness as the tool asks (or a self-check when run by hand).
  // Returns the process exit code.
  int main(int argc, char** argv);

  struct Spec;  // the declaration, shared with the runtime

 private:
  std::unique_ptr<Spec> m_spec;
};

// The address a kernel is launched by (its host stub), found by its mangled
// name in this program's own symbol table, kernels of internal linkage and
// template instantiations included; nullptr when there is none. A
// synthesized kernel-level harness passes it to cudaLaunchKernel.
const void* kernel_symbol(const char* mangled_name);

}  // namespace kernelblaster
